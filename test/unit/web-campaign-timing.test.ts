import { describe, expect, it } from 'vitest';
import { campaignPayload, EMPTY_FORM, isDirty, missingForSave } from '../../web/src/pages/campaigns/campaign-form.js';
import {
  EMPTY_TIMING,
  timingErrors,
  timingFormOf,
  timingPayload,
  zoneLines,
} from '../../web/src/pages/campaigns/send-timing.js';

describe('the composer’s send time', () => {
  it('reads the campaign’s localTime or spread into the form, and writes only the chosen one back', () => {
    const local = timingFormOf({ localTime: { time: '08:15', whenPassed: 'now' }, spread: null });
    expect(local).toMatchObject({ timing: 'localTime', localTimeAt: '08:15', whenPassed: 'now' });
    expect(timingPayload(local)).toEqual({ localTime: { time: '08:15', whenPassed: 'now' }, spread: null });
    const spread = timingFormOf({ localTime: null, spread: { hours: 12 } });
    expect(timingPayload(spread)).toEqual({ localTime: null, spread: { hours: 12 } });
    expect(timingPayload(timingFormOf({ localTime: null, spread: null }))).toEqual({ localTime: null, spread: null });
    // Switching back to "at once" keeps what was typed in the form but sends neither.
    expect(timingPayload({ ...local, timing: 'once' })).toEqual({ localTime: null, spread: null });
  });

  it('marks a bad time or hour count beside its field and holds the save back', () => {
    expect(timingErrors({ ...EMPTY_TIMING, timing: 'localTime', localTimeAt: '' })).toEqual({
      'localTime.time': expect.any(String),
    });
    for (const hours of ['0', '73', '2.5', '', 'x'])
      expect(Object.keys(timingErrors({ ...EMPTY_TIMING, timing: 'spread', spreadHours: hours })), hours).toEqual([
        'spread.hours',
      ]);
    expect(timingErrors({ ...EMPTY_TIMING, timing: 'spread', spreadHours: '72' })).toEqual({});
    const named = { ...EMPTY_FORM, name: 'n', subject: 's', from: 'a@example.com' };
    expect(missingForSave({ ...named, timing: 'spread', spreadHours: '0' })).toEqual(['a valid send time']);
  });

  it('is a change to save only in what the chosen option uses', () => {
    expect(isDirty({ ...EMPTY_FORM, spreadHours: '9' }, EMPTY_FORM)).toBe(false);
    expect(isDirty({ ...EMPTY_FORM, timing: 'spread' }, EMPTY_FORM)).toBe(true);
    expect(campaignPayload({ ...EMPTY_FORM, timing: 'spread', spreadHours: '6' }).spread).toEqual({ hours: 6 });
  });

  it('lists the largest zones and sums the rest', () => {
    const zones = ['A', 'B', 'C'].map((zone, i) => ({ zone, contacts: i + 1, sendAt: null }));
    expect(zoneLines({ zones }, 2)).toEqual({
      lines: [
        { zone: 'C', contacts: 3, sendAt: null },
        { zone: 'B', contacts: 2, sendAt: null },
      ],
      more: 1,
    });
  });
});
