import { describe, expect, it } from 'vitest';
import { localSendTime, sendTimes, spreadSendTime } from '../../src/domain/campaign-timing.js';
import { contactZone } from '../../src/domain/local-time.js';

// 15:00 UTC on Saturday 7 March 2026: 10:00 in New York, 16:00 in Berlin, 00:00 on the 8th in Tokyo.
const START = new Date('2026-03-07T15:00:00Z');

describe('localSendTime', () => {
  it('is the time of day still to come on the send day, in the zone', () => {
    expect(localSendTime(START, 'Asia/Tokyo', { time: '09:00', whenPassed: 'nextDay' }).toISOString()).toBe(
      '2026-03-08T00:00:00.000Z',
    );
    expect(localSendTime(START, 'America/New_York', { time: '11:30', whenPassed: 'now' }).toISOString()).toBe(
      '2026-03-07T16:30:00.000Z',
    );
  });

  it('is the next day’s where it has passed, with nextDay (across a change to summer time)', () => {
    // New York changes to EDT (UTC-4) in the night of the 7th to the 8th.
    expect(localSendTime(START, 'America/New_York', { time: '09:00', whenPassed: 'nextDay' }).toISOString()).toBe(
      '2026-03-08T13:00:00.000Z',
    );
    expect(localSendTime(START, 'Europe/Berlin', { time: '09:00', whenPassed: 'nextDay' }).toISOString()).toBe(
      '2026-03-08T08:00:00.000Z',
    );
  });

  it('is the send moment where it has passed, with now', () => {
    expect(localSendTime(START, 'Europe/Berlin', { time: '09:00', whenPassed: 'now' })).toEqual(START);
    // In Tokyo it is already the 8th, and 09:00 there is still to come.
    expect(localSendTime(START, 'Asia/Tokyo', { time: '09:00', whenPassed: 'now' }).toISOString()).toBe(
      '2026-03-08T00:00:00.000Z',
    );
  });

  it('is the send moment itself when the time is now', () => {
    expect(localSendTime(START, 'UTC', { time: '15:00', whenPassed: 'nextDay' })).toEqual(START);
  });
});

describe('spreadSendTime', () => {
  it('puts recipients evenly apart over the window from the send moment', () => {
    const times = [0, 1, 2, 3].map((p) => spreadSendTime(START, 2, p, 4).toISOString());
    expect(times).toEqual([
      '2026-03-07T15:00:00.000Z',
      '2026-03-07T15:30:00.000Z',
      '2026-03-07T16:00:00.000Z',
      '2026-03-07T16:30:00.000Z',
    ]);
  });

  it('sends a lone recipient at once, and keeps a place out of range inside the window', () => {
    expect(spreadSendTime(START, 72, 0, 1)).toEqual(START);
    expect(spreadSendTime(START, 1, 99, 4).toISOString()).toBe('2026-03-07T15:45:00.000Z');
  });
});

describe('sendTimes', () => {
  const groups = [
    { timezone: 'Asia/Tokyo', country: null, locale: null, contacts: 3 },
    { timezone: null, country: 'JP', locale: null, contacts: 2 },
    { timezone: null, country: null, locale: 'de-DE', contacts: 4 },
    { timezone: null, country: null, locale: null, contacts: 1 },
  ];

  it('counts each zone once however its contacts name it, and gives first and last send times', () => {
    const times = sendTimes(
      groups,
      { localTime: { time: '09:00', whenPassed: 'nextDay' }, spreadHours: null },
      START,
      (d) => contactZone(d),
    );
    expect(times.total).toBe(10);
    expect(times.zones.map((z) => [z.zone, z.contacts, z.sendAt?.toISOString()])).toEqual([
      ['Asia/Tokyo', 5, '2026-03-08T00:00:00.000Z'],
      ['Europe/Berlin', 4, '2026-03-08T08:00:00.000Z'],
      ['UTC', 1, '2026-03-08T09:00:00.000Z'],
    ]);
    expect(times.firstSendAt?.toISOString()).toBe('2026-03-08T00:00:00.000Z');
    expect(times.lastSendAt?.toISOString()).toBe('2026-03-08T09:00:00.000Z');
  });

  it('spans the window for a spread, and the send moment otherwise', () => {
    const spread = sendTimes(groups, { localTime: null, spreadHours: 10 }, START, (d) => contactZone(d));
    expect(spread.zones.every((z) => z.sendAt === null)).toBe(true);
    expect([spread.firstSendAt, spread.lastSendAt]).toEqual([START, new Date('2026-03-08T00:00:00Z')]);
    const once = sendTimes(groups, { localTime: null, spreadHours: null }, START, (d) => contactZone(d));
    expect([once.firstSendAt, once.lastSendAt]).toEqual([START, START]);
  });

  it('has no send times for an empty audience', () => {
    expect(sendTimes([], { localTime: null, spreadHours: 3 }, START, (d) => contactZone(d))).toEqual({
      total: 0,
      zones: [],
      firstSendAt: null,
      lastSendAt: null,
    });
  });
});
