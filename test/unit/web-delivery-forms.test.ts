import { describe, expect, it } from 'vitest';
import * as delivery from '../../web/src/pages/delivery/delivery-settings.js';

describe('the recipient domain limit form', () => {
  const draft = (over: Partial<delivery.LimitDraft>) => ({
    domain: 'gmail.com',
    perMinute: '',
    concurrency: '',
    ...over,
  });

  it('reads counts with separators, empty as null', () => {
    expect(delivery.readLimit(draft({ perMinute: '1,200', concurrency: '' }), [])).toEqual({
      ok: true,
      value: { domain: 'gmail.com', perMinute: 1200, concurrency: null },
    });
    expect(delivery.readLimit(draft({ domain: ' yahoo.com ', concurrency: '4' }), [])).toEqual({
      ok: true,
      value: { domain: 'yahoo.com', perMinute: null, concurrency: 4 },
    });
  });

  it('says what is wrong beside each field', () => {
    expect(delivery.readLimit(draft({ domain: ' ', perMinute: '0', concurrency: '1001' }), [])).toEqual({
      ok: false,
      errors: {
        domain: 'Enter a domain, such as gmail.com.',
        perMinute: 'Enter a whole number of at least 1.',
        concurrency: 'At most 1,000.',
      },
    });
    expect(delivery.readLimit(draft({ perMinute: '2.5' }), [])).toMatchObject({
      errors: { perMinute: 'Enter a whole number of at least 1.' },
    });
    expect(delivery.readLimit(draft({}), [])).toEqual({
      ok: false,
      errors: { perMinute: 'Give a rate, a number in flight, or both.' },
    });
  });

  it('refuses a second limit for a domain, whatever its case', () => {
    expect(delivery.readLimit(draft({ domain: 'GMail.com.', perMinute: '5' }), ['gmail.com'])).toMatchObject({
      errors: { domain: 'GMail.com. already has a limit: edit that one.' },
    });
  });

  it('leaves the form of the name to the server', () => {
    expect(delivery.readLimit(draft({ domain: 'gmail', perMinute: '5' }), []).ok).toBe(true);
  });

  it('prefills from a limit', () => {
    expect(delivery.limitDraft({ domain: 'gmail.com', perMinute: 600, concurrency: null })).toEqual({
      domain: 'gmail.com',
      perMinute: '600',
      concurrency: '',
    });
    expect(delivery.limitDraft(null)).toEqual({ domain: '', perMinute: '', concurrency: '' });
  });

  it('reads the default in flight; empty lifts it', () => {
    expect(delivery.readDefaultConcurrency(' ')).toEqual({ ok: true, value: null });
    expect(delivery.readDefaultConcurrency('8')).toEqual({ ok: true, value: 8 });
    expect(delivery.readDefaultConcurrency('-1')).toEqual({ ok: false, error: 'Enter a whole number of at least 1.' });
  });
});

describe('the warm-up form', () => {
  const draft = (over: Partial<delivery.WarmupDraft>) => ({
    ...delivery.warmupDraft('2025-03-01', 'news.example.com'),
    startVolume: '200',
    fullVolume: '100,000',
    ...over,
  });

  it('starts today with 50% growth', () => {
    expect(delivery.warmupDraft('2025-03-01')).toEqual({
      domain: '',
      startVolume: '',
      growth: '50',
      growthUnit: 'percent',
      fullVolume: '',
      startedOn: '2025-03-01',
    });
  });

  it('takes the growth as a percentage or a factor', () => {
    expect(delivery.growthFactor('50', 'percent')).toBe(1.5);
    expect(delivery.growthFactor('10%', 'percent')).toBe(1.1);
    expect(delivery.growthFactor('1.5', 'factor')).toBe(1.5);
    expect(delivery.growthFactor('fast', 'factor')).toBeNaN();
    expect(delivery.readWarmup(draft({ growth: '2', growthUnit: 'factor' }), [])).toEqual({
      ok: true,
      value: {
        domain: 'news.example.com',
        startVolume: 200,
        dailyGrowth: 2,
        fullVolume: 100_000,
        startedOn: '2025-03-01',
      },
    });
  });

  it('holds the growth to the API’s bounds, in the unit typed', () => {
    expect(delivery.readWarmup(draft({ growth: '0.5' }), [])).toMatchObject({
      errors: { dailyGrowth: 'Between 1% and 900% more each day.' },
    });
    expect(delivery.readWarmup(draft({ growth: '11', growthUnit: 'factor' }), [])).toMatchObject({
      errors: { dailyGrowth: 'Between 1.01 and 10 times the day before.' },
    });
    expect(delivery.readWarmup(draft({ growth: '900' }), []).ok).toBe(true);
  });

  it('says what is wrong beside each field', () => {
    expect(
      delivery.readWarmup(draft({ domain: '', startVolume: '', growth: '', fullVolume: 'lots', startedOn: '' }), []),
    ).toEqual({
      ok: false,
      errors: {
        domain: 'Choose a sender domain.',
        startVolume: 'Enter the first day’s volume.',
        dailyGrowth: 'Enter the daily growth.',
        fullVolume: 'Enter a whole number of at least 1.',
        startedOn: 'Enter a date.',
      },
    });
    expect(delivery.readWarmup(draft({ fullVolume: '200' }), [])).toMatchObject({
      errors: { fullVolume: 'More than the first day’s volume, or there is nothing to warm up.' },
    });
    expect(delivery.readWarmup(draft({ startVolume: '10,000,001' }), [])).toMatchObject({
      errors: { startVolume: 'At most 10,000,000.' },
    });
  });

  it('refuses a domain that is already warming up', () => {
    expect(delivery.readWarmup(draft({}), ['news.example.com'])).toMatchObject({
      errors: { domain: 'news.example.com is already warming up.' },
    });
  });
});
