import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Form, FormDetail } from '../../../../src/api.js';
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
