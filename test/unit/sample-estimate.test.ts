import { describe, expect, it } from 'vitest';
import { estimateFromSample, samplePercent } from '../../src/domain/sample-estimate.js';

describe('samplePercent', () => {
  it('reads the whole table while it holds at most twice the rows wanted', () => {
    expect(samplePercent(0, 20_000)).toBeNull();
    expect(samplePercent(40_000, 20_000)).toBeNull();
  });
  it('reads the share of pages that holds about the rows wanted', () => {
    expect(samplePercent(1_000_000, 20_000)).toBe(2);
    expect(samplePercent(80_000, 20_000)).toBe(25);
  });
});

describe('estimateFromSample', () => {
  it("scales the matches up to the project, sized by its share of the sample's rows", () => {
    expect(estimateFromSample({ rows: 40_000, sampled: 20_000, matched: 5_000 }, 2_000_000)).toEqual({
      estimate: 250_000,
      contacts: 1_000_000,
      // 1.96 × √(0.25 × 0.75 / 20,000) × 1,000,000 = 6,001.5…
      margin: 6_002,
    });
  });
  it('has no margin when all or none matched, and nothing to scale in an empty sample', () => {
    expect(estimateFromSample({ rows: 2_000, sampled: 2_000, matched: 2_000 }, 20_000)).toEqual({
      estimate: 20_000,
      contacts: 20_000,
      margin: 0,
    });
    expect(estimateFromSample({ rows: 0, sampled: 0, matched: 0 }, 20_000)).toEqual({
      estimate: 0,
      contacts: 0,
      margin: 0,
    });
  });
});
