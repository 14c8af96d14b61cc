import { useQuery } from '@tanstack/react-query';
import { api } from './client.js';

/** Every name the project has events of: for filters, pickers and the Events page. */
export function useEventNames(projectId: string) {
  return useQuery({
    queryKey: ['events', projectId, 'names'],
    queryFn: ({ signal }) => api<{ names: string[] }>('GET', '/events/names', { projectId, signal }),
    staleTime: 60_000,
  });
}
