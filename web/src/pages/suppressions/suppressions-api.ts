import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Suppression } from '../../../../src/api.js';
import { api, isApiError } from '../../api/client.js';
import type { NumberedPage } from '../../api/templates.js';

const suppressionsKey = (projectId: string) => ['suppressions', projectId] as const;
const path = (email: string) => `/suppressions/${encodeURIComponent(email)}`;

/** One numbered page of the project's suppressed addresses, newest first. */
export function useSuppressionsPage(projectId: string, query: Record<string, string | number>) {
  return useQuery({
    queryKey: [...suppressionsKey(projectId), 'page', query],
    queryFn: ({ signal }) => api<NumberedPage<Suppression>>('GET', '/suppressions', { projectId, signal, query }),
    placeholderData: keepPreviousData,
  });
}

/** One address looked up (404: not on the list); nothing is asked while `email` is empty. */
export function useSuppression(projectId: string, email: string) {
  return useQuery({
    queryKey: [...suppressionsKey(projectId), 'one', email],
    queryFn: ({ signal }) => api<Suppression>('GET', path(email), { projectId, signal }),
    enabled: email !== '',
    retry: false,
  });
}

/** The address is on the list already: the API would keep its first entry and say nothing of it. */
export class AlreadySuppressed extends Error {
  constructor(readonly existing: Suppression) {
    super(`${existing.email} is already on the suppression list`);
  }
}

/**
 * POST /suppressions answers 200 with the old entry for an address already listed, and the
 * dashboard's client sees only bodies: the address is looked up first, so the form can say so.
 */
export function useAddSuppression(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { email: string; detail?: string }) => {
      const existing = await api<Suppression>('GET', path(body.email), { projectId }).catch((error: unknown) => {
        if (isApiError(error, 404)) return null;
        throw error;
      });
      if (existing) throw new AlreadySuppressed(existing);
      return api<Suppression>('POST', '/suppressions', { projectId, body });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: suppressionsKey(projectId) }),
  });
}

export function useRemoveSuppression(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => api<void>('DELETE', path(email), { projectId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: suppressionsKey(projectId) }),
  });
}
