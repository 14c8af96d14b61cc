/**
 * Keyset pages in the URL: the page's cursor is a query parameter, and going back needs the
 * cursors of the pages before, which ride along in the history entry's state (`trail`), oldest
 * first, `null` standing for page one. Every list paged by cursor keeps its place this way.
 */

export type Trail = (string | null)[];

export interface Paged {
  cursor: string | null;
}

/** Where a list is: what it shows, and how it got there. */
export interface ListPosition<F extends Paged> {
  filters: F;
  trail: Trail;
}

export function readTrail(state: unknown): Trail {
  const trail = (state as { trail?: unknown } | null)?.trail;
  return Array.isArray(trail) && trail.every((c) => c === null || typeof c === 'string') ? trail : [];
}

export function nextPage<F extends Paged>(filters: F, trail: Trail, nextCursor: string): ListPosition<F> {
  return { filters: { ...filters, cursor: nextCursor }, trail: [...trail, filters.cursor] };
}

/** Without a trail (a pasted link), "previous" can only go back to the first page. */
export function previousPage<F extends Paged>(filters: F, trail: Trail): ListPosition<F> {
  const cursor = trail.length > 0 ? (trail[trail.length - 1] ?? null) : null;
  return { filters: { ...filters, cursor }, trail: trail.slice(0, -1) };
}

/** The page number shown: page one plus the pages left behind; unknown (null) from a pasted link. */
export function pageNumber(cursor: string | null, trail: Trail): number | null {
  if (!cursor) return 1;
  return trail.length > 0 ? trail.length + 1 : null;
}
