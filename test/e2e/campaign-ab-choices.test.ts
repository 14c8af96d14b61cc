import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchCampaign, batchContacts, campaignWhen, getCampaign, sendNow } from '../support/campaigns.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { sinkMessagesTo } from '../support/sending.js';
import { type Client, expectBody, pollUntil, startTestServer, type TestServer } from '../support/server.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.js';

// A/B tests through the API: what a test may be, a test split over the whole audience, and a
// winner picked by hand before the wait ends.

const DOMAIN = 'news.ab-choices.test';
const FROM = `news@${DOMAIN}`;

let dns: DnsServer;
let sink: SmtpSink;
let server: TestServer;
let api: Client;

beforeAll(async () => {
  dns = await startDnsServer();
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, DNS_SERVERS: dns.address });
  api = (await server.project('ab-choices')).api;
  await verifiedDomain(api, dns, DOMAIN);
});

afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await dns?.stop();
});

const people = (batch: string, n: number) =>
  batchContacts(
    api,
    batch,
    Array.from({ length: n }, (_, i) => `${batch}-${i}@people.ab-choices.test`),
  );

async function subjectsOf(addresses: string[]): Promise<string[]> {
  return Promise.all(
    addresses.map(async (a) => {
      const [m] = sinkMessagesTo(sink, a);
      return m ? ((await simpleParser(m.raw)).subject ?? '') : '(none)';
    }),
  );
}

