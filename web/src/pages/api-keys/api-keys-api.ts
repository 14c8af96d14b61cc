import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiKey } from '../../../../src/api.js';
import type { Scope } from '../../../../src/domain/api-keys.js';
import { api } from '../../api/client.js';

/** A key as created or rotated: with its secret, shown this once. */
export type KeyWithSecret = ApiKey & { key: string };

const keysKey = (projectId: string) => ['api-keys', projectId] as const;
const path = (id: string) => `/api-keys/${encodeURIComponent(id)}`;

export function useApiKeys(projectId: string, enabled: boolean) {
  return useQuery({
    queryKey: keysKey(projectId),
    queryFn: ({ signal }) => api<ApiKey[]>('GET', '/api-keys', { projectId, signal }),
    enabled,
  });
}

export function useScopes(projectId: string) {
  return useQuery({
    queryKey: ['api-key-scopes'],
    queryFn: ({ signal }) =>
      api<{ scope: Scope; description: string }[]>('GET', '/api-keys/scopes', { projectId, signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Every change answers with the key as it now is; the list is asked again. */
function useKeyChange<V, R>(projectId: string, request: (v: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(projectId) }),
  });
}

export interface KeyInput {
  name: string;
  scopes: Scope[];
  expiresAt: string | null;
}

export const useCreateKey = (projectId: string) =>
  useKeyChange(projectId, (body: KeyInput) => api<KeyWithSecret>('POST', '/api-keys', { projectId, body }));

export const useRotateKey = (projectId: string) =>
  useKeyChange(projectId, ({ id, overlapMinutes }: { id: string; overlapMinutes: number }) =>
    api<KeyWithSecret>('POST', `${path(id)}/rotate`, { projectId, body: { overlapMinutes } }),
  );

export const useRevokeKey = (projectId: string) =>
  useKeyChange(projectId, (id: string) => api<void>('DELETE', path(id), { projectId }));
