import { useListPosition } from '../../components/useListPosition.js';
import { contactFiltersToQuery, type ListPosition, parseContactFilters } from './contact-filters.js';

/** The count from the first page, carried along in the history entry because later pages do not count. */
function readTotal(state: unknown): number | null {
  const total = (state as { total?: unknown } | null)?.total;
  return typeof total === 'number' ? total : null;
}

/** The list's filters from the URL, and a way to move to other filters (a new history entry by default). */
export function useContactFilters() {
  const list = useListPosition(parseContactFilters, contactFiltersToQuery);
  const go = (next: ListPosition, options: { replace?: boolean; total?: number | null }) =>
    list.go(next, { replace: options.replace, state: { total: options.total ?? null } });
  return { filters: list.filters, trail: list.trail, total: readTotal(list.state), go };
}
