import { useLocation, useNavigate } from 'react-router-dom';
import { emailFiltersToQuery, type ListPosition, parseEmailFilters, readTrail } from './email-filters.js';

/** The list's filters from the URL, and a way to move to other filters (a new history entry by default). */
export function useEmailFilters() {
  const location = useLocation();
  const navigate = useNavigate();
  const filters = parseEmailFilters(location.search);
  const trail = readTrail(location.state);

  const go = (next: ListPosition, options: { replace?: boolean } = {}) => {
    const query = emailFiltersToQuery(next.filters);
    navigate(
      { pathname: location.pathname, search: query ? `?${query}` : '' },
      { replace: options.replace, state: { trail: next.trail } },
    );
  };

  return { filters, trail, go };
}
