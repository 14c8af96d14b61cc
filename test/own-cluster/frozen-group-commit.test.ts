import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONTHS_AHEAD } from '../../src/platform/db/partitions.js';
import { type OwnPostgres, startOwnPostgres } from '../support/own-postgres.js';
import { type ChildServer, eventually, printedKeys, spawnService } from '../support/server.js';

/**
 * /v1/track's group commit with the database frozen (SIGSTOP) while requests are in every state:
 * in the batches being written, queued behind them, and arriving during the freeze. Each is answered
 * within a plain query's bound, and after the thaw the database holds exactly the events that were
 * answered 200: none of those answered 503 is written late, and a keyed retry is not doubled.
 */

const TIMEOUTS = { DB_CONNECT_TIMEOUT_SECONDS: '2', DB_STATEMENT_TIMEOUT_SECONDS: '4' };
/** A plain query's bound (connect 2 s, then 4 s + 2 s for a server that does not answer), plus slack for a busy machine. */
const LONGEST_ANSWER_MS = 12_000;
const EVENT = 'frozen-writer';

let cluster: OwnPostgres;
let dataDir: string;
let service: ChildServer;
let publicKey: string;
let db: pg.Client;

beforeAll(async () => {
  cluster = await startOwnPostgres();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-frozen-writer-'));
  service = await spawnService(
    { DATABASE_URL: cluster.url, DATA_DIR: dataDir, RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000', ...TIMEOUTS },
    ['all'],
  );
  publicKey = printedKeys(service.output()).publicKey;
  db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  // The worker's first run makes the month partitions, each a moment's lock on the tables the
  // writers use: over before the test holds rows of its own.
  await eventually(async () => {
    const { rows } = await db.query(`select count(*)::int as n from pg_inherits where inhparent = 'emails'::regclass`);
    return rows[0].n >= MONTHS_AHEAD + 2 ? true : undefined;
  }, 30_000);
}, 60_000);

afterAll(async () => {
  cluster?.thaw();
  await db?.end().catch(() => {});
  await service?.kill('SIGKILL');
  await cluster?.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Sent {
  n: number;
  email: string;
  key?: string;
  status: number;
  ms: number;
  body: any;
  retryAfter: string | null;
}

/** One /v1/track request, numbered by `n` in its data; with `keyed`, it carries an Idempotency-Key. */
async function track(n: number, email: string, keyed: boolean): Promise<Sent> {
  const key = keyed ? `frozen-${n}` : undefined;
  const started = Date.now();
  const res = await fetch(`${service.url}/v1/track`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${publicKey}`,
      'content-type': 'application/json',
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: JSON.stringify({ email, event: EVENT, data: { n } }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = await res.json();
  return {
    n,
    email,
    key,
    status: res.status,
    ms: Date.now() - started,
    body,
    retryAfter: res.headers.get('retry-after'),
  };
}

/** Backends of the service waiting on a row lock (not on a table's, which the worker's maintenance takes for moments). */
async function waitingOnLocks(): Promise<number> {
  const { rows } = await db.query(
    `select count(*)::int as n from pg_stat_activity
      where wait_event_type = 'Lock' and wait_event in ('transactionid', 'tuple') and pid <> pg_backend_pid()`,
  );
  return rows[0].n;
}

describe('a frozen database under the group commit', () => {
  it('answers queued, in-batch and arriving requests within the bound; after the thaw only what was answered 200 is written, and keyed retries are not doubled', async () => {
    let n = 0;
    // Before the freeze: answered 200, and the two contacts whose rows will hold the writers back.
    const before = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        track(n++, i < 2 ? `held-${i}@frozen.test` : `a${i}@frozen.test`, i % 2 === 0),
      ),
    );
    for (const s of before) expect(s.status, JSON.stringify(s.body)).toBe(200);

    // Both batch writers are held in the middle of their batch: each upserts a contact whose row the
    // test has locked. They are the batches being written when the database freezes.
    await db.query('begin');
    await db.query(`select 1 from contacts where email like 'held-%@frozen.test' for update`);
    const inBatch = [track(n++, 'held-0@frozen.test', true)];
    await eventually(async () => ((await waitingOnLocks()) === 1 ? true : undefined), 10_000, 20);
    inBatch.push(track(n++, 'held-1@frozen.test', false));
    await eventually(async () => ((await waitingOnLocks()) === 2 ? true : undefined), 10_000, 20);
    const queued = Array.from({ length: 20 }, (_, i) => track(n++, `q${i}@frozen.test`, i % 2 === 0));
    await new Promise((r) => setTimeout(r, 300));

    cluster.freeze();
    let answered: Sent[];
    try {
      const arriving = Array.from({ length: 20 }, (_, i) => track(n++, `f${i}@frozen.test`, i % 2 === 0));
      answered = await Promise.all([...inBatch, ...queued, ...arriving]);
    } finally {
      cluster.thaw();
    }
    for (const s of answered) {
      expect(s.status, JSON.stringify(s.body)).toBe(503);
      expect(s.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', statusCode: 503 });
      expect(Number(s.retryAfter)).toBeGreaterThan(0);
      expect(s.ms).toBeLessThan(LONGEST_ANSWER_MS);
    }

    // The held batches go on once the lock is gone; they must not commit now.
    await db.query('rollback');
    await eventually(async () => {
      const { rows } = await db.query(
        `select count(*)::int as n from pg_stat_activity where backend_xid is not null and pid <> pg_backend_pid()`,
      );
      return rows[0].n === 0 ? true : undefined;
    }, 30_000);

    // The clients retry what carried a key, with the same key, once the service answers again.
    const retried: Sent[] = [];
    for (const s of answered.filter((a) => a.key)) {
      const again = await eventually(async () => {
        const r = await track(s.n, s.email, true);
        return r.status === 503 ? undefined : r;
      }, 30_000);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      retried.push(again);
    }

    const { rows } = await db.query(`select id, (data->>'n')::int as n from events where name = $1`, [EVENT]);
    const answered200 = [...before, ...retried];
    expect(rows.map((r) => r.id).sort()).toEqual(answered200.map((s) => s.body.data.event).sort());
    const perRequest = new Map<number, number>();
    for (const r of rows) perRequest.set(r.n, (perRequest.get(r.n) ?? 0) + 1);
    expect([...perRequest.values()].every((count) => count === 1)).toBe(true);
  }, 180_000);
});
