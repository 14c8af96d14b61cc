import type { Campaign } from '../../../../src/api.js';
import type { AbTestInput } from './campaigns-api.js';

/**
 * A campaign's A/B test as the composer edits it: variants that change the subject or the sender's
 * name (empty: the campaign's own), tested on a share of the audience with the winner sent to the
 * rest, or split evenly over everyone. Inputs are kept as typed and turned into `abTest` when saved.
 */

export type AbMetric = AbTestInput['metric'];
export type AbMode = 'winner' | 'split';

export interface VariantForm {
  subject: string;
  fromName: string;
  /** A variant's own content: a template's, copied in, or one set through the API. */
  body?: string;
  /** The template the content was copied from here (not saved: a reopened variant's is "its own"). */
  bodyFrom?: string;
}

export interface AbTestForm {
  abOn: boolean;
  abVariants: VariantForm[];
  abMode: AbMode;
  abTestPercent: string;
  abMetric: AbMetric;
  abWaitHours: string;
}

export const AB_FIELDS = [
  'abTest',
  'abTest.testPercent',
  'abTest.metric',
  'abTest.waitHours',
  'abTest.variants',
] as const;

export const AB_LIMITS = {
  variants: { min: 2, max: 5 },
  testPercent: { min: 2, max: 50 },
  waitHours: { min: 1, max: 168 },
};

export const METRIC_CHOICES: [AbMetric, string][] = [
  ['opens', 'Open rate'],
  ['clicks', 'Clicks per open'],
  ['clicksPerDelivered', 'Clicks per delivered email'],
];

const blankVariant = (): VariantForm => ({ subject: '', fromName: '' });

export const EMPTY_AB: AbTestForm = {
  abOn: false,
  abVariants: [blankVariant(), blankVariant()],
  abMode: 'winner',
  abTestPercent: '20',
  abMetric: 'opens',
  abWaitHours: '4',
};

export const variantLetter = (i: number) => String.fromCharCode(65 + i);

export function abFormOf(c: Pick<Campaign, 'abTest'>): AbTestForm {
  const t = c.abTest;
  if (!t) return EMPTY_AB;
  return {
    abOn: true,
    abVariants: t.variants.map((v) => ({
      subject: v.subject ?? '',
      fromName: v.fromName ?? '',
      ...(v.body === undefined ? {} : { body: v.body }),
    })),
    abMode: t.testPercent === null ? 'split' : 'winner',
    abTestPercent: String(t.testPercent ?? EMPTY_AB.abTestPercent),
    abMetric: t.metric,
    abWaitHours: String(t.waitHours),
  };
}

/** A count that is not a number is sent as it is, for the API to say what is wrong beside the field. */
const whole = (typed: string) => Number(typed.trim() || Number.NaN);

/** The body's `abTest`: null when off; what a variant leaves empty is the campaign's. */
export function abPayload(form: AbTestForm): { abTest: AbTestInput | null } {
  if (!form.abOn) return { abTest: null };
  return {
    abTest: {
      variants: form.abVariants.map((v) => ({
        ...(v.subject.trim() ? { subject: v.subject } : {}),
        ...(v.fromName.trim() ? { fromName: v.fromName } : {}),
        ...(v.body === undefined ? {} : { body: v.body }),
      })),
      testPercent: form.abMode === 'split' ? null : whole(form.abTestPercent),
      metric: form.abMetric,
      waitHours: form.abMode === 'split' ? Number(EMPTY_AB.abWaitHours) : whole(form.abWaitHours),
    },
  };
}

const inRange = (typed: string, { min, max }: { min: number; max: number }) => {
  const n = whole(typed);
  return Number.isInteger(n) && n >= min && n <= max;
};

/** What would stop the save, by API field, before asking the API; empty when none. */
export function abErrors(form: AbTestForm): Record<string, string> {
  if (!form.abOn) return {};
  const errors: Record<string, string> = {};
  if (form.abMode === 'winner') {
    const { testPercent: p, waitHours: w } = AB_LIMITS;
    if (!inRange(form.abTestPercent, p)) errors['abTest.testPercent'] = `A whole percentage from ${p.min} to ${p.max}`;
    if (!inRange(form.abWaitHours, w)) errors['abTest.waitHours'] = `A whole number of hours from ${w.min} to ${w.max}`;
  }
  return errors;
}

export const abDirty = (a: AbTestForm, b: AbTestForm) => JSON.stringify(abPayload(a)) !== JSON.stringify(abPayload(b));

/** Who gets what, in words, for an audience of about `audience` contacts (unknown: undefined). */
export function abSummary(form: AbTestForm, audience: number | undefined): string {
  const n = form.abVariants.length;
  if (form.abMode === 'split') {
    return audience === undefined
      ? `The audience is split evenly between the ${n} variants.`
      : `Each of the ${n} variants goes to about ${Math.floor(audience / n).toLocaleString()} contacts.`;
  }
  const percent = whole(form.abTestPercent);
  const hours = whole(form.abWaitHours);
  if (!Number.isFinite(percent) || !Number.isFinite(hours)) return '';
  const wait = `${hours} hour${hours === 1 ? '' : 's'}`;
  if (audience === undefined)
    return `${percent} % of the audience is tested first; after ${wait} the winner goes to the rest.`;
  const tested = Math.round((audience * percent) / 100);
  return `${tested.toLocaleString()} contacts (about ${Math.floor(tested / n).toLocaleString()} per variant) get the test; after ${wait} the winner goes to the other ${(audience - tested).toLocaleString()}.`;
}
