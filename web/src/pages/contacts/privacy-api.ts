import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EraseJob } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import { parseApiError } from '../../api/errors.js';
import { saveFile } from '../../components/save-file.js';

const contactPath = (id: string) => `/contacts/${encodeURIComponent(id)}`;

/**
 * Saves everything held about the contact (`GET /contacts/{id}/export`) as a JSON file. The request
 * needs the project's header, so it is fetched and handed to the browser as a blob.
 */
export async function downloadContactData(projectId: string, contactId: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${contactPath(contactId)}/export`, {
      headers: { Accept: 'application/json', 'X-Project-Id': projectId },
      credentials: 'same-origin',
    });
  } catch {
    throw parseApiError(0, undefined);
  }
  if (!response.ok) throw parseApiError(response.status, await response.json().catch(() => undefined));
  saveFile(await response.blob(), `contact-${contactId}.json`);
}

export interface EraseStarted extends EraseJob {
  jobId: string;
  addressHash: { kept: boolean; purpose: string };
}

export function useEraseContact(projectId: string) {
  return useMutation({
    mutationFn: (contactId: string) =>
      api<{ data: EraseStarted; message: string }>('POST', `${contactPath(contactId)}/erase`, { projectId }).then(
        (r) => r.data,
      ),
  });
}

/**
 * Leaving an erase: the contact's page and the lists read again (the contact has lost its address
 * at once, and is gone once the job ends). Not before: the page would show it gone under the dialog.
 */
export function useForgetErased(projectId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['contacts', projectId] });
}

/** The erase's progress, read every half second until it is done. */
export function useEraseJob(projectId: string, jobId: string | null) {
  return useQuery({
    queryKey: ['contact-erase', projectId, jobId],
    enabled: jobId !== null,
    queryFn: ({ signal }) =>
      api<EraseJob>('GET', `/contacts/erase/${encodeURIComponent(jobId!)}`, { projectId, signal }),
    refetchInterval: (query) => (query.state.data?.status === 'completed' ? false : 500),
  });
}
