/** Small conversions every module uses, declared once. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its text form (either case, as PostgreSQL reads it). */
export const isUuid = (s: string): boolean => UUID.test(s);

/** A stored timestamp as the API shows it; the driver gives a Date, a JSON aggregate a string. */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null): string | null;
export function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}

/** The longest wait between two attempts of anything: an hour. */
const MAX_BACKOFF_MS = 60 * 60_000;

/** The wait before retrying after `attempt` failed attempts: `baseMs`, doubling, at most an hour. */
export function backoffMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
}

/** A LIKE/ILIKE pattern matching `text` anywhere, its wildcards taken literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
