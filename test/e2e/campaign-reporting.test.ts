import { simpleParser } from 'mailparser';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign, CampaignEngagement, CampaignLink, CampaignProgress } from '../../src/api.js';
import { batchCampaign, batchContacts, campaignWhen, sendNow, statsOf } from '../support/campaigns.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { sinkMessagesTo, trackingLinks, UNKNOWN_ID, uniqueAddresses } from '../support/sending.js';
import { type Client, expectBody, expectErrorEnvelope, pollUntil, type TestProject } from '../support/server.js';
import type { ReceivedMessage, Verdict } from '../support/smtp-sink.js';

/**
 * A campaign's report and live progress through the API, against a real SMTP sink and DNS server:
 * the block document kept beside the body, the rate and the estimate while sending (the sink holds
 * its answers to keep messages in flight), what pacing defers, clicks per link and opens and clicks
 * over time from the tracked links of delivered messages.
 */

const DOMAIN = 'news.reporting.test';
const FROM = `news@${DOMAIN}`;
const ACCEPT: Verdict = { accept: true };
const LINK_A = 'https://example.org/a';
const LINK_B = 'https://example.org/b?x=1';
const BODY = `<p>Hello</p><p><a href="${LINK_A}">A</a> <a href="${LINK_B}">B</a></p>`;
const DOC = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hello ✓' }] }] };

const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  project = await projectWithDomain(mail, 'reporting', DOMAIN);
  other = await projectWithDomain(mail, 'reporting-other', 'other.reporting.test');
});
afterEach(() => mail.sink.respond(() => ACCEPT));

let seq = 0;
const tag = (name: string) => `${name}-${++seq}`;

/** A campaign to `n` new contacts at `domain`, with BODY and `overrides`, not sent yet. */
async function campaignFor(n: number, domain = 'rcpt.reporting.test', overrides: Record<string, unknown> = {}) {
  const batch = tag('batch');
  const at = uniqueAddresses(domain);
  const contacts = await batchContacts(
    project.api,
    batch,
    Array.from({ length: n }, () => at(batch)),
  );
  const campaign = await batchCampaign(project.api, FROM, batch, { body: BODY, ...overrides });
  return { campaign, contacts };
}

const progressOf = (api: Client, id: string): Promise<CampaignProgress> =>
  expectBody(api.get(`/campaigns/${id}/progress`));

async function htmlTo(address: string): Promise<string> {
  const [message] = await pollUntil(
    async () => sinkMessagesTo(mail.sink, address),
    (m) => m.length > 0,
  );
  return (await simpleParser(message!.raw)).html || '';
}

async function follow(link: string): Promise<string | null> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return res.headers.get('location');
}

describe('bodySource', () => {
  it('is stored and answered unchanged, replaced by a PUT, copied by a duplicate, and never sent', async () => {
    const { campaign } = await campaignFor(1, 'rcpt.reporting.test', { bodySource: DOC });
    expect(campaign.bodySource).toEqual(DOC);
    expect((await expectBody<Campaign>(project.api.get(`/campaigns/${campaign.id}`))).bodySource).toEqual(DOC);
    const listed = await expectBody(project.api.get(`/campaigns?search=${encodeURIComponent(campaign.name)}`));
    expect(listed.data[0].bodySource).toEqual(DOC);

    const copy = await expectBody(project.api.post(`/campaigns/${campaign.id}/duplicate`), 201);
    expect(copy.data.bodySource).toEqual(DOC);

    // A replace without it clears it; with another document, that one is kept.
    const put = (extra: Record<string, unknown>) =>
      expectBody<Campaign>(
        project.api.request('PUT', `/campaigns/${copy.data.id}`, {
          body: {
            name: campaign.name,
            subject: campaign.subject,
            body: campaign.body,
            from: campaign.from,
            audienceType: campaign.audienceType,
            audienceCondition: campaign.audienceCondition,
            ...extra,
          },
        }),
      );
    expect((await put({})).bodySource).toBeNull();
    expect((await put({ bodySource: { type: 'doc', v: 2 } })).bodySource).toEqual({ type: 'doc', v: 2 });

    // Sending uses the HTML body alone.
    await sendNow(project.api, campaign.id);
    await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT');
    const recipients = await expectBody(project.api.get(`/campaigns/${campaign.id}/recipients`));
    const html = await htmlTo(recipients.data[0].email);
    expect(html).toContain('Hello');
    expect(html).not.toContain('Hello ✓');
  });

  it('answers 422 for a document that is not an object or is too large, and stores nothing', async () => {
    for (const bodySource of ['<p>html</p>', [1, 2], 42]) {
      const res = await project.api.post('/campaigns', {
        name: 'Bad source',
        subject: 'S',
        body: '<p>b</p>',
        from: FROM,
        audienceType: 'ALL',
        bodySource,
      });
      expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field: 'bodySource', code: 'invalid_type' });
    }
    const huge = { type: 'doc', text: 'x'.repeat(600 * 1024) };
    const res = await project.api.post('/campaigns', {
      name: 'Huge source',
      subject: 'S',
      body: '<p>b</p>',
      from: FROM,
      audienceType: 'ALL',
      bodySource: huge,
    });
    expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
    expect(res.body.error.errors[0]).toMatchObject({ field: 'bodySource', code: 'too_big' });
    const found = await expectBody(project.api.get('/campaigns?search=source'));
    expect(found.total).toBe(0);
  });
});

