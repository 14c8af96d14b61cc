import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RANGE,
  parseRange,
  RANGES,
  rangeApiQuery,
  rangeStart,
  rangeToQuery,
} from '../../web/src/pages/overview/range.js';

const NOW = new Date('2025-03-10T15:42:00Z');

describe('the overview range in the URL', () => {
  it('no parameter, or an unknown one, is the default: the last 30 days', () => {
    expect(parseRange('').key).toBe(DEFAULT_RANGE);
    expect(parseRange('?range=13d').key).toBe('30d');
    expect(parseRange('?range=').key).toBe('30d');
  });

  it('round-trips every range, the default leaving the URL clean', () => {
    for (const r of RANGES) expect(parseRange(`?${rangeToQuery(r.key)}`).key).toBe(r.key);
    expect(rangeToQuery('30d')).toBe('');
    expect(rangeToQuery('7d')).toBe('range=7d');
  });

  it('keeps the other parameters of the address', () => {
    expect(rangeToQuery('90d', '?range=7d&x=1')).toBe('range=90d&x=1');
    expect(rangeToQuery('30d', 'range=7d&x=1')).toBe('x=1');
  });
});

describe('the range as the API is asked for it', () => {
  it('starts at midnight UTC, n − 1 days before today, so n whole days are counted', () => {
    expect(rangeApiQuery(parseRange('?range=7d'), NOW)).toEqual({ since: '2025-03-04T00:00:00.000Z' });
    expect(rangeApiQuery(parseRange(''), NOW)).toEqual({ since: '2025-02-09T00:00:00.000Z' });
  });

  it('is the same all day long (one cache entry a day)', () => {
    const range = parseRange('?range=90d');
    expect(rangeStart(range, new Date('2025-03-10T00:00:00Z'))).toEqual(
      rangeStart(range, new Date('2025-03-10T23:59:59.999Z')),
    );
  });

  it('a year stays within the 366 days the API accepts', () => {
    const since = rangeStart(parseRange('?range=365d'), NOW);
    const days = (NOW.getTime() - since.getTime()) / 86_400_000;
    expect(days).toBeLessThan(366);
    expect(since.toISOString()).toBe('2024-03-11T00:00:00.000Z');
  });
});