describe('what an A/B test may be', () => {
  const create = (abTest: unknown, extra: Record<string, unknown> = {}) =>
    api.post('/campaigns', {
      name: 'Test',
      subject: 'Hello',
      body: '<p>Hi</p>',
      from: FROM,
      audienceType: 'ALL',
      abTest,
      ...extra,
    });
  const fieldsOf = (body: { error: { errors?: { field: string }[] } }) => body.error.errors?.map((e) => e.field);

  it('takes 2 to 5 variants, with defaults for the rest, and answers them on the campaign', async () => {
    const res = await create({ variants: [{}, { subject: 'Hello there', fromName: 'Ann from News' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.abTest).toEqual({
      variants: [{}, { subject: 'Hello there', fromName: 'Ann from News' }],
      testPercent: 20,
      metric: 'opens',
      waitHours: 4,
      winner: null,
    });
    const again = await getCampaign(api, res.body.data.id);
    expect(again.abTest).toEqual(res.body.data.abTest);
    const copy = await expectBody(api.post(`/campaigns/${res.body.data.id}/duplicate`), 201);
    expect(copy.data.abTest).toEqual(res.body.data.abTest);
    expect((await api.get(`/campaigns/${res.body.data.id}/ab-test`)).body).toMatchObject({
      decidesAt: null,
      winner: null,
      variants: [
        { variant: 'A', subject: 'Hello', figures: null },
        { variant: 'B', subject: 'Hello there', fromName: 'Ann from News', figures: null },
      ],
    });
  });

  it.each([
    ['one variant', { variants: [{ subject: 'x' }] }, 'abTest.variants'],
    ['six variants', { variants: ['a', 'b', 'c', 'd', 'e', 'f'].map((subject) => ({ subject })) }, 'abTest.variants'],
    ['a test share over half', { variants: [{}, { subject: 'x' }], testPercent: 80 }, 'abTest.testPercent'],
    ['a wait over a week', { variants: [{}, { subject: 'x' }], waitHours: 169 }, 'abTest.waitHours'],
    ['an unknown metric', { variants: [{}, { subject: 'x' }], metric: 'revenue' }, 'abTest.metric'],
    ['an unknown field', { variants: [{}, { subject: 'x', replyTo: 'a@b.test' }] }, 'abTest.variants.1'],
  ])('refuses %s, naming the field, and stores nothing', async (_, abTest, field) => {
    const before = (await api.get('/campaigns')).body.total;
    const res = await create(abTest);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.success).toBe(false);
    expect(fieldsOf(res.body)?.some((f) => f.startsWith(field))).toBe(true);
    expect((await api.get('/campaigns')).body.total).toBe(before);
  });

  it('refuses two variants that are the same email, a variant whose Liquid does not parse, and a winner phase with a local time', async () => {
    const same = await create({ variants: [{ subject: 'Hello' }, {}] });
    expect(same.status).toBe(422);
    expect(same.body.error.errors[0]).toMatchObject({ field: 'abTest.variants.1', code: 'duplicate_variant' });
    const liquid = await create({ variants: [{}, { body: '<p>{% if %}</p>' }] });
    expect(liquid.status).toBe(422);
    expect(fieldsOf(liquid.body)).toEqual(['abTest.variants.1.body']);
    const timed = await create({ variants: [{}, { subject: 'x' }] }, { localTime: { time: '09:00' } });
    expect(timed.status).toBe(422);
    expect(fieldsOf(timed.body)).toEqual(['abTest.testPercent']);
    // Split over the whole audience there is no winner phase, so a local time is fine.
    expect(
      (await create({ variants: [{}, { subject: 'x' }], testPercent: null }, { localTime: { time: '09:00' } })).status,
    ).toBe(201);
  });
});

describe('a test email of a variant', () => {
  it('has the variant’s subject and sender name, and a letter the test has not is refused', async () => {
    const campaign = await batchCampaign(api, FROM, 'test-email', {
      subject: 'Own subject',
      abTest: { variants: [{}, { subject: 'Second subject', fromName: 'Bea' }] },
    });
    const to = 'tester@people.ab-choices.test';
    expect((await api.post(`/campaigns/${campaign.id}/test`, { email: to, variant: 'B' })).status).toBe(200);
    const [m] = await pollUntil(
      async () => sinkMessagesTo(sink, to),
      (got) => got.length === 1,
      15_000,
    );
    const parsed = await simpleParser(m!.raw);
    expect(parsed.subject).toBe('[Test] Second subject');
    expect(parsed.from?.value[0]).toMatchObject({ name: 'Bea', address: FROM });
    const unknown = await api.post(`/campaigns/${campaign.id}/test`, { email: to, variant: 'C' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.errors[0]).toMatchObject({ field: 'variant', code: 'unknown_variant' });
    await new Promise((r) => setTimeout(r, 500));
    expect(sinkMessagesTo(sink, to)).toHaveLength(1);
  });
});

describe('a test split evenly over the whole audience', () => {
  it('gives each variant a third of the recipients and no winner', async () => {
    const contacts = await people('split', 30);
    const campaign = await batchCampaign(api, FROM, 'split', {
      subject: 'One',
      abTest: { variants: [{}, { subject: 'Two' }, { subject: 'Three', fromName: 'Three' }], testPercent: null },
    });
    await sendNow(api, campaign.id);
    const done = await campaignWhen(api, campaign.id, (c) => c.status === 'SENT');
    expect(done.abTest?.winner).toBeNull();
    const subjects = await subjectsOf(contacts.map((c) => c.email));
    expect(['One', 'Two', 'Three'].map((s) => subjects.filter((x) => x === s).length)).toEqual([10, 10, 10]);
    const report = (await api.get(`/campaigns/${campaign.id}/ab-test`)).body;
    expect(report.variants.map((v: { figures: { delivered: number } }) => v.figures.delivered)).toEqual([10, 10, 10]);
    expect(report.rest).toMatchObject({ recipients: 0 });
    expect(report.decidesAt).toBeNull();
  });
});

describe('a winner picked by hand before the wait ends', () => {
  it('sends the picked variant to the rest at once, and only once', async () => {
    const contacts = await people('manual', 40);
    const campaign = await batchCampaign(api, FROM, 'manual', {
      subject: 'Plain',
      abTest: { variants: [{}, { subject: 'Fancy' }], testPercent: 50, waitHours: 168 },
    });
    expect((await api.post(`/campaigns/${campaign.id}/ab-test/winner`, { variant: 'B' })).status).toBe(409);
    await sendNow(api, campaign.id);
    // The test phase: half the audience, then the campaign waits a week for the winner.
    await pollUntil(
      async () => (await api.get(`/campaigns/${campaign.id}/ab-test`)).body,
      (r) =>
        r.testedAt !== null && r.variants.every((v: { figures: { delivered: number } }) => v.figures.delivered === 10),
      20_000,
    );
    const waiting = (await api.get(`/campaigns/${campaign.id}/ab-test`)).body;
    expect(Date.parse(waiting.decidesAt) - Date.now()).toBeGreaterThan(167 * 3_600_000);
    expect(await getCampaign(api, campaign.id)).toMatchObject({ status: 'SENDING', deliveredCount: 20 });

    const unknown = await api.post(`/campaigns/${campaign.id}/ab-test/winner`, { variant: 'C' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.errors[0]).toMatchObject({ field: 'variant', code: 'unknown_variant' });

    const picked = await api.post(`/campaigns/${campaign.id}/ab-test/winner`, { variant: 'b' });
    expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    expect(picked.body.data.abTest.winner).toMatchObject({ variant: 'B', chosenBy: 'manual' });
    const again = await api.post(`/campaigns/${campaign.id}/ab-test/winner`, { variant: 'A' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('WINNER_DECIDED');

    const done = await campaignWhen(api, campaign.id, (c) => c.status === 'SENT');
    expect(done).toMatchObject({ totalRecipients: 40, deliveredCount: 40 });
    const subjects = await subjectsOf(contacts.map((c) => c.email));
    expect(subjects.filter((s) => s === 'Plain')).toHaveLength(10);
    expect(subjects.filter((s) => s === 'Fancy')).toHaveLength(30);
    for (const c of contacts) expect(sinkMessagesTo(sink, c.email)).toHaveLength(1);
  });
});

describe('guardrails during the test phase', () => {
  it('pause the test phase like any campaign, and a winner picked meanwhile waits for the resume', async () => {
    expect((await api.patch('/campaign-settings', { guardrails: { maxBounceRate: 0.1, minSample: 10 } })).status).toBe(
      200,
    );
    const contacts = await people('bouncy', 60);
    // A third of the list does not exist: the relay refuses it for good.
    const bad = new Set(contacts.filter((_, i) => i % 3 === 0).map((c) => c.email));
    sink.respond((m) =>
      m.to.some((to) => bad.has(to)) ? { accept: false, code: 550, message: 'No such user' } : { accept: true },
    );
    try {
      const campaign = await batchCampaign(api, FROM, 'bouncy', {
        subject: 'One',
        abTest: { variants: [{}, { subject: 'Two' }], testPercent: 50, waitHours: 168 },
      });
      await sendNow(api, campaign.id);
      const paused = await campaignWhen(api, campaign.id, (c) => c.status !== 'SENDING', 30_000);
      expect(paused).toMatchObject({ status: 'PAUSED', pausedReason: 'bounce_rate' });
      // Only the test phase was sent to; the rest has no email.
      const rest = (await expectBody(api.get(`/campaigns/${campaign.id}/ab-test`))).rest;
      expect(rest).toMatchObject({ recipients: 30, delivered: 0 });

      // Messages a worker held when it paused still finish; then nothing more goes.
      let seen = -1;
      await pollUntil(
        async () => {
          const before = seen;
          seen = sink.messages.length;
          return before;
        },
        (before) => before === seen,
        20_000,
        1000,
      );
      const picked = await api.post(`/campaigns/${campaign.id}/ab-test/winner`, { variant: 'B' });
      expect(picked.status).toBe(200);
      expect(picked.body.data).toMatchObject({ status: 'PAUSED', abTest: { winner: { variant: 'B' } } });
      const atSink = sink.messages.length;
      await new Promise((r) => setTimeout(r, 1500));
      expect(sink.messages.length).toBe(atSink);
      expect((await expectBody(api.post(`/campaigns/${campaign.id}/cancel`))).data.status).toBe('CANCELLED');
    } finally {
      sink.respond(() => ({ accept: true }));
      await api.patch('/campaign-settings', { guardrails: { maxBounceRate: null, minSample: null } });
    }
  });
});
