/**
 * The delivery page's rules: what each change asks of `PATCH /delivery-settings`, a warm-up in
 * words, and the checks said beside a field before the request. The server's schemas
 * (src/modules/pacing/schemas.ts) are the ones that count; the limits below repeat theirs.
 */
import type { DeliverySettings, pacing } from '../../../../src/api.js';
import { dayOf, type WarmupSchedule, warmupDay } from '../../../../src/domain/pacing.js';
import { formatDay } from '../../format/dates.js';

export type WarmupView = DeliverySettings['warmups'][number];
export type DomainLimit = pacing.RecipientDomainLimit;
export type SettingsPatch = pacing.DeliverySettingsPatch;

export const LIMITS = {
  perMinute: 1_000_000,
  concurrency: 1000,
  startVolume: 10_000_000,
  fullVolume: 100_000_000,
  minGrowth: 1.01,
  maxGrowth: 10,
};

// ---------------------------------------------------------------------------------------------
// Request bodies. A list given replaces the project's list, so each change sends its list whole.

/** The PATCH form of a warm-up: the API refuses the `today` it answers with. */
const scheduleOf = ({ domain, startVolume, dailyGrowth, fullVolume, startedOn }: pacing.Warmup): pacing.Warmup => ({
  domain,
  startVolume,
  dailyGrowth,
  fullVolume,
  startedOn,
});

/** Adds a warm-up at the end of the list, where its field errors point (`warmups.<index>.…`). */
export function addWarmupBody(
  settings: DeliverySettings,
  warmup: pacing.Warmup,
): { body: SettingsPatch; index: number } {
  const warmups = [...settings.warmups.map(scheduleOf), scheduleOf(warmup)];
  return { body: { warmups }, index: warmups.length - 1 };
}

export function removeWarmupBody(settings: DeliverySettings, domain: string): SettingsPatch {
  return { warmups: settings.warmups.filter((w) => w.domain !== domain).map(scheduleOf) };
}

/**
 * Puts a limit in the list: in place of `replacing` (the domain of the limit being edited), or at
 * the end. `index` is where it lands, for its field errors.
 */
export function putLimitBody(
  settings: DeliverySettings,
  limit: DomainLimit,
  replacing: string | null,
): { body: SettingsPatch; index: number } {
  const list = [...settings.recipientDomains];
  const at = replacing === null ? -1 : list.findIndex((l) => l.domain === replacing);
  const index = at === -1 ? list.length : at;
  list[index] = limit;
  return { body: { recipientDomains: list }, index };
}

export function removeLimitBody(settings: DeliverySettings, domain: string): SettingsPatch {
  return { recipientDomains: settings.recipientDomains.filter((l) => l.domain !== domain) };
}

/**
 * The API's field errors about one item of a list (`warmups.2.startVolume`), keyed by the item's
 * own field (`startVolume`); the errors of other items are left for the form's message.
 */
export function itemErrors(fields: Record<string, string>, list: string, index: number): Record<string, string> {
  const prefix = `${list}.${index}.`;
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([path]) => path.startsWith(prefix))
      .map(([path, message]) => [path.slice(prefix.length), message]),
  );
}

// ---------------------------------------------------------------------------------------------
// Words.

const numberFormat = new Intl.NumberFormat('en');
const count = (n: number) => numberFormat.format(n);

const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) => dayOf(new Date(Date.parse(day) + n * DAY_MS));

/** The first day whose allowance reaches the full volume (the day the warm-up ends), as the worker counts it. */
export function finishingDay(schedule: WarmupSchedule): { day: number; date: string } {
  // At the slowest growth (1.01) from 1 to the largest full volume, about 1,850 days.
  for (let day = 1; ; day++) {
    const date = addDays(schedule.startedOn, day - 1);
    if (warmupDay(schedule, new Date(Date.parse(date))).cap === null) return { day, date };
  }
}

/** "50% more each day": how the growth factor reads. */
export function growthInWords(factor: number): string {
  const percent = Math.round((factor - 1) * 10_000) / 100;
  return `${count(percent)}% more each day`;
}

