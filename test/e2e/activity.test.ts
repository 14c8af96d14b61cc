import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ActivityItem, Campaign } from '../../src/api.js';
import type { CursorPage } from '../../src/platform/http/pagination.js';
import { verifiedDomain } from '../support/domains.js';
import { NO_CAMPAIGN_FIGURES } from '../support/figures.js';
import { useMailServer } from '../support/mail-server.js';
import {
  deliveredMessage,
  messageIdOf,
  recordWhen,
  sendOk,
  sinkMessagesTo,
  trackingLinks,
  UUID,
  uniqueAddresses,
} from '../support/sending.js';
import { type ApiResponse, type Client, eventually, type TestProject } from '../support/server.js';

type ActivityPage = CursorPage<ActivityItem>;

const DAY = 86_400_000;
const LINK = 'https://shop.example/spring';
/**
 * The counts stats and time series give, all zero: `sent`, `failed`, `opened`, `clicked`, `bounced`,
 * `complained` (and any kind added since), each the number of `email.<key>` events. Read from the API.
 */
let ZERO: Record<string, number>;

const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });

beforeAll(async () => {
  // Every address starting with "refused-" is refused for good.
  mail.sink.respond((m) =>
    m.to.some((a) => a.startsWith('refused-'))
      ? { accept: false, code: 550, message: 'No such user here' }
      : { accept: true },
  );
  const empty = await mail.server.project('activity-empty');
  const { since, until, openRate, clickRate, bounceRate, ...counts } = await ok(
    empty.api,
    '/activity/stats?since=2020-01-01T00:00:00Z&until=2020-01-02T00:00:00Z',
  );
  expect({ since, until, openRate, clickRate, bounceRate }).toEqual({
    since: '2020-01-01',
    until: '2020-01-02',
    openRate: 0,
    clickRate: 0,
    bounceRate: 0,
  });
  expect(counts).toMatchObject({ sent: 0, failed: 0, opened: 0, clicked: 0, bounced: 0, complained: 0 });
  expect(Object.values(counts).every((n) => n === 0)).toBe(true);
  ZERO = counts;
});

// ---------------------------------------------------------------------------------------------
// Helpers

const rcpt = uniqueAddresses('rcpt.activity.test');

/** A project of its own with a verified sender domain; returns it and its sender address. */
async function setup(tag: string): Promise<{ p: TestProject; from: string }> {
  const p = await mail.server.project(`activity-${tag}`);
  await verifiedDomain(p.api, mail.dns, `${tag}.activity.test`);
  return { p, from: `hello@${tag}.activity.test` };
}

async function ok<T = any>(api: Client, path: string): Promise<T> {
  const res = await api.get(path);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** Polls `path` until its body equals `want` (the rollup lags the events a little). */
function settles<T>(api: Client, path: string, want: T): Promise<T> {
  return eventually(async () => {
    const body = await ok<T>(api, path);
    expect(body).toEqual(want);
    return body;
  });
}

function expect422(res: ApiResponse, field?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', statusCode: 422 } });
  // An element of a list names its index: `type.1`.
  if (field)
    expect(res.body.error.errors).toContainEqual(
      expect.objectContaining({ field: expect.stringMatching(new RegExp(`^${field}(\\.\\d+)?$`)) }),
    );
}

/** One email through /v1/send, waited for until final; returns its record and contact ids. */
async function sendOne(p: TestProject, from: string, to: string, subject: string) {
  const data = await sendOk(p.api, { to, from, subject, body: `<p>Hi</p><p><a href="${LINK}">Spring sale</a></p>` });
  const { email: emailId, contact } = data.emails[0]!;
  await recordWhen(p.api, emailId, (r) => r.status !== 'queued');
  return { emailId, contactId: contact.id, email: to };
}

/** The tracking pixel and first click link of a delivered message, as URLs of the running server. */
async function trackingOf(emailId: string): Promise<{ pixel: string; click: string }> {
  const html = (await simpleParser((await deliveredMessage(mail.sink, emailId)).raw)).html || '';
  const { pixel, clicks } = trackingLinks(mail.server, html);
  expect(clicks[0], html).toBeDefined();
  return { pixel, click: clicks[0]! };
}

async function hit(url: string, status: number): Promise<void> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(status);
  await res.arrayBuffer();
}

