import { describe, expect, it } from 'vitest';
import type { DeliverySettings } from '../../src/api.js';
import * as delivery from '../../web/src/pages/delivery/delivery-settings.js';

const warmup = (over: Partial<DeliverySettings['warmups'][number]> = {}): DeliverySettings['warmups'][number] => ({
  domain: 'news.example.com',
  startVolume: 100,
  dailyGrowth: 1.5,
  fullVolume: 1000,
  startedOn: '2025-03-01',
  today: { day: 3, cap: 225, sent: 113 },
  ...over,
});

const settings: DeliverySettings = {
  mode: 'relay',
  defaultConcurrency: 5,
  recipientDomains: [
    { domain: 'gmail.com', perMinute: 600, concurrency: 4 },
    { domain: 'yahoo.com', perMinute: null, concurrency: 2 },
  ],
  warmups: [warmup()],
};

describe('the PATCH bodies', () => {
  it('adds a warm-up at the end of the whole list, without the `today` the API refuses', () => {
    const added = {
      domain: 'mail.example.com',
      startVolume: 50,
      dailyGrowth: 2,
      fullVolume: 5000,
      startedOn: '2025-03-04',
    };
    expect(delivery.addWarmupBody(settings, added)).toEqual({
      body: {
        warmups: [
          { domain: 'news.example.com', startVolume: 100, dailyGrowth: 1.5, fullVolume: 1000, startedOn: '2025-03-01' },
          added,
        ],
      },
      index: 1,
    });
  });

  it('removes a warm-up, keeping the others’ start days', () => {
    expect(delivery.removeWarmupBody(settings, 'news.example.com')).toEqual({ warmups: [] });
    expect(delivery.removeWarmupBody(settings, 'other.example.com').warmups?.[0]).not.toHaveProperty('today');
  });

  it('puts a limit in place of the one edited, or at the end', () => {
    const yahoo = { domain: 'yahoo.com', perMinute: 100, concurrency: null };
    expect(delivery.putLimitBody(settings, yahoo, 'yahoo.com')).toEqual({
      body: { recipientDomains: [settings.recipientDomains[0], yahoo] },
      index: 1,
    });
    // Renamed while edited: same place.
    const renamed = { domain: 'googlemail.com', perMinute: 600, concurrency: 4 };
    expect(delivery.putLimitBody(settings, renamed, 'gmail.com').body.recipientDomains?.[0]).toEqual(renamed);
    const outlook = { domain: 'outlook.com', perMinute: 300, concurrency: null };
    expect(delivery.putLimitBody(settings, outlook, null)).toEqual({
      body: { recipientDomains: [...settings.recipientDomains, outlook] },
      index: 2,
    });
  });

  it('removes a limit', () => {
    expect(delivery.removeLimitBody(settings, 'gmail.com')).toEqual({
      recipientDomains: [settings.recipientDomains[1]],
    });
  });

  it('finds the API’s field errors about one item of a list', () => {
    const fields = {
      'recipientDomains.2.domain': 'Must be a full domain name such as example.com',
      'recipientDomains.0.perMinute': 'Too big',
      'recipientDomains.12.domain': 'Not this one',
      defaultConcurrency: 'Too small',
    };
    expect(delivery.itemErrors(fields, 'recipientDomains', 2)).toEqual({
      domain: 'Must be a full domain name such as example.com',
    });
    expect(delivery.itemErrors(fields, 'warmups', 0)).toEqual({});
  });
});

describe('a warm-up in words', () => {
  it('says the day and what was sent of the day’s limit', () => {
    expect(delivery.todayInWords(warmup(), '2025-03-03')).toEqual({
      tone: 'waiting',
      text: 'Day 3 of the warm-up: 113 of 225 campaign emails sent today',
    });
    expect(delivery.todayInWords(warmup({ today: { day: 9, cap: 2562, sent: 2562 } }), '2025-03-09').text).toBe(
      'Day 9 of the warm-up: 2,562 of 2,562 campaign emails sent today; the rest wait until tomorrow (UTC)',
    );
  });

  it('says when it is finished, and when it has not started', () => {
    expect(delivery.todayInWords(warmup({ today: { day: 8, cap: null, sent: 40 } }), '2025-03-08')).toEqual({
      tone: 'ok',
      text: 'Warm-up finished: no daily limit',
    });
    expect(
      delivery.todayInWords(warmup({ startedOn: '2025-03-10', today: { day: 1, cap: 100, sent: 0 } }), '2025-03-03'),
    ).toEqual({
      tone: 'waiting',
      text: 'Starts on Mar 10, 2025 with 100 campaign emails on its first day; no daily limit until then',
    });
  });

  it('finds the day the full volume is reached, as the worker counts it', () => {
    // 100, 150, 225, 337, 506, 759, 1139: the seventh day reaches 1,000.
    expect(delivery.finishingDay(warmup())).toEqual({ day: 7, date: '2025-03-07' });
    expect(delivery.finishingDay(warmup({ startVolume: 1000 }))).toEqual({ day: 1, date: '2025-03-01' });
    // The slowest growth to the largest volume ends, years later.
    expect(delivery.finishingDay(warmup({ startVolume: 1, dailyGrowth: 1.01, fullVolume: 100_000_000 })).day).toBe(
      1853,
    );
  });

  it('tells the whole schedule in one sentence', () => {
    expect(delivery.scheduleInWords(warmup())).toBe(
      'From Mar 1, 2025: 100 a day at first, 50% more each day, until 1,000 a day on Mar 7, 2025 (day 7).',
    );
    expect(delivery.growthInWords(2)).toBe('100% more each day');
    expect(delivery.growthInWords(1.125)).toBe('12.5% more each day');
  });

  it('says what a limit is, and where the default applies', () => {
    expect(delivery.perMinuteInWords({ domain: 'a.com', perMinute: 1200, concurrency: null })).toBe('1,200 a minute');
    expect(delivery.perMinuteInWords({ domain: 'a.com', perMinute: null, concurrency: 3 })).toBe('No limit');
    expect(delivery.concurrencyInWords({ domain: 'a.com', perMinute: 1, concurrency: 3 }, 5)).toBe('3');
    expect(delivery.concurrencyInWords({ domain: 'a.com', perMinute: 1, concurrency: null }, 5)).toBe(
      '5 (the default)',
    );
    expect(delivery.concurrencyInWords({ domain: 'a.com', perMinute: 1, concurrency: null }, null)).toBe(
      'No limit (the default)',
    );
  });
});