/** Where a warm-up stands today, as a marketer reads it; `today` is the UTC day, `YYYY-MM-DD`. */
export function todayInWords(warmup: WarmupView, today: string): { tone: 'ok' | 'waiting'; text: string } {
  const { day, cap, sent } = warmup.today;
  if (cap === null) return { tone: 'ok', text: 'Warm-up finished: no daily limit' };
  if (warmup.startedOn > today) {
    return {
      tone: 'waiting',
      text: `Starts on ${formatDay(warmup.startedOn)} with ${count(warmup.startVolume)} campaign emails on its first day; no daily limit until then`,
    };
  }
  const sentToday = `${count(sent)} of ${count(cap)} campaign email${cap === 1 ? '' : 's'} sent today`;
  const full = sent >= cap ? '; the rest wait until tomorrow (UTC)' : '';
  return { tone: 'waiting', text: `Day ${day} of the warm-up: ${sentToday}${full}` };
}

/** The whole schedule in one sentence. */
export function scheduleInWords(warmup: WarmupSchedule): string {
  const end = finishingDay(warmup);
  const from = `From ${formatDay(warmup.startedOn)}: ${count(warmup.startVolume)} a day at first`;
  if (end.day === 1) return `${from}, already the full volume of ${count(warmup.fullVolume)}.`;
  return `${from}, ${growthInWords(warmup.dailyGrowth)}, until ${count(warmup.fullVolume)} a day on ${formatDay(end.date)} (day ${end.day}).`;
}

export const perMinuteInWords = (limit: DomainLimit) =>
  limit.perMinute === null ? 'No limit' : `${count(limit.perMinute)} a minute`;

export function concurrencyInWords(limit: DomainLimit, defaultConcurrency: number | null): string {
  if (limit.concurrency !== null) return count(limit.concurrency);
  return defaultConcurrency === null ? 'No limit (the default)' : `${count(defaultConcurrency)} (the default)`;
}

// ---------------------------------------------------------------------------------------------
// Forms: what was typed, read into what the API takes, or the problem of each field.

export type Read<T> = { ok: true; value: T } | { ok: false; errors: Partial<Record<keyof T, string>> };

/** A whole number typed with or without thousands separators ("10,000"); NaN when it is not one. */
function wholeNumber(text: string): number {
  const plain = text.replace(/[\s,_]/g, '');
  return /^\d+$/.test(plain) ? Number(plain) : Number.NaN;
}

function countProblem(text: string, max: number, what: string): string | null {
  if (text.trim() === '') return `Enter ${what}.`;
  const n = wholeNumber(text);
  if (!Number.isSafeInteger(n) || n < 1) return 'Enter a whole number of at least 1.';
  if (n > max) return `At most ${count(max)}.`;
  return null;
}

/** Optional counts: empty is null ("no limit", or "the default"). */
function optionalCount(text: string, max: number): { value: number | null; problem: string | null } {
  if (text.trim() === '') return { value: null, problem: null };
  const problem = countProblem(text, max, '');
  return { value: problem ? null : wholeNumber(text), problem };
}

const sameDomain = (a: string, b: string) => a.trim().toLowerCase().replace(/\.$/, '') === b;

export interface LimitDraft {
  domain: string;
  perMinute: string;
  concurrency: string;
}

export const limitDraft = (limit: DomainLimit | null): LimitDraft => ({
  domain: limit?.domain ?? '',
  perMinute: limit?.perMinute === null || !limit ? '' : String(limit.perMinute),
  concurrency: limit?.concurrency === null || !limit ? '' : String(limit.concurrency),
});

/**
 * A recipient domain's limit from the form. `others` are the domains already limited (the one
 * being edited left out). The form of the name is the server's to judge.
 */
