import { describe, expect, it } from 'vitest';
import {
  cappedReason,
  capWindowStart,
  DEFAULT_GUARDRAILS,
  type GuardCounts,
  guardrailVerdict,
  overCap,
} from '../../src/domain/campaign-guardrails.js';
import { policyOf } from '../../src/modules/campaigns/settings.js';

const counts = (c: Partial<GuardCounts>): GuardCounts => ({
  sent: 0,
  rejected: 0,
  hardBounced: 0,
  complained: 0,
  ...c,
});
const policy = DEFAULT_GUARDRAILS;

describe('guardrailVerdict', () => {
  it('has the published defaults: 0.3 % complaints, 5 % hard bounces, over 200 messages', () => {
    expect(DEFAULT_GUARDRAILS).toEqual({ maxComplaintRate: 0.003, maxBounceRate: 0.05, minSample: 200 });
  });

  it('judges nothing before the minimum sample, however bad it looks', () => {
    expect(guardrailVerdict(counts({ rejected: 199 }), null, policy)).toEqual({ pause: false });
    expect(guardrailVerdict(counts({ sent: 150, complained: 40, rejected: 49 }), null, policy)).toEqual({
      pause: false,
    });
  });

  it('pauses for a hard-bounce rate above the threshold, not at it', () => {
    // 10 of 200 is exactly 5 %.
    expect(guardrailVerdict(counts({ sent: 190, rejected: 10 }), null, policy)).toEqual({ pause: false });
    expect(guardrailVerdict(counts({ sent: 189, rejected: 11 }), null, policy)).toEqual({
      pause: true,
      reason: 'bounce_rate',
      rate: 11 / 200,
      threshold: 0.05,
      sample: 200,
    });
  });

  it('counts hard bounces reported after acceptance with the relay refusals', () => {
    const verdict = guardrailVerdict(counts({ sent: 200, rejected: 5, hardBounced: 6 }), null, policy);
    expect(verdict).toMatchObject({ pause: true, reason: 'bounce_rate', sample: 205 });
    expect(verdict.pause && verdict.rate).toBeCloseTo(11 / 205, 10);
  });

  it('pauses for a complaint rate above the threshold, per accepted message', () => {
    expect(guardrailVerdict(counts({ sent: 1000, complained: 3 }), null, policy)).toEqual({ pause: false });
    expect(guardrailVerdict(counts({ sent: 1000, complained: 4 }), null, policy)).toMatchObject({
      pause: true,
      reason: 'complaint_rate',
      rate: 0.004,
      threshold: 0.003,
    });
  });

  it('names complaints when both rates are over', () => {
    expect(guardrailVerdict(counts({ sent: 200, rejected: 100, complained: 10 }), null, policy)).toMatchObject({
      reason: 'complaint_rate',
    });
  });

  it('judges only what happened since the baseline, on a fresh sample', () => {
    const pausedAt = counts({ sent: 189, rejected: 11 });
    // Right after a resume nothing new happened: no verdict, though the totals are over.
    expect(guardrailVerdict(pausedAt, pausedAt, policy)).toEqual({ pause: false });
    // A clean new sample passes, whatever came before.
    expect(guardrailVerdict(counts({ sent: 389, rejected: 11 }), pausedAt, policy)).toEqual({ pause: false });
    // A bad new sample pauses again, measured on itself.
    expect(guardrailVerdict(counts({ sent: 369, rejected: 31 }), pausedAt, policy)).toMatchObject({
      pause: true,
      reason: 'bounce_rate',
      rate: 20 / 200,
      sample: 200,
    });
  });

  it('follows the policy it is given, down to a sample of one', () => {
    const strict = { maxComplaintRate: 0, maxBounceRate: 0, minSample: 1 };
    expect(guardrailVerdict(counts({ sent: 1 }), null, strict)).toEqual({ pause: false });
    expect(guardrailVerdict(counts({ rejected: 1 }), null, strict)).toMatchObject({
      pause: true,
      reason: 'bounce_rate',
    });
    expect(guardrailVerdict(NO_SAMPLE, null, { ...strict, minSample: 0 })).toEqual({ pause: false });
  });
});

const NO_SAMPLE = counts({});

describe('policyOf', () => {
  it("takes the project's own thresholds where set and the instance's otherwise", () => {
    const defaults = { maxComplaintRate: 0.001, maxBounceRate: 0.02, minSample: 500 };
    expect(policyOf(null, defaults)).toEqual(defaults);
    expect(policyOf({ max_complaint_rate: null, max_bounce_rate: 0.1, min_sample: 0 }, defaults)).toEqual({
      maxComplaintRate: 0.001,
      maxBounceRate: 0.1,
      minSample: 0,
    });
  });
});

describe('the marketing cap', () => {
  const cap = { count: 2, days: 7 };

  it('lets a contact have `count` emails in the window and no more', () => {
    expect(overCap(cap, 0)).toBe(false);
    expect(overCap(cap, 1)).toBe(false);
    expect(overCap(cap, 2)).toBe(true);
  });

  it('looks back `days` whole days', () => {
    expect(capWindowStart(cap, new Date('2030-01-08T12:00:00Z')).toISOString()).toBe('2030-01-01T12:00:00.000Z');
  });

  it('says why in words', () => {
    expect(cappedReason(cap, 2)).toBe(
      "Not sent: the contact has had 2 marketing emails in the last 7 days, the project's cap is 2",
    );
    expect(cappedReason({ count: 1, days: 1 }, 1)).toBe(
      "Not sent: the contact has had 1 marketing email in the last 1 day, the project's cap is 1",
    );
  });
});
