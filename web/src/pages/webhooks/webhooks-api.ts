import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Webhook, WebhookDelivery } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import type { NumberedPage } from '../../api/templates.js';
import { hasPending } from './delivery-list.js';

/** The fields POST /webhooks takes and PATCH /webhooks/{id} changes. */
export interface WebhookInput {
  url: string;
  events: string[];
  description: string | null;
  enabled?: boolean;
}

const webhooksKey = (projectId: string) => ['webhooks', projectId] as const;
const path = (id: string) => `/webhooks/${encodeURIComponent(id)}`;

export function useWebhooks(projectId: string) {
  return useQuery({
    queryKey: webhooksKey(projectId),
    queryFn: ({ signal }) => api<Webhook[]>('GET', '/webhooks', { projectId, signal }),
  });
}

export function useWebhook(projectId: string, id: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: [...webhooksKey(projectId), 'one', id],
    queryFn: ({ signal }) => api<Webhook>('GET', path(id), { projectId, signal }),
    initialData: () => queryClient.getQueryData<Webhook[]>(webhooksKey(projectId))?.find((w) => w.id === id),
  });
}

/** Every change to one webhook answers with the webhook as it now is: the list and its page learn it at once. */
function useWebhookChange<V>(projectId: string, request: (v: V) => Promise<Webhook>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: (hook) => {
      queryClient.setQueryData([...webhooksKey(projectId), 'one', hook.id], hook);
      return queryClient.invalidateQueries({ queryKey: webhooksKey(projectId), exact: true });
    },
  });
}

export const useCreateWebhook = (projectId: string) =>
  useWebhookChange(projectId, (body: WebhookInput) => api<Webhook>('POST', '/webhooks', { projectId, body }));

export const useUpdateWebhook = (projectId: string) =>
  useWebhookChange(projectId, ({ id, ...body }: Partial<WebhookInput> & { id: string }) =>
    api<Webhook>('PATCH', path(id), { projectId, body }),
  );

export const useRotateSecret = (projectId: string) =>
  useWebhookChange(projectId, (id: string) => api<Webhook>('POST', `${path(id)}/rotate-secret`, { projectId }));

export function useDeleteWebhook(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', path(id), { projectId }),
    onSuccess: (_, id) => {
      queryClient.removeQueries({ queryKey: [...webhooksKey(projectId), 'one', id] });
      return queryClient.invalidateQueries({ queryKey: webhooksKey(projectId), exact: true });
    },
  });
}

/** One numbered page of a webhook's deliveries, newest first; asked again every few seconds while some are retried. */
export function useDeliveries(projectId: string, id: string, query: Record<string, string | number>) {
  return useQuery({
    queryKey: [...webhooksKey(projectId), 'one', id, 'deliveries', query],
    queryFn: ({ signal }) =>
      api<NumberedPage<WebhookDelivery>>('GET', `${path(id)}/deliveries`, { projectId, signal, query }),
    placeholderData: keepPreviousData,
    // New deliveries come with every event: another filter or page is asked afresh.
    staleTime: 0,
    refetchInterval: (q) => (q.state.data && hasPending(q.state.data.data) ? 3000 : false),
  });
}
