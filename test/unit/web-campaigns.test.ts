import { describe, expect, it } from 'vitest';
import type { CampaignStats, FilterCondition, Template } from '../../src/api.js';
import {
  audienceCondition,
  campaignPayload,
  EMPTY_FORM,
  isDirty,
  missingForSave,
  withTemplate,
} from '../../web/src/pages/campaigns/campaign-form.js';
import {
  cancelWords,
  durationWords,
  funnel,
  hasUnsubscribeLink,
  instantIn,
  pauseWords,
  wallClock,
} from '../../web/src/pages/campaigns/campaign-words.js';
import { chartColumns } from '../../web/src/pages/campaigns/chart-columns.js';
import { csvField } from '../../web/src/pages/campaigns/export-csv.js';
import { NO_CAMPAIGN_FIGURES } from '../support/figures.js';

const stats = (over: Partial<CampaignStats>): CampaignStats => ({
  ...NO_CAMPAIGN_FIGURES,
  campaignId: '00000000-0000-4000-8000-000000000000',
  status: 'SENT',
  unsubscribed: 0,
  skipped: 0,
  pending: 0,
  ...over,
});

describe('the report’s funnel', () => {
  it('lists the figures in funnel order with their rates', () => {
    const f = funnel(
      stats({ delivered: 90, bounced: 10, opened: 45, openRate: 0.5, bounceRate: 0.1, unsubscribed: 9 }),
    );
    expect(f.map((x) => x.key)).toEqual(['delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed']);
    expect(f[0]).toMatchObject({ value: 90, rate: 0.9 });
    expect(f[5]).toMatchObject({ value: 9, rate: 0.1 });
  });

  it('marks bounces at 5 % of at least 5, and complaints at 0.1 %', () => {
    const alarms = (s: Partial<CampaignStats>) =>
      funnel(stats(s))
        .filter((x) => x.alarm)
        .map((x) => x.key);
    expect(alarms({ delivered: 95, bounced: 5, bounceRate: 0.05 })).toEqual(['bounced']);
    expect(alarms({ delivered: 96, bounced: 4, bounceRate: 0.04 })).toEqual([]);
    // 4 of 10 is 40 %, but fewer than 5 bounces say little.
    expect(alarms({ delivered: 6, bounced: 4, bounceRate: 0.4 })).toEqual([]);
    expect(alarms({ delivered: 1000, complained: 1 })).toEqual(['complained']);
    expect(alarms({ delivered: 1001, complained: 1 })).toEqual([]);
  });
});

describe('scheduling in a time zone', () => {
  it('reads a date and time on another zone’s clocks as the instant, across a DST change', () => {
    expect(instantIn('2030-01-15', '09:00', 'America/New_York')?.toISOString()).toBe('2030-01-15T14:00:00.000Z');
    expect(instantIn('2030-07-15', '09:00', 'America/New_York')?.toISOString()).toBe('2030-07-15T13:00:00.000Z');
    expect(instantIn('2030-07-15', '09:00', 'Asia/Kolkata')?.toISOString()).toBe('2030-07-15T03:30:00.000Z');
    expect(instantIn('2030-07-15', '', 'UTC')).toBeNull();
  });

  it('shows an instant back on a zone’s clocks', () => {
    expect(wallClock(new Date('2030-07-15T13:00:00Z'), 'America/New_York')).toEqual({
      date: '2030-07-15',
      time: '09:00',
    });
    expect(wallClock(new Date('2030-12-31T23:30:00Z'), 'Europe/Berlin')).toEqual({ date: '2031-01-01', time: '00:30' });
  });
});

describe('words', () => {
  it('says what a cancel does in each state', () => {
    expect(cancelWords({ status: 'SCHEDULED', sentCount: 0 })).toContain('unschedule it');
    expect(cancelWords({ status: 'SENDING', sentCount: 0 })).toContain('Nothing has been sent yet');
    expect(cancelWords({ status: 'SENDING', sentCount: 1204 })).toMatch(/1,204 messages already went out/);
  });

  it('gives the guardrail’s reason for a pause, or says it was by hand', () => {
    expect(pauseWords({ pausedReason: 'bounce_rate', pausedAt: null })).toMatch(
      /^Paused by its guardrail: too many messages bounced/,
    );
    expect(pauseWords({ pausedReason: 'complaint_rate', pausedAt: null })).toContain('reported it as spam');
    expect(pauseWords({ pausedReason: 'manual', pausedAt: null })).toMatch(/^Paused by hand/);
  });

  it('finds an unsubscribe or preferences link in Liquid', () => {
    expect(hasUnsubscribeLink('<a href="{{ unsubscribeUrl }}">x</a>')).toBe(true);
    expect(hasUnsubscribeLink('<a href="{{manageUrl}}">x</a>')).toBe(true);
    expect(hasUnsubscribeLink('<p>unsubscribe by replying</p>')).toBe(false);
  });

  it('tells durations in minutes, hours and days', () => {
    expect(durationWords(30)).toBe('under a minute');
    expect(durationWords(600)).toBe('10 min');
    expect(durationWords(2 * 3600 + 300)).toBe('2 h 5 min');
    expect(durationWords(5 * 86_400)).toBe('5 days');
  });
});