async function track(p: TestProject, email: string, event: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await p.api.post('/v1/track', { email, event, ...extra }, p.publicKey);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Walks every page of `/activity?query` at `limit` a page. */
async function walk(api: Client, query: Record<string, string>, limit: number): Promise<ActivityPage[]> {
  const pages: ActivityPage[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    const page: ActivityPage = await ok<ActivityPage>(api, `/activity?${params}`);
    pages.push(page);
    cursor = page.cursor;
    expect(pages.length).toBeLessThan(20);
  } while (cursor);
  return pages;
}

/** The figures `/activity/stats` and `/analytics/timeseries` give for these feed items. */
function countsOf(items: ActivityItem[]): Record<string, number> {
  return Object.fromEntries(
    Object.keys(ZERO).map((key) => [key, items.filter((i) => i.type === `email.${key}`).length]),
  );
}

const day = (t: number | string) => new Date(t).toISOString().slice(0, 10);
const summary = (items: ActivityItem[]) => items.map((i) => `${i.type} ${i.contact.email}`).sort();

// ---------------------------------------------------------------------------------------------

describe('the activity feed and its daily counts', () => {
  let feed: TestProject;
  let other: TestProject;
  let alice: Awaited<ReturnType<typeof sendOne>>;
  let bob: typeof alice;
  let carol: typeof alice;
  const dave = rcpt('dave');
  /** The project's six email events, newest first, once the daily counts have them all. */
  let all: ActivityItem[];

  beforeAll(async () => {
    const s = await setup('feed');
    feed = s.p;
    alice = await sendOne(feed, s.from, rcpt('alice'), 'Receipt for Alice');
    bob = await sendOne(feed, s.from, rcpt('bob'), 'Receipt for Bob');
    carol = await sendOne(feed, s.from, rcpt('refused-carol'), 'Receipt for Carol');
    // Alice opens twice (one email.opened); Bob only clicks, which counts as his open too.
    const a = await trackingOf(alice.emailId);
    await hit(a.pixel, 200);
    await hit(a.pixel, 200);
    await hit((await trackingOf(bob.emailId)).click, 302);
    // Client events, and a service event (contact.unsubscribed) from Alice leaving.
    for (const who of [alice.email, bob.email, dave]) await track(feed, who, 'signed_up');
    for (const who of [alice.email, bob.email]) await track(feed, who, 'viewed_pricing');
    await track(feed, dave, 'email_signup');
    await track(feed, alice.email, 'left', { subscribed: false });

    const o = await setup('other');
    other = o.p;
    await sendOne(other, o.from, rcpt('olga'), 'Elsewhere');
    await track(other, rcpt('oscar'), 'signed_up');

    all = (
      await eventually(async () => {
        const page = await ok<ActivityPage>(feed.api, '/activity?limit=100');
        return page.total === 6 && page.data.length === 6 ? page : undefined;
      })
    ).data;
  });

  it('lists the email events newest first, with contact, email id and subject', async () => {
    const expected = [
      ['sent', alice],
      ['sent', bob],
      ['failed', carol],
      ['opened', alice],
      ['opened', bob],
      ['clicked', bob],
    ] as const;
    expect(summary(all)).toEqual(expected.map(([kind, who]) => `email.${kind} ${who.email}`).sort());
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1]!, all[i]!];
      expect(
        a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id),
        `${a.type} before ${b.type}`,
      ).toBe(true);
    }
    const find = (type: string, email: string) => all.findIndex((i) => i.type === type && i.contact.email === email);
    expect(find('email.opened', bob.email)).toBeLessThan(find('email.sent', bob.email));
    expect(find('email.opened', alice.email)).toBeLessThan(find('email.sent', alice.email));
    expect(find('email.clicked', bob.email)).toBeLessThan(find('email.opened', alice.email));

    expect(all[find('email.sent', alice.email)]).toEqual({
      id: expect.stringMatching(UUID),
      type: 'email.sent',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      contact: { id: alice.contactId, email: alice.email },
      emailId: alice.emailId,
      campaignId: null,
      subject: 'Receipt for Alice',
      data: { emailId: alice.emailId },
    });
    expect(all[find('email.failed', carol.email)]).toMatchObject({
      contact: { id: carol.contactId, email: carol.email },
      emailId: carol.emailId,
      subject: 'Receipt for Carol',
      data: { emailId: carol.emailId, reason: expect.stringContaining('550') },
    });
    expect(all[find('email.clicked', bob.email)]).toMatchObject({
      emailId: bob.emailId,
      subject: 'Receipt for Bob',
      data: { emailId: bob.emailId, url: LINK },
    });
    expect(new Set(all.map((i) => i.id)).size).toBe(6);
  });

  it('pages with a cursor, with neither overlap nor gap, and a total on the first page only', async () => {
    for (const limit of [1, 4, 6]) {
      const pages = await walk(feed.api, {}, limit);
      expect(pages.flatMap((p) => p.data)).toEqual(all);
      expect(pages.map((p) => p.total)).toEqual([6, ...pages.slice(1).map(() => 0)]);
      expect(pages.map((p) => p.hasMore)).toEqual(pages.map((_, i) => i < pages.length - 1));
      expect(pages.map((p) => p.data.length)).toEqual(
        pages.map((_, i) => (i < pages.length - 1 ? limit : 6 - limit * i)),
      );
    }
    const sends = await walk(feed.api, { type: 'email.sent,email.failed' }, 2);
    expect(sends.map((p) => [p.data.length, p.total, p.hasMore])).toEqual([
      [2, 3, true],
      [1, 0, false],
    ]);
    expect(sends.flatMap((p) => p.data)).toEqual(all.filter((i) => ['email.sent', 'email.failed'].includes(i.type)));
  });

  it('filters by type, contact and time', async () => {
    const list = (query: string) => ok<ActivityPage>(feed.api, `/activity?${query}`);
    const only = (pred: (i: ActivityItem) => boolean) => {
      const data = all.filter(pred);
      return { data, cursor: null, hasMore: false, total: data.length };
    };
    expect(await list('type=email.opened,email.clicked')).toEqual(
      only((i) => i.type === 'email.opened' || i.type === 'email.clicked'),
    );
    expect(await list('type=email.failed&type=email.sent')).toEqual(
      only((i) => i.type === 'email.sent' || i.type === 'email.failed'),
    );
    expect(await list(`contactId=${bob.contactId}`)).toEqual(only((i) => i.contact.id === bob.contactId));
    expect(await list(`contactId=${alice.contactId}&type=email.sent`)).toEqual(
      only((i) => i.contact.id === alice.contactId && i.type === 'email.sent'),
    );
    // Dave only tracked client events; a contact of another project is nobody here.
    const daveId = (await ok(feed.api, `/contacts?search=${encodeURIComponent(dave)}`)).data[0].id;
    expect(await list(`contactId=${daveId}`)).toEqual(only(() => false));
    const olga = (await ok<ActivityPage>(other.api, '/activity')).data[0]!;
    expect(await list(`contactId=${olga.contact.id}`)).toEqual(only(() => false));
    // since is inclusive, until exclusive.
    const [since, until] = [all[4]!.createdAt, all[1]!.createdAt];
    const between = only((i) => i.createdAt >= since && i.createdAt < until);
    expect(between.total).toBeGreaterThan(0);
    expect(await list(`since=${since}&until=${until}`)).toEqual(between);
    expect(await list(`since=${all[5]!.createdAt}`)).toEqual(only(() => true));
    expect(await list(`type=email.opened&until=${all[0]!.createdAt}`)).toEqual(
      only((i) => i.type === 'email.opened' && i.createdAt < all[0]!.createdAt),
    );
  });

  it('shows another project only its own activity', async () => {
    await settles(
      other.api,
      '/activity',
      expect.objectContaining({
        total: 1,
        data: [expect.objectContaining({ type: 'email.sent', subject: 'Elsewhere' })],
      }),
    );
    await settles(other.api, '/activity/types', { types: ['email.sent'] });
    await settles(
      other.api,
      '/analytics/top-events',
      expect.objectContaining({ events: [{ name: 'signed_up', count: 1 }] }),
    );
    expect(await ok(other.api, '/activity/recent-count')).toMatchObject({ count: 1 });
    expect(await ok(other.api, '/activity/stats')).toMatchObject({
      ...ZERO,
      sent: 1,
      openRate: 0,
      clickRate: 0,
      bounceRate: 0,
    });
  });

  it('counts by whole UTC days, with rates over the emails sent', async () => {
    const stats = await ok(feed.api, '/activity/stats');
    expect(stats).toEqual({
      since: expect.any(String),
      until: expect.any(String),
      ...countsOf(all),
      openRate: 1,
      clickRate: 0.5,
      bounceRate: 0,
    });
    expect(countsOf(all)).toEqual({ ...ZERO, sent: 2, failed: 1, opened: 2, clicked: 1 });
    expect(stats.until).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(Date.parse(stats.until) - Date.parse(stats.since)).toBe(29 * DAY);
    // A range given with times covers the whole days they fall on.
    for (const d of new Set(all.map((i) => day(i.createdAt)))) {
      expect422(await feed.api.get(`/activity/stats?since=${d}T23:59:59Z&until=${d}T00:00:01Z`), 'since');
      expect(await ok(feed.api, `/activity/stats?since=${d}T23:59:59Z&until=${d}T23:59:59.999Z`)).toMatchObject({
        since: d,
        until: d,
        ...countsOf(all.filter((i) => day(i.createdAt) === d)),
      });
    }
    const quiet = { since: '2020-01-01', until: '2020-12-31', ...ZERO, openRate: 0, clickRate: 0, bounceRate: 0 };
    expect(await ok(feed.api, '/activity/stats?since=2020-01-01T00:00:00Z&until=2020-12-31T00:00:00Z')).toEqual(quiet);
  });

  it('gives a time series with every day of the range, zero days included', async () => {
    const first = Date.parse(day(all[5]!.createdAt));
    const [since, until] = [day(first - 3 * DAY), day(Date.parse(day(all[0]!.createdAt)) + DAY)];
    const series = await ok(feed.api, `/analytics/timeseries?since=${since}T08:00:00Z&until=${until}T08:00:00Z`);
    expect(series).toMatchObject({ since, until, interval: 'day' });
    expect(series.data).toHaveLength((Date.parse(until) - Date.parse(since)) / DAY + 1);
    series.data.forEach((point: { date: string }, i: number) => {
      expect(point).toEqual({
        date: day(first + (i - 3) * DAY),
        ...countsOf(all.filter((a) => day(a.createdAt) === point.date)),
      });
    });
    expect(series.data.slice(0, 3)).toEqual([3, 2, 1].map((n) => ({ date: day(first - n * DAY), ...ZERO })));
    expect(series.data.at(-1)).toEqual({ date: until, ...ZERO });

    const byDefault = await ok(feed.api, '/analytics/timeseries');
    expect(byDefault.data).toHaveLength(30);
    expect([byDefault.data[0].date, byDefault.data.at(-1).date]).toEqual([byDefault.since, byDefault.until]);
    const total = byDefault.data.reduce(
      (n: number, p: Record<string, number>) => n + Object.keys(ZERO).reduce((m, k) => m + p[k]!, 0),
      0,
    );
    expect(total).toBe(6);
  });

  it('counts recent activity, lists the types that occurred and ranks client events only', async () => {
    const recent = await ok(feed.api, '/activity/recent-count');
    expect(recent).toEqual({ since: expect.any(String), minutes: 60, count: 6 });
    expect(Date.parse(recent.since)).toBeLessThan(Date.now() - 59 * 60_000);
    expect(await ok(feed.api, '/activity/recent-count?minutes=10080&type=email.opened')).toMatchObject({
      minutes: 10_080,
      count: 2,
    });
    expect(await ok(feed.api, '/activity/recent-count?minutes=30&type=email.sent,email.failed')).toMatchObject({
      count: 3,
    });

    expect(await ok(feed.api, '/activity/types')).toEqual({
      types: ['email.clicked', 'email.failed', 'email.opened', 'email.sent'],
    });

    const events = [
      { name: 'signed_up', count: 3 },
      { name: 'viewed_pricing', count: 2 },
      { name: 'email_signup', count: 1 },
      { name: 'left', count: 1 },
    ];
    // Neither the email.* events nor contact.unsubscribed rank; email_signup is a client's own name.
    await settles(feed.api, '/analytics/top-events', { since: expect.any(String), until: expect.any(String), events });
    expect((await ok(feed.api, '/analytics/top-events?limit=2')).events).toEqual(events.slice(0, 2));
    expect(
      (await ok(feed.api, '/analytics/top-events?since=2020-01-01T00:00:00Z&until=2020-02-01T00:00:00Z')).events,
    ).toEqual([]);
    // No campaign has sent anything in this project.
    expect(await ok(feed.api, '/analytics/top-campaigns')).toEqual([]);
    expect(await ok(feed.api, '/activity/upcoming')).toEqual({ campaigns: [], workflows: [] });
  });

  it('refuses invalid queries with 422 and the public key with 401', async () => {
    const get = (path: string) => feed.api.get(path);
    const notKeyset = Buffer.from(JSON.stringify(['yesterday', 'x'])).toString('base64url');
    for (const [path, field] of [
      ['/activity?type=email.delivered', 'type'],
      ['/activity?type=signed_up', 'type'],
      ['/activity?type=email.sent&type=email.nope', 'type'],
      ['/activity?cursor=not-a-cursor', 'cursor'],
      [`/activity?cursor=${notKeyset}`, 'cursor'],
      ['/activity?contactId=not-a-uuid', 'contactId'],
      ['/activity?since=yesterday', 'since'],
      ['/activity?limit=0', 'limit'],
      ['/activity/recent-count?minutes=0', 'minutes'],
      ['/activity/recent-count?minutes=10081', 'minutes'],
      ['/activity/recent-count?type=email.sent,bogus', 'type'],
      ['/analytics/top-campaigns?metric=complained', 'metric'],
      ['/analytics/top-campaigns?limit=51', 'limit'],
      ['/analytics/top-events?limit=0', 'limit'],
    ]) {
      expect422(await get(path), field);
    }
    for (const path of [
      '/activity/stats',
      '/analytics/timeseries',
      '/analytics/campaign-stats',
      '/analytics/top-events',
    ]) {
      expect422(await get(`${path}?since=2024-02-01T00:00:00Z&until=2024-01-01T00:00:00Z`));
      expect422(await get(`${path}?since=2023-01-01T00:00:00Z&until=2024-02-01T00:00:00Z`));
      expect422(await get(`${path}?until=soon`), 'until');
      expect422(await get(`${path}?until=9999-12-31T23:59:59.999Z`), 'until');
      expect422(await get(`${path}?since=1969-12-31T00:00:00Z&until=1970-01-02T00:00:00Z`), 'since');
    }
    // A leap year and its last day: 366 days exactly is still a range.
    expect(
      (await ok(feed.api, '/analytics/timeseries?since=2024-01-01T00:00:00Z&until=2025-01-01T00:00:00Z')).data,
    ).toHaveLength(367);
    for (const path of [
      '/activity',
      '/activity/stats',
      '/activity/types',
      '/activity/upcoming',
      '/analytics/timeseries',
      '/analytics/top-campaigns',
    ]) {
      expect((await feed.api.get(path, feed.publicKey)).status, path).toBe(401);
    }
  });
});

