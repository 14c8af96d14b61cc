import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/domain/formats.js';
import { systemClock } from '../../src/platform/clock.js';
import { type Database, openDatabase, run } from '../../src/platform/db/client.js';
import { enqueue, JobRunner } from '../../src/platform/queue.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { eventually } from '../support/server.js';

const log = pino({ level: 'silent' });
let testDb: TestDatabase;
let database: Database;
const runners: JobRunner[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = await openDatabase({ databaseUrl: testDb.env.DATABASE_URL, dataDir: testDb.env.DATA_DIR! });
  await database.migrate();
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.stop(100)));
  await database.close();
  await testDb.drop();
});

function runner(): JobRunner {
  const r = new JobRunner(database, systemClock, log);
  runners.push(r);
  return r;
}

async function jobRows(queue: string) {
  return (await run(database.db, sql`select state, attempts, last_error from jobs where queue = ${queue}`)).rows;
}

describe('job queue', () => {
  it('runs a job only if the transaction that wrote it commits', async () => {
    const seen: unknown[] = [];
    const r = runner();
    r.work('q.commit', async (job) => void seen.push(job.payload.n));
    await r.start();
    await database.db.transaction(async (tx) => enqueue(tx, 'q.commit', { n: 1 }));
    await database.db
      .transaction(async (tx) => {
        await enqueue(tx, 'q.commit', { n: 2 });
        throw new Error('rolled back');
      })
      .catch(() => {});
    await eventually(async () => (seen.length === 1 ? true : undefined));
    await new Promise((res) => setTimeout(res, 300));
    expect(seen).toEqual([1]);
    expect(await jobRows('q.commit')).toEqual([]);
  });

  it('holds a delayed job until its time', async () => {
    const ranAt: number[] = [];
    const r = runner();
    r.work('q.delayed', async () => void ranAt.push(Date.now()));
    await r.start();
    const due = Date.now() + 1500;
    await enqueue(database.db, 'q.delayed', {}, { runAt: new Date(due) });
    await eventually(async () => (ranAt.length ? true : undefined), 10_000);
    expect(ranAt[0]).toBeGreaterThanOrEqual(due);
  });

  it('retries a failing job with backoff and gives up after maxAttempts', async () => {
    let calls = 0;
    const r = runner();
    r.work(
      'q.flaky',
      async () => {
        calls++;
        if (calls < 3) throw new Error(`failure ${calls}`);
      },
      { retryBaseMs: 50 },
    );
    r.work(
      'q.broken',
      async () => {
        throw new Error('always broken');
      },
      { retryBaseMs: 50 },
    );
    await r.start();
    await enqueue(database.db, 'q.flaky', {});
    await enqueue(database.db, 'q.broken', {}, { maxAttempts: 2 });
    await eventually(async () => (calls === 3 && (await jobRows('q.flaky')).length === 0 ? true : undefined));
    const broken = await eventually(async () => {
      const rows = await jobRows('q.broken');
      return rows[0]?.state === 'failed' ? rows[0] : undefined;
    });
    expect(broken).toMatchObject({ state: 'failed', attempts: 2, last_error: 'always broken' });
  });

  it('doubles the retry delay up to an hour', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(40, 1000)).toBe(3_600_000);
  });

  it('runs each job once with two workers on one database', async () => {
    const counts = new Map<number, number>();
    for (const r of [runner(), runner()]) {
      r.work(
        'q.shared',
        async (job) => {
          const n = job.payload.n as number;
          counts.set(n, (counts.get(n) ?? 0) + 1);
        },
        { concurrency: 3 },
      );
      await r.start();
    }
    await database.db.transaction(async (tx) => {
      for (let n = 0; n < 200; n++) await enqueue(tx, 'q.shared', { n });
    });
    await eventually(async () => (counts.size === 200 ? true : undefined), 30_000);
    await new Promise((res) => setTimeout(res, 300));
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });

  it('gives a job whose worker vanished to another worker when the lease ends', async () => {
    const lost = runner();
    lost.work('q.lease', () => new Promise(() => {}), { leaseMs: 500 });
    await lost.start();
    await enqueue(database.db, 'q.lease', { n: 1 });
    await eventually(async () => ((await jobRows('q.lease'))[0]?.attempts === 1 ? true : undefined));
    let rescued = 0;
    const rescuer = runner();
    rescuer.work('q.lease', async () => void rescued++, { leaseMs: 500 });
    await rescuer.start();
    await eventually(async () => (rescued === 1 ? true : undefined), 10_000);
  });

  it('runs a recurring job again after its interval, once across workers', async () => {
    let runs = 0;
    for (const r of [runner(), runner()]) {
      r.every('tick', 300, async () => void runs++);
      await r.start();
    }
    await eventually(async () => (runs >= 3 ? true : undefined), 10_000);
    expect((await jobRows('every:tick')).length).toBe(1);
  });
});
