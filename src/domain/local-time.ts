/**
 * A contact's local time: which zone it lives in (from its `data`), and when a wall-clock time of
 * day next comes round there. Offsets come from the runtime's own time-zone data (`Intl`), so DST
 * rules are the tz database's, updated with Node.
 */
import { countryZone } from './country-zones.js';

/** A time of day as `HH:MM`, 00:00 to 23:59. */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter of the zone's wall clock; throws a RangeError for a name the runtime does not know. */
function wallClockFormat(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** The zone's name as the runtime spells it (`asia/tokyo` → `Asia/Tokyo`), or undefined for a name it does not know. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return wallClockFormat(name).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export const isTimeZone = (name: string): boolean => canonicalTimeZone(name) !== undefined;

/** The zone's wall clock at `ms`, read as if it were UTC: year, month, day, hour, minute, second. */
function wallClock(ms: number, zone: string): number {
  const parts: Record<string, number> = {};
  for (const p of wallClockFormat(zone).formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** How far the zone's wall clock is ahead of UTC at `ms`. */
function offsetAt(ms: number, zone: string): number {
  return wallClock(ms, zone) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant the zone's clock shows `wall` (a wall-clock time read as UTC). Of two (the hour
 * repeated when clocks go back) the first; of none (the hour skipped when they go forward) the
 * first instant after it, the moment of the change.
 */
function instantOf(wall: number, zone: string): number {
  const before = offsetAt(wall - DAY_MS, zone);
  const after = offsetAt(wall + DAY_MS, zone);
  const candidates = [...new Set([before, offsetAt(wall, zone), after])]
    .map((offset) => wall - offset)
    .filter((t) => wallClock(t, zone) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  // In the gap: the change lies between the two readings of `wall`; find its first minute.
  let lo = wall - before;
  let hi = wall - after;
  if (lo > hi) [lo, hi] = [hi, lo];
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
    if (offsetAt(mid, zone) === after) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The first instant at or after `now` when the zone's clock shows `time` (`HH:MM`): today's if it
 * is still to come (or is now), otherwise tomorrow's. A time skipped by a DST change is taken as the
 * moment of the change; a time repeated, as its first occurrence.
 */
export function nextLocalTime(now: Date, zone: string, time: string): Date {
  if (!TIME_OF_DAY.test(time)) throw new RangeError(`Not a time of day (HH:MM): ${time}`);
  const [hour, minute] = time.split(':').map(Number);
  const today = new Date(wallClock(now.getTime(), zone));
  for (let days = 0; ; days++) {
    const wall = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + days, hour, minute);
    const at = instantOf(wall, zone);
    if (at >= now.getTime()) return new Date(at);
  }
}

/** The region of a locale such as `en-US`, `pt_BR` or `en_US.UTF-8`, if it names one. */
function localeRegion(locale: string): string | undefined {
  try {
    return new Intl.Locale(locale.trim().split(/[.@]/)[0].replaceAll('_', '-')).region;
  } catch {
    return undefined;
  }
}

/**
 * The zone a contact lives in: its `timezone` field (an IANA name), else its `country`'s (ISO
 * 3166-1 alpha-2), else its `locale`'s region's; a value that names nothing known is passed over.
 * Without any, `fallback`.
 */
export function contactZone(data: Record<string, unknown>, fallback = 'UTC'): string {
  const { timezone, country, locale } = data;
  if (typeof timezone === 'string' && timezone.trim() !== '' && isTimeZone(timezone.trim())) return timezone.trim();
  const byCountry = typeof country === 'string' ? countryZone(country) : undefined;
  if (byCountry) return byCountry;
  const region = typeof locale === 'string' ? localeRegion(locale) : undefined;
  return (region && countryZone(region)) || fallback;
}
