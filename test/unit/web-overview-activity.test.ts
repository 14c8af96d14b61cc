import { describe, expect, it } from 'vitest';
import type { ActivityItem } from '../../src/api.js';
import { nextPage, pageNumber, previousPage, readTrail } from '../../web/src/components/cursor-trail.js';
import {
  ALL_ACTIVITY,
  activityApiQuery,
  activityFiltersToQuery,
  parseActivityFilters,
  withCriteria,
} from '../../web/src/pages/activity/activity-filters.js';
import {
  activityDetail,
  activityParts,
  activitySentence,
  TYPE_LABELS,
  typeLabel,
  typeTone,
} from '../../web/src/pages/activity/activity-words.js';
import {
  dataSummary,
  eventFiltersToQuery,
  eventValueText,
  isBuiltInEvent,
  parseEventFilters,
} from '../../web/src/pages/events/event-filters.js';

const CONTACT = '3f1c2a4e-8b7d-4c6e-9a1b-2d3e4f5a6b7c';
const EMAIL = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const CAMPAIGN = '11111111-2222-4333-8444-555555555555';

function item(type: string, extra: Partial<ActivityItem> = {}): ActivityItem {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    type,
    createdAt: '2025-03-10T12:00:00.000Z',
    contact: { id: CONTACT, email: 'ada@example.com' },
    emailId: EMAIL,
    campaignId: null,
    subject: 'Welcome',
    data: {},
    ...extra,
  };
}

describe('activity in words', () => {
  it('says each kind as a sentence about the contact and the email', () => {
    expect(activitySentence(item('email.sent'))).toBe('“Welcome” was sent to ada@example.com');
    expect(activitySentence(item('email.failed'))).toBe('“Welcome” could not be sent to ada@example.com');
    expect(activitySentence(item('email.opened'))).toBe('ada@example.com opened “Welcome”');
    expect(activitySentence(item('email.clicked'))).toBe('ada@example.com clicked a link in “Welcome”');
    expect(activitySentence(item('email.bounced'))).toBe('“Welcome” bounced at ada@example.com');
    expect(activitySentence(item('email.complained'))).toBe('ada@example.com marked “Welcome” as spam');
    expect(activitySentence(item('email.received'))).toBe('ada@example.com replied to “Welcome”');
  });

  it('a reply to nothing sent says what was written; a subject-less email says so', () => {
    expect(activitySentence(item('email.received', { emailId: null, subject: null, data: { subject: 'Hi' } }))).toBe(
      'ada@example.com wrote “Hi”',
    );
    expect(activitySentence(item('email.received', { emailId: null, subject: null }))).toBe('ada@example.com wrote in');
    expect(activitySentence(item('email.opened', { subject: '  ' }))).toBe(
      'ada@example.com opened an email without a subject',
    );
  });

  it('links the contact and the email by id; an email without an id is plain text', () => {
    const parts = activityParts(item('email.opened'));
    expect(parts).toEqual([
      { kind: 'contact', id: CONTACT, text: 'ada@example.com' },
      { kind: 'text', text: ' opened ' },
      { kind: 'email', id: EMAIL, text: '“Welcome”' },
    ]);
    expect(activityParts(item('email.opened', { emailId: null }))[2]).toEqual({
      kind: 'email',
      id: null,
      text: '“Welcome”',
    });
  });

  it('an unknown kind still names the contact and the kind', () => {
    expect(activitySentence(item('email.deferred'))).toBe('ada@example.com — email.deferred');
    expect(typeLabel('email.deferred')).toBe('email.deferred');
    expect(typeTone('email.deferred')).toBe('neutral');
  });

  it('a second line with the link clicked, the reason, the kind of bounce', () => {
    expect(activityDetail(item('email.clicked', { data: { url: 'https://example.org/a' } }))).toBe(
      'https://example.org/a',
    );
    expect(activityDetail(item('email.failed', { data: { reason: '550 no such user' } }))).toBe('550 no such user');
    expect(
      activityDetail(item('email.bounced', { data: { bounceType: 'hard', status: '5.1.1', reason: 'gone' } })),
    ).toBe('Hard bounce: 5.1.1 gone');
    expect(activityDetail(item('email.bounced', { data: { bounceType: 'soft' } }))).toBe('Soft bounce');
    expect(activityDetail(item('email.complained', { data: { feedbackType: 'abuse' } }))).toBe('Report type: abuse');
    expect(activityDetail(item('email.opened'))).toBeNull();
  });

  it('labels and tones every kind the API knows', () => {
    expect(Object.keys(TYPE_LABELS)).toHaveLength(7);
    expect(typeTone('email.bounced')).toBe('problem');
    expect(typeTone('email.complained')).toBe('problem');
    expect(typeTone('email.opened')).toBe('ok');
  });
});

