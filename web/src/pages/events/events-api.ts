import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { TrackedEvent } from '../../../../src/api.js';
import { api } from '../../api/client.js';

export interface EventsPage {
  data: TrackedEvent[];
  cursor: string | null;
  hasMore: boolean;
  total: number;
}

export interface EventStats {
  since: string;
  until: string;
  total: number;
  uniqueContacts: number;
  byName: { name: string; count: number; uniqueContacts: number; lastSeenAt: string }[];
}

export interface EventUsage {
  event: string;
  segments: { id: string; name: string }[];
  campaigns: { id: string; name: string }[];
  workflows: { id: string; name: string }[];
}

export function useEventsPage(projectId: string, query: Record<string, string | number>) {
  return useQuery({
    queryKey: ['events', projectId, 'page', query],
    queryFn: ({ signal }) => api<EventsPage>('GET', '/events', { projectId, signal, query }),
    placeholderData: keepPreviousData,
  });
}

/** Each name with its count, contacts and last time, over the server's default range (30 days). */
export function useEventStats(projectId: string) {
  return useQuery({
    queryKey: ['events', projectId, 'stats'],
    queryFn: ({ signal }) => api<EventStats>('GET', '/events/stats', { projectId, signal }),
  });
}

/** The segments, campaigns and workflows that refer to an event name. */
export function useEventUsage(projectId: string, name: string | null) {
  return useQuery({
    queryKey: ['events', projectId, 'usage', name],
    queryFn: ({ signal }) =>
      api<EventUsage>('GET', `/events/${encodeURIComponent(name!)}/usage`, { projectId, signal }),
    enabled: name !== null,
  });
}
