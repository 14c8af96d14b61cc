import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Contact, FilterCondition, Segment, SegmentType } from '../../../../src/api.js';
import { api } from '../../api/client.js';

import { segmentsKey } from '../../api/segments.js';

export { useSegmentList as useSegments } from '../../api/segments.js';

const path = (id: string) => `/segments/${encodeURIComponent(id)}`;
const segmentKey = (projectId: string, id: string) => ['segment', projectId, id] as const;

export function useSegment(projectId: string, id: string | undefined) {
  return useQuery({
    queryKey: segmentKey(projectId, id ?? ''),
    queryFn: ({ signal }) => api<Segment>('GET', path(id!), { projectId, signal }),
    enabled: id !== undefined,
  });
}

export interface SegmentInput {
  name: string;
  description: string | null;
  type?: SegmentType;
  condition?: FilterCondition;
  trackMembership: boolean;
}

/** Forgets what a change to a segment makes stale: the list, the segment, its members. */
function useSegmentChanged(projectId: string) {
  const queryClient = useQueryClient();
  return (segment?: Segment) => {
    void queryClient.invalidateQueries({ queryKey: segmentsKey(projectId) });
    void queryClient.invalidateQueries({ queryKey: ['segment-members', projectId] });
    if (segment) queryClient.setQueryData(segmentKey(projectId, segment.id), segment);
  };
}

/** Creates a segment (POST) or changes one (PATCH; its type never changes). */
export function useSaveSegment(projectId: string, id: string | undefined) {
  const changed = useSegmentChanged(projectId);
  return useMutation({
    mutationFn: ({ type, ...input }: SegmentInput) =>
      id
        ? api<Segment>('PATCH', path(id), { projectId, body: input })
        : api<Segment>('POST', '/segments', { projectId, body: { ...input, type } }),
    onSuccess: changed,
  });
}

export function useDeleteSegment(projectId: string) {
  const changed = useSegmentChanged(projectId);
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', path(id), { projectId }),
    onSuccess: () => changed(),
  });
}

export interface MemberPage {
  data: Contact[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

/** One page of a segment's members (a static one's list, a dynamic one's matches now). */
export function useSegmentMembers(projectId: string, id: string, page: number, pageSize = 20) {
  return useQuery({
    queryKey: ['segment-members', projectId, id, page, pageSize],
    queryFn: ({ signal }) =>
      api<MemberPage>('GET', `${path(id)}/contacts`, { projectId, signal, query: { page, pageSize } }),
    placeholderData: keepPreviousData,
  });
}

export interface AddMembersResult {
  added: number;
  alreadyMembers: number;
  created: number;
  notFound: string[];
  memberCount: number;
}

export function useAddMembers(projectId: string, id: string) {
  const changed = useSegmentChanged(projectId);
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { emails: string[]; createMissing: boolean; subscribed?: boolean }) =>
      api<AddMembersResult>('POST', `${path(id)}/members`, { projectId, body }),
    onSuccess: () => {
      changed();
      void queryClient.invalidateQueries({ queryKey: segmentKey(projectId, id) });
    },
  });
}

export function useRemoveMembers(projectId: string, id: string) {
  const changed = useSegmentChanged(projectId);
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (emails: string[]) =>
      api<{ removed: number; memberCount: number }>('DELETE', `${path(id)}/members`, { projectId, body: { emails } }),
    onSuccess: () => {
      changed();
      void queryClient.invalidateQueries({ queryKey: segmentKey(projectId, id) });
    },
  });
}

/** POST /segments/{id}/compute (tracked dynamic segments): who entered and left. */
export function useComputeSegment(projectId: string, id: string) {
  const changed = useSegmentChanged(projectId);
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      api<{ entered: number; exited: number; memberCount: number }>('POST', `${path(id)}/compute`, { projectId }),
    onSuccess: () => {
      changed();
      void queryClient.invalidateQueries({ queryKey: segmentKey(projectId, id) });
    },
  });
}

/** POST /segments/{id}/refresh: the count now, nothing else. */
export function useRefreshSegment(projectId: string, id: string) {
  const changed = useSegmentChanged(projectId);
  return useMutation({
    mutationFn: () => api<Segment>('POST', `${path(id)}/refresh`, { projectId }),
    onSuccess: changed,
  });
}

export interface EventUsage {
  event: string;
  workflows: { id: string; name: string }[];
}

/** The workflows an event name starts or waits for (`GET /events/{name}/usage`). */
export function useEventUsage(projectId: string, name: string) {
  return useQuery({
    queryKey: ['event-usage', projectId, name],
    queryFn: ({ signal }) => api<EventUsage>('GET', `/events/${encodeURIComponent(name)}/usage`, { projectId, signal }),
  });
}
