import { useLocation, useNavigate } from 'react-router-dom';
import {
  contactFiltersToQuery,
  type ListPosition,
  parseContactFilters,
  readTrail,
  type Trail,
} from './contact-filters.js';

interface ListState {
  trail: Trail;
  /** The count from the first page, carried along because later pages do not count. */
  total: number | null;
}

function readTotal(state: unknown): number | null {
  const total = (state as { total?: unknown } | null)?.total;
  return typeof total === 'number' ? total : null;
}

/** The list's filters from the URL, and a way to move to other filters (a new history entry by default). */
export function useContactFilters() {
  const location = useLocation();
  const navigate = useNavigate();
  const filters = parseContactFilters(location.search);
  const trail = readTrail(location.state);
  const total = readTotal(location.state);

  const go = (next: ListPosition, options: { replace?: boolean; total?: number | null }) => {
    const query = contactFiltersToQuery(next.filters);
    const state: ListState = { trail: next.trail, total: options.total ?? null };
    navigate({ pathname: location.pathname, search: query ? `?${query}` : '' }, { replace: options.replace, state });
  };

  return { filters, trail, total, go };
}
