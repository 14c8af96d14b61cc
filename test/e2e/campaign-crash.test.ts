import { afterAll, describe, expect, it } from 'vitest';
import { verifiedDomain } from '../support/domains.js';
import { useChildPeers } from '../support/mail-server.js';
import { messageIdOf } from '../support/sending.js';
import { type ChildServer, type Client, client, eventually, printedKeys, spawnService } from '../support/server.js';

const RECIPIENTS = 4_000;
const DOMAIN = 'crash.campaign.test';
/**
 * The most a kill can make go out twice: messages the relay accepted whose outcome was not yet
 * committed, at most the worker's window (DELIVERY_CONCURRENCY's default, 20); outcomes are
 * committed as they come, so it is about one on average (bench/chaos.ts measures it).
 */
const UNRECORDED_PER_KILL = 20;

const peers = useChildPeers();
let server: ChildServer | undefined;

afterAll(() => server?.kill());

const random = (min: number, max: number) => min + Math.random() * (max - min);

async function start(): Promise<void> {
  server = await spawnService(peers.env());
}

async function importContacts(api: Client): Promise<void> {
  const rows = Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@rcpt.crash.test,${i}`);
  const form = new FormData();
  form.append('file', new Blob([['email,n', ...rows].join('\n')], { type: 'text/csv' }), 'contacts.csv');
  const accepted = await api.request('POST', '/contacts/import', { raw: form });
  expect(accepted.status).toBe(202);
  await eventually(
    async () => {
      const job = (await api.get(`/contacts/import/${accepted.body.jobId}`)).body;
      return job.status === 'completed' ? job : undefined;
    },
    120_000,
    200,
  );
}

describe('a campaign whose worker is killed again and again', () => {
  it(`reaches each of ${RECIPIENTS} recipients with exactly one email, none missing`, async () => {
    await start();
    const key = printedKeys(server!.output()).secretKey;
    let api = client(server!.url, key);
    await verifiedDomain(api, peers.dns, DOMAIN);
    await importContacts(api);

    const created = await api.post('/campaigns', {
      name: 'Crash',
      subject: 'Hello {{ n }}',
      body: '<p>Number {{ n }}</p>',
      from: `news@${DOMAIN}`,
      audienceType: 'ALL',
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await api.post(`/campaigns/${id}/send`)).status).toBe(200);

    // Kills at random moments: right after the send (freezing or early fan-out), then at random
    // points of early, middle and late delivery.
    const kills: string[] = [];
    const killAt = async (when: string, ready: () => boolean) => {
      await eventually(async () => (ready() ? true : undefined), 300_000, 20);
      await server!.kill('SIGKILL');
      kills.push(`${when} (sink had ${peers.sink.messages.length})`);
      await start();
      api = client(server!.url, key);
    };
    const soon = Date.now() + random(0, 800);
    await killAt('after send', () => Date.now() >= soon);
    for (const [lo, hi] of [
      [0.05, 0.25],
      [0.35, 0.55],
      [0.65, 0.85],
    ] as const) {
      const threshold = Math.floor(RECIPIENTS * random(lo, hi));
      await killAt(`at ${threshold}`, () => peers.sink.messages.length >= threshold);
    }

    const done = await eventually(
      async () => {
        const c = (await api.get(`/campaigns/${id}`)).body;
        return c.status === 'SENT' ? c : undefined;
      },
      600_000,
      500,
    );
    expect(done).toMatchObject({
      totalRecipients: RECIPIENTS,
      sentCount: RECIPIENTS,
      deliveredCount: RECIPIENTS,
      bouncedCount: 0,
    });

    // Every recipient received mail, and all of it is one email: one Message-ID per recipient.
    const byRecipient = new Map<string, Set<string>>();
    for (const m of peers.sink.messages) {
      const messageId = messageIdOf(m.raw)!;
      for (const to of m.to) {
        if (!byRecipient.has(to)) byRecipient.set(to, new Set());
        byRecipient.get(to)!.add(messageId);
      }
    }
    const missing = Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@rcpt.crash.test`).filter(
      (a) => !byRecipient.has(a),
    );
    expect(missing, `kills: ${kills.join(', ')}`).toEqual([]);
    const twoEmails = [...byRecipient].filter(([, ids]) => ids.size !== 1).map(([to]) => to);
    expect(twoEmails).toEqual([]);
    expect(new Set([...byRecipient.values()].flatMap((ids) => [...ids])).size).toBe(RECIPIENTS);

    // A message is sent again only when a worker died holding it, with the relay's answer unrecorded.
    const redelivered = peers.sink.messages.length - RECIPIENTS;
    expect(redelivered).toBeGreaterThanOrEqual(0);
    expect(redelivered).toBeLessThanOrEqual(kills.length * UNRECORDED_PER_KILL);
  }, 900_000);
});
