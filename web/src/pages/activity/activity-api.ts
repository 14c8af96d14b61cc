import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ActivityItem } from '../../../../src/api.js';
import { api } from '../../api/client.js';

export interface ActivityPage {
  data: ActivityItem[];
  cursor: string | null;
  hasMore: boolean;
  /** Counted on the first page only; later pages answer 0. */
  total: number;
}

/** One page of the feed, newest first, narrowed by the server. */
export function useActivityPage(projectId: string, query: Record<string, string | number>) {
  return useQuery({
    queryKey: ['activity', projectId, 'page', query],
    queryFn: ({ signal }) => api<ActivityPage>('GET', '/activity', { projectId, signal, query }),
    placeholderData: keepPreviousData,
  });
}

/** The kinds of activity the project has had at all (none: a fresh project). */
export function useActivityTypes(projectId: string) {
  return useQuery({
    queryKey: ['activity', projectId, 'types'],
    queryFn: ({ signal }) => api<{ types: string[] }>('GET', '/activity/types', { projectId, signal }),
  });
}
