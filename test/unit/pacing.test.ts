import { describe, expect, it } from 'vitest';
import { dayOf, domainOf, intervalOf, nextDay, planSlots, warmupDay } from '../../src/domain/pacing.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, 0) + s * 1000);
const times = (dates: Date[]) => dates.map((d) => d.getTime());

describe('planSlots', () => {
  const now = at(0);
  const second = 1000;

  it('gives a domain nobody sent to a slot now, and the next ones one interval apart', () => {
    const plan = planSlots({ cursor: null, held: null, now, count: 3, intervalMs: second });
    expect(times(plan.slots)).toEqual(times([at(0), at(1), at(2)]));
    expect(plan.next).toEqual(at(3));
  });

  it('starts from the cursor while slots ahead are held, however far ahead', () => {
    const plan = planSlots({ cursor: at(3600), held: at(3599), now, count: 2, intervalMs: second });
    expect(times(plan.slots)).toEqual(times([at(3600), at(3601)]));
    expect(plan.next).toEqual(at(3602));
  });

  it('keeps one interval after the last message sent: a cursor just ahead with nothing held stands', () => {
    const plan = planSlots({ cursor: at(0.4), held: null, now, count: 1, intervalMs: second });
    expect(plan.slots).toEqual([at(0.4)]);
  });

  it('brings back a cursor left far ahead by slots nobody holds any more (a cancelled campaign)', () => {
    const orphaned = planSlots({ cursor: at(3600), held: null, now, count: 1, intervalMs: second });
    expect(orphaned.slots).toEqual([at(1)]);
    const partly = planSlots({ cursor: at(3600), held: at(10), now, count: 1, intervalMs: second });
    expect(partly.slots).toEqual([at(11)]);
  });

  it('never plans in the past: a cursor behind now starts now', () => {
    const plan = planSlots({ cursor: at(-60), held: null, now, count: 1, intervalMs: second });
    expect(plan.slots).toEqual([now]);
  });

  it('spaces 60 per minute one second apart', () => {
    expect(intervalOf(60)).toBe(1000);
    expect(intervalOf(600)).toBe(100);
  });
});

describe('warm-up schedules', () => {
  const schedule = { startVolume: 100, dailyGrowth: 1.5, fullVolume: 1000, startedOn: '2026-11-24' };

  it('allows the start volume on the first day and grows it by the factor each day', () => {
    expect(warmupDay(schedule, new Date('2026-11-24T23:59:59Z'))).toEqual({ day: 1, cap: 100 });
    expect(warmupDay(schedule, new Date('2026-11-25T00:00:00Z'))).toEqual({ day: 2, cap: 150 });
    expect(warmupDay(schedule, new Date('2026-11-28T10:00:00Z'))).toEqual({ day: 5, cap: 506 });
  });

  it('ends once the day allows the full volume', () => {
    expect(warmupDay(schedule, new Date('2026-11-29T10:00:00Z'))).toEqual({ day: 6, cap: 759 });
    expect(warmupDay(schedule, new Date('2026-11-30T10:00:00Z'))).toEqual({ day: 7, cap: null });
  });

  it('counts a schedule that starts later as on its first day', () => {
    expect(warmupDay({ ...schedule, startedOn: '2026-12-01' }, at(0))).toEqual({ day: 1, cap: 100 });
  });

  it('works in UTC days', () => {
    expect(dayOf(new Date('2026-11-26T23:30:00-05:00'))).toBe('2026-11-27');
    expect(nextDay(new Date('2026-11-26T13:45:00Z'))).toEqual(new Date('2026-11-27T00:00:00Z'));
  });
});

describe('domainOf', () => {
  it('takes what follows the last @, lower-cased', () => {
    expect(domainOf('Ann@GMail.com')).toBe('gmail.com');
    expect(domainOf('"a@b"@Example.org')).toBe('example.org');
  });
});
