import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DeliverySettings } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import type { SettingsPatch } from './delivery-settings.js';

const settingsKey = (projectId: string) => ['delivery-settings', projectId] as const;

export function useDeliverySettings(projectId: string) {
  return useQuery({
    queryKey: settingsKey(projectId),
    queryFn: ({ signal }) => api<DeliverySettings>('GET', '/delivery-settings', { projectId, signal }),
  });
}

/** The answer is the settings as they now are, today's counts included: the page shows it at once. */
export function useUpdateDeliverySettings(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsPatch) => api<DeliverySettings>('PATCH', '/delivery-settings', { projectId, body }),
    onSuccess: (settings) => queryClient.setQueryData(settingsKey(projectId), settings),
  });
}
