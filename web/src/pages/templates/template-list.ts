/**
 * The templates list's state lives in the URL (`?type=MARKETING&q=welcome&sort=name&dir=asc&page=2`),
 * so a filtered page can be bookmarked, shared and reloaded. Defaults are left out of the URL.
 */
import type { EmailType } from '../../../../src/api.js';

export const TYPE_LABELS: Record<EmailType, string> = {
  MARKETING: 'Marketing',
  TRANSACTIONAL: 'Transactional',
  HEADLESS: 'Headless',
};
export const TEMPLATE_TYPES = Object.keys(TYPE_LABELS) as EmailType[];

export type TemplateSort = 'name' | 'createdAt' | 'updatedAt';
export type SortDir = 'asc' | 'desc';
const SORTS: readonly TemplateSort[] = ['name', 'createdAt', 'updatedAt'];

export interface TemplateListState {
  page: number;
  type: EmailType | 'all';
  search: string;
  sort: TemplateSort;
  dir: SortDir;
}

export const DEFAULT_LIST: TemplateListState = { page: 1, type: 'all', search: '', sort: 'updatedAt', dir: 'desc' };

/** The sort choices offered, each a sort and a direction, as one select shows them. */
export const SORT_OPTIONS: { sort: TemplateSort; dir: SortDir; label: string }[] = [
  { sort: 'updatedAt', dir: 'desc', label: 'Recently updated' },
  { sort: 'createdAt', dir: 'desc', label: 'Newest first' },
  { sort: 'createdAt', dir: 'asc', label: 'Oldest first' },
  { sort: 'name', dir: 'asc', label: 'Name, A to Z' },
  { sort: 'name', dir: 'desc', label: 'Name, Z to A' },
];

export const sortKey = (s: { sort: TemplateSort; dir: SortDir }) => `${s.sort}:${s.dir}`;

export function parseSortKey(key: string): { sort: TemplateSort; dir: SortDir } {
  const option = SORT_OPTIONS.find((o) => sortKey(o) === key);
  return option ? { sort: option.sort, dir: option.dir } : { sort: DEFAULT_LIST.sort, dir: DEFAULT_LIST.dir };
}

const isType = (v: string | null): v is EmailType => v !== null && (TEMPLATE_TYPES as string[]).includes(v);
const isSort = (v: string | null): v is TemplateSort => v !== null && (SORTS as string[]).includes(v);

export function parseTemplateList(queryString: string): TemplateListState {
  const params = new URLSearchParams(queryString);
  const page = Number(params.get('page'));
  const type = params.get('type');
  const sort = params.get('sort');
  const dir = params.get('dir');
  return {
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
    type: isType(type) ? type : 'all',
    search: params.get('q')?.trim() ?? '',
    sort: isSort(sort) ? sort : DEFAULT_LIST.sort,
    dir: dir === 'asc' || dir === 'desc' ? dir : DEFAULT_LIST.dir,
  };
}

/** The query string of a state, without the `?`. */
export function templateListToQuery(state: TemplateListState): string {
  const params = new URLSearchParams();
  if (state.type !== 'all') params.set('type', state.type);
  const search = state.search.trim();
  if (search) params.set('q', search);
  if (state.sort !== DEFAULT_LIST.sort) params.set('sort', state.sort);
  if (state.dir !== DEFAULT_LIST.dir) params.set('dir', state.dir);
  if (state.page > 1) params.set('page', String(state.page));
  return params.toString();
}

/** What `GET /templates` is asked for this state. */
export function templatesApiQuery(state: TemplateListState, pageSize: number) {
  const search = state.search.trim();
  return {
    page: state.page,
    pageSize,
    sort: state.sort,
    dir: state.dir,
    ...(state.type === 'all' ? {} : { type: state.type }),
    ...(search ? { search } : {}),
  };
}

/** A new search, filter or order starts again from page one. */
export function withCriteria(state: TemplateListState, change: Partial<Omit<TemplateListState, 'page'>>) {
  return { ...state, ...change, page: 1 };
}

export type PageItem = number | 'gap';

/**
 * The page numbers a pager shows: the first, the last, and the current one with its neighbours;
 * runs left out become one gap (a gap never hides a single page: that page is shown instead).
 */
export function pageItems(current: number, totalPages: number): PageItem[] {
  if (totalPages <= 1) return [];
  const shown = new Set([1, totalPages, current - 1, current, current + 1]);
  const items: PageItem[] = [];
  for (let n = 1; n <= totalPages; n++) {
    if (shown.has(n)) items.push(n);
    else if (shown.has(n - 1) && shown.has(n + 1)) items.push(n);
    else if (items[items.length - 1] !== 'gap') items.push('gap');
  }
  return items;
}