describe('POST /campaigns/{id}/unschedule', () => {
  it('takes a SCHEDULED campaign back to DRAFT: nothing goes out at the old time, and it can be sent after', async () => {
    const { campaign, contacts } = await campaignFor(1);
    const at = new Date(Date.now() + 1_500).toISOString();
    await expectBody(project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: at }));
    const res = await project.api.post(`/campaigns/${campaign.id}/unschedule`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { ...campaign, status: 'DRAFT', scheduledFor: null, updatedAt: expect.any(String) },
      message: 'The campaign is a draft again',
    });
    // The old start passes: a control campaign scheduled just after it has gone out by then.
    const control = await campaignFor(1);
    await expectBody(
      project.api.post(`/campaigns/${control.campaign.id}/send`, {
        scheduledFor: new Date(Date.parse(at) + 500).toISOString(),
      }),
    );
    await campaignWhen(project.api, control.campaign.id, (c) => c.status === 'SENT');
    expect((await expectBody<Campaign>(project.api.get(`/campaigns/${campaign.id}`))).status).toBe('DRAFT');
    expect(sinkMessagesTo(mail.sink, contacts[0]!.email)).toHaveLength(0);

    await sendNow(project.api, campaign.id);
    await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT');
    expect(sinkMessagesTo(mail.sink, contacts[0]!.email)).toHaveLength(1);
  });

  it('answers 400 CAMPAIGN_NOT_SCHEDULED for any other state and changes nothing; 404 for another project', async () => {
    const { campaign } = await campaignFor(1);
    const res = await project.api.post(`/campaigns/${campaign.id}/unschedule`);
    expectErrorEnvelope(res, 400, 'CAMPAIGN_NOT_SCHEDULED');
    expect(res.body.error.details).toEqual({ status: 'DRAFT' });
    expect(await expectBody(project.api.get(`/campaigns/${campaign.id}`))).toEqual(campaign);
    expectErrorEnvelope(await other.api.post(`/campaigns/${campaign.id}/unschedule`), 404, 'NOT_FOUND');
  });
});

describe('GET /campaigns/{id}/progress', () => {
  it('is all pending before sending, with no rate and no estimate', async () => {
    const { campaign } = await campaignFor(2);
    expect(await progressOf(project.api, campaign.id)).toEqual({
      campaignId: campaign.id,
      status: 'DRAFT',
      totalRecipients: 0,
      done: 0,
      sent: 0,
      pending: 0,
      sentLastMinute: 0,
      ratePerMinute: 0,
      deferred: 0,
      deferredUntil: null,
      estimatedCompletionAt: null,
      etaSeconds: null,
    });
  });

  it('while sending: done of total, the rate of what was accepted and an estimate for the rest; at the end, 100 %', async () => {
    const { campaign, contacts } = await campaignFor(4);
    // The sink accepts the first message and holds its answer to the others.
    let release: () => void = () => {};
    const held = new Promise<Verdict>((resolve) => {
      release = () => resolve(ACCEPT);
    });
    let first = true;
    mail.sink.respond(() => {
      if (!first) return held;
      first = false;
      return ACCEPT;
    });
    await sendNow(project.api, campaign.id);

    const sending = await pollUntil(
      () => progressOf(project.api, campaign.id),
      (p) => p.sent === 1 && p.totalRecipients === 4,
    );
    expect(sending).toMatchObject({ status: 'SENDING', done: 1, pending: 3, sentLastMinute: 1, deferred: 0 });
    expect(sending.ratePerMinute).toBeGreaterThan(0);
    // Three more at the current rate: the estimate lies ahead, in seconds and as an instant.
    expect(sending.etaSeconds).toBeGreaterThanOrEqual(0);
    expect(Date.parse(sending.estimatedCompletionAt!)).toBeGreaterThan(Date.now() - 5_000);
    const stats = await statsOf(project.api, campaign.id);
    expect(stats.pending).toBe(sending.pending);

    release();
    await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT');
    const finished = await progressOf(project.api, campaign.id);
    expect(finished).toMatchObject({
      status: 'SENT',
      totalRecipients: 4,
      done: 4,
      sent: 4,
      pending: 0,
      sentLastMinute: 4,
      estimatedCompletionAt: null,
      etaSeconds: null,
    });
    for (const c of contacts) expect(sinkMessagesTo(mail.sink, c.email)).toHaveLength(1);
  });

  it('counts the messages pacing holds for later slots, and estimates no earlier than the last slot', async () => {
    const slow = 'slow.reporting.test';
    await expectBody(
      project.api.patch('/delivery-settings', {
        recipientDomains: [{ domain: slow, perMinute: 1, concurrency: null }],
      }),
    );
    try {
      const { campaign } = await campaignFor(3, slow);
      await sendNow(project.api, campaign.id);
      const paced = await pollUntil(
        () => progressOf(project.api, campaign.id),
        (p) => p.sent === 1 && p.deferred === 2,
      );
      expect(paced.status).toBe('SENDING');
      // One a minute: the last of the three goes about two minutes after the first.
      const until = Date.parse(paced.deferredUntil!);
      expect(until).toBeGreaterThan(Date.now() + 60_000);
      expect(Date.parse(paced.estimatedCompletionAt!)).toBeGreaterThanOrEqual(until);
      expect(paced.etaSeconds).toBeGreaterThan(60);

      await expectBody(project.api.post(`/campaigns/${campaign.id}/cancel`));
      const cancelled = await progressOf(project.api, campaign.id);
      expect(cancelled).toMatchObject({ status: 'CANCELLED', done: 3, pending: 0, deferred: 0, etaSeconds: null });
    } finally {
      await expectBody(project.api.patch('/delivery-settings', { recipientDomains: [] }));
    }
  });
});

