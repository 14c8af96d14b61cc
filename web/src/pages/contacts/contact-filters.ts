/**
 * The contacts list's state lives in the URL (`?q=ann&subscribed=true&cursor=…`), so a search can
 * be bookmarked, shared and reloaded. Going back a page needs the cursors of the pages before; they
 * ride along in the history entry's state (`trail`), oldest first, `null` standing for page one.
 */
import { type ListPosition as Position, pageNumber as pageOf, type Trail } from '../../components/cursor-trail.js';

export { nextPage, previousPage, readTrail, type Trail } from '../../components/cursor-trail.js';

export type SubscribedFilter = 'all' | 'subscribed' | 'unsubscribed';
/** The orders `GET /contacts` knows (`sort`, `dir`); newest first unless asked otherwise. */
export type ContactSort = 'createdAt' | 'email';
export type SortDir = 'asc' | 'desc';

export interface ContactFilters {
  search: string;
  subscribed: SubscribedFilter;
  sort: ContactSort;
  dir: SortDir;
  cursor: string | null;
}

/** Where the list is: what it shows, and how it got there. */
export type ListPosition = Position<ContactFilters>;

export const FIRST_PAGE: ContactFilters = {
  search: '',
  subscribed: 'all',
  sort: 'createdAt',
  dir: 'desc',
  cursor: null,
};

const SUBSCRIBED_PARAM: Record<SubscribedFilter, string | null> = {
  all: null,
  subscribed: 'true',
  unsubscribed: 'false',
};

export function parseContactFilters(queryString: string): ContactFilters {
  const params = new URLSearchParams(queryString);
  const subscribedParam = params.get('subscribed');
  const subscribed: SubscribedFilter =
    subscribedParam === 'true' ? 'subscribed' : subscribedParam === 'false' ? 'unsubscribed' : 'all';
  const sort: ContactSort = params.get('sort') === 'email' ? 'email' : 'createdAt';
  const dirParam = params.get('dir');
  const dir: SortDir = dirParam === 'asc' || dirParam === 'desc' ? dirParam : FIRST_PAGE.dir;
  return { search: params.get('q')?.trim() ?? '', subscribed, sort, dir, cursor: params.get('cursor') || null };
}

/** The query string of a state, without the `?`; defaults are left out so a clean list has a clean URL. */
export function contactFiltersToQuery(filters: ContactFilters): string {
  const params = new URLSearchParams();
  const search = filters.search.trim();
  if (search) params.set('q', search);
  const subscribed = SUBSCRIBED_PARAM[filters.subscribed];
  if (subscribed) params.set('subscribed', subscribed);
  if (filters.sort !== FIRST_PAGE.sort) params.set('sort', filters.sort);
  if (filters.dir !== FIRST_PAGE.dir) params.set('dir', filters.dir);
  if (filters.cursor) params.set('cursor', filters.cursor);
  return params.toString();
}

/** What `GET /contacts` is asked for this state. */
export function contactsApiQuery(filters: ContactFilters, limit: number) {
  const search = filters.search.trim();
  return {
    limit,
    ...(search ? { search } : {}),
    ...(filters.subscribed === 'all' ? {} : { subscribed: filters.subscribed === 'subscribed' }),
    ...(filters.sort === FIRST_PAGE.sort ? {} : { sort: filters.sort }),
    ...(filters.dir === FIRST_PAGE.dir ? {} : { dir: filters.dir }),
    ...(filters.cursor ? { cursor: filters.cursor } : {}),
  };
}

/** The list's order as one choice, `createdAt:desc` and the like, for a single select. */
export const SORT_OPTIONS: readonly { value: `${ContactSort}:${SortDir}`; label: string }[] = [
  { value: 'createdAt:desc', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
  { value: 'email:asc', label: 'Email A–Z' },
  { value: 'email:desc', label: 'Email Z–A' },
];

export function sortValue(filters: Pick<ContactFilters, 'sort' | 'dir'>): `${ContactSort}:${SortDir}` {
  return `${filters.sort}:${filters.dir}`;
}

/** The order a select's value names; anything else is the default order. */
export function parseSortValue(value: string): Pick<ContactFilters, 'sort' | 'dir'> {
  const option = SORT_OPTIONS.find((o) => o.value === value);
  if (!option) return { sort: FIRST_PAGE.sort, dir: FIRST_PAGE.dir };
  const [sort, dir] = option.value.split(':') as [ContactSort, SortDir];
  return { sort, dir };
}

/** A new search, filter or order starts again from page one. */
export function withCriteria(filters: ContactFilters, change: Partial<Omit<ContactFilters, 'cursor'>>): ListPosition {
  return { filters: { ...filters, ...change, cursor: null }, trail: [] };
}

/** The page number shown to people: page one plus the pages left behind; unknown (null) from a pasted link. */
export const pageNumber = (filters: ContactFilters, trail: Trail) => pageOf(filters.cursor, trail);
