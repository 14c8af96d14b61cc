/**
 * When each of a campaign's emails may go, from the moment the campaign started sending: at once,
 * at a time of day in the recipient's own zone, or at its place in a window spread evenly over some
 * hours. Pure: the fan-out gives it the recipient's zone and place in the audience.
 */
import { nextLocalTime } from './local-time.js';

export const WHEN_PASSED = ['nextDay', 'now'] as const;
export type WhenPassed = (typeof WHEN_PASSED)[number];

/** Send at `time` (HH:MM) in each recipient's zone; where it has already passed on the send day, `whenPassed` says. */
export interface LocalTime {
  time: string;
  whenPassed: WhenPassed;
}

export const SPREAD_HOURS = { min: 1, max: 72 } as const;

/** A campaign's timing; at most one of the two is set (both null: everyone at the send moment). */
export interface CampaignTiming {
  localTime: LocalTime | null;
  spreadHours: number | null;
}

const HOUR_MS = 3_600_000;

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) the zone's clock shows at `at`. */
function localDate(at: Date, zone: string): string {
  let format = dateFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormats.set(zone, format);
  }
  return format.format(at);
}

/**
 * The instant `time` comes round in `zone` at or after `start`. When it has already passed there on
 * the send day, the next day's (`nextDay`) or `start` itself (`now`).
 */
export function localSendTime(start: Date, zone: string, localTime: LocalTime): Date {
  const next = nextLocalTime(start, zone, localTime.time);
  if (localTime.whenPassed === 'now' && localDate(next, zone) !== localDate(start, zone)) return start;
  return next;
}

/**
 * The `position`-th (0-based) of `total` recipients' instant in a window of `hours` from `start`,
 * evenly apart; the fan-out reckons the same in SQL (campaigns/sending `sendAtSql`).
 */
export function spreadSendTime(start: Date, hours: number, position: number, total: number): Date {
  if (total <= 1) return start;
  const place = Math.min(Math.max(position, 0), total - 1);
  return new Date(start.getTime() + Math.floor((hours * HOUR_MS * place) / total));
}

/** Contacts sharing the fields their zone comes from (`contactZone`), and how many they are. */
export interface ZoneFields {
  timezone: string | null;
  country: string | null;
  locale: string | null;
  contacts: number;
}

export interface ZoneSendTime {
  zone: string;
  contacts: number;
  /** When this zone's emails go; null for a spread, where each recipient has its own place. */
  sendAt: Date | null;
}

export interface SendTimes {
  total: number;
  zones: ZoneSendTime[];
  firstSendAt: Date | null;
  lastSendAt: Date | null;
}

/**
 * The audience's zones (by their contacts' fields, grouped beforehand), each one's count and send
 * time, and when the first and the last email go; zones in the order they are sent, then by name.
 */
export function sendTimes(
  groups: ZoneFields[],
  timing: CampaignTiming,
  start: Date,
  zoneOf: (data: Record<string, unknown>) => string,
): SendTimes {
  const counts = new Map<string, number>();
  for (const g of groups) {
    const zone = zoneOf({ timezone: g.timezone, country: g.country, locale: g.locale });
    counts.set(zone, (counts.get(zone) ?? 0) + g.contacts);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const zones = [...counts].map(([zone, contacts]): ZoneSendTime => {
    if (timing.spreadHours) return { zone, contacts, sendAt: null };
    const at = timing.localTime ? localSendTime(start, zone, timing.localTime) : start;
    return { zone, contacts, sendAt: at };
  });
  zones.sort((a, b) => (a.sendAt?.getTime() ?? 0) - (b.sendAt?.getTime() ?? 0) || a.zone.localeCompare(b.zone));
  if (total === 0) return { total, zones, firstSendAt: null, lastSendAt: null };
  if (timing.spreadHours)
    return {
      total,
      zones,
      firstSendAt: start,
      lastSendAt: spreadSendTime(start, timing.spreadHours, total - 1, total),
    };
  return { total, zones, firstSendAt: zones[0]!.sendAt, lastSendAt: zones[zones.length - 1]!.sendAt };
}