describe('clicks per link and engagement over time', () => {
  let campaign: Campaign;
  let contacts: { id: string; email: string }[];
  let html: string[];

  beforeAll(async () => {
    const made = await campaignFor(3);
    campaign = made.campaign;
    contacts = made.contacts;
    await sendNow(project.api, campaign.id);
    await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT');
    html = await Promise.all(made.contacts.map((c) => htmlTo(c.email)));
  });

  it('starts with no links and no points', async () => {
    const { campaign: fresh } = await campaignFor(1);
    expect(await expectBody(project.api.get(`/campaigns/${fresh.id}/links`))).toEqual({
      data: [],
      total: 0,
      page: 1,
      pageSize: 20,
      totalPages: 0,
    });
    expect(await expectBody(project.api.get(`/campaigns/${fresh.id}/engagement`))).toEqual({
      campaignId: fresh.id,
      interval: 'minute',
      data: [],
    });
  });

  it('counts every click of each link and the emails that clicked it, most clicked first', async () => {
    const [first, second, third] = html.map((h) => trackingLinks(mail.server, h));
    // The links of each message, in the body's order.
    expect(first!.clicks).toHaveLength(2);
    expect(await follow(first!.clicks[0]!)).toBe(LINK_A);
    expect(await follow(first!.clicks[0]!)).toBe(LINK_A);
    expect(await follow(second!.clicks[0]!)).toBe(LINK_A);
    expect(await follow(second!.clicks[1]!)).toBe(LINK_B);
    // The third opens without clicking.
    expect((await fetch(third!.pixel)).status).toBe(200);

    const links = await expectBody(project.api.get(`/campaigns/${campaign.id}/links`));
    expect(links).toMatchObject({ total: 2, page: 1, pageSize: 20, totalPages: 1 });
    expect(links.data.map((l: CampaignLink) => [l.url, l.clicks, l.uniqueClicks])).toEqual([
      [LINK_A, 3, 2],
      [LINK_B, 1, 1],
    ]);
    expect(Date.parse(links.data[0].lastClickedAt)).toBeGreaterThan(Date.now() - 60_000);
    const paged = await expectBody(project.api.get(`/campaigns/${campaign.id}/links?pageSize=1&page=2`));
    expect(paged.data.map((l: CampaignLink) => l.url)).toEqual([LINK_B]);
  });

  it('puts first opens and first clicks in time, adding up to the campaign’s counters', async () => {
    const stats = await statsOf(project.api, campaign.id);
    expect(stats).toMatchObject({ opened: 3, clicked: 2 });
    const series: CampaignEngagement = await expectBody(project.api.get(`/campaigns/${campaign.id}/engagement`));
    expect(series.interval).toBe('minute');
    const sum = (key: 'opens' | 'clicks') => series.data.reduce((n, p) => n + p[key], 0);
    expect({ opens: sum('opens'), clicks: sum('clicks') }).toEqual({ opens: 3, clicks: 2 });
    for (const p of series.data) expect(new Date(p.at).getUTCSeconds()).toBe(0);

    const byDay: CampaignEngagement = await expectBody(
      project.api.get(`/campaigns/${campaign.id}/engagement?interval=day`),
    );
    expect(byDay.data).toHaveLength(1);
    expect(byDay.data[0]).toMatchObject({ opens: 3, clicks: 2 });
    expect(byDay.data[0]!.at).toMatch(/T00:00:00\.000Z$/);
  });

  it('lists the recipients who opened or clicked, with their count', async () => {
    const opened = await expectBody(project.api.get(`/campaigns/${campaign.id}/recipients?engagement=opened`));
    expect(opened.total).toBe(3);
    expect(opened.data).toHaveLength(3);
    const clicked = await expectBody(
      project.api.get(`/campaigns/${campaign.id}/recipients?engagement=clicked&limit=1`),
    );
    expect(clicked.total).toBe(2);
    const next = await expectBody(
      project.api.get(`/campaigns/${campaign.id}/recipients?engagement=clicked&limit=1&cursor=${clicked.cursor}`),
    );
    const emails = [...clicked.data, ...next.data].map((r: { email: string }) => r.email);
    expect(next.hasMore).toBe(false);
    // The first two clicked (the third only opened).
    expect(emails.sort()).toEqual([contacts[0]!.email, contacts[1]!.email].sort());
    const both = await expectBody(
      project.api.get(`/campaigns/${campaign.id}/recipients?engagement=clicked&outcome=delivered`),
    );
    expect(both.total).toBe(2);
    expectErrorEnvelope(
      await project.api.get(`/campaigns/${campaign.id}/recipients?engagement=bounced`),
      422,
      'VALIDATION_ERROR',
    );
  });

  it('counts an unsubscribe through the email’s link once, however often it is posted', async () => {
    const publicUrl = mail.server.service.ctx.config.publicUrl;
    const href = /href="([^"]*\/unsubscribe\/[^"]+)"/.exec(html[2]!)![1]!.replace(/&amp;/g, '&');
    const link = mail.server.url + href.slice(publicUrl.length);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'confirm=yes',
      });
      expect(res.status).toBe(200);
    }
    expect(await statsOf(project.api, campaign.id)).toMatchObject({ unsubscribed: 1, opened: 3 });
  });

  it('leaves a test email’s clicks out', async () => {
    const test = await expectBody(
      project.api.post(`/campaigns/${campaign.id}/test`, { email: 'tester@rcpt.reporting.test' }),
    );
    const received: ReceivedMessage[] = await pollUntil(
      async () => sinkMessagesTo(mail.sink, test.data.to),
      (m) => m.length > 0,
    );
    const links = trackingLinks(mail.server, (await simpleParser(received[0]!.raw)).html || '');
    await follow(links.clicks[1]!);
    const after = await expectBody(project.api.get(`/campaigns/${campaign.id}/links`));
    expect(after.data.map((l: CampaignLink) => [l.url, l.clicks])).toEqual([
      [LINK_A, 3],
      [LINK_B, 1],
    ]);
  });

  it('answers 404 for another project’s campaign or an unknown id, 422 for a malformed id or interval', async () => {
    for (const path of ['progress', 'links', 'engagement']) {
      expectErrorEnvelope(await other.api.get(`/campaigns/${campaign.id}/${path}`), 404, 'NOT_FOUND');
      expectErrorEnvelope(await project.api.get(`/campaigns/${UNKNOWN_ID}/${path}`), 404, 'NOT_FOUND');
      expectErrorEnvelope(await project.api.get(`/campaigns/not-a-uuid/${path}`), 422, 'VALIDATION_ERROR');
    }
    const bad = await project.api.get(`/campaigns/${campaign.id}/engagement?interval=week`);
    expectErrorEnvelope(bad, 422, 'VALIDATION_ERROR');
    expect(bad.body.error.errors[0].field).toBe('interval');
  });
});

describe('OpenAPI', () => {
  it('documents the reporting endpoints, unschedule and bodySource', async () => {
    const doc = await (await fetch(`${mail.server.url}/openapi.json`)).json();
    for (const path of ['progress', 'engagement', 'links']) {
      expect(doc.paths[`/campaigns/{id}/${path}`]?.get?.responses?.['200'], path).toBeDefined();
    }
    expect(doc.paths['/campaigns/{id}/unschedule']?.post?.responses?.['200']).toBeDefined();
    const engagement = doc.paths['/campaigns/{id}/engagement'].get.parameters;
    expect(engagement.find((p: { name: string }) => p.name === 'interval')?.schema.enum).toEqual([
      'minute',
      'hour',
      'day',
    ]);
    const body = doc.paths['/campaigns'].post.requestBody.content['application/json'].schema;
    expect(body.properties.bodySource).toBeDefined();
  });
});