describe('the audience’s count and condition', () => {
  const pro = { field: 'data.plan', operator: 'equals' as const, value: 'pro' };
  /** pro AND (an empty group OR a filter still without a field): as the builder holds it mid-edit. */
  const editing: FilterCondition = {
    logic: 'AND',
    groups: [
      { filters: [pro], conditions: { logic: 'OR', groups: [{ filters: [] }, { filters: [] }] } },
      { filters: [] },
    ],
  };

  it('counts what sending compiles: everyone, the segment’s members, or the condition without its empty groups', () => {
    const form = { ...EMPTY_FORM, segmentId: 's1', condition: editing };
    expect(audienceCondition({ ...form, audienceType: 'ALL' })).toEqual({ logic: 'AND', groups: [{ filters: [] }] });
    expect(audienceCondition({ ...form, audienceType: 'SEGMENT' })).toEqual({
      logic: 'AND',
      groups: [{ filters: [{ field: 'segment', operator: 'memberOfSegment', value: 's1' }] }],
    });
    expect(audienceCondition({ ...form, audienceType: 'SEGMENT', segmentId: '' })).toBeNull();
    const pruned = { logic: 'AND', groups: [{ filters: [pro] }] };
    expect(audienceCondition({ ...form, audienceType: 'FILTERED' })).toEqual(pruned);
    expect(campaignPayload({ ...form, audienceType: 'FILTERED' })).toMatchObject({
      audienceType: 'FILTERED',
      segmentId: null,
      audienceCondition: pruned,
    });
    // Another audience chosen: the condition stays in the form, and is not sent.
    expect(campaignPayload({ ...form, audienceType: 'SEGMENT' })).toMatchObject({
      segmentId: 's1',
      audienceCondition: null,
    });
  });

  it('holds back the save of an unfinished condition, and of a segment audience without its segment', () => {
    const named = { ...EMPTY_FORM, name: 'n', subject: 's', from: 'a@example.com' };
    const unfinished: FilterCondition = { logic: 'AND', groups: [{ filters: [{ field: '', operator: 'equals' }] }] };
    expect(missingForSave({ ...named, audienceType: 'FILTERED', condition: unfinished })).toEqual([
      'a complete condition',
    ]);
    // Only while it is the audience.
    expect(missingForSave({ ...named, condition: unfinished })).toEqual([]);
    expect(missingForSave({ ...named, audienceType: 'FILTERED', condition: editing })).toEqual([]);
    expect(isDirty({ ...named, condition: editing }, named)).toBe(true);
    expect(missingForSave({ ...EMPTY_FORM, audienceType: 'SEGMENT' })).toEqual([
      'a name',
      'a subject',
      'a sender address',
      'a segment',
    ]);
  });
});

describe('the body written in blocks', () => {
  const doc = { editor: 'react-email', version: 1, html: 'h1', document: { type: 'doc', content: [] } };

  it('sends the block document of the form', () => {
    expect(campaignPayload({ ...EMPTY_FORM, bodySource: doc }).bodySource).toEqual(doc);
    expect(campaignPayload({ ...EMPTY_FORM, bodySource: null }).bodySource).toBeNull();
  });

  it('copies a template’s block document with its body, so it opens in blocks', () => {
    const template = { subject: 'S', body: '<p>B</p>', bodySource: doc, from: 'a@x.test', type: 'MARKETING' };
    const form = withTemplate({ ...EMPTY_FORM, bodySource: null }, template as unknown as Template);
    expect(form).toMatchObject({ body: '<p>B</p>', bodySource: doc });
  });

  it('is unchanged when the stored document only has its keys in another order', () => {
    const reordered = { document: doc.document, html: doc.html, version: 1, editor: 'react-email' };
    const form = { ...EMPTY_FORM, bodySource: doc };
    expect(isDirty(form, { ...EMPTY_FORM, bodySource: reordered })).toBe(false);
    expect(isDirty(form, { ...EMPTY_FORM, bodySource: { ...doc, html: 'h2' } })).toBe(true);
    expect(isDirty(form, { ...form, segmentId: 's1' })).toBe(true);
  });
});

describe('CSV fields', () => {
  it('quotes what needs it and defuses formulas', () => {
    expect(csvField('ada@example.com')).toBe('ada@example.com');
    expect(csvField(null)).toBe('');
    expect(csvField('a, "b"')).toBe('"a, ""b"""');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
  });
});

describe('the chart’s columns', () => {
  it('fills the intervals without opens or clicks with zeros', () => {
    const at = (m: number) => new Date(Date.UTC(2030, 0, 1, 9, m)).toISOString();
    const [times, opens, clicks] = chartColumns({
      campaignId: 'c',
      interval: 'minute',
      data: [
        { at: at(0), opens: 3, clicks: 1 },
        { at: at(3), opens: 1, clicks: 0 },
      ],
    });
    expect(times.map((t) => t - times[0]!)).toEqual([0, 60, 120, 180]);
    expect(opens).toEqual([3, 0, 0, 1]);
    expect(clicks).toEqual([1, 0, 0, 0]);
  });
});
