import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, countryZone } from '../../src/domain/country-zones.js';
import { contactZone, isTimeZone, nextLocalTime } from '../../src/domain/local-time.js';

describe('nextLocalTime', () => {
  const cases: [what: string, now: string, zone: string, time: string, expected: string][] = [
    ['later today in UTC', '2026-06-01T08:00:00Z', 'UTC', '09:00', '2026-06-01T09:00:00Z'],
    ['tomorrow once today’s has passed', '2026-06-01T09:00:01Z', 'UTC', '09:00', '2026-06-02T09:00:00Z'],
    ['now when the clock shows the time exactly', '2026-06-01T09:00:00Z', 'UTC', '09:00', '2026-06-01T09:00:00Z'],
    ['midnight is the next day’s start', '2026-06-01T23:59:00Z', 'UTC', '00:00', '2026-06-02T00:00:00Z'],
    ['the last minute of the day', '2026-06-01T00:00:00Z', 'UTC', '23:59', '2026-06-01T23:59:00Z'],
    ['New York in summer (UTC-4)', '2026-06-01T12:00:00Z', 'America/New_York', '09:00', '2026-06-01T13:00:00Z'],
    ['New York in winter (UTC-5)', '2026-01-15T12:00:00Z', 'America/New_York', '09:00', '2026-01-15T14:00:00Z'],
    ['a zone whose date is already tomorrow', '2026-06-01T20:00:00Z', 'Asia/Tokyo', '09:00', '2026-06-02T00:00:00Z'],
    [
      'a zone whose date is still yesterday',
      '2026-06-01T02:00:00Z',
      'America/Los_Angeles',
      '09:00',
      '2026-06-01T16:00:00Z',
    ],
    ['a half-hour offset', '2026-06-01T12:00:00Z', 'Asia/Kolkata', '09:00', '2026-06-02T03:30:00Z'],
    ['a quarter-hour offset', '2026-06-01T00:00:00Z', 'Asia/Kathmandu', '09:00', '2026-06-01T03:15:00Z'],
    // America/New_York springs forward on 8 March 2026 at 02:00 EST (07:00Z) to 03:00 EDT.
    [
      'New York: 09:00 on the spring-forward day is EDT',
      '2026-03-08T05:00:00Z',
      'America/New_York',
      '09:00',
      '2026-03-08T13:00:00Z',
    ],
    ['New York: the day before it is EST', '2026-03-07T05:00:00Z', 'America/New_York', '09:00', '2026-03-07T14:00:00Z'],
    [
      'New York: a skipped time becomes the change',
      '2026-03-08T05:00:00Z',
      'America/New_York',
      '02:30',
      '2026-03-08T07:00:00Z',
    ],
    [
      'New York: a skipped time the day before is plain',
      '2026-03-07T05:00:00Z',
      'America/New_York',
      '02:30',
      '2026-03-07T07:30:00Z',
    ],
    // It falls back on 1 November 2026 at 02:00 EDT (06:00Z) to 01:00 EST: 01:00 to 01:59 come twice.
    [
      'New York: a repeated time is its first occurrence',
      '2026-11-01T04:00:00Z',
      'America/New_York',
      '01:30',
      '2026-11-01T05:30:00Z',
    ],
    [
      'New York: during the repeat, the second is next day’s',
      '2026-11-01T05:45:00Z',
      'America/New_York',
      '01:30',
      '2026-11-02T06:30:00Z',
    ],
    [
      'New York: 09:00 on the fall-back day is EST',
      '2026-11-01T04:00:00Z',
      'America/New_York',
      '09:00',
      '2026-11-01T14:00:00Z',
    ],
    // Europe/Berlin goes to CEST on 29 March 2026 at 01:00Z and back to CET on 25 October at 01:00Z.
    ['Berlin in winter (UTC+1)', '2026-01-15T00:00:00Z', 'Europe/Berlin', '09:00', '2026-01-15T08:00:00Z'],
    [
      'Berlin: 09:00 on the spring-forward day is CEST',
      '2026-03-28T23:00:00Z',
      'Europe/Berlin',
      '09:00',
      '2026-03-29T07:00:00Z',
    ],
    [
      'Berlin: a skipped time becomes the change',
      '2026-03-28T23:00:00Z',
      'Europe/Berlin',
      '02:30',
      '2026-03-29T01:00:00Z',
    ],
    [
      'Berlin: a repeated time is its first occurrence',
      '2026-10-24T23:00:00Z',
      'Europe/Berlin',
      '02:30',
      '2026-10-25T00:30:00Z',
    ],
    [
      'Berlin: 09:00 on the fall-back day is CET',
      '2026-10-24T23:00:00Z',
      'Europe/Berlin',
      '09:00',
      '2026-10-25T08:00:00Z',
    ],
    ['across a month and a year end', '2026-12-31T23:30:00Z', 'Europe/Berlin', '09:00', '2027-01-01T08:00:00Z'],
  ];

  it.each(cases)('%s', (_what, now, zone, time, expected) => {
    expect(nextLocalTime(new Date(now), zone, time).toISOString()).toBe(new Date(expected).toISOString());
  });

  it('is never before now and always within a day and an hour of it', () => {
    const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Pacific/Chatham'];
    for (let h = 0; h < 24 * 400; h += 7) {
      const now = new Date(Date.UTC(2026, 0, 1) + h * 3_600_000 + 17 * 60_000);
      for (const zone of zones) {
        const at = nextLocalTime(now, zone, '02:30').getTime();
        expect(at).toBeGreaterThanOrEqual(now.getTime());
        expect(at - now.getTime()).toBeLessThanOrEqual(25 * 3_600_000);
      }
    }
  });

  it('refuses a time that is not HH:MM from 00:00 to 23:59', () => {
    for (const time of ['24:00', '9:00', '09:60', '09:00:00', ''])
      expect(() => nextLocalTime(new Date(), 'UTC', time)).toThrow(RangeError);
  });
});