describe('deleting a contact', () => {
  it('takes its events out of the feed, the totals and the daily counts', async () => {
    const { p, from } = await setup('erase');
    const kept = await sendOne(p, from, rcpt('kept'), 'Kept');
    const gone = await sendOne(p, from, rcpt('gone'), 'Gone');
    await track(p, gone.email, 'browsed');
    const before = await eventually(async () => {
      const stats = await ok(p.api, '/activity/stats');
      const feed = await ok(p.api, '/activity');
      const top = await ok(p.api, '/analytics/top-events');
      return stats.sent === 2 && feed.total === 2 && top.events.length === 1 ? { stats, feed } : undefined;
    });
    expect(before.feed.data.map((a: ActivityItem) => a.contact.email).sort()).toEqual([gone.email, kept.email].sort());

    expect((await p.api.delete(`/contacts/${gone.contactId}`)).status).toBe(204);
    const feed = await ok(p.api, '/activity');
    expect(feed.total).toBe(1);
    expect(feed.data.map((a: ActivityItem) => a.contact.email)).toEqual([kept.email]);
    expect((await ok(p.api, '/activity/stats')).sent).toBe(1);
    expect((await ok(p.api, '/analytics/top-events')).events).toEqual([]);
  });
});

describe('campaign analytics and what is coming up', () => {
  let p: TestProject;
  let c1: Campaign;
  let c2: Campaign;
  let later: Campaign;
  let sooner: Campaign;
  let draft: Campaign;
  const spring = { ann: rcpt('ann'), ben: rcpt('ben'), cat: rcpt('refused-cat') };
  const dan = rcpt('dan');
  let workflow: { id: string; name: string };

  async function campaign(name: string, subject: string, batch: string): Promise<Campaign> {
    const res = await p.api.post('/campaigns', {
      name,
      subject,
      body: `<p>Hello</p><p><a href="${LINK}">Shop</a></p>`,
      from: 'news@camp.activity.test',
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.batch', operator: 'equals', value: batch }] }],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data;
  }
  async function sendCampaign(c: Campaign, body: Record<string, unknown> = {}): Promise<Campaign> {
    const res = await p.api.request('POST', `/campaigns/${c.id}/send`, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (body.scheduledFor) return res.body.data;
    return eventually(async () => {
      const got = await ok<Campaign>(p.api, `/campaigns/${c.id}`);
      return got.status === 'SENT' ? got : undefined;
    }, 30_000);
  }
  /** The campaign's email to `address`, from the Message-ID the sink received. */
  const emailTo = (address: string) => messageIdOf(sinkMessagesTo(mail.sink, address)[0]!.raw)!.slice(1).split('@')[0]!;

  beforeAll(async () => {
    p = (await setup('camp')).p;
    for (const email of Object.values(spring))
      expect((await p.api.post('/contacts', { email, data: { batch: 'spring' } })).status).toBe(201);
    expect((await p.api.post('/contacts', { email: dan, data: { batch: 'members' } })).status).toBe(201);
    c1 = await sendCampaign(await campaign('Spring', 'Spring sale', 'spring'));
    c2 = await sendCampaign(await campaign('Members', 'Members only', 'members'));
    const ann = await trackingOf(emailTo(spring.ann));
    await hit(ann.pixel, 200);
    await hit(ann.click, 302);
    await hit((await trackingOf(emailTo(dan))).pixel, 200);

    draft = await campaign('Draft', 'Not yet', 'spring');
    later = await sendCampaign(await campaign('Later', 'Later', 'spring'), {
      scheduledFor: new Date(Date.now() + 2 * DAY).toISOString(),
    });
    sooner = await sendCampaign(await campaign('Sooner', 'Sooner', 'spring'), {
      scheduledFor: new Date(Date.now() + DAY).toISOString(),
    });

    const created = await p.api.post('/workflows', { name: 'Nurture', allowReentry: false });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    workflow = created.body;
    const step = await p.api.post(`/workflows/${workflow.id}/steps`, {
      name: 'pause',
      type: 'DELAY',
      config: { amount: 2, unit: 'hours' },
    });
    expect(step.status, JSON.stringify(step.body)).toBe(201);
    const started = await p.api.post(`/workflows/${workflow.id}/executions`, { email: spring.ben });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
  });

  const figures = (c: Campaign, f: Record<string, number>) => ({
    id: c.id,
    name: c.name,
    status: 'SENT',
    sentAt: c.sentAt,
    complained: 0,
    ...f,
  });
  const spring1 = () =>
    figures(c1, {
      totalRecipients: 3,
      sent: 2,
      delivered: 2,
      opened: 1,
      clicked: 1,
      bounced: 1,
      openRate: 0.5,
      clickRate: 0.5,
      bounceRate: 0.3333,
    });
  const members = () =>
    figures(c2, {
      totalRecipients: 1,
      sent: 1,
      delivered: 1,
      opened: 1,
      clicked: 0,
      bounced: 0,
      openRate: 1,
      clickRate: 0,
      bounceRate: 0,
    });

  it('filters the feed by campaign, each item naming its campaign and subject', async () => {
    const page = await ok<ActivityPage>(p.api, `/activity?campaignId=${c1.id}`);
    expect(page.total).toBe(5);
    expect(summary(page.data)).toEqual(
      [
        `email.sent ${spring.ann}`,
        `email.sent ${spring.ben}`,
        `email.failed ${spring.cat}`,
        `email.opened ${spring.ann}`,
        `email.clicked ${spring.ann}`,
      ].sort(),
    );
    for (const item of page.data) {
      expect(item).toMatchObject({
        campaignId: c1.id,
        subject: 'Spring sale',
        data: { campaignId: c1.id, emailId: item.emailId },
      });
    }
    expect(page.data.find((i) => i.type === 'email.sent' && i.contact.email === spring.ann)!.emailId).toBe(
      emailTo(spring.ann),
    );
    const opened = await ok<ActivityPage>(p.api, `/activity?campaignId=${c2.id}&type=email.opened`);
    expect(opened).toMatchObject({
      total: 1,
      data: [{ campaignId: c2.id, subject: 'Members only', contact: { email: dan }, emailId: emailTo(dan) }],
    });
    expect(await ok<ActivityPage>(p.api, `/activity?campaignId=${draft.id}`)).toEqual({
      data: [],
      cursor: null,
      hasMore: false,
      total: 0,
    });
    await settles(
      p.api,
      '/activity/stats',
      expect.objectContaining({
        ...ZERO,
        sent: 3,
        failed: 1,
        opened: 2,
        clicked: 1,
        openRate: 0.6667,
        clickRate: 0.3333,
      }),
    );
  });

  it('ranks the campaigns that started sending by each metric', async () => {
    const top = (query: string) => ok(p.api, `/analytics/top-campaigns?${query}`);
    expect(await top('metric=sent')).toEqual([spring1(), members()]);
    expect(await top('metric=openRate')).toEqual([members(), spring1()]);
    expect(await top('metric=clicked')).toEqual([spring1(), members()]);
    expect(await top('metric=bounced&limit=1')).toEqual([spring1()]);
    // A tie goes to the campaign sent last.
    expect(await top('')).toEqual([members(), spring1()]);
    expect(c2.sentAt! > c1.sentAt!).toBe(true);
  });

  it('sums the campaigns whose sending started in the range', async () => {
    expect(await ok(p.api, '/analytics/campaign-stats')).toEqual({
      since: expect.any(String),
      until: expect.any(String),
      totals: {
        totalRecipients: 4,
        sent: 3,
        delivered: 3,
        opened: 2,
        clicked: 1,
        bounced: 1,
        complained: 0,
        openRate: 0.6667,
        clickRate: 0.3333,
        bounceRate: 0.25,
      },
      campaigns: [members(), spring1()],
    });
    const past = await ok(p.api, '/analytics/campaign-stats?since=2020-01-01T00:00:00Z&until=2020-06-01T00:00:00Z');
    expect(past).toEqual({
      since: '2020-01-01',
      until: '2020-06-01',
      totals: NO_CAMPAIGN_FIGURES,
      campaigns: [],
    });
  });

  it('shows scheduled campaigns soonest first and workflows with executions under way', async () => {
    const upcoming = await eventually(async () => {
      const body = await ok(p.api, '/activity/upcoming');
      return body.workflows[0]?.waiting === 1 ? body : undefined;
    });
    expect(upcoming.campaigns).toEqual([
      { id: sooner.id, name: 'Sooner', scheduledFor: sooner.scheduledFor },
      { id: later.id, name: 'Later', scheduledFor: later.scheduledFor },
    ]);
    expect(upcoming.workflows).toEqual([
      { workflowId: workflow.id, name: 'Nurture', running: 0, waiting: 1, nextRunAt: expect.any(String) },
    ]);
    expect(Date.parse(upcoming.workflows[0].nextRunAt)).toBeGreaterThan(Date.now() + 60 * 60_000);

    expect((await p.api.post(`/campaigns/${sooner.id}/cancel`)).status).toBe(200);
    expect((await ok(p.api, '/activity/upcoming')).campaigns).toEqual([
      { id: later.id, name: 'Later', scheduledFor: later.scheduledFor },
    ]);
    // Neither a draft nor a scheduled campaign ranks among those that sent.
    expect((await ok<{ id: string }[]>(p.api, '/analytics/top-campaigns?limit=50')).map((c) => c.id).sort()).toEqual(
      [c1.id, c2.id].sort(),
    );
  });
});
