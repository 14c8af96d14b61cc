import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trackerOf } from '../../src/modules/contacts/track.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  type ApiResponse,
  type ChildServer,
  client,
  eventually,
  printedKeys,
  spawnService,
  type TestProject,
  useTestServer,
} from '../support/server.js';

/*
 * Concurrent /v1/track requests are written in batches (contacts/track.ts). To know that the
 * requests of a test share one batch, the test first fills every batch writer with a request that
 * waits in the database (a trigger takes an advisory lock the test holds), then sends its requests,
 * waits until all of them are queued behind, and lets the database go: the queue is then written
 * as one batch.
 */

const HOLD_LOCK = 7_001;

const FAULT_TRIGGER = `
  create function test_track_faults() returns trigger language plpgsql as $$
  begin
    if new.name = 'held' then perform pg_advisory_xact_lock_shared(${HOLD_LOCK}); end if;
    if new.name = 'refused' then raise exception 'refused by the test trigger'; end if;
    return new;
  end $$;
  create trigger test_track_faults before insert on events for each row execute function test_track_faults()`;

function track(p: TestProject, body: unknown, key?: string) {
  return p.api.request('POST', '/v1/track', {
    body,
    key: p.publicKey,
    headers: key ? { 'idempotency-key': key } : {},
  });
}

describe('concurrent /v1/track requests written in one batch', () => {
  const server = useTestServer();
  let db: pg.Client;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: server.service.ctx.config.databaseUrl });
    await db.connect();
    await db.query(FAULT_TRIGGER);
  });
  afterAll(() => db?.end());
  // A failed test must not leave the writers waiting on the lock.
  afterEach(() => db.query('select pg_advisory_unlock_all()'));

  async function lockWaiters(): Promise<number> {
    const r = await db.query(
      `select count(*)::int as n from pg_locks
       where locktype = 'advisory' and not granted and objid = $1
         and database = (select oid from pg_database where datname = current_database())`,
      [HOLD_LOCK],
    );
    return r.rows[0].n;
  }

  /**
   * Sends `requests` so that they are written as one batch; returns their answers, and those of the
   * requests that held the writers.
   */
  async function inOneBatch(p: TestProject, requests: (() => Promise<ApiResponse>)[]) {
    const tracker = trackerOf(server.service.ctx);
    await db.query('select pg_advisory_lock($1)', [HOLD_LOCK]);
    const held: Promise<ApiResponse>[] = [];
    // Each request takes a writer, which then waits on the lock, until no writer is left. A request
    // counts once it is on the lock: one merely queued may still be on its way to an idle writer.
    while (!tracker.full) {
      held.push(track(p, { email: `held${held.length}@example.com`, event: 'held' }));
      await eventually(async () => ((await lockWaiters()) === held.length ? true : undefined));
    }
    const answered: number[] = [];
    const sent = requests.map((request) =>
      request().then((res) => {
        answered.push(res.status);
        return res;
      }),
    );
    await eventually(async () => {
      if (tracker.waiting === requests.length) return true;
      // Said when the requests never all queue up: what they are doing instead.
      throw new Error(
        `${tracker.waiting} waiting for a batch, ${await lockWaiters()} writers on the lock, answered: ${answered.join(' ')}`,
      );
    });
    await db.query('select pg_advisory_unlock($1)', [HOLD_LOCK]);
    return { answers: await Promise.all(sent), held: await Promise.all(held) };
  }

  async function storedEvents(ids: string[]): Promise<{ id: string; contact_id: string; name: string }[]> {
    const r = await db.query('select id, contact_id, name from events where id = any($1::uuid[])', [ids]);
    return r.rows;
  }

  it('fails a request that the database refuses alone, and writes the others of its batch', async () => {
    const p = await server.project();
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      email: `batch${i}@example.com`,
      event: i === 7 ? 'refused' : 'visited',
      data: { n: i },
    }));
    const { answers, held } = await inOneBatch(
      p,
      bodies.map((body) => () => track(p, body)),
    );

    for (const res of held) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const refused = answers[7]!;
    expect(refused.status).toBe(500);
    expect(refused.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    const written = answers.filter((_, i) => i !== 7);
    for (const res of written) expect(res.status, JSON.stringify(res.body)).toBe(200);

    const stored = await storedEvents(written.map((r) => r.body.data.event));
    expect(stored).toHaveLength(19);
    for (const res of written) {
      expect(stored.find((e) => e.id === res.body.data.event)).toMatchObject({
        contact_id: res.body.data.contact,
        name: 'visited',
      });
    }
    // Nothing of the refused request stays: neither its event nor its contact.
    const contact = await db.query('select 1 from contacts where project_id = $1 and email = $2', [
      p.id,
      'batch7@example.com',
    ]);
    expect(contact.rowCount).toBe(0);
    expect((await db.query(`select 1 from events where name = 'refused'`)).rowCount).toBe(0);
  });

  it('lets one of two requests with one Idempotency-Key through and answers the other 409', async () => {
    const p = await server.project();
    const shared = randomUUID();
    const own = Array.from({ length: 8 }, () => randomUUID());
    const requests = [
      () => track(p, { email: 'first@example.com', event: 'paid' }, shared),
      ...own.map((key, i) => () => track(p, { email: `own${i}@example.com`, event: 'paid' }, key)),
      () => track(p, { email: 'second@example.com', event: 'paid' }, shared),
    ];
    const { answers } = await inOneBatch(p, requests);

    const pair = [answers[0]!, answers[answers.length - 1]!];
    const through = pair.filter((r) => r.status === 200);
    const refused = pair.filter((r) => r.status !== 200);
    expect(through).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.status).toBe(409);
    expect(refused[0]!.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(refused[0]!.body.error.details).toMatchObject({
      key: shared,
      originalRequest: { method: 'POST', path: '/v1/track' },
      originalStatusCode: 200,
      data: through[0]!.body.data,
    });

    const others = answers.slice(1, -1);
    for (const res of others) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const paid = await db.query(`select count(*)::int as n from events where project_id = $1 and name = 'paid'`, [
      p.id,
    ]);
    expect(paid.rows[0].n).toBe(9);

    // Each key of the batch kept its own answer.
    for (const [i, key] of own.entries()) {
      const again = await track(p, { email: `own${i}@example.com`, event: 'paid' }, key);
      expect(again.status).toBe(409);
      expect(again.body.error.details.data).toEqual(others[i]!.body.data);
    }
  });
});

