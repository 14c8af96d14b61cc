import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/domain/formats.js';
import { systemClock } from '../../src/platform/clock.js';
import { type Database, openDatabase, run } from '../../src/platform/db/client.js';
import { enqueue, JobRunner, JobTakenOver } from '../../src/platform/queue.js';
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

  it('retries a job that has run many times within its maxRetryMs, not after an hour', async () => {
    const r = runner();
    let failed = false;
    r.work(
      'q.long',
      async () => {
        failed = true;
        throw new Error('threads short for a moment');
      },
      { retryBaseMs: 1000, maxRetryMs: 30_000 },
    );
    await enqueue(database.db, 'q.long', {}, { maxAttempts: 50 });
    // Taken over twenty times before: the attempts count every run.
    await run(database.db, sql`update jobs set attempts = 20 where queue = 'q.long'`);
    await r.start();
    const row = await eventually(async () => {
      if (!failed) return undefined;
      const rows = (
        await run(
          database.db,
          sql`select state, attempts, last_error, extract(epoch from run_at - now()) as wait_s from jobs where queue = 'q.long'`,
        )
      ).rows;
      return rows[0]?.last_error ? rows[0] : undefined;
    });
    expect(row).toMatchObject({ state: 'queued', attempts: 21, last_error: 'threads short for a moment' });
    expect(Number(row.wait_s)).toBeGreaterThan(0);
    expect(Number(row.wait_s)).toBeLessThanOrEqual(30);
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

  it('takes a job leased to a process that is gone at once, and leaves one leased to a live process until its lease ends', async () => {
    // Leased for an hour: to a key that no session holds, and to this live process.
    const hour = new Date(Date.now() + 3_600_000);
    await run(
      database.db,
      sql`insert into jobs (queue, payload, run_at, locked_until, locked_by, attempts) values
        ('q.owner', '{"n": 1}', now(), ${hour}, 4242424242, 1),
        ('q.owner', '{"n": 2}', now(), ${hour}, ${String(database.processKey)}::bigint, 1)`,
    );
    const ran: number[] = [];
    const r = runner();
    r.work('q.owner', async (job) => void ran.push(job.payload.n as number));
    await r.start();
    await eventually(async () => (ran.length > 0 ? true : undefined), 10_000);
    await new Promise((res) => setTimeout(res, 2500));
    expect(ran).toEqual([1]);
    expect((await jobRows('q.owner')).length).toBe(1);
  });

  it('a process whose job was taken over, still running it, writes nothing more about it', async () => {
    const other = await openDatabase({ databaseUrl: testDb.env.DATABASE_URL, dataDir: testDb.env.DATA_DIR! });
    try {
      const first = new JobRunner(other, systemClock, log);
      let release: () => void = () => {};
      const heartbeats: unknown[] = [];
      first.work(
        'q.cutoff',
        async (job) => {
          await new Promise<void>((res) => (release = res));
          heartbeats.push(await job.heartbeat().catch((e: unknown) => e));
        },
        // One at a time: with a free slot, the first process could take back the job it seems to have abandoned.
        { leaseMs: 3_600_000, concurrency: 1 },
      );
      await first.start();
      await enqueue(database.db, 'q.cutoff', { n: 1 });
      await eventually(async () => ((await jobRows('q.cutoff'))[0]?.attempts === 1 ? true : undefined));

      // As if the first process had been cut off from the database for a moment: its claim looks
      // abandoned, and a worker of this process takes the job over long before the lease's hour.
      await run(database.db, sql`update jobs set locked_by = 4242424242 where queue = 'q.cutoff'`);
      let started: () => void = () => {};
      const takenOver = new Promise<void>((res) => (started = res));
      let finish: () => void = () => {};
      const second = runner();
      second.work('q.cutoff', async () => {
        started();
        await new Promise<void>((res) => (finish = res));
      });
      await second.start();
      await takenOver;

      // The first one carries on: its heartbeat says the job is no longer its own, and its end
      // does not delete the row that the second one is working on.
      release();
      await eventually(async () => (heartbeats.length === 1 ? true : undefined));
      expect(heartbeats[0]).toBeInstanceOf(JobTakenOver);
      await first.stop(1000);
      expect(await jobRows('q.cutoff')).toEqual([{ state: 'queued', attempts: 2, last_error: null }]);
      finish();
      await eventually(async () => ((await jobRows('q.cutoff')).length === 0 ? true : undefined));
    } finally {
      await other.close();
    }
  });
});
