import type { Campaign, CampaignSendTimes } from '../../../../src/api.js';

/**
 * When a campaign's emails go, as the composer edits it: all at the send moment, at a time of day in
 * each recipient's zone, or spread over some hours. The inputs are kept as typed (a half-typed hour
 * count stays in the form) and turned into the API's `localTime` and `spread` when saved.
 */

export type TimingChoice = 'once' | 'localTime' | 'spread';
export type WhenPassed = 'nextDay' | 'now';

export interface TimingForm {
  timing: TimingChoice;
  /** HH:MM, as the time input gives it. */
  localTimeAt: string;
  whenPassed: WhenPassed;
  spreadHours: string;
}

export const TIMING_FIELDS = ['localTime', 'localTime.time', 'localTime.whenPassed', 'spread', 'spread.hours'] as const;

export const EMPTY_TIMING: TimingForm = {
  timing: 'once',
  localTimeAt: '09:00',
  whenPassed: 'nextDay',
  spreadHours: '4',
};

export const SPREAD_LIMITS = { min: 1, max: 72 } as const;

export function timingFormOf(c: Pick<Campaign, 'localTime' | 'spread'>): TimingForm {
  if (c.localTime)
    return { ...EMPTY_TIMING, timing: 'localTime', localTimeAt: c.localTime.time, whenPassed: c.localTime.whenPassed };
  if (c.spread) return { ...EMPTY_TIMING, timing: 'spread', spreadHours: String(c.spread.hours) };
  return EMPTY_TIMING;
}

/** The body's `localTime` and `spread`; what the chosen option does not use is null. */
export function timingPayload(form: TimingForm): Pick<Campaign, 'localTime' | 'spread'> {
  return {
    localTime: form.timing === 'localTime' ? { time: form.localTimeAt, whenPassed: form.whenPassed } : null,
    // A count that is not a number is sent as it is, for the API to say what is wrong beside the field.
    spread: form.timing === 'spread' ? { hours: Number(form.spreadHours.trim() || Number.NaN) } : null,
  };
}

/** What would stop the save, by API field, before asking the API; empty when none. */
export function timingErrors(form: TimingForm): Record<string, string> {
  if (form.timing === 'localTime' && !/^([01]\d|2[0-3]):[0-5]\d$/.test(form.localTimeAt))
    return { 'localTime.time': 'A time of day from 00:00 to 23:59' };
  if (form.timing === 'spread') {
    const hours = Number(form.spreadHours.trim() || Number.NaN);
    if (!Number.isInteger(hours) || hours < SPREAD_LIMITS.min || hours > SPREAD_LIMITS.max)
      return { 'spread.hours': `A whole number of hours from ${SPREAD_LIMITS.min} to ${SPREAD_LIMITS.max}` };
  }
  return {};
}

export const timingDirty = (a: TimingForm, b: TimingForm) =>
  a.timing !== b.timing ||
  (a.timing === 'localTime' && (a.localTimeAt !== b.localTimeAt || a.whenPassed !== b.whenPassed)) ||
  (a.timing === 'spread' && a.spreadHours !== b.spreadHours);

/** The zones of the audience in one line each, largest first past `shown`: "Europe/Berlin: 120". */
export function zoneLines(
  times: Pick<CampaignSendTimes, 'zones'>,
  shown = 8,
): { lines: { zone: string; contacts: number; sendAt: string | null }[]; more: number } {
  const byCount = [...times.zones].sort((a, b) => b.contacts - a.contacts || a.zone.localeCompare(b.zone));
  const lines = byCount.slice(0, shown);
  return { lines, more: byCount.slice(shown).reduce((n, z) => n + z.contacts, 0) };
}
