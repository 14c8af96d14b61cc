import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreatedInvite, Invite, InvitePreview, Member, Role, WithdrawnInvites } from '../../../src/api.js';
import { api, isApiError } from './client.js';

const membersKey = (projectId: string) => ['members', projectId] as const;
const invitesKey = (projectId: string) => ['invites', projectId] as const;
const projectsKey = ['projects'] as const;
const base = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`;

/**
 * A refusal for the role means the page showed something the user may no longer do (their role
 * changed meanwhile): the projects are read again, so the page shows what the role now allows.
 */
function useRoleRefresh() {
  const queryClient = useQueryClient();
  return (error: unknown) => {
    if (isApiError(error, 403) || isApiError(error, 404)) void queryClient.invalidateQueries({ queryKey: projectsKey });
  };
}

export function useMembers(projectId: string) {
  return useQuery({
    queryKey: membersKey(projectId),
    queryFn: ({ signal }) => api<Member[]>('GET', `${base(projectId)}/members`, { signal }),
  });
}

export function usePendingInvites(projectId: string, enabled: boolean) {
  return useQuery({
    queryKey: invitesKey(projectId),
    queryFn: ({ signal }) => api<Invite[]>('GET', `${base(projectId)}/invites`, { signal }),
    enabled,
  });
}

export function useCreateInvite(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; role: Role; sendFrom?: string }) =>
      api<CreatedInvite>('POST', `${base(projectId)}/invites`, { body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: invitesKey(projectId) }),
    onError: useRoleRefresh(),
  });
}

export function useRevokeInvite(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', `${base(projectId)}/invites/${encodeURIComponent(id)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: invitesKey(projectId) }),
    onError: useRoleRefresh(),
  });
}

export function useChangeRole(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) =>
      api<Member & WithdrawnInvites>('PATCH', `${base(projectId)}/members/${encodeURIComponent(userId)}`, {
        body: { role },
      }),
    // One's own role may be the one that changed; invitations the member made may have been withdrawn.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: membersKey(projectId) }),
        queryClient.invalidateQueries({ queryKey: invitesKey(projectId) }),
        queryClient.invalidateQueries({ queryKey: projectsKey }),
      ]),
    onError: useRoleRefresh(),
  });
}

/** Removes a member, or the user themselves (leaving the project). */
export function useRemoveMember(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) =>
      api<WithdrawnInvites>('DELETE', `${base(projectId)}/members/${encodeURIComponent(userId)}`),
    // The invitations the member made are withdrawn with them.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: membersKey(projectId) }),
        queryClient.invalidateQueries({ queryKey: invitesKey(projectId) }),
      ]),
    onError: useRoleRefresh(),
  });
}

export function useInvitePreview(token: string) {
  return useQuery({
    queryKey: ['invite', token],
    queryFn: ({ signal }) => api<InvitePreview>('GET', `/invites/${encodeURIComponent(token)}`, { signal }),
  });
}

/** Accepts as the signed-in user, or with a password, creating the invited address's account. */
export function useAcceptInvite(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (password?: string) =>
      api<{ projectId: string; role: Role }>('POST', `/invites/${encodeURIComponent(token)}/accept`, {
        body: password === undefined ? {} : { password },
      }),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: projectsKey }),
        queryClient.invalidateQueries({ queryKey: ['invite', token] }),
      ]),
  });
}
