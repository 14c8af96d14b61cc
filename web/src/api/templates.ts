import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EmailType, SpamCheck, SpamCheckStatus, Template, Version, VersionSummary } from '../../../src/api.js';
import { api } from './client.js';
import type { CursorPage } from './contacts.js';

export interface NumberedPage<T> {
  data: T[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

export interface TemplatesQuery {
  page: number;
  pageSize: number;
  type?: EmailType;
  search?: string;
  sort: 'name' | 'createdAt' | 'updatedAt';
  dir: 'asc' | 'desc';
}

/** The fields POST /templates takes and PATCH /templates/{id} changes. */
export interface TemplateInput {
  name: string;
  subject: string;
  body: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  description: string | null;
  type: EmailType;
  bodySource: Record<string, unknown> | null;
  /** The topic its MARKETING emails are about. */
  topicId?: string | null;
}

export interface TemplateUsage {
  templateId: string;
  campaigns: { id: string; name: string }[];
  workflows: { id: string; name: string }[];
}

export interface PreviewInput {
  subject: string;
  body: string;
  type: EmailType;
  contactId?: string;
  data?: Record<string, unknown>;
}

export interface Preview {
  subject: string;
  html: string;
  text: string;
}

const templatesKey = (projectId: string) => ['templates', projectId] as const;
const templateKey = (projectId: string, id: string) => ['templates', projectId, 'one', id] as const;
const path = (id: string) => `/templates/${encodeURIComponent(id)}`;

/** One numbered page of templates, filtered, searched and sorted by the server. */
export function useTemplatesPage(projectId: string, query: TemplatesQuery) {
  return useQuery({
    queryKey: [...templatesKey(projectId), 'page', query],
    queryFn: ({ signal }) =>
      api<NumberedPage<Template>>('GET', '/templates', { projectId, signal, query: { ...query } }),
    placeholderData: keepPreviousData,
  });
}

export function useTemplate(projectId: string, id: string | undefined) {
  return useQuery({
    queryKey: templateKey(projectId, id ?? ''),
    queryFn: ({ signal }) => api<Template>('GET', path(id!), { projectId, signal }),
    enabled: id !== undefined,
    // What is being edited must not be replaced under the cursor by a background refetch.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });
}

export function useTemplateUsage(projectId: string, id: string | undefined) {
  return useQuery({
    queryKey: [...templateKey(projectId, id ?? ''), 'usage'],
    queryFn: ({ signal }) => api<TemplateUsage>('GET', `${path(id!)}/usage`, { projectId, signal }),
    enabled: id !== undefined,
  });
}

const versionsKey = (projectId: string, id: string) => ['template-versions', projectId, id] as const;

function useSaved(projectId: string) {
  const queryClient = useQueryClient();
  return (template: Template) => {
    queryClient.setQueryData(templateKey(projectId, template.id), template);
    void queryClient.invalidateQueries({ queryKey: versionsKey(projectId, template.id) });
    return queryClient.invalidateQueries({ queryKey: [...templatesKey(projectId), 'page'] });
  };
}

/** Creates (no id) or updates a template. */
export function useSaveTemplate(projectId: string, id: string | undefined) {
  const saved = useSaved(projectId);
  return useMutation({
    mutationFn: (input: TemplateInput) =>
      id === undefined
        ? api<Template>('POST', '/templates', { projectId, body: input })
        : api<Template>('PATCH', path(id), { projectId, body: input }),
    onSuccess: saved,
  });
}

export function useDuplicateTemplate(projectId: string) {
  const saved = useSaved(projectId);
  return useMutation({
    mutationFn: (id: string) => api<Template>('POST', `${path(id)}/duplicate`, { projectId }),
    onSuccess: saved,
  });
}

export function useDeleteTemplate(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', path(id), { projectId }),
    onSuccess: (_, id) => {
      queryClient.removeQueries({ queryKey: templateKey(projectId, id) });
      return queryClient.invalidateQueries({ queryKey: [...templatesKey(projectId), 'page'] });
    },
  });
}

/**
 * Unsaved content rendered by the sending renderer. Each input is asked once (the cache keeps the
 * answers of the last few, so undo shows its preview at once); a render error is not retried.
 */
export function usePreview(projectId: string, input: PreviewInput | null) {
  return useQuery({
    queryKey: ['template-preview', projectId, input],
    queryFn: ({ signal }) => api<Preview>('POST', '/templates/preview', { projectId, signal, body: input }),
    enabled: input !== null,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 60_000,
    retry: false,
    refetchOnWindowFocus: false,
  });
}

/** Stores an image for template bodies; answers its public URL. */
export function useUploadImage(projectId: string) {
  return useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      return api<{ url: string; contentType: string; size: number }>('POST', '/uploads/image', {
        projectId,
        body: form,
      });
    },
  });
}

/** A template's versions, newest first, a page at a time. */
export function useTemplateVersions(projectId: string, id: string, limit = 20) {
  return useInfiniteQuery({
    queryKey: [...versionsKey(projectId, id), 'list'],
    queryFn: ({ signal, pageParam }) =>
      api<CursorPage<VersionSummary>>('GET', `${path(id)}/versions`, {
        projectId,
        signal,
        query: { limit, cursor: pageParam },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore && last.cursor ? last.cursor : undefined),
  });
}

/** One version with its content; a version never changes, so it is asked once. */
export function useTemplateVersion(projectId: string, id: string, n: number | null) {
  return useQuery({
    queryKey: [...versionsKey(projectId, id), 'one', n],
    queryFn: ({ signal }) => api<Version>('GET', `${path(id)}/versions/${n}`, { projectId, signal }),
    enabled: n !== null,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Gives the template an old version's content again, as its newest version. */
export function useRestoreVersion(projectId: string, id: string) {
  const saved = useSaved(projectId);
  return useMutation({
    mutationFn: (n: number) => api<Template>('POST', `${path(id)}/versions/${n}/restore`, { projectId }),
    onSuccess: saved,
  });
}

/** What POST /templates/spam-check takes: content as the editor holds it, and whom it renders for. */
export interface SpamCheckInput extends PreviewInput {
  from: string;
  fromName: string | null;
  replyTo: string | null;
}

/** SpamAssassin's score of content as it would be sent; asked on demand only (each check takes spamd a moment). */
export function useSpamCheck(projectId: string) {
  return useMutation({
    mutationFn: (input: SpamCheckInput) => api<SpamCheck>('POST', '/templates/spam-check', { projectId, body: input }),
  });
}

/** Whether the instance has a spamd (SPAMD_URL): asked once, the answer changes only with a restart. */
export function useSpamCheckStatus(projectId: string) {
  return useQuery({
    queryKey: ['spam-check-status', projectId],
    queryFn: ({ signal }) => api<SpamCheckStatus>('GET', '/templates/spam-check', { projectId, signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}
