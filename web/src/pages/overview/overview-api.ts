import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { ActivityStats, activity, Timeseries } from '../../../../src/api.js';
import { api } from '../../api/client.js';

export interface Upcoming {
  campaigns: { id: string; name: string; scheduledFor: string }[];
  workflows: { workflowId: string; name: string; running: number; waiting: number; nextRunAt: string | null }[];
}

/** Counts of each kind over the range, from the server's daily counts. */
export function useActivityStats(projectId: string, query: { since: string }) {
  return useQuery({
    queryKey: ['activity', projectId, 'stats', query],
    queryFn: ({ signal }) => api<ActivityStats>('GET', '/activity/stats', { projectId, signal, query }),
    placeholderData: keepPreviousData,
  });
}

/** Per UTC day, every day of the range. */
export function useTimeseries(projectId: string, query: { since: string }) {
  return useQuery({
    queryKey: ['analytics', projectId, 'timeseries', query],
    queryFn: ({ signal }) => api<Timeseries>('GET', '/analytics/timeseries', { projectId, signal, query }),
    placeholderData: keepPreviousData,
  });
}

export function useUpcoming(projectId: string) {
  return useQuery({
    queryKey: ['activity', projectId, 'upcoming'],
    queryFn: ({ signal }) => api<Upcoming>('GET', '/activity/upcoming', { projectId, signal }),
  });
}

export type CampaignSummary = z.infer<typeof activity.campaignSummarySchema>;

/** The project's best campaigns by opens (all time: the API takes no range for it). */
export function useTopCampaigns(projectId: string, limit = 5) {
  return useQuery({
    queryKey: ['analytics', projectId, 'top-campaigns', limit],
    queryFn: ({ signal }) =>
      api<CampaignSummary[]>('GET', '/analytics/top-campaigns', {
        projectId,
        signal,
        query: { metric: 'opened', limit },
      }),
  });
}
