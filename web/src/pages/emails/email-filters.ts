/**
 * The emails list's state lives in the URL (`?status=sent&to=ada@example.com&campaignId=…&cursor=…`),
 * so a view of the mailbox can be bookmarked, shared and reloaded. Going back a page needs the
 * cursors of the pages before; they ride along in the history entry's state (`trail`), oldest
 * first, `null` standing for page one.
 */
import type { EmailStatus } from '../../../../src/api.js';
import { type ListPosition as Position, pageNumber as pageOf, type Trail } from '../../components/cursor-trail.js';

export { nextPage, previousPage, readTrail, type Trail } from '../../components/cursor-trail.js';

/** In the order the filter offers them. */
export const EMAIL_STATUSES = [
  'queued',
  'sent',
  'failed',
  'skipped',
  'bounced',
] as const satisfies readonly EmailStatus[];

export interface EmailFilters {
  status: EmailStatus | null;
  /** One exact address; the API matches it whole, not as a search. */
  to: string;
  campaignId: string | null;
  cursor: string | null;
}

export type ListPosition = Position<EmailFilters>;

export const FIRST_PAGE: EmailFilters = { status: null, to: '', campaignId: null, cursor: null };

const isStatus = (value: string | null): value is EmailStatus =>
  value !== null && (EMAIL_STATUSES as readonly string[]).includes(value);

export function parseEmailFilters(queryString: string): EmailFilters {
  const params = new URLSearchParams(queryString);
  const status = params.get('status');
  return {
    status: isStatus(status) ? status : null,
    to: params.get('to')?.trim() ?? '',
    campaignId: params.get('campaignId')?.trim() || null,
    cursor: params.get('cursor') || null,
  };
}

/** The query string of a state, without the `?`; defaults are left out so a clean list has a clean URL. */
export function emailFiltersToQuery(filters: EmailFilters): string {
  const params = new URLSearchParams();
  if (filters.status) params.set('status', filters.status);
  const to = filters.to.trim();
  if (to) params.set('to', to);
  if (filters.campaignId) params.set('campaignId', filters.campaignId);
  if (filters.cursor) params.set('cursor', filters.cursor);
  return params.toString();
}

/** What `GET /emails` is asked for this state. */
export function emailsApiQuery(filters: EmailFilters, limit: number) {
  const to = filters.to.trim();
  return {
    limit,
    ...(filters.status ? { status: filters.status } : {}),
    ...(to ? { to } : {}),
    ...(filters.campaignId ? { campaignId: filters.campaignId } : {}),
    ...(filters.cursor ? { cursor: filters.cursor } : {}),
  };
}

export const isFiltered = (filters: EmailFilters) =>
  filters.status !== null || filters.to.trim() !== '' || filters.campaignId !== null;

/** A new filter starts again from page one. */
export function withCriteria(filters: EmailFilters, change: Partial<Omit<EmailFilters, 'cursor'>>): ListPosition {
  return { filters: { ...filters, ...change, cursor: null }, trail: [] };
}

/** The page number shown to people: page one plus the pages left behind; unknown (null) from a pasted link. */
export const pageNumber = (filters: EmailFilters, trail: Trail) => pageOf(filters.cursor, trail);

/**
 * Whether a recipient filter can match anything: the API takes one whole address. An address-like
 * check only (something@something), to say so beside the field before asking the server.
 */
export const looksLikeAddress = (value: string) => /^[^\s@]+@[^\s@]+$/.test(value.trim());
