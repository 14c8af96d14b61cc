import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  Campaign,
  CampaignAbTestReport,
  CampaignEngagement,
  CampaignLink,
  CampaignProgress,
  CampaignRecipient,
  CampaignSendTimes,
  CampaignStats,
  CampaignStatus,
  Contact,
  FilterCondition,
  Segment,
} from '../../../../src/api.js';
import { api } from '../../api/client.js';
import type { CursorPage } from '../../api/contacts.js';
import type { NumberedPage } from '../../api/templates.js';

/** The campaign endpoints the Campaigns pages read and call, as TanStack Query hooks. */

export interface CampaignsQuery {
  page: number;
  pageSize: number;
  status?: CampaignStatus;
  search?: string;
}

/** The fields of POST /campaigns and PUT /campaigns/{id}. */
export interface CampaignInput {
  name: string;
  subject: string;
  body: string;
  bodySource: Record<string, unknown> | null;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  description: string | null;
  type: Campaign['type'];
  audienceType: Campaign['audienceType'];
  segmentId: string | null;
  audienceCondition: FilterCondition | null;
  topicId: string | null;
  localTime: Campaign['localTime'];
  spread: Campaign['spread'];
  abTest: AbTestInput | null;
}

/** An A/B test as saved: the campaign's, without its winner. */
export type AbTestInput = Omit<NonNullable<Campaign['abTest']>, 'winner'>;

interface Action {
  success: true;
  data: Campaign;
  message: string;
}

const campaignsKey = (projectId: string) => ['campaigns', projectId] as const;
const campaignKey = (projectId: string, id: string) => ['campaigns', projectId, 'one', id] as const;
const path = (id: string) => `/campaigns/${encodeURIComponent(id)}`;

export function useCampaignsPage(projectId: string, query: CampaignsQuery) {
  return useQuery({
    queryKey: [...campaignsKey(projectId), 'page', query],
    queryFn: ({ signal }) =>
      api<NumberedPage<Campaign>>('GET', '/campaigns', {
        projectId,
        signal,
        query: { ...query, sort: 'createdAt', dir: 'desc' },
      }),
    placeholderData: keepPreviousData,
  });
}

/** While a campaign is on its way its state changes by itself: it is read again every few seconds. */
const LIVE: ReadonlySet<CampaignStatus> = new Set(['SENDING', 'SCHEDULED', 'PAUSED']);
export const POLL_MS = 2_000;

export function useCampaign(projectId: string, id: string | undefined) {
  return useQuery({
    queryKey: campaignKey(projectId, id ?? ''),
    queryFn: ({ signal }) => api<Campaign>('GET', path(id!), { projectId, signal }),
    enabled: id !== undefined,
    refetchInterval: (q) => (q.state.data && LIVE.has(q.state.data.status) ? POLL_MS : false),
    // A draft being edited is not replaced under the cursor when the window regains focus.
    refetchOnWindowFocus: false,
  });
}

/**
 * Figures that change while a campaign sends are read every few seconds; `status` is part of their
 * key, so the campaign's last change of state (to SENT) reads them once more, final.
 */
export function useCampaignProgress(projectId: string, id: string, status: CampaignStatus) {
  const live = LIVE.has(status);
  return useQuery({
    queryKey: [...campaignKey(projectId, id), 'progress', status],
    queryFn: ({ signal }) => api<CampaignProgress>('GET', `${path(id)}/progress`, { projectId, signal }),
    refetchInterval: live ? POLL_MS : false,
    placeholderData: keepPreviousData,
  });
}

export function useCampaignStats(projectId: string, id: string, status: CampaignStatus) {
  const live = LIVE.has(status);
  return useQuery({
    queryKey: [...campaignKey(projectId, id), 'stats', status],
    queryFn: ({ signal }) => api<CampaignStats>('GET', `${path(id)}/stats`, { projectId, signal }),
    refetchInterval: live ? POLL_MS : false,
    placeholderData: keepPreviousData,
  });
}

export function useCampaignEngagement(projectId: string, id: string) {
  return useQuery({
    queryKey: [...campaignKey(projectId, id), 'engagement'],
    queryFn: ({ signal }) => api<CampaignEngagement>('GET', `${path(id)}/engagement`, { projectId, signal }),
  });
}

export function useCampaignLinks(projectId: string, id: string, page: number) {
  return useQuery({
    queryKey: [...campaignKey(projectId, id), 'links', page],
    queryFn: ({ signal }) =>
      api<NumberedPage<CampaignLink>>('GET', `${path(id)}/links`, { projectId, signal, query: { page, pageSize: 10 } }),
    placeholderData: keepPreviousData,
  });
}

export interface RecipientFilter {
  outcome?: CampaignRecipient['outcome'];
  reason?: NonNullable<CampaignRecipient['reason']>;
  engagement?: 'opened' | 'clicked';
}

