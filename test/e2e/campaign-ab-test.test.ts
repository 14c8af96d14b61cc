import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { verifiedDomain } from '../support/domains.js';
import { useChildPeers } from '../support/mail-server.js';
import { messageIdOf } from '../support/sending.js';
import { type ChildServer, type Client, client, eventually, printedKeys, spawnService } from '../support/server.js';

// An A/B test of two subjects on a fifth of 1,000 contacts, through the whole service as a child
// process, a real SMTP sink and the real tracking URLs. Variant A's readers sit behind a mail
// provider's image proxy, which fetches the pixel the moment each email arrives: A gets more raw
// opens, B more readers. The service is killed with SIGKILL between the phases; after the wait
// (an hour lasting HOUR_SECONDS) the rest all get B, and nobody gets two emails.

const CONTACTS = 1_000;
const DOMAIN = 'ab.campaign.test';
const HOUR_SECONDS = 45;
const SUBJECTS = ['Our spring news', 'Spring is here: 20 % off'];
const PROXY_IP = '17.58.1.20';

const peers = useChildPeers();
let server: ChildServer | undefined;
let api: Client;
let key: string;

afterAll(() => server?.kill());

async function start(): Promise<void> {
  server = await spawnService(
    peers.env({ CAMPAIGN_TEST_HOUR_SECONDS: String(HOUR_SECONDS), TRUST_PROXY: '127.0.0.1' }),
  );
  key ??= printedKeys(server.output()).secretKey;
  api = client(server.url, key);
}

const address = (i: number) => `reader${i}@rcpt.ab.test`;

async function importContacts(): Promise<void> {
  const rows = Array.from({ length: CONTACTS }, (_, i) => address(i));
  const form = new FormData();
  form.append('file', new Blob([['email', ...rows].join('\n')], { type: 'text/csv' }), 'contacts.csv');
  const accepted = await api.request('POST', '/contacts/import', { raw: form });
  expect(accepted.status).toBe(202);
  await eventually(
    async () =>
      (await api.get(`/contacts/import/${accepted.body.jobId}`)).body.status === 'completed' ? true : undefined,
    120_000,
    200,
  );
}

interface Received {
  to: string;
  subject: string;
  messageId: string;
  html: string;
}

async function received(): Promise<Received[]> {
  return Promise.all(
    peers.sink.messages.map(async (m) => {
      const parsed = await simpleParser(m.raw);
      return { to: m.to[0]!, subject: parsed.subject ?? '', messageId: messageIdOf(m.raw)!, html: parsed.html || '' };
    }),
  );
}

/** A tracking URL of the message, on the running server (the one that sent it may have been killed). */
function tracking(html: string, kind: 'open' | 'click'): string {
  const url = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
    .map((m) => m[1]!.replace(/&amp;/g, '&'))
    .find((u) => u.includes(`/t/${kind}/`));
  expect(url, html).toBeDefined();
  const parsed = new URL(url!);
  return `${server!.url}${parsed.pathname}${parsed.search}`;
}

describe('an A/B test of two subjects on a fifth of the audience', () => {
  it('sends the winner by readers’ opens to the rest, one email per contact, across a kill between the phases', async () => {
    await start();
    await verifiedDomain(api, peers.dns, DOMAIN);
    await importContacts();
    const created = await api.post('/campaigns', {
      name: 'Spring',
      subject: SUBJECTS[0],
      body: '<p>Spring news</p><p><a href="https://example.com/spring">See the offers</a></p>',
      from: `news@${DOMAIN}`,
      audienceType: 'ALL',
      abTest: { variants: [{}, { subject: SUBJECTS[1] }], testPercent: 20, metric: 'opens', waitHours: 1 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data.abTest).toMatchObject({ testPercent: 20, metric: 'opens', waitHours: 1, winner: null });
    expect((await api.post(`/campaigns/${id}/send`)).status).toBe(200);

    // The test phase: a fifth of the audience, half each, and then nothing until the wait ends.
    await peers.sink.waitFor(200, 60_000);
    const test = await received();
    expect(test).toHaveLength(200);
    const bySubject = (list: Received[], s: string) => list.filter((m) => m.subject === s);
    expect(bySubject(test, SUBJECTS[0]!)).toHaveLength(100);
    expect(bySubject(test, SUBJECTS[1]!)).toHaveLength(100);

    // A: the proxy fetches every pixel at once (not readers), and 5 people open it. B: 30 readers
    // open it and 10 of them click.
    const hit = (url: string, ip?: string) =>
      fetch(url, { redirect: 'manual', headers: ip ? { 'x-forwarded-for': ip } : {} });
    const a = bySubject(test, SUBJECTS[0]!);
    const b = bySubject(test, SUBJECTS[1]!);
    for (const m of a) expect((await hit(tracking(m.html, 'open'), PROXY_IP)).status).toBe(200);
    for (const m of a.slice(0, 5)) await hit(tracking(m.html, 'open'));
    for (const m of b.slice(0, 30)) expect((await hit(tracking(m.html, 'open'))).status).toBe(200);
    for (const m of b.slice(0, 10)) expect((await hit(tracking(m.html, 'click'))).status).toBe(302);

    const during = (await api.get(`/campaigns/${id}/ab-test`)).body;
    expect(during.winner).toBeNull();
    expect(during.machineOpens).toBe(95);
    expect(during.variants.map((v: { figures: { opened: number; humanOpened: number } }) => v.figures)).toEqual([
      expect.objectContaining({ recipients: 100, delivered: 100, opened: 100, humanOpened: 5, clicked: 0 }),
      expect.objectContaining({ recipients: 100, delivered: 100, opened: 30, humanOpened: 30, clicked: 10 }),
    ]);
    expect((await api.get(`/campaigns/${id}`)).body.status).toBe('SENDING');

    // Killed between the phases: the decision and the rest survive it.
    await server!.kill('SIGKILL');
    await start();

    const done = await eventually(
      async () => {
        const c = (await api.get(`/campaigns/${id}`)).body;
        return c.status === 'SENT' ? c : undefined;
      },
      HOUR_SECONDS * 1000 + 120_000,
      500,
    );
    expect(done).toMatchObject({ totalRecipients: CONTACTS, deliveredCount: CONTACTS });
    expect(done.abTest.winner).toMatchObject({ variant: 'B', chosenBy: 'metric' });
    expect(done.abTest.winner.reason).toMatch(/^B had the best open rate: 30\.0 % against 5\.0 % for A/);

    // Everyone has one email; the rest all got B.
    const all = await received();
    const rest = all.slice(200);
    expect(rest).toHaveLength(CONTACTS - 200);
    expect(rest.every((m) => m.subject === SUBJECTS[1])).toBe(true);
    const perContact = new Map<string, Set<string>>();
    for (const m of all) perContact.set(m.to, (perContact.get(m.to) ?? new Set()).add(m.messageId));
    expect(perContact.size).toBe(CONTACTS);
    expect([...perContact.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    const tested = new Set(test.map((m) => m.to));
    expect(rest.filter((m) => tested.has(m.to))).toEqual([]);

    const report = (await api.get(`/campaigns/${id}/ab-test`)).body;
    expect(report.rest).toMatchObject({ recipients: 800, delivered: 800 });
    expect(report.variants[1]).toMatchObject({ variant: 'B', subject: SUBJECTS[1], rate: 0.3 });
    expect(report.variants[1].confidence).toBeGreaterThan(0.99);
  }, 420_000);
});
