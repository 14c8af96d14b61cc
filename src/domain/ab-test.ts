/**
 * A campaign's A/B test: 2–5 variants of its content, each sent to an equal random slice of a
 * share of the audience; after a wait the variant that did best by the chosen metric goes to the
 * rest. Pure: the campaign module gives it each variant's figures.
 */

export const AB_METRICS = ['opens', 'clicks', 'clicksPerDelivered'] as const;
export type AbMetric = (typeof AB_METRICS)[number];

export const AB_LIMITS = {
  variants: { min: 2, max: 5 },
  /** The share of the audience in the test phase, in percent; the rest waits for the winner. */
  testPercent: { min: 2, max: 50 },
  waitHours: { min: 1, max: 168 },
} as const;

/** What a variant may change of the campaign's content; a field left out keeps the campaign's. */
export interface VariantContent {
  subject?: string;
  fromName?: string | null;
  body?: string;
}

export interface AbTest {
  variants: VariantContent[];
  /** Null: every recipient gets a variant, split evenly, and there is no winner phase. */
  testPercent: number | null;
  metric: AbMetric;
  waitHours: number;
}

export const CHOSEN_BY = ['metric', 'manual'] as const;
export type ChosenBy = (typeof CHOSEN_BY)[number];

export interface AbWinner {
  variant: number;
  chosenBy: ChosenBy;
  decidedAt: string;
  reason: string;
}

/** What a variant's recipients did. `humanOpened` leaves out opens that were a proxy's prefetch and nothing more. */
export interface VariantFigures {
  recipients: number;
  delivered: number;
  opened: number;
  humanOpened: number;
  clicked: number;
}

/** A test with a winner phase: the rest of the audience waits for the winner. */
export const hasWinnerPhase = (test: AbTest | null) => test !== null && test.testPercent !== null;

/** When the wait of a test that started sending at `start` ends (`hourMs`: an hour, shorter only to try a test out). */
export const decidesAt = (test: AbTest, start: Date, hourMs: number) =>
  new Date(start.getTime() + test.waitHours * hourMs);

/** Each variant's letter, as marketers name them. */
export const variantName = (i: number) => String.fromCharCode(65 + i);

/** The metric as successes out of trials: what the z-test compares. */
export function metricParts(metric: AbMetric, f: VariantFigures): { successes: number; trials: number } {
  switch (metric) {
    case 'opens':
      return { successes: f.humanOpened, trials: f.delivered };
    case 'clicks':
      return { successes: f.clicked, trials: f.humanOpened };
    case 'clicksPerDelivered':
      return { successes: f.clicked, trials: f.delivered };
  }
}

export function metricRate(metric: AbMetric, f: VariantFigures): number {
  const { successes, trials } = metricParts(metric, f);
  return trials === 0 ? 0 : successes / trials;
}

/** Below this many trials in either variant, or successes in both together, a comparison says nothing yet. */
export const MIN_TRIALS = 30;
export const MIN_SUCCESSES = 5;

/** The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7): all the normal distribution needs. */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const y = 1 - poly * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

/**
 * How sure one can be that two proportions differ (two-proportion z-test, two-sided): 1 minus the
 * p-value. Null when the samples are too small to say.
 */
export function confidence(
  a: { successes: number; trials: number },
  b: { successes: number; trials: number },
): number | null {
  if (a.trials < MIN_TRIALS || b.trials < MIN_TRIALS || a.successes + b.successes < MIN_SUCCESSES) return null;
  const pooled = (a.successes + b.successes) / (a.trials + b.trials);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.trials + 1 / b.trials));
  if (se === 0) return 0;
  const z = (a.successes / a.trials - b.successes / b.trials) / se;
  return erf(Math.abs(z) / Math.SQRT2);
}

export interface VariantComparison {
  variant: number;
  rate: number;
  /** This variant's rate minus the best other variant's (the leader is compared with the runner-up). */
  difference: number;
  /** How sure that difference is real (0–1); null: not enough data yet. */
  confidence: number | null;
}

/** Variants best first by the metric; equal rates keep their order, so A comes before B. */
function ranked(metric: AbMetric, figures: VariantFigures[]): number[] {
  return figures.map((_, i) => i).sort((a, b) => metricRate(metric, figures[b]!) - metricRate(metric, figures[a]!));
}

/** Each variant against the best of the others. */
export function compareVariants(metric: AbMetric, figures: VariantFigures[]): VariantComparison[] {
  const order = ranked(metric, figures);
  return figures.map((f, i) => {
    const rival = order[0] === i ? order[1]! : order[0]!;
    return {
      variant: i,
      rate: metricRate(metric, f),
      difference: metricRate(metric, f) - metricRate(metric, figures[rival]!),
      confidence: confidence(metricParts(metric, f), metricParts(metric, figures[rival]!)),
    };
  });
}

export const METRIC_WORDS: Record<AbMetric, string> = {
  opens: 'open rate',
  clicks: 'clicks per open',
  clicksPerDelivered: 'clicks per delivered email',
};

const percent = (rate: number) => `${(rate * 100).toFixed(1)} %`;

/** The variant that did best by the metric, and why in a marketer's words. */
export function pickWinner(metric: AbMetric, figures: VariantFigures[]): { variant: number; reason: string } {
  const [best, second] = ranked(metric, figures) as [number, number];
  const words = METRIC_WORDS[metric];
  const bestRate = metricRate(metric, figures[best]!);
  if (bestRate === 0) {
    return { variant: best, reason: `No variant had any ${words} to compare; ${variantName(best)} goes to the rest.` };
  }
  const sure = confidence(metricParts(metric, figures[best]!), metricParts(metric, figures[second]!));
  const against = `${percent(bestRate)} against ${percent(metricRate(metric, figures[second]!))} for ${variantName(second)}`;
  const certainty =
    sure === null
      ? 'too few results to be sure of the difference'
      : `${sure >= 0.999 ? 'over 99.9 %' : `${Math.round(sure * 100)} %`} confidence that the difference is real`;
  return { variant: best, reason: `${variantName(best)} had the best ${words}: ${against}, ${certainty}.` };
}
