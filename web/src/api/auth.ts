import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { User } from '../../../src/api.js';
import { api, isApiError } from './client.js';

export const meKey = ['me'] as const;
const setupKey = ['auth', 'setup'] as const;

export function useSetupStatus() {
  return useQuery({
    queryKey: setupKey,
    queryFn: ({ signal }) => api<{ required: boolean }>('GET', '/auth/setup', { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The signed-in user, or null when nobody is signed in. */
export function useMe() {
  return useQuery({
    queryKey: meKey,
    queryFn: async ({ signal }) => {
      try {
        return await api<User>('GET', '/users/@me', { signal });
      } catch (e) {
        if (isApiError(e, 401)) return null;
        throw e;
      }
    },
    staleTime: 5 * 60_000,
  });
}

export interface SetupInput {
  token: string;
  email: string;
  password: string;
}

export function useSetupOwner() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SetupInput) => api<User>('POST', '/auth/setup', { body: input }),
    onSuccess: (user) => {
      queryClient.setQueryData(setupKey, { required: false });
      queryClient.setQueryData(meKey, user);
    },
  });
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; password: string }) => api<User>('POST', '/auth/login', { body: input }),
    onSuccess: (user) => queryClient.setQueryData(meKey, user),
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<void>('POST', '/auth/logout'),
    onSettled: () => {
      // Nobody is signed in now; what the previous user's pages loaded must not outlive them.
      queryClient.setQueryData(meKey, null);
      queryClient.removeQueries({
        predicate: (query) => query.queryKey[0] !== meKey[0] && query.queryKey !== setupKey,
      });
    },
  });
}
