import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Form, FormDetail, FormPreview, FormStats, PendingSignups } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import type { CursorPage } from '../../api/contacts.js';

/** What POST /forms takes and PATCH /forms/{id} changes, as the dashboard edits it. */
export interface FormInput {
  name: string;
  fields: { key: string; type: string; required: boolean; label: Record<string, string> }[];
  doubleOptIn: boolean;
  senderEmail: string | null;
  title: Record<string, string>;
  consentText: Record<string, string>;
  successMessage: Record<string, string>;
  redirectUrl: string | null;
  allowedOrigins: string[];
  /** The topics offered, as ids in the order shown. */
  topics: string[];
  confirmationTemplateId: string | null;
}

const formsKey = (projectId: string) => ['forms', projectId] as const;
const path = (id: string) => `/forms/${encodeURIComponent(id)}`;

/** One page of the project's forms, newest first. */
export function useForms(projectId: string, cursor: string | null) {
  return useQuery({
    queryKey: [...formsKey(projectId), 'page', cursor],
    queryFn: ({ signal }) =>
      api<CursorPage<Form>>('GET', '/forms', {
        projectId,
        signal,
        query: { limit: 50, ...(cursor ? { cursor } : {}) },
      }),
    placeholderData: keepPreviousData,
  });
}

/** One form with its embed code. */
export function useForm(projectId: string, id: string) {
  return useQuery({
    queryKey: [...formsKey(projectId), 'one', id],
    queryFn: ({ signal }) => api<FormDetail>('GET', path(id), { projectId, signal }),
  });
}

function useFormChange<V, R>(projectId: string, request: (v: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: formsKey(projectId) }),
  });
}

export const useCreateForm = (projectId: string) =>
  useFormChange(projectId, (body: FormInput) => api<Form>('POST', '/forms', { projectId, body }));

export const useUpdateForm = (projectId: string) =>
  useFormChange(projectId, ({ id, ...body }: FormInput & { id: string }) =>
    api<Form>('PATCH', path(id), { projectId, body }),
  );

export const useDeleteForm = (projectId: string) =>
  useFormChange(projectId, (id: string) => api<void>('DELETE', path(id), { projectId }));

/** A form's views, submissions and confirmations per day over the last `days` days. */
export function useFormStats(projectId: string, id: string, days: number) {
  return useQuery({
    queryKey: [...formsKey(projectId), 'stats', id, days],
    queryFn: ({ signal }) => api<FormStats>('GET', `${path(id)}/stats`, { projectId, signal, query: { days } }),
    placeholderData: keepPreviousData,
  });
}

/** The hosted page and the embed code of a form as it is being edited, before it is saved. */
export function useFormPreview(projectId: string, body: Partial<FormInput> & { id?: string }) {
  return useQuery({
    queryKey: [...formsKey(projectId), 'preview', body],
    queryFn: ({ signal }) => api<FormPreview>('POST', '/forms/preview', { projectId, signal, body }),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

/**
 * Which of these contacts wait on a double opt-in link: one request per page of contacts, answered
 * from the signups' primary key whatever the size of the list.
 */
export function usePendingSignups(projectId: string, contactIds: readonly string[]) {
  return useQuery({
    queryKey: [...formsKey(projectId), 'pending', contactIds],
    queryFn: ({ signal }) =>
      api<PendingSignups>('GET', '/forms/pending-signups', {
        projectId,
        signal,
        query: { contactIds: contactIds.join(',') },
      }),
    enabled: contactIds.length > 0,
    select: (r) => new Map(r.data.map((s) => [s.contactId, s])),
  });
}
