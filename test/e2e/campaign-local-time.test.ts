import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign, CampaignSendTimes, EmailRecord } from '../../src/api.js';
import { allRecipients, batchCampaign, campaignWhen, getCampaign } from '../support/campaigns.js';
import { movableClock } from '../support/clock.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { emailRecord, sinkMessagesTo } from '../support/sending.js';
import {
  type Client,
  expectBody,
  ownerSession,
  pollUntil,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.js';

// A campaign sent at 09:00 in each recipient's zone, or spread over a window, through the real
// server, a real SMTP sink and the service's clock, which the test sets: it starts at 15:00 UTC on
// Saturday 13 March 2027 (ahead of the machine's, as jobs are queued by the machine's clock), the eve
// of New York's change to summer time, and runs on from there.

const START = '2027-03-13T15:00:00Z';
const clock = movableClock(START);
const setClock = clock.set;

const DOMAIN = 'news.localtime-campaigns.test';
const FROM = `news@${DOMAIN}`;

let dns: DnsServer;
let sink: SmtpSink;
let server: TestServer;
let api: Client;
let projectId: string;

beforeAll(async () => {
  setClock(START);
  dns = await startDnsServer();
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, DNS_SERVERS: dns.address }, { clock });
  const project = await server.project('campaign-local-time');
  api = project.api;
  projectId = project.id;
  await verifiedDomain(api, dns, DOMAIN);
});

afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await dns?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Subscribed contacts of `batch`, each with its own data. */
async function contactsOf(batch: string, people: [email: string, data: Record<string, unknown>][]): Promise<void> {
  for (const [email, data] of people)
    await expectBody(api.post('/contacts', { email, data: { batch, ...data }, subscribed: true }), 201);
}

/** Every recipient's email record, once the fan-out has made them all. */
async function emailsOf(id: string, count: number): Promise<EmailRecord[]> {
  const recipients = await pollUntil(
    () => allRecipients(api, id),
    (all) => all.length === count && all.every((r) => r.emailId !== null),
    20_000,
  );
  return Promise.all(recipients.map((r) => emailRecord(api, r.emailId!)));
}

/** Each recipient's send time by address, once the audience is frozen; `made`: those whose email exists. */
async function sendTimesOf(id: string, count: number): Promise<{ at: Record<string, string | null>; made: string[] }> {
  const recipients = await pollUntil(
    () => allRecipients(api, id),
    (all) => all.length === count,
    20_000,
  );
  return {
    at: Object.fromEntries(recipients.map((r) => [r.email!, r.sendAt])),
    made: recipients.filter((r) => r.emailId !== null).map((r) => r.email!),
  };
}

const delivered = (addresses: string[]) => addresses.filter((a) => sinkMessagesTo(sink, a).length > 0);

