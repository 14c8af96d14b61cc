import { expect } from 'vitest';

/**
 * A dashboard list's state in the address: the first, unfiltered page has an empty query, a filtered
 * page's state becomes `filtered.query` and is read back from it, and each query in `ignored` (values
 * the list does not know) reads as the first page.
 */
export function expectListInAddress<S>(
  codec: { parse: (query: string) => S; toQuery: (state: S) => string; first: S },
  filtered: { state: S; query: string },
  ignored: string[] = [],
): void {
  expect(codec.parse('')).toEqual(codec.first);
  expect(codec.toQuery(codec.first)).toBe('');
  expect(codec.toQuery(filtered.state)).toBe(filtered.query);
  expect(codec.parse(filtered.query)).toEqual(filtered.state);
  for (const query of ignored) expect(codec.parse(query), query).toEqual(codec.first);
}

/** What a dashboard list asks the API for, each state's page with `pageSize` rows. */
export function expectPagesAsked<S>(
  apiQuery: (state: S, pageSize: number) => unknown,
  pageSize: number,
  cases: { state: S; asked: Record<string, unknown> }[],
): void {
  for (const { state, asked } of cases) expect(apiQuery(state, pageSize), JSON.stringify(state)).toEqual(asked);
}