describe('contactZone', () => {
  const cases: [what: string, data: Record<string, unknown>, expected: string][] = [
    ['its timezone', { timezone: 'Asia/Tokyo' }, 'Asia/Tokyo'],
    ['its timezone, trimmed', { timezone: ' Europe/Paris ' }, 'Europe/Paris'],
    [
      'its timezone over its country and locale',
      { timezone: 'Asia/Tokyo', country: 'US', locale: 'de-DE' },
      'Asia/Tokyo',
    ],
    [
      'an unknown timezone is passed over for the country',
      { timezone: 'Mars/Olympus', country: 'DE' },
      'Europe/Berlin',
    ],
    ['a timezone that is not a string is passed over', { timezone: 5, country: 'de' }, 'Europe/Berlin'],
    ['its country, any case', { country: 'us' }, 'America/New_York'],
    ['its country over its locale', { country: 'BR', locale: 'en-US' }, 'America/Sao_Paulo'],
    ['an unknown country is passed over for the locale', { country: 'ZZ', locale: 'en-AU' }, 'Australia/Sydney'],
    ['a country name is not a code', { country: 'Germany' }, 'UTC'],
    ['its locale with a hyphen', { locale: 'en-US' }, 'America/New_York'],
    ['its locale with an underscore', { locale: 'pt_BR' }, 'America/Sao_Paulo'],
    ['a POSIX locale', { locale: 'de_DE.UTF-8' }, 'Europe/Berlin'],
    ['a locale with a script', { locale: 'zh-Hans-CN' }, 'Asia/Shanghai'],
    ['a locale without a region', { locale: 'en' }, 'UTC'],
    ['a malformed locale', { locale: '--' }, 'UTC'],
    ['nothing', {}, 'UTC'],
  ];

  it.each(cases)('%s', (_what, data, expected) => {
    expect(contactZone(data)).toBe(expected);
  });

  it('falls back to the zone it is given', () => {
    expect(contactZone({ timezone: 'nowhere' }, 'Europe/Lisbon')).toBe('Europe/Lisbon');
  });
});

describe('countryZone', () => {
  it.each([
    ['US', 'America/New_York'],
    ['CA', 'America/Toronto'],
    ['BR', 'America/Sao_Paulo'],
    ['RU', 'Europe/Moscow'],
    ['AU', 'Australia/Sydney'],
    ['MX', 'America/Mexico_City'],
    ['ID', 'Asia/Jakarta'],
    ['CN', 'Asia/Shanghai'],
    ['KZ', 'Asia/Almaty'],
    ['AR', 'America/Argentina/Buenos_Aires'],
    ['CL', 'America/Santiago'],
    ['GB', 'Europe/London'],
    ['IN', 'Asia/Kolkata'],
    ['JP', 'Asia/Tokyo'],
  ])('%s is %s', (country, zone) => {
    expect(countryZone(country)).toBe(zone);
  });

  it('names only zones the runtime knows, for every country', () => {
    expect(COUNTRY_CODES.length).toBeGreaterThan(240);
    for (const code of COUNTRY_CODES) expect(isTimeZone(countryZone(code)!), code).toBe(true);
  });
});
