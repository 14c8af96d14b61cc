import { describe, expect, it } from 'vitest';
import {
  compareVariants,
  confidence,
  decidesAt,
  hasWinnerPhase,
  metricRate,
  pickWinner,
  type VariantFigures,
} from '../../src/domain/ab-test.js';
import { fromImageProxy } from '../../src/domain/open-proxies.js';

const figures = (delivered: number, humanOpened: number, clicked: number, opened = humanOpened): VariantFigures => ({
  recipients: delivered,
  delivered,
  opened,
  humanOpened,
  clicked,
});

describe('the two-proportion z-test', () => {
  it('gives the textbook confidence: 10 % of 1,000 against 13 % of 1,000 is z ≈ 2.10, 96.4 %', () => {
    expect(confidence({ successes: 100, trials: 1000 }, { successes: 130, trials: 1000 })).toBeCloseTo(0.9643, 3);
  });

  it('is symmetric, and near 0 for equal rates', () => {
    const a = { successes: 40, trials: 400 };
    const b = { successes: 55, trials: 380 };
    expect(confidence(a, b)).toBeCloseTo(confidence(b, a)!, 10);
    expect(confidence({ successes: 50, trials: 500 }, { successes: 50, trials: 500 })).toBeCloseTo(0, 6);
  });

  it('says nothing below 30 trials in a variant or 5 successes in all', () => {
    expect(confidence({ successes: 10, trials: 29 }, { successes: 1, trials: 100 })).toBeNull();
    expect(confidence({ successes: 2, trials: 100 }, { successes: 2, trials: 100 })).toBeNull();
    expect(confidence({ successes: 3, trials: 100 }, { successes: 2, trials: 100 })).not.toBeNull();
  });
});

describe('the metrics', () => {
  const f = figures(200, 50, 10, 80);
  it('reads opens per delivered email without prefetches, clicks per reader’s open, clicks per delivered email', () => {
    expect(metricRate('opens', f)).toBe(0.25);
    expect(metricRate('clicks', f)).toBe(0.2);
    expect(metricRate('clicksPerDelivered', f)).toBe(0.05);
    expect(metricRate('clicks', figures(100, 0, 0))).toBe(0);
  });
});

describe('the winner', () => {
  it('is the best rate, with the runner-up and the confidence in its reason', () => {
    const won = pickWinner('opens', [figures(1000, 100, 0), figures(1000, 130, 0), figures(1000, 90, 0)]);
    expect(won.variant).toBe(1);
    expect(won.reason).toBe(
      'B had the best open rate: 13.0 % against 10.0 % for A, 96 % confidence that the difference is real.',
    );
  });

  it('never rounds a near-certainty to a certainty', () => {
    expect(pickWinner('opens', [figures(30, 5, 0), figures(30, 20, 0)]).reason).toMatch(
      /66\.7 % against 16\.7 % for A, over 99\.9 % confidence/,
    );
  });

  it('says when the samples are too small to be sure', () => {
    expect(pickWinner('clicksPerDelivered', [figures(20, 5, 1), figures(20, 5, 3)]).reason).toMatch(
      /^B had the best clicks per delivered email: 15\.0 % against 5\.0 % for A, too few results/,
    );
  });

  it('falls to the first variant when nothing happened, and keeps order on a tie', () => {
    expect(pickWinner('opens', [figures(100, 0, 0), figures(100, 0, 0)])).toEqual({
      variant: 0,
      reason: 'No variant had any open rate to compare; A goes to the rest.',
    });
    expect(pickWinner('opens', [figures(100, 10, 0), figures(100, 10, 0)]).variant).toBe(0);
  });

  it('compares each variant with the best other one', () => {
    const [a, b] = compareVariants('opens', [figures(1000, 100, 0), figures(1000, 130, 0)]);
    expect(a!.difference).toBeCloseTo(-0.03, 10);
    expect(b!.difference).toBeCloseTo(0.03, 10);
    expect(a!.confidence).toBeCloseTo(b!.confidence!, 10);
  });
});

describe('the phases', () => {
  const test = { variants: [{}, { subject: 'x' }], testPercent: 20, metric: 'opens' as const, waitHours: 3 };
  it('has a winner phase only with a test share, decided the wait after sending started', () => {
    expect(hasWinnerPhase(test)).toBe(true);
    expect(hasWinnerPhase({ ...test, testPercent: null })).toBe(false);
    expect(hasWinnerPhase(null)).toBe(false);
    expect(decidesAt(test, new Date('2027-01-01T08:00:00Z'), 3_600_000).toISOString()).toBe('2027-01-01T11:00:00.000Z');
  });
});

describe('image proxies', () => {
  it('knows them by address (v4 and v4-mapped v6) or user agent', () => {
    expect(fromImageProxy('17.58.1.20', 'Mozilla/5.0')).toBe(true);
    expect(fromImageProxy('::ffff:66.249.84.1', undefined)).toBe(true);
    expect(fromImageProxy('203.0.113.9', 'Mozilla/5.0 (via ggpht.com GoogleImageProxy)')).toBe(true);
    expect(fromImageProxy('203.0.113.9', 'Mozilla/5.0')).toBe(false);
    expect(fromImageProxy('2001:db8::1', undefined)).toBe(false);
  });
});
