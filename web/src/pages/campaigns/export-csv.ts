import type { CampaignRecipient } from '../../../../src/api.js';
import { type RecipientFilter, recipientsPage } from './campaigns-api.js';

const COLUMNS = ['email', 'contactId', 'outcome', 'reason', 'detail', 'sentAt', 'emailId'] as const;
const PAGE = 100;

/** One CSV field: quoted when it holds a comma, a quote or a line break; formula starts defused for spreadsheets. */
export function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvRow = (r: CampaignRecipient) => `${COLUMNS.map((c) => csvField(r[c])).join(',')}\r\n`;

/**
 * The campaign's recipients (of `filter`) as a CSV file, read a page at a time through the API. Each
 * page becomes a Blob as soon as it is read, so the page's objects can go and a 100,000-recipient
 * list is never held as JavaScript objects at once; `onProgress` hears how many rows are done.
 */
export async function recipientsCsv(
  projectId: string,
  campaignId: string,
  filter: RecipientFilter,
  onProgress: (rows: number) => void,
  signal: AbortSignal,
): Promise<Blob> {
  const parts: Blob[] = [new Blob([`${COLUMNS.join(',')}\r\n`])];
  let cursor: string | undefined;
  let rows = 0;
  do {
    const page = await recipientsPage(projectId, campaignId, filter, PAGE, cursor, signal);
    parts.push(new Blob([page.data.map(csvRow).join('')]));
    rows += page.data.length;
    onProgress(rows);
    cursor = page.hasMore && page.cursor ? page.cursor : undefined;
  } while (cursor);
  return new Blob(parts, { type: 'text/csv;charset=utf-8' });
}