describe('the activity feed state in the URL', () => {
  it('round-trips the kind, contact, campaign and cursor; a clean feed has a clean URL', () => {
    expect(parseActivityFilters('')).toEqual(ALL_ACTIVITY);
    expect(activityFiltersToQuery(ALL_ACTIVITY)).toBe('');
    const f = { type: 'email.opened' as const, contactId: CONTACT, campaignId: CAMPAIGN, cursor: 'abc=' };
    expect(parseActivityFilters(activityFiltersToQuery(f))).toEqual(f);
    expect(activityApiQuery(f, 50)).toEqual({
      limit: 50,
      type: 'email.opened',
      contactId: CONTACT,
      campaignId: CAMPAIGN,
      cursor: 'abc=',
    });
    expect(activityApiQuery(ALL_ACTIVITY, 10)).toEqual({ limit: 10 });
  });

  it('drops what the API would refuse: an unknown kind, an id that is not a UUID', () => {
    expect(parseActivityFilters('?type=email.nope&contactId=42&campaignId=x')).toEqual(ALL_ACTIVITY);
    expect(parseActivityFilters(`?contactId=${CONTACT.toUpperCase()}`).contactId).toBe(CONTACT);
  });

  it('a new filter starts from page one', () => {
    const f = { ...ALL_ACTIVITY, cursor: 'abc=' };
    expect(withCriteria(f, { type: 'email.clicked' })).toEqual({
      filters: { ...ALL_ACTIVITY, type: 'email.clicked' },
      trail: [],
    });
  });

  it('pages forward and back with the trail of cursors', () => {
    const one = { ...ALL_ACTIVITY };
    const two = nextPage(one, [], 'c2');
    expect(two).toEqual({ filters: { ...one, cursor: 'c2' }, trail: [null] });
    const three = nextPage(two.filters, two.trail, 'c3');
    expect(pageNumber(three.filters.cursor, three.trail)).toBe(3);
    expect(previousPage(three.filters, three.trail)).toEqual(two);
    // A pasted link of a later page: its number is unknown, and back is page one.
    expect(pageNumber('c3', [])).toBeNull();
    expect(previousPage(three.filters, []).filters.cursor).toBeNull();
    expect(readTrail({ trail: [null, 'c2'] })).toEqual([null, 'c2']);
    expect(readTrail({ trail: [1] })).toEqual([]);
    expect(readTrail(null)).toEqual([]);
  });
});

describe('the events page', () => {
  it('keeps the name and cursor in the URL', () => {
    expect(parseEventFilters('')).toEqual({ name: null, cursor: null });
    expect(eventFiltersToQuery({ name: 'signed up', cursor: null })).toBe('name=signed+up');
    expect(parseEventFilters('?name=signed+up&cursor=c')).toEqual({ name: 'signed up', cursor: 'c' });
  });

  it('tells the names the service records itself', () => {
    const builtIn = ['email.opened', 'contact.unsubscribed', 'contact.topics_changed', 'segment.vip.entry'];
    expect(builtIn.every(isBuiltInEvent)).toBe(true);
    expect(['signup', 'segment.vip', 'emailed'].some(isBuiltInEvent)).toBe(false);
  });

  it('sums up an event’s data in a line', () => {
    expect(dataSummary({})).toBe('');
    expect(dataSummary({ plan: 'pro', seats: 3, tags: ['a'] })).toBe('plan: pro, seats: 3, tags: ["a"]');
    expect(dataSummary({ a: 1, b: 2, c: 3, d: 4, e: 5 })).toBe('a: 1, b: 2, c: 3, 2 more');
    expect(dataSummary({ note: 'x'.repeat(50) })).toBe(`note: ${'x'.repeat(39)}…`);
  });

  it('says the topics a contact changed in words, not JSON', () => {
    const topics = [
      { id: CONTACT, name: 'Digest', subscribed: false },
      { id: EMAIL, name: 'Launches', subscribed: true },
    ];
    expect(eventValueText(topics)).toBe('Digest: off, Launches: on');
    expect(dataSummary({ topics })).toBe('topics: Digest: off, Launches: on');
    // Other lists stay as they are.
    expect(eventValueText([{ name: 'x' }])).toBe('[{"name":"x"}]');
    expect(eventValueText([])).toBe('[]');
  });
});
