import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { InboundEmail } from '../../../../src/api.js';
import { api } from '../../api/client.js';

export interface InboundPage {
  data: InboundEmail[];
  cursor: string | null;
  hasMore: boolean;
  total: number;
}

const inboundKey = (projectId: string) => ['inbound', projectId] as const;

/** One page of received mail, newest first; `total` comes with the first page only. */
export function useInboundPage(projectId: string, cursor: string | null, limit: number) {
  return useQuery({
    queryKey: [...inboundKey(projectId), 'page', cursor, limit],
    queryFn: ({ signal }) => api<InboundPage>('GET', '/inbound', { projectId, signal, query: { limit, cursor } }),
    placeholderData: keepPreviousData,
  });
}

/** A received message does not change: it is asked once. */
export function useInboundMessage(projectId: string, id: string) {
  return useQuery({
    queryKey: [...inboundKey(projectId), 'one', id],
    queryFn: ({ signal }) => api<InboundEmail>('GET', `/inbound/${encodeURIComponent(id)}`, { projectId, signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}
