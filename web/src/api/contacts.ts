import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConsentPage, Contact, ContactJob, TrackedEvent, UpsertedContact } from '../../../src/api.js';
import { api } from './client.js';

export interface CursorPage<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
  /** Counted on the first page only; later pages answer 0. */
  total: number;
}

export interface ContactsQuery {
  search?: string;
  subscribed?: boolean;
  sort?: 'createdAt' | 'email';
  dir?: 'asc' | 'desc';
  cursor?: string;
  limit: number;
}

const contactsKey = (projectId: string) => ['contacts', projectId] as const;
const contactKey = (projectId: string, id: string) => ['contact', projectId, id] as const;
const eventsKey = (projectId: string, id: string) => ['contact-events', projectId, id] as const;
const consentKey = (projectId: string, id: string) => ['contact-consent', projectId, id] as const;
const path = (id: string) => `/contacts/${encodeURIComponent(id)}`;

/** One page of contacts, searched and filtered by the server: never the whole list. */
export function useContactsPage(projectId: string, query: ContactsQuery) {
  return useQuery({
    queryKey: [...contactsKey(projectId), query],
    queryFn: ({ signal }) =>
      api<CursorPage<Contact>>('GET', '/contacts', {
        projectId,
        signal,
        query: {
          limit: query.limit,
          search: query.search,
          subscribed: query.subscribed,
          sort: query.sort,
          dir: query.dir,
          cursor: query.cursor,
        },
      }),
    placeholderData: keepPreviousData,
  });
}

export function useContact(projectId: string, id: string) {
  return useQuery({
    queryKey: contactKey(projectId, id),
    queryFn: ({ signal }) => api<Contact>('GET', path(id), { projectId, signal }),
  });
}

export interface FieldDescriptor {
  field: string;
  type: string;
  isCustom: boolean;
  coverage: number;
}

/** The project's fields with their inferred types; custom ones are named `data.<key>`. */
export function useContactFields(projectId: string) {
  return useQuery({
    queryKey: ['contact-fields', projectId],
    queryFn: ({ signal }) => api<{ fields: FieldDescriptor[] }>('GET', '/contacts/fields', { projectId, signal }),
    staleTime: 60_000,
  });
}

export interface FieldValue {
  value: unknown;
  count: number;
}

const fieldPath = (field: string) => `/contacts/fields/${encodeURIComponent(field)}`;

/** A field's most common values, most contacts first. */
export function useFieldValues(projectId: string, field: string | null, limit = 10) {
  return useQuery({
    queryKey: ['contact-fields', projectId, field, 'values', limit],
    queryFn: ({ signal }) =>
      api<{ field: string; values: FieldValue[] }>('GET', `${fieldPath(field!)}/values`, {
        projectId,
        signal,
        query: { limit },
      }),
    enabled: field !== null,
  });
}

export interface UsageItem {
  id: string;
  name: string;
}
export interface FieldUsage {
  field: string;
  segments: UsageItem[];
  campaigns: UsageItem[];
  workflows: UsageItem[];
}

/** The segments, campaigns and workflows whose conditions name the field. */
export function useFieldUsage(projectId: string, field: string | null) {
  return useQuery({
    queryKey: ['contact-fields', projectId, field, 'usage'],
    queryFn: ({ signal }) => api<FieldUsage>('GET', `${fieldPath(field!)}/usage`, { projectId, signal }),
    enabled: field !== null,
  });
}

/** Removes a custom field from every contact of the project. */
export function useDeleteField(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (field: string) =>
      api<{ field: string; removedFrom: number }>('DELETE', fieldPath(field), { projectId }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: contactsKey(projectId) });
      void queryClient.invalidateQueries({ queryKey: ['contact'] });
      return queryClient.invalidateQueries({ queryKey: ['contact-fields', projectId] });
    },
  });
}

/** How many contacts the project has: the count of a one-row page. */
export function useContactCount(projectId: string) {
  return useQuery({
    queryKey: [...contactsKey(projectId), 'count'],
    queryFn: ({ signal }) =>
      api<CursorPage<Contact>>('GET', '/contacts', { projectId, signal, query: { limit: 1 } }).then((p) => p.total),
  });
}

export interface ContactChange {
  subscribed?: boolean;
  snoozedUntil?: string | null;
  data?: Record<string, unknown>;
  /** Topic id → receives it, for the topics named. */
  topics?: Record<string, boolean>;
}

export function useUpdateContact(projectId: string, id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: ContactChange) => api<Contact>('PATCH', path(id), { projectId, body: change }),
    onSuccess: (contact, change) => {
      queryClient.setQueryData(contactKey(projectId, id), contact);
      void queryClient.invalidateQueries({ queryKey: contactsKey(projectId) });
      // A change of the subscription or of a topic is an event of the contact's and a line of its
      // consent history; new data keys are new fields.
      if (change.subscribed !== undefined || change.snoozedUntil !== undefined || change.topics) {
        void queryClient.invalidateQueries({ queryKey: eventsKey(projectId, id) });
        void queryClient.invalidateQueries({ queryKey: consentKey(projectId, id) });
      }
      if (change.data) void queryClient.invalidateQueries({ queryKey: ['contact-fields', projectId] });
      // A topic's subscriber count moves with it.
      if (change.topics) void queryClient.invalidateQueries({ queryKey: ['topics', projectId] });
    },
  });
}

