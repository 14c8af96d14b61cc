/** Rows of the list chosen for a bulk action, by contact id; a page at a time. */

export type PageSelection = 'none' | 'some' | 'all';

export function pageSelection(selected: ReadonlySet<string>, pageIds: readonly string[]): PageSelection {
  const chosen = pageIds.filter((id) => selected.has(id)).length;
  if (chosen === 0) return 'none';
  return chosen === pageIds.length ? 'all' : 'some';
}

export function toggle(selected: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(selected);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

/** The page's select-all box: picks every row of the page, or, when all are picked, none of them. */
export function toggleAll(selected: ReadonlySet<string>, pageIds: readonly string[]): Set<string> {
  const next = new Set(selected);
  if (pageSelection(selected, pageIds) === 'all') for (const id of pageIds) next.delete(id);
  else for (const id of pageIds) next.add(id);
  return next;
}