describe('a service killed while batches are being written', () => {
  let database: TestDatabase;
  let server: ChildServer | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await server?.kill();
    await database.drop();
  });

  it('has committed every request it answered with 200', async () => {
    const env = { ...database.env, RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000' };
    server = await spawnService(env);
    const { publicKey } = printedKeys(server.output());
    const url = server.url;
    const answered: { contact: string; event: string }[] = [];
    let n = 0;
    let killed = false;
    // Clients that send one request after another until the service is gone.
    const clients = Array.from({ length: 30 }, async () => {
      while (!killed) {
        const i = n++;
        try {
          const res = await client(url, publicKey).request('POST', '/v1/track', {
            key: publicKey,
            body: { email: `crash${i % 500}@example.com`, event: 'crash_test', data: { i } },
          });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          answered.push(res.body.data);
        } catch (err) {
          if (!killed) throw err;
        }
      }
    });
    await eventually(async () => (answered.length >= 500 ? true : undefined), 60_000, 20);
    // Thirty clients keep both batch writers busy: the kill comes in the middle of batches.
    killed = true;
    await server.kill('SIGKILL');
    await Promise.all(clients);

    server = await spawnService(env);
    const after = await client(server.url, publicKey).request('POST', '/v1/track', {
      key: publicKey,
      body: { email: 'after@example.com', event: 'after_restart' },
    });
    expect(after.status).toBe(200);

    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const r = await db.query('select id, contact_id from events where id = any($1::uuid[])', [
        answered.map((a) => a.event),
      ]);
      const stored = new Map(r.rows.map((row) => [row.id, row.contact_id]));
      const missing = answered.filter((a) => stored.get(a.event) !== a.contact);
      expect(missing).toEqual([]);
    } finally {
      await db.end();
    }
  });
});
