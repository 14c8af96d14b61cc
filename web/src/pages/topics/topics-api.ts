import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Topic } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import { topicsKey } from '../../api/topics.js';

/** What POST /topics takes and PATCH /topics/{id} changes. */
export interface TopicInput {
  name: string;
  description: string;
  public: boolean;
  defaultOn: boolean;
}

const path = (id: string) => `/topics/${encodeURIComponent(id)}`;

function useTopicChange<V, R>(projectId: string, request: (v: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: topicsKey(projectId) }),
  });
}

export const useCreateTopic = (projectId: string) =>
  useTopicChange(projectId, (body: TopicInput) => api<Topic>('POST', '/topics', { projectId, body }));

export const useUpdateTopic = (projectId: string) =>
  useTopicChange(projectId, ({ id, ...body }: TopicInput & { id: string }) =>
    api<Topic>('PATCH', path(id), { projectId, body }),
  );

export const useDeleteTopic = (projectId: string) =>
  useTopicChange(projectId, (id: string) => api<void>('DELETE', path(id), { projectId }));
