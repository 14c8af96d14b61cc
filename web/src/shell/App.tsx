import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router-dom';
import { meKey } from '../api/auth.js';
import { setUnauthenticatedHandler } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { AuthGate } from './AuthGate.js';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // A 4xx answer will not change by asking again; network and server faults may.
      retry: (failures, error) =>
        failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
    },
  },
});

// An ended session anywhere shows the sign-in page, and the URL is kept to come back to.
setUnauthenticatedHandler(() => {
  queryClient.setQueryData(meKey, null);
});

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/app">
        <AuthGate />
      </BrowserRouter>
    </QueryClientProvider>
  );
}