export function recipientsPage(
  projectId: string,
  id: string,
  filter: RecipientFilter,
  limit: number,
  cursor?: string,
  signal?: AbortSignal,
) {
  return api<CursorPage<CampaignRecipient>>('GET', `${path(id)}/recipients`, {
    projectId,
    signal,
    query: { ...filter, limit, cursor },
  });
}

export function useRecipientsPage(projectId: string, id: string, filter: RecipientFilter, cursor: string | undefined) {
  return useQuery({
    queryKey: [...campaignKey(projectId, id), 'recipients', filter, cursor],
    queryFn: ({ signal }) => recipientsPage(projectId, id, filter, 25, cursor, signal),
    placeholderData: keepPreviousData,
  });
}

export function useSegments(projectId: string) {
  return useQuery({
    queryKey: ['segments', projectId, 'all'],
    queryFn: ({ signal }) => api<Segment[]>('GET', '/segments', { projectId, signal }),
  });
}

/** A few contacts to preview the email as: the segment's first members, or the project's first contacts. */
export function useAudiencePreviewContacts(projectId: string, segmentId: string | null) {
  return useQuery({
    queryKey: ['campaign-preview-contacts', projectId, segmentId],
    queryFn: async ({ signal }) =>
      segmentId
        ? (
            await api<NumberedPage<Contact>>('GET', `/segments/${encodeURIComponent(segmentId)}/contacts`, {
              projectId,
              signal,
              query: { pageSize: 10 },
            })
          ).data
        : (await api<CursorPage<Contact>>('GET', '/contacts', { projectId, signal, query: { limit: 10 } })).data,
  });
}

/** The A/B test's variants side by side, live like the other figures. */
export function useCampaignAbTest(projectId: string, id: string, status: CampaignStatus) {
  return useQuery({
    queryKey: [...campaignKey(projectId, id), 'ab-test', status],
    queryFn: ({ signal }) => api<CampaignAbTestReport>('GET', `${path(id)}/ab-test`, { projectId, signal }),
    refetchInterval: LIVE.has(status) ? POLL_MS : false,
    placeholderData: keepPreviousData,
  });
}

/**
 * The audience's time zones and when the first and last emails go, for the campaign as last saved
 * (`savedAt`, its `updatedAt`, reads it again after each save).
 */
export function useCampaignSendTimes(projectId: string, id: string | null, savedAt: string | undefined) {
  return useQuery({
    queryKey: [...campaignKey(projectId, id ?? ''), 'local-time', savedAt],
    queryFn: ({ signal }) => api<CampaignSendTimes>('GET', `${path(id!)}/local-time`, { projectId, signal }),
    enabled: id !== null,
    placeholderData: keepPreviousData,
  });
}

/** Creates (no id) or replaces a campaign; the cache then holds what the server stored. */
export function useSaveCampaign(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: string | null; input: CampaignInput }) =>
      id === null
        ? api<{ data: Campaign }>('POST', '/campaigns', { projectId, body: input }).then((r) => r.data)
        : api<Campaign>('PUT', path(id), { projectId, body: input }),
    onSuccess: (campaign) => {
      queryClient.setQueryData(campaignKey(projectId, campaign.id), campaign);
      return queryClient.invalidateQueries({ queryKey: [...campaignsKey(projectId), 'page'] });
    },
  });
}

export type CampaignAction =
  | 'send'
  | 'unschedule'
  | 'cancel'
  | 'pause'
  | 'resume'
  | 'resend'
  | 'duplicate'
  | 'ab-test/winner';

/** One of the campaign's actions; the campaign it answers replaces the cached one. */
export function useCampaignAction(projectId: string, id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ action, body }: { action: CampaignAction; body?: unknown }) =>
      api<Action>('POST', `${path(id)}/${action}`, { projectId, body }),
    onSuccess: (answer, { action }) => {
      if (action !== 'duplicate') queryClient.setQueryData(campaignKey(projectId, id), answer.data);
      // Read again in the background: the dialog closes on the server's answer, not on these.
      void queryClient.invalidateQueries({ queryKey: campaignsKey(projectId) });
    },
  });
}

export function useSendTest(projectId: string, id: string) {
  return useMutation({
    mutationFn: ({ email, variant }: { email: string; variant?: string }) =>
      api<{ data: { emailId: string; to: string }; message: string }>('POST', `${path(id)}/test`, {
        projectId,
        body: { email, variant },
      }),
  });
}

export function useDeleteCampaign(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', path(id), { projectId }),
    onSuccess: (_, id) => {
      queryClient.removeQueries({ queryKey: campaignKey(projectId, id) });
      return queryClient.invalidateQueries({ queryKey: [...campaignsKey(projectId), 'page'] });
    },
  });
}
