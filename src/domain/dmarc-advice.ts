/**
 * When to move a DMARC policy on: from monitoring (`p=none`) to `quarantine`, and from there to
 * `reject`, once the domain's mail has passed at 98 % or more on each of the last 14 days reported.
 * Pure: the days come from the stored reports.
 */
import type { DmarcPolicy } from './dmarc-record.js';

export const STEADY_DAYS = 14;
export const STEADY_PASS_RATE = 0.98;

export interface DayVolume {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  messages: number;
  passed: number;
}

const NEXT: Record<DmarcPolicy, DmarcPolicy | null> = { none: 'quarantine', quarantine: 'reject', reject: null };
const DAY_MS = 86_400_000;

/** The days `YYYY-MM-DD` of the `count` days ending with `last`, oldest first. */
export function daysEnding(last: string, count: number): string[] {
  const end = Date.parse(`${last}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(end - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * The next policy to publish (null to stay) and why, given the policy in force and the days of a
 * range that ends with `lastDay`. A day's reports arrive the day after, so the 14 days end with
 * `lastDay` when it has reports already, else with the day before; a day without reports counts as
 * not passing.
 */
export function policyAdvice(
  policy: DmarcPolicy | null,
  days: DayVolume[],
  lastDay: string,
): { policy: DmarcPolicy | null; text: string } {
  if (policy === null)
    return {
      policy: null,
      text: 'No reports in this period. Receivers send them daily once the DMARC record with Postbox’s address is published.',
    };
  const next = NEXT[policy];
  if (next === null) return { policy: null, text: 'p=reject is in force: receivers refuse mail that fails DMARC.' };
  const byDay = new Map(days.map((d) => [d.day, d]));
  const end = byDay.has(lastDay) ? lastDay : daysEnding(lastDay, 2)[0]!;
  const steady = daysEnding(end, STEADY_DAYS).filter((day) => {
    const d = byDay.get(day);
    return d !== undefined && d.messages > 0 && d.passed / d.messages >= STEADY_PASS_RATE;
  }).length;
  if (steady === STEADY_DAYS)
    return {
      policy: next,
      text: `At least 98 % passed on each of the last ${STEADY_DAYS} days: move the policy from p=${policy} to p=${next}.`,
    };
  return {
    policy: null,
    text:
      `Keep p=${policy} until at least 98 % pass on each of ${STEADY_DAYS} days in a row ` +
      `(${steady} of the last ${STEADY_DAYS} so far); make the failing sources below pass, or stop them, first.`,
  };
}
