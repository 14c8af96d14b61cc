import { useMutation, useQuery } from '@tanstack/react-query';
import type { EmailRecord } from '../../../src/api.js';
import { api } from './client.js';

export interface SendInput {
  to: string;
  from: string | { name: string; email: string };
  subject: string;
  body: string;
  reply?: string;
  data?: Record<string, unknown>;
}

interface SendAnswer {
  success: true;
  data: { emails: { contact: { id: string; email: string }; email: string }[]; timestamp: string };
}

/** POST /v1/send with the session, which acts as the project's secret key; answers the email record ids. */
export function useSendEmail(projectId: string) {
  return useMutation({
    mutationFn: async (input: SendInput) => {
      const answer = await api<SendAnswer>('POST', '/v1/send', { projectId, body: input });
      return answer.data.emails.map((e) => e.email);
    },
  });
}

const isFinal = (email: EmailRecord | undefined) => email !== undefined && email.status !== 'queued';

/** An email record, asked again every second until it leaves the queue. */
export function useEmail(projectId: string, id: string | null) {
  return useQuery({
    queryKey: ['emails', projectId, id],
    queryFn: ({ signal }) => api<EmailRecord>('GET', `/emails/${encodeURIComponent(id!)}`, { projectId, signal }),
    enabled: id !== null,
    refetchInterval: (query) => (isFinal(query.state.data) ? false : 1000),
  });
}