describe('a campaign sent at 09:00 in each recipient’s time zone', () => {
  const at = (who: string) => `${who}@people.localtime-campaigns.test`;
  // Each contact's next 09:00 after 15:00Z on 13 March 2027.
  const people: [email: string, data: Record<string, unknown>, nine: string][] = [
    // Tokyo (UTC+9) is already at 00:00 on the 8th: by its timezone, and by its locale.
    [at('tokyo-tz'), { timezone: 'Asia/Tokyo' }, '2027-03-14T00:00:00.000Z'],
    [at('tokyo-locale'), { locale: 'ja_JP' }, '2027-03-14T00:00:00.000Z'],
    // Kolkata (UTC+5:30) by its country, which goes before its locale.
    [at('kolkata'), { country: 'IN', locale: 'en-US' }, '2027-03-14T03:30:00.000Z'],
    // Berlin (UTC+1) by its country.
    [at('berlin'), { country: 'de' }, '2027-03-14T08:00:00.000Z'],
    // Nothing to go by: UTC.
    [at('nowhere'), { plan: 'pro' }, '2027-03-14T09:00:00.000Z'],
    // New York changes to EDT (UTC-4) before its next 09:00.
    [at('new-york'), { timezone: 'America/New_York' }, '2027-03-14T13:00:00.000Z'],
  ];
  const addresses = people.map(([email]) => email);
  const nineOf = new Map(people.map(([email, , nine]) => [email, nine]));
  let campaign: Campaign;

  beforeAll(async () => {
    await contactsOf(
      'nine',
      people.map(([email, data]) => [email, data]),
    );
    campaign = await batchCampaign(api, FROM, 'nine', { localTime: { time: '09:00', whenPassed: 'nextDay' } });
  });

  it('keeps the local time on the campaign and tells the zones and send times of its audience', async () => {
    expect(campaign.localTime).toEqual({ time: '09:00', whenPassed: 'nextDay' });
    expect(campaign.spread).toBeNull();
    const times = await expectBody<CampaignSendTimes>(api.get(`/campaigns/${campaign.id}/local-time`));
    expect(times.total).toBe(6);
    expect(times.zones).toEqual([
      { zone: 'Asia/Tokyo', contacts: 2, sendAt: '2027-03-14T00:00:00.000Z' },
      { zone: 'Asia/Kolkata', contacts: 1, sendAt: '2027-03-14T03:30:00.000Z' },
      { zone: 'Europe/Berlin', contacts: 1, sendAt: '2027-03-14T08:00:00.000Z' },
      { zone: 'UTC', contacts: 1, sendAt: '2027-03-14T09:00:00.000Z' },
      { zone: 'America/New_York', contacts: 1, sendAt: '2027-03-14T13:00:00.000Z' },
    ]);
    expect([times.firstSendAt, times.lastSendAt]).toEqual(['2027-03-14T00:00:00.000Z', '2027-03-14T13:00:00.000Z']);
  });

  it('gives each email 09:00 in its zone, and sends none before', async () => {
    await expectBody(api.post(`/campaigns/${campaign.id}/send`));
    const times = await sendTimesOf(campaign.id, people.length);
    expect(times.at).toEqual(Object.fromEntries(nineOf));
    // Emails are made a window ahead of their time: the first 09:00 is hours away, so none yet.
    await sleep(1500);
    expect((await sendTimesOf(campaign.id, people.length)).made).toEqual([]);
    // Nothing has gone yet, so there is no rate: the estimate is the last zone's 09:00.
    const progress = await expectBody(api.get(`/campaigns/${campaign.id}/progress`));
    expect(progress).toMatchObject({ pending: people.length, estimatedCompletionAt: '2027-03-14T13:00:00.000Z' });
    await sleep(1500);
    expect(delivered(addresses)).toEqual([]);
    // The fan-out is done, but the campaign waits for its emails.
    expect((await getCampaign(api, campaign.id)).status).toBe('SENDING');
  });

  it('keeps each email’s time through a pause and a resume', async () => {
    await expectBody(api.post(`/campaigns/${campaign.id}/pause`));
    await expectBody(api.post(`/campaigns/${campaign.id}/resume`));
    expect((await sendTimesOf(campaign.id, people.length)).at).toEqual(Object.fromEntries(nineOf));
    await sleep(1000);
    expect(delivered(addresses)).toEqual([]);
  });

  it('sends a zone’s emails when 09:00 comes there, and only that zone’s', async () => {
    setClock('2027-03-14T00:00:01Z');
    const tokyo = [at('tokyo-tz'), at('tokyo-locale')];
    await pollUntil(
      async () => delivered(addresses),
      (d) => d.length >= 2,
      20_000,
    );
    await sleep(1500);
    expect(delivered(addresses).sort()).toEqual(tokyo.sort());
    expect((await getCampaign(api, campaign.id)).status).toBe('SENDING');

    setClock('2027-03-14T08:00:01Z');
    await pollUntil(
      async () => delivered(addresses),
      (d) => d.length >= 4,
      20_000,
    );
    await sleep(1500);
    expect(delivered(addresses).sort()).toEqual([...tokyo, at('kolkata'), at('berlin')].sort());
    expect((await getCampaign(api, campaign.id)).status).toBe('SENDING');
  });

  it('is SENT once the last zone’s email has gone, and nobody got two', async () => {
    setClock('2027-03-14T13:00:01Z');
    const sent = await campaignWhen(api, campaign.id, (c) => c.status === 'SENT', 20_000);
    expect(sent.sentCount).toBe(people.length);
    for (const address of addresses) expect(sinkMessagesTo(sink, address), address).toHaveLength(1);
    const emails = await emailsOf(campaign.id, people.length);
    for (const e of emails) expect(Date.parse(e.sentAt!), e.to).toBeGreaterThanOrEqual(Date.parse(nineOf.get(e.to)!));
  });
});

