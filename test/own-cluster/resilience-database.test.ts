import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type OwnPostgres, startOwnPostgres } from '../support/own-postgres.js';
import { type ChildServer, client, eventually, printedKeys, spawnService } from '../support/server.js';

/**
 * The service against a PostgreSQL that restarts, stops and freezes under it: it never exits,
 * never answers 500, never hangs past its timeouts, and serves again by itself.
 */

const TIMEOUTS = { DB_CONNECT_TIMEOUT_SECONDS: '2', DB_STATEMENT_TIMEOUT_SECONDS: '4' };
/** Connect (2 s) plus the client's wait for a frozen server (4 s + 2 s), plus slack for a busy machine. */
const LONGEST_ANSWER_MS = 12_000;

let pg: OwnPostgres;
let dataDir: string;
const children: ChildServer[] = [];

beforeAll(async () => {
  pg = await startOwnPostgres();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-resilience-'));
}, 60_000);
afterEach(async () => {
  pg.thaw();
  if (pg.postmasterPid() === undefined) await pg.start();
});
afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
  await pg?.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(role = 'all'): Promise<ChildServer> {
  const child = await spawnService(
    {
      DATABASE_URL: pg.url,
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000',
      ...TIMEOUTS,
    },
    [role],
  );
  children.push(child);
  return child;
}

interface Answer {
  status: number;
  ms: number;
  body: any;
  retryAfter: string | null;
}

async function timed(url: string, init: RequestInit = {}): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, ms: Date.now() - started, body, retryAfter: res.headers.get('retry-after') };
}

/** Requests from `concurrency` loops until `stop` resolves; every answer is kept. */
async function underLoad(
  service: ChildServer,
  publicKey: string,
  concurrency: number,
  stop: Promise<unknown>,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let done = false;
  void stop.finally(() => (done = true));
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!done) {
        answers.push(
          await timed(`${service.url}/v1/track`, {
            method: 'POST',
            headers: { authorization: `Bearer ${publicKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ email: `load-${n++ % 200}@resilience.test`, event: 'ping' }),
          }).catch((err) => ({ status: 0, ms: 0, body: String(err), retryAfter: null })),
        );
      }
    }),
  );
  return answers;
}

function expectUnavailable(answer: Answer) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(503);
  expect(answer.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', statusCode: 503 });
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
}

describe('the database under the service', () => {
  let service: ChildServer;
  let keys: { publicKey: string; secretKey: string };

  /** Waits until the service lists contacts again, and checks it never exited. */
  async function expectServingAgain(timeoutMs: number) {
    const listed = async () =>
      (await timed(`${service.url}/contacts`, { headers: { authorization: `Bearer ${keys.secretKey}` } })).status;
    await eventually(async () => ((await listed()) === 200 ? true : undefined), timeoutMs);
    expect(service.process.exitCode).toBeNull();
  }

  beforeAll(async () => {
    service = await start();
    keys = printedKeys(service.output());
  }, 60_000);

  it('restarted three times under concurrent load: the process stays up, answers 200 or 503, never 500, and serves again by itself', async () => {
    const restarts = (async () => {
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 700));
        await pg.restart();
      }
      await new Promise((r) => setTimeout(r, 500));
    })();
    const answers = await underLoad(service, keys.publicKey, 8, restarts);
    await restarts;

    expect(service.process.exitCode, service.output()).toBeNull();
    expect(answers.length).toBeGreaterThan(50);
    const statuses = [...new Set(answers.map((a) => a.status))].sort();
    expect(
      statuses.every((s) => s === 200 || s === 503),
      `statuses ${statuses}; ${JSON.stringify(answers.find((a) => a.status !== 200 && a.status !== 503))}`,
    ).toBe(true);
    for (const a of answers.filter((x) => x.status === 503)) expectUnavailable(a);
    // Serves again without any help.
    await eventually(async () => ((await timed(`${service.url}/health`)).status === 200 ? true : undefined), 20_000);
    const after = await client(service.url, keys.publicKey).post('/v1/track', {
      email: 'after@resilience.test',
      event: 'back',
    });
    expect(after.status).toBe(200);
  }, 120_000);

  it('stopped: 503 with Retry-After within the timeout, /health 503 within 2 s naming the database; recovers when it is back', async () => {
    await pg.stop();
    const health = await timed(`${service.url}/health`);
    expect(health.status).toBe(503);
    expect(health.ms).toBeLessThan(2_000);
    expect(health.body).toEqual({ status: 'unavailable', dependencies: expect.objectContaining({ database: 'down' }) });

    // A request that needs the database (the contact list is never cached).
    const list = await timed(`${service.url}/contacts`, { headers: { authorization: `Bearer ${keys.secretKey}` } });
    expectUnavailable(list);
    expect(list.ms).toBeLessThan(LONGEST_ANSWER_MS);

    await pg.start();
    await expectServingAgain(20_000);
  }, 90_000);

  it('frozen (SIGSTOP): no request hangs past its timeout, /health answers 503 within 2 s; thawed, it serves again', async () => {
    pg.freeze();
    const [health, list, track] = await Promise.all([
      timed(`${service.url}/health`),
      timed(`${service.url}/contacts`, { headers: { authorization: `Bearer ${keys.secretKey}` } }),
      timed(`${service.url}/v1/track`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.publicKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'frozen@resilience.test', event: 'ping' }),
      }),
    ]);
    expect(health.status).toBe(503);
    expect(health.ms).toBeLessThan(2_000);
    for (const answer of [list, track]) {
      expectUnavailable(answer);
      expect(answer.ms).toBeLessThan(LONGEST_ANSWER_MS);
    }
    pg.thaw();
    await expectServingAgain(30_000);
  }, 90_000);

  it('after a restart, a template edited through one process reaches the next send from another', async () => {
    const other = await start('serve');
    const editor = client(service.url, keys.secretKey);
    const sender = client(other.url, keys.secretKey);
    const created = await editor.post('/templates', {
      name: 'Greeting',
      subject: 'Hello',
      body: '<p>version one</p>',
      from: 'hi@resilience.test',
      type: 'TRANSACTIONAL',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sendWith = async () => {
      const sent = await sender.post('/v1/send', { to: 'reader@resilience.test', template: created.body.id });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const id = sent.body.data.emails[0].email as string;
      const raw = await eventually(async () => {
        const res = await sender.get(`/emails/${id}/raw`);
        return res.status === 200 ? String(res.body) : undefined;
      }, 20_000);
      return (await simpleParser(raw)).html;
    };
    // The sending process now holds the template in its cache.
    expect(await sendWith()).toContain('version one');

    await pg.restart();
    await eventually(async () => ((await timed(`${other.url}/health`)).status === 200 ? true : undefined), 20_000);
    await eventually(
      async () =>
        (await editor.patch(`/templates/${created.body.id}`, { body: '<p>version two</p>' })).status === 200
          ? true
          : undefined,
      20_000,
    );
    expect(await sendWith(), other.output()).toContain('version two');
  }, 120_000);
});
