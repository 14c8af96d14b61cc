/**
 * The dashboard's one date format and one date-time format, in the viewer's locale and time zone
 * (the browser's), so "Member since" and "Sent" read alike on every page. A calendar day that is
 * stored without a time (`YYYY-MM-DD`: a date field, a schedule's day) is shown as that day,
 * wherever the viewer is.
 */

export interface Where {
  /** A BCP 47 locale; the browser's when absent. */
  locale?: string;
  /** An IANA time zone; the browser's when absent. */
  timeZone?: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(kind: 'date' | 'dateTime' | 'day' | 'tick', where: Where): Intl.DateTimeFormat {
  const key = `${kind} ${where.locale ?? ''} ${where.timeZone ?? ''}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(where.locale, {
      ...(kind === 'tick' ? { month: 'short', day: 'numeric' } : { dateStyle: 'medium' }),
      ...(kind === 'dateTime' ? { timeStyle: 'short' } : {}),
      // A calendar day is stored as its UTC midnight: read back in UTC it stays the same day.
      timeZone: kind === 'day' || kind === 'tick' ? 'UTC' : where.timeZone,
    });
    formats.set(key, f);
  }
  return f;
}

const asDate = (value: string | number | Date) => (value instanceof Date ? value : new Date(value));

/** "Nov 27, 2026" (in the viewer's locale): the day a moment fell on where the viewer is. */
export const formatDate = (value: string | number | Date, where: Where = {}) =>
  format('date', where).format(asDate(value));

/** "Nov 27, 2026, 2:05 PM" (in the viewer's locale and time zone). */
export const formatDateTime = (value: string | number | Date, where: Where = {}) =>
  format('dateTime', where).format(asDate(value));

const asDay = (day: string | Date) =>
  typeof day === 'string' && day.length === 10 ? new Date(`${day}T00:00:00Z`) : asDate(day);

/** A calendar day stored as `YYYY-MM-DD` (or a UTC midnight), in the date format, never shifted a day. */
export const formatDay = (day: string | Date, where: Where = {}) => format('day', where).format(asDay(day));

/** A calendar day without its year ("Nov 27"), where room is short: a chart's axis. */
export const formatDayShort = (day: string | Date, where: Where = {}) => format('tick', where).format(asDay(day));