describe('a local time with whenPassed now', () => {
  const at = (who: string) => `${who}@now.localtime-campaigns.test`;

  it('sends at once where the time has passed on the send day, and at it elsewhere', async () => {
    // 12:00 UTC: 13:00 in Berlin (09:00 has passed), 08:00 in New York (still to come).
    setClock('2027-03-16T12:00:00Z');
    await contactsOf('passed', [
      [at('berlin'), { country: 'DE' }],
      [at('nowhere'), {}],
      [at('new-york'), { timezone: 'America/New_York' }],
    ]);
    const campaign = await batchCampaign(api, FROM, 'passed', { localTime: { time: '09:00', whenPassed: 'now' } });
    await expectBody(api.post(`/campaigns/${campaign.id}/send`));
    await pollUntil(
      async () => delivered([at('berlin'), at('nowhere'), at('new-york')]),
      (d) => d.length === 2,
      20_000,
    );
    const times = await sendTimesOf(campaign.id, 3);
    expect(times.at[at('new-york')]).toBe('2027-03-16T13:00:00.000Z');
    expect(times.made.sort()).toEqual([at('berlin'), at('nowhere')].sort());
    await sleep(1000);
    expect(delivered([at('new-york')])).toEqual([]);
    expect((await getCampaign(api, campaign.id)).status).toBe('SENDING');

    setClock('2027-03-16T13:00:01Z');
    await campaignWhen(api, campaign.id, (c) => c.status === 'SENT', 20_000);
    expect(sinkMessagesTo(sink, at('new-york'))).toHaveLength(1);
  });
});

describe('the project’s default time zone', () => {
  const at = (who: string) => `${who}@default-zone.localtime-campaigns.test`;

  it('is where a contact with no zone of its own gets its 09:00, and a contact’s own zone goes first', async () => {
    setClock('2027-03-18T15:00:00Z');
    const session = await ownerSession(server, {
      email: 'owner@localtime-campaigns.test',
      password: 'owner-correct-horse',
    });
    // São Paulo is UTC-3 all year: 09:00 there is 12:00Z.
    await expectBody(session.patch(`/users/@me/projects/${projectId}`, { timezone: 'America/Sao_Paulo' }));
    await contactsOf('default-zone', [
      [at('nowhere'), {}],
      [at('berlin'), { country: 'DE' }],
    ]);
    const campaign = await batchCampaign(api, FROM, 'default-zone', {
      localTime: { time: '09:00', whenPassed: 'nextDay' },
    });
    const times = await expectBody<CampaignSendTimes>(api.get(`/campaigns/${campaign.id}/local-time`));
    expect(times.zones.map((z) => [z.zone, z.contacts, z.sendAt])).toEqual([
      ['Europe/Berlin', 1, '2027-03-19T08:00:00.000Z'],
      ['America/Sao_Paulo', 1, '2027-03-19T12:00:00.000Z'],
    ]);
    await expectBody(api.post(`/campaigns/${campaign.id}/send`));
    expect((await sendTimesOf(campaign.id, 2)).at).toEqual({
      [at('nowhere')]: '2027-03-19T12:00:00.000Z',
      [at('berlin')]: '2027-03-19T08:00:00.000Z',
    });
    await expectBody(api.post(`/campaigns/${campaign.id}/cancel`));
    await expectBody(session.patch(`/users/@me/projects/${projectId}`, { timezone: 'UTC' }));
  });
});

