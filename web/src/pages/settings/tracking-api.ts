import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TrackingSettings, TrackingSettingsPatch } from '../../../../src/api.js';
import { api } from '../../api/client.js';

const settingsKey = (projectId: string) => ['tracking-settings', projectId] as const;

export function useTrackingSettings(projectId: string) {
  return useQuery({
    queryKey: settingsKey(projectId),
    queryFn: ({ signal }) => api<TrackingSettings>('GET', '/tracking-settings', { projectId, signal }),
  });
}

/** The answer is the settings as they now are: the card shows it at once. */
export function useUpdateTrackingSettings(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TrackingSettingsPatch) =>
      api<TrackingSettings>('PATCH', '/tracking-settings', { projectId, body }),
    onSuccess: (settings) => queryClient.setQueryData(settingsKey(projectId), settings),
  });
}
