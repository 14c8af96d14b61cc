import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Enrolment, RecoveryCodes, TwoFactorStatus, UserSession } from '../../../src/api.js';
import { meKey } from './auth.js';
import { api } from './client.js';

/** The signed-in user's two-factor sign-in, sessions and password (docs/operations.md). */

const twoFactorKey = ['two-factor'] as const;
const sessionsKey = ['sessions'] as const;

export function useTwoFactorStatus() {
  return useQuery({
    queryKey: twoFactorKey,
    queryFn: ({ signal }) => api<TwoFactorStatus>('GET', '/users/@me/two-factor', { signal }),
  });
}

export function useBeginEnrolment() {
  return useMutation({ mutationFn: () => api<Enrolment>('POST', '/users/@me/two-factor') });
}

/** After any change to the second factor: its status, the user, and what their projects now let in. */
function useTwoFactorChanged() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: twoFactorKey }),
      queryClient.invalidateQueries({ queryKey: sessionsKey }),
    ]);
}

export function useConfirmEnrolment() {
  const changed = useTwoFactorChanged();
  return useMutation({
    mutationFn: (code: string) => api<RecoveryCodes>('POST', '/users/@me/two-factor/confirm', { body: { code } }),
    onSuccess: changed,
  });
}

/** The user is updated once the recovery codes have been seen (it would replace the page showing them). */
export function useRefreshMe() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: meKey });
}

export function useDisableTwoFactor() {
  const changed = useTwoFactorChanged();
  const refreshMe = useRefreshMe();
  return useMutation({
    mutationFn: (code: string) => api<void>('POST', '/users/@me/two-factor/disable', { body: { code } }),
    onSuccess: () => Promise.all([changed(), refreshMe()]),
  });
}

export function useNewRecoveryCodes() {
  const changed = useTwoFactorChanged();
  return useMutation({
    mutationFn: (code: string) =>
      api<RecoveryCodes>('POST', '/users/@me/two-factor/recovery-codes', { body: { code } }),
    onSuccess: changed,
  });
}

export function useSessions() {
  return useQuery({
    queryKey: sessionsKey,
    queryFn: ({ signal }) => api<UserSession[]>('GET', '/users/@me/sessions', { signal }),
  });
}

export function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', `/users/@me/sessions/${encodeURIComponent(id)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionsKey }),
  });
}

export function useChangePassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) =>
      api<{ endedSessions: number }>('POST', '/users/@me/password', { body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionsKey }),
  });
}

/** An owner signs a member out of every session. */
export function useEndMemberSessions(projectId: string) {
  return useMutation({
    mutationFn: (userId: string) =>
      api<{ ended: number }>(
        'DELETE',
        `/projects/${encodeURIComponent(projectId)}/members/${encodeURIComponent(userId)}/sessions`,
      ),
  });
}