export function useDeleteContact(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', path(id), { projectId }),
    onSuccess: (_, id) => {
      queryClient.removeQueries({ queryKey: contactKey(projectId, id) });
      return queryClient.invalidateQueries({ queryKey: contactsKey(projectId) });
    },
  });
}

export function useCreateContact(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; subscribed: boolean; data?: Record<string, unknown> }) =>
      api<UpsertedContact>('POST', '/contacts', { projectId, body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKey(projectId) }),
  });
}

/** A contact's events, newest first, a page at a time. */
export function useContactEvents(projectId: string, id: string, limit = 20) {
  return useInfiniteQuery({
    queryKey: eventsKey(projectId, id),
    queryFn: ({ signal, pageParam }) =>
      api<CursorPage<TrackedEvent>>('GET', `/events/contact/${encodeURIComponent(id)}`, {
        projectId,
        signal,
        query: { limit, cursor: pageParam },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore && last.cursor ? last.cursor : undefined),
  });
}

export type ConsentRecord = ConsentPage['data'][number];

/** A contact's consent history, newest first, a page at a time. */
export function useContactConsent(projectId: string, id: string, limit = 10) {
  return useInfiniteQuery({
    queryKey: consentKey(projectId, id),
    queryFn: ({ signal, pageParam }) =>
      api<ConsentPage>('GET', `${path(id)}/consent`, { projectId, signal, query: { limit, cursor: pageParam } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore && last.cursor ? last.cursor : undefined),
  });
}

export type JobKind = 'import' | 'bulk';
export type BulkAction = 'subscribe' | 'unsubscribe' | 'delete';
type AcceptedJob = ContactJob & { jobId: string };

const jobPath = (kind: JobKind, jobId: string) =>
  `/contacts/${kind === 'import' ? 'import' : 'bulk'}/${encodeURIComponent(jobId)}`;
const isDone = (job: ContactJob | undefined) => job?.status === 'completed' || job?.status === 'failed';

/** A queued import or bulk job, polled until it ends; the contacts list is refreshed when it does. */
export function useContactJob(projectId: string, kind: JobKind, jobId: string | null, everyMs = 500) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: ['contact-job', projectId, kind, jobId],
    queryFn: async ({ signal }) => {
      const job = await api<ContactJob>('GET', jobPath(kind, jobId!), { projectId, signal });
      if (isDone(job)) {
        void queryClient.invalidateQueries({ queryKey: contactsKey(projectId) });
        void queryClient.invalidateQueries({ queryKey: ['contact-fields', projectId] });
      }
      return job;
    },
    enabled: jobId !== null,
    refetchInterval: (query) => (isDone(query.state.data) ? false : everyMs),
  });
}

export function useImportContacts(projectId: string) {
  return useMutation({
    mutationFn: ({ file, preset }: { file: File; preset: string | null }) => {
      const form = new FormData();
      form.append('file', file, file.name);
      const path = preset ? `/contacts/import?preset=${encodeURIComponent(preset)}` : '/contacts/import';
      return api<AcceptedJob>('POST', path, { projectId, body: form });
    },
  });
}

export const BULK_LIMIT = 1000;

export function useBulkAction(projectId: string) {
  return useMutation({
    mutationFn: ({ action, contactIds }: { action: BulkAction; contactIds: string[] }) =>
      api<AcceptedJob>('POST', `/contacts/bulk-${action}`, { projectId, body: { contactIds } }),
  });
}

export interface ContactSegment {
  id: string;
  name: string;
  slug: string;
  type: 'DYNAMIC' | 'STATIC';
}

/** The segments the contact is in now (`GET /contacts/{id}/segments`). */
export function useContactSegments(projectId: string, contactId: string) {
  return useQuery({
    queryKey: [...contactKey(projectId, contactId), 'segments'],
    queryFn: ({ signal }) =>
      api<{ data: ContactSegment[] }>('GET', `/contacts/${contactId}/segments`, { projectId, signal }).then(
        (r) => r.data,
      ),
  });
}

const LOOKUP_BATCH = 500;
const LOOKUPS_AT_ONCE = 4;

/**
 * Which of `emails` the project has already, through POST /contacts/lookup: 500 addresses a
 * request (its limit), four requests at a time. `fileKey` names the list (the file it came from).
 */
export function useExistingEmails(projectId: string, emails: readonly string[], fileKey: string) {
  return useQuery({
    queryKey: ['contacts', projectId, 'lookup', fileKey],
    queryFn: async ({ signal }) => {
      const existing = new Set<string>();
      let next = 0;
      const worker = async () => {
        for (let start = next; start < emails.length; start = next) {
          next += LOOKUP_BATCH;
          const answer = await api<{ data: { email: string; exists: boolean }[] }>('POST', '/contacts/lookup', {
            projectId,
            signal,
            body: { emails: emails.slice(start, start + LOOKUP_BATCH) },
          });
          for (const a of answer.data) if (a.exists) existing.add(a.email);
        }
      };
      await Promise.all(Array.from({ length: LOOKUPS_AT_ONCE }, worker));
      return existing;
    },
    enabled: emails.length > 0,
    staleTime: 0,
    gcTime: 60_000,
  });
}
