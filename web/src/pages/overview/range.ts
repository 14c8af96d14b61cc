/**
 * The overview's range lives in the URL (`?range=7d`), so a view can be bookmarked and shared; the
 * default (the last 30 days) leaves the URL clean. The API counts whole UTC days, so a range of n
 * days starts at midnight UTC n − 1 days before today and runs to now.
 */

export const RANGES = [
  { key: '7d', days: 7, label: 'Last 7 days' },
  { key: '30d', days: 30, label: 'Last 30 days' },
  { key: '90d', days: 90, label: 'Last 90 days' },
  { key: '365d', days: 365, label: 'Last 12 months' },
] as const;

export type RangeKey = (typeof RANGES)[number]['key'];
export type Range = (typeof RANGES)[number];

export const DEFAULT_RANGE: RangeKey = '30d';

const DAY = 86_400_000;

const byKey = (key: string | null): Range | undefined => RANGES.find((r) => r.key === key);

/** The range a query string asks for; anything unknown is the default. */
export function parseRange(queryString: string): Range {
  return byKey(new URLSearchParams(queryString).get('range')) ?? byKey(DEFAULT_RANGE)!;
}

/** The query string (without `?`) of a range, keeping the other parameters; the default is left out. */
export function rangeToQuery(key: RangeKey, queryString = ''): string {
  const params = new URLSearchParams(queryString);
  if (key === DEFAULT_RANGE) params.delete('range');
  else params.set('range', key);
  return params.toString();
}

/** Midnight UTC of the first day of the range. */
export function rangeStart(range: Range, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (range.days - 1) * DAY);
}

/** What `/activity/stats` and `/analytics/timeseries` are asked for: `until` is left to the server (now). */
export function rangeApiQuery(range: Range, now: Date): { since: string } {
  return { since: rangeStart(range, now).toISOString() };
}
