import { describe, expect, it } from 'vitest';
import {
  type Frame,
  labelIndices,
  linePath,
  niceStep,
  xOf,
  yOf,
  yTicks,
} from '../../web/src/pages/overview/chart-scale.js';

const FRAME: Frame = { width: 240, height: 120, left: 40, right: 0, top: 10, bottom: 10 };

describe('the y scale of a chart of counts', () => {
  it('steps by 1, 2 or 5 times a power of ten, never a fraction', () => {
    expect([0, 0.3, 1, 1.2, 2, 3, 7, 12, 40, 260].map(niceStep)).toEqual([1, 1, 1, 2, 2, 5, 10, 20, 50, 500]);
  });

  it('ticks start at 0 and reach the largest value', () => {
    expect(yTicks(0)).toEqual([0, 1]);
    expect(yTicks(1)).toEqual([0, 1]);
    expect(yTicks(3)).toEqual([0, 1, 2, 3]);
    expect(yTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(yTicks(95)).toEqual([0, 50, 100]);
    expect(yTicks(1234)).toEqual([0, 500, 1000, 1500]);
    for (const max of [1, 5, 9, 17, 99, 101, 4321]) {
      const ticks = yTicks(max);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(6);
      expect(ticks.every(Number.isInteger)).toBe(true);
    }
  });

  it('puts 0 at the bottom of the plot and the top tick at its top, clamped', () => {
    expect(yOf(0, 10, FRAME)).toBe(110);
    expect(yOf(10, 10, FRAME)).toBe(10);
    expect(yOf(5, 10, FRAME)).toBe(60);
    expect(yOf(20, 10, FRAME)).toBe(10);
    expect(yOf(-1, 10, FRAME)).toBe(110);
    // Nothing to scale: everything on the baseline, never NaN.
    expect(yOf(0, 0, FRAME)).toBe(110);
  });
});

describe('days along the x axis', () => {
  it('spreads the days edge to edge; one day sits in the middle', () => {
    expect(xOf(0, 5, FRAME)).toBe(40);
    expect(xOf(4, 5, FRAME)).toBe(240);
    expect(xOf(2, 5, FRAME)).toBe(140);
    expect(xOf(0, 1, FRAME)).toBe(140);
  });

  it('draws a series as one path through every day', () => {
    expect(linePath([0, 10, 5], 10, FRAME)).toBe('M40 110 L140 10 L240 60');
    expect(linePath([], 10, FRAME)).toBe('');
  });

  it('labels the first and last day and evenly spaced ones between, never too many', () => {
    expect(labelIndices(0, 5)).toEqual([]);
    expect(labelIndices(1, 5)).toEqual([0]);
    expect(labelIndices(4, 5)).toEqual([0, 1, 2, 3]);
    expect(labelIndices(7, 1)).toEqual([0, 6]);
    for (const [n, most] of [
      [30, 5],
      [90, 8],
      [365, 4],
      [31, 3],
    ] as const) {
      const labels = labelIndices(n, most);
      expect(labels[0]).toBe(0);
      expect(labels[labels.length - 1]).toBe(n - 1);
      expect(labels.length).toBeLessThanOrEqual(most);
      expect([...labels].sort((a, b) => a - b)).toEqual(labels);
      expect(new Set(labels).size).toBe(labels.length);
    }
  });
});
