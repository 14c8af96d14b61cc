import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatDay, formatDayShort } from '../../web/src/format/dates.js';

const lateEvening = '2026-11-27T23:30:00Z';

describe('the dashboard writes dates one way', () => {
  it('a date and a date-time, in the viewer’s locale', () => {
    const us = { locale: 'en-US', timeZone: 'UTC' };
    expect(formatDate(lateEvening, us)).toBe('Nov 27, 2026');
    expect(formatDateTime(lateEvening, us)).toMatch(/^Nov 27, 2026,? 11:30\sPM$/);
    const gb = { locale: 'en-GB', timeZone: 'UTC' };
    expect(formatDate(lateEvening, gb)).toBe('27 Nov 2026');
    expect(formatDateTime(lateEvening, gb)).toMatch(/^27 Nov 2026,? 23:30$/);
  });

  it('a moment falls on the viewer’s day, in the viewer’s time zone', () => {
    const paris = { locale: 'en-GB', timeZone: 'Europe/Paris' };
    expect(formatDate(lateEvening, paris)).toBe('28 Nov 2026');
    expect(formatDateTime(lateEvening, paris)).toMatch(/^28 Nov 2026,? 00:30$/);
    expect(formatDate(new Date(lateEvening), paris)).toBe(formatDate(Date.parse(lateEvening), paris));
  });

  it('a calendar day stays that day wherever the viewer is', () => {
    for (const timeZone of ['Pacific/Honolulu', 'UTC', 'Pacific/Kiritimati']) {
      expect(formatDay('2026-03-01', { locale: 'en-US', timeZone })).toBe('Mar 1, 2026');
    }
    expect(formatDay(new Date('2026-03-01T00:00:00Z'), { locale: 'en-US', timeZone: 'America/New_York' })).toBe(
      'Mar 1, 2026',
    );
  });

  it('a chart’s axis says the day without its year', () => {
    expect(formatDayShort('2026-03-01', { locale: 'en-US', timeZone: 'Pacific/Honolulu' })).toBe('Mar 1');
    expect(formatDayShort('2026-03-01', { locale: 'en-GB' })).toBe('1 Mar');
  });
});