describe('a campaign spread over a window', () => {
  const at = (who: string) => `${who}@spread.localtime-campaigns.test`;
  const addresses = ['a', 'b', 'c', 'd'].map(at);

  it('gives its emails times evenly apart from the send moment, and is SENT after the last', async () => {
    setClock('2027-03-17T10:00:00Z');
    await contactsOf(
      'spread',
      addresses.map((a) => [a, {}]),
    );
    const campaign = await batchCampaign(api, FROM, 'spread', { spread: { hours: 2 } });
    expect(campaign.spread).toEqual({ hours: 2 });
    const before = await expectBody<CampaignSendTimes>(api.get(`/campaigns/${campaign.id}/local-time`));
    expect(Date.parse(before.lastSendAt!) - Date.parse(before.firstSendAt!)).toBe(90 * 60_000);

    const started = (await expectBody(api.post(`/campaigns/${campaign.id}/send`))).data as Campaign;
    const from = Date.parse(started.sentAt!);
    const { at: sendAt, made } = await sendTimesOf(campaign.id, addresses.length);
    // In contact id order, evenly apart: at once, then 30, 60 and 90 minutes after the send moment.
    expect(
      Object.values(sendAt)
        .map((t) => (Date.parse(t!) - from) / 60_000)
        .sort((a, b) => a - b),
    ).toEqual([0, 30, 60, 90]);
    // Only those due within the fan-out's window (ten minutes) have their email yet.
    await pollUntil(
      async () => (await sendTimesOf(campaign.id, addresses.length)).made,
      (m) => m.length === 1,
      20_000,
    );
    expect(made.length).toBeLessThanOrEqual(1);
    await pollUntil(
      async () => delivered(addresses),
      (d) => d.length === 1,
      20_000,
    );
    const times = await expectBody<CampaignSendTimes>(api.get(`/campaigns/${campaign.id}/local-time`));
    expect([times.firstSendAt, times.lastSendAt]).toEqual([
      new Date(from).toISOString(),
      new Date(from + 90 * 60_000).toISOString(),
    ]);

    setClock(new Date(from + 60 * 60_000 + 1000).toISOString());
    await pollUntil(
      async () => delivered(addresses),
      (d) => d.length === 3,
      20_000,
    );
    await sleep(1000);
    expect(delivered(addresses)).toHaveLength(3);
    expect((await getCampaign(api, campaign.id)).status).toBe('SENDING');

    setClock(new Date(from + 90 * 60_000 + 1000).toISOString());
    await campaignWhen(api, campaign.id, (c) => c.status === 'SENT', 20_000);
    for (const address of addresses) expect(sinkMessagesTo(sink, address), address).toHaveLength(1);
  });
});

describe('refused timings', () => {
  const base = {
    name: 'Refused',
    subject: 'News',
    body: '<p>News</p>',
    from: FROM,
    audienceType: 'ALL',
  };
  const cases: [what: string, extra: Record<string, unknown>, field: string][] = [
    ['a time that is not HH:MM', { localTime: { time: '25:00', whenPassed: 'nextDay' } }, 'localTime.time'],
    ['an unknown whenPassed', { localTime: { time: '09:00', whenPassed: 'later' } }, 'localTime.whenPassed'],
    [
      'a local time and a spread together',
      { localTime: { time: '09:00', whenPassed: 'now' }, spread: { hours: 3 } },
      'spread',
    ],
    ['a spread under an hour', { spread: { hours: 0 } }, 'spread.hours'],
    ['a spread over 72 hours', { spread: { hours: 73 } }, 'spread.hours'],
  ];

  it.each(cases)('refuses %s with a 422 on its field, creating and changing nothing', async (_what, extra, field) => {
    const listed = async () => (await expectBody<{ total: number }>(api.get('/campaigns?pageSize=1'))).total;
    const count = await listed();
    const created = await api.post('/campaigns', { ...base, ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(422);
    expect(created.body.error.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    expect(await listed()).toBe(count);

    const draft = (
      await expectBody(api.post('/campaigns', { ...base, localTime: { time: '07:30', whenPassed: 'now' } }), 201)
    ).data as Campaign;
    const replaced = await api.request('PUT', `/campaigns/${draft.id}`, { body: { ...base, ...extra } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(422);
    expect(replaced.body.error.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    expect((await getCampaign(api, draft.id)).localTime).toEqual({ time: '07:30', whenPassed: 'now' });
  });

  it('documents the route and both fields in /openapi.json', async () => {
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    expect(doc.paths['/campaigns/{id}/local-time'].get).toBeDefined();
    const body = JSON.stringify(doc.paths['/campaigns'].post.requestBody);
    expect(body).toContain('"localTime"');
    expect(body).toContain('"spread"');
  });
});
