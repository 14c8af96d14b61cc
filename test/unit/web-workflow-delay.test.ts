import { describe, expect, it } from 'vitest';
import type { WorkflowStep } from '../../src/api.js';
import { STEP_TYPE_SPECS } from '../../src/domain/workflows/step-types.js';
import { delayConfigOf, delayErrors, delayKindOf, stepSummary } from '../../web/src/pages/workflows/step-views.js';

const delayStep = (config: Record<string, unknown>): WorkflowStep => ({
  id: 's',
  workflowId: 'w',
  type: 'DELAY',
  name: null,
  config,
  position: null,
  createdAt: '',
  updatedAt: '',
});

describe('a DELAY step in the canvas', () => {
  it.each([
    [{ amount: 1, unit: 'days' }, 'Wait 1 day'],
    [{ amount: 3, unit: 'hours' }, 'Wait 3 hours'],
    [{ until: { time: '09:00' } }, 'Until 09:00, contact’s local time'],
    [{ until: { time: '18:30' } }, 'Until 18:30, contact’s local time'],
  ])('sums up %j as "%s"', (config, summary) => {
    expect(stepSummary(delayStep(config), new Map())).toBe(summary);
  });

  it('tells the two kinds apart by `until`', () => {
    expect(delayKindOf({ amount: 1, unit: 'days' })).toBe('duration');
    expect(delayKindOf({ until: { time: '09:00' } })).toBe('time');
  });

  it('starts each kind with a config the API takes', () => {
    for (const kind of ['duration', 'time'] as const) {
      const config = delayConfigOf(kind);
      expect(delayKindOf(config)).toBe(kind);
      expect(STEP_TYPE_SPECS.DELAY.config.safeParse(config).success).toBe(true);
    }
  });

  it('puts each of the server’s field errors beside its input', () => {
    expect(delayErrors({ 'config.until.time': 'A time of day' })).toEqual({ time: 'A time of day' });
    expect(delayErrors({ 'config.until': 'Unrecognized key' }).time).toBe('Unrecognized key');
    expect(delayErrors({ 'config.amount': 'Too small' }).duration).toBe('Too small');
    expect(delayErrors({ 'config.unit': 'Unknown unit' }).duration).toBe('Unknown unit');
    expect(delayErrors({ config: 'Give a duration or a time of day' }).whole).toBe('Give a duration or a time of day');
    expect(delayErrors({})).toEqual({});
  });
});
