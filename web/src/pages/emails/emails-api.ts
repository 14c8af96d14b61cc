import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { EmailRecord } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import { parseApiError } from '../../api/errors.js';
import { saveFile } from '../../components/save-file.js';
import { emlFileName } from './email-status.js';

export interface EmailPage {
  data: EmailRecord[];
  cursor: string | null;
  hasMore: boolean;
}

type EmailsQuery = Record<string, string | number>;

const emailPath = (id: string) => `/emails/${encodeURIComponent(id)}`;

/** One page of the project's emails, newest first, narrowed by the server; never the whole list. */
export function useEmailsPage(projectId: string, query: EmailsQuery) {
  return useQuery({
    queryKey: ['emails', projectId, 'page', query],
    queryFn: ({ signal }) => api<EmailPage>('GET', '/emails', { projectId, signal, query }),
    placeholderData: keepPreviousData,
  });
}

const isQueued = (email: EmailRecord | undefined) => email?.status === 'queued';

/** One email, asked again every few seconds while it waits in the queue. */
export function useEmailRecord(projectId: string, id: string) {
  return useQuery({
    queryKey: ['emails', projectId, id],
    queryFn: ({ signal }) => api<EmailRecord>('GET', emailPath(id), { projectId, signal }),
    refetchInterval: (query) => (isQueued(query.state.data) ? 3000 : false),
  });
}

export interface EmailContent {
  html: string;
  headers: Record<string, string>;
}

/** What the email said as stored: it does not change, so it is asked once. */
export function useEmailContent(projectId: string, id: string) {
  return useQuery({
    queryKey: ['emails', projectId, id, 'content'],
    queryFn: ({ signal }) => api<EmailContent>('GET', `${emailPath(id)}/content`, { projectId, signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/**
 * Saves the captured message (`GET /emails/{id}/raw`) as a file. The request needs the project's
 * header, so it is fetched and handed to the browser as a blob rather than linked to.
 */
export async function downloadEml(projectId: string, email: Pick<EmailRecord, 'id' | 'subject'>): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${emailPath(email.id)}/raw`, {
      headers: { Accept: 'message/rfc822, application/json', 'X-Project-Id': projectId },
      credentials: 'same-origin',
    });
  } catch {
    throw parseApiError(0, undefined);
  }
  if (!response.ok) {
    const isJson = (response.headers.get('content-type') ?? '').includes('json');
    throw parseApiError(response.status, isJson ? await response.json().catch(() => undefined) : undefined);
  }
  saveFile(await response.blob(), emlFileName(email));
}
