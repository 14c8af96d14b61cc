import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InstanceSettings, Permissions, ProjectCreation, SsoSettingsView } from '../../../src/api.js';
import { api } from './client.js';

const permissionsKey = ['permissions'] as const;
const settingsKey = ['instance-settings'] as const;

/** What the signed-in user may do on the instance: the shell shows "New project" only when they may. */
export function usePermissions() {
  return useQuery({
    queryKey: permissionsKey,
    queryFn: ({ signal }) => api<Permissions>('GET', '/users/@me/permissions', { signal }),
  });
}

/** The instance's settings, which only instance admins read. */
export function useInstanceSettings(enabled: boolean) {
  return useQuery({
    queryKey: settingsKey,
    queryFn: ({ signal }) => api<InstanceSettings>('GET', '/instance/settings', { signal }),
    enabled,
  });
}

/** The single sign-on configuration, read-only (it comes from the server's environment); instance admins only. */
export function useSsoSettings(enabled: boolean) {
  return useQuery({
    queryKey: ['instance-sso'],
    queryFn: ({ signal }) => api<SsoSettingsView>('GET', '/instance/sso', { signal }),
    enabled,
  });
}

export function useUpdateInstanceSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { projectCreation: ProjectCreation }) =>
      api<InstanceSettings>('PATCH', '/instance/settings', { body }),
    onSuccess: (settings) => {
      queryClient.setQueryData(settingsKey, settings);
      return queryClient.invalidateQueries({ queryKey: permissionsKey });
    },
  });
}