export function readLimit(draft: LimitDraft, others: readonly string[]): Read<DomainLimit> {
  const errors: Partial<Record<keyof DomainLimit, string>> = {};
  const domain = draft.domain.trim();
  if (domain === '') errors.domain = 'Enter a domain, such as gmail.com.';
  else if (others.some((o) => sameDomain(domain, o))) errors.domain = `${domain} already has a limit: edit that one.`;
  const perMinute = optionalCount(draft.perMinute, LIMITS.perMinute);
  const concurrency = optionalCount(draft.concurrency, LIMITS.concurrency);
  if (perMinute.problem) errors.perMinute = perMinute.problem;
  if (concurrency.problem) errors.concurrency = concurrency.problem;
  if (!errors.perMinute && !errors.concurrency && perMinute.value === null && concurrency.value === null) {
    errors.perMinute = 'Give a rate, a number in flight, or both.';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { domain, perMinute: perMinute.value, concurrency: concurrency.value } };
}

/** The default number in flight; empty lifts the limit. */
export function readDefaultConcurrency(
  text: string,
): { ok: true; value: number | null } | { ok: false; error: string } {
  const { value, problem } = optionalCount(text, LIMITS.concurrency);
  return problem ? { ok: false, error: problem } : { ok: true, value };
}

export type GrowthUnit = 'percent' | 'factor';

export interface WarmupDraft {
  domain: string;
  startVolume: string;
  growth: string;
  growthUnit: GrowthUnit;
  fullVolume: string;
  startedOn: string;
}

export const warmupDraft = (today: string, domain = ''): WarmupDraft => ({
  domain,
  startVolume: '',
  growth: '50',
  growthUnit: 'percent',
  fullVolume: '',
  startedOn: today,
});

/** The growth factor typed as "50" (%) or "1.5" (times the day before); NaN when it is not a number. */
export function growthFactor(text: string, unit: GrowthUnit): number {
  const plain = text.trim().replace(/%$/, '').trim();
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(plain)) return Number.NaN;
  const n = Number(plain);
  // Rounded, so 10% is 1.1 and not 1.1000000000000001.
  return unit === 'percent' ? Math.round((1 + n / 100) * 1e6) / 1e6 : n;
}

function growthProblem(text: string, unit: GrowthUnit): string | null {
  if (text.trim() === '') return 'Enter the daily growth.';
  const factor = growthFactor(text, unit);
  if (Number.isNaN(factor)) return 'Enter a number, such as 50.';
  if (factor >= LIMITS.minGrowth && factor <= LIMITS.maxGrowth) return null;
  return unit === 'percent' ? 'Between 1% and 900% more each day.' : 'Between 1.01 and 10 times the day before.';
}

/** A warm-up from the form; `warming` are the sender domains already on a schedule. */
export function readWarmup(draft: WarmupDraft, warming: readonly string[]): Read<pacing.Warmup> {
  const errors: Partial<Record<keyof pacing.Warmup, string>> = {};
  if (draft.domain === '') errors.domain = 'Choose a sender domain.';
  else if (warming.includes(draft.domain)) errors.domain = `${draft.domain} is already warming up.`;
  const start = countProblem(draft.startVolume, LIMITS.startVolume, 'the first day’s volume');
  const full = countProblem(draft.fullVolume, LIMITS.fullVolume, 'the full volume');
  const growth = growthProblem(draft.growth, draft.growthUnit);
  if (start) errors.startVolume = start;
  if (growth) errors.dailyGrowth = growth;
  if (full) errors.fullVolume = full;
  else if (!start && wholeNumber(draft.fullVolume) <= wholeNumber(draft.startVolume)) {
    errors.fullVolume = 'More than the first day’s volume, or there is nothing to warm up.';
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(draft.startedOn) || Number.isNaN(Date.parse(draft.startedOn))) {
    errors.startedOn = 'Enter a date.';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      domain: draft.domain,
      startVolume: wholeNumber(draft.startVolume),
      dailyGrowth: growthFactor(draft.growth, draft.growthUnit),
      fullVolume: wholeNumber(draft.fullVolume),
      startedOn: draft.startedOn,
    },
  };
}
