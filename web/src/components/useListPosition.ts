import { useLocation, useNavigate } from 'react-router-dom';
import { type ListPosition, type Paged, readTrail } from './cursor-trail.js';

/**
 * A cursor-paged list's place, read from the URL and its history entry, and a way to move it:
 * a new history entry unless `replace`; `state` rides along with the trail.
 */
export function useListPosition<F extends Paged>(parse: (search: string) => F, toQuery: (filters: F) => string) {
  const location = useLocation();
  const navigate = useNavigate();
  const go = (next: ListPosition<F>, options: { replace?: boolean; state?: object } = {}) => {
    const query = toQuery(next.filters);
    navigate(
      { pathname: location.pathname, search: query ? `?${query}` : '' },
      { replace: options.replace, state: { ...options.state, trail: next.trail } },
    );
  };
  return { filters: parse(location.search), trail: readTrail(location.state), state: location.state as unknown, go };
}
