import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { backoffMs } from '../domain/formats.js';
import type { Clock } from './clock.js';
import { type Database, type Executor, ownerGone, run } from './db/client.js';
import { PollingLoop } from './polling.js';

export interface Job<P = Record<string, unknown>> {
  id: number;
  queue: string;
  payload: P;
  attempts: number;
  maxAttempts: number;
  /**
   * Extends the lease; long jobs call it between steps so their lease can stay short. Throws
   * JobTakenOver when another worker has taken the job over (this process lost its session meanwhile).
   */
  heartbeat(): Promise<void>;
  /**
   * Whether the job is surely still this process's: the session it was claimed under lives. A job
   * checks it before an effect outside the database (a webhook's request), as delivery does before
   * the relay: once the session is gone, another worker may have taken the job over.
   */
  held(): boolean;
  /**
   * Aborted when the process stops: a long job checks it between steps and throws JobInterrupted,
   * which hands the job back at once, without counting an attempt, to be resumed by any worker.
   */
  signal: AbortSignal;
}

/**
 * The job is no longer this process's: it lost its session, and another worker took the job over.
 * The job stops without writing anything more about itself; its new owner runs it.
 */
export class JobTakenOver extends Error {
  override name = 'JobTakenOver';
  constructor() {
    super('Another worker took the job over');
  }
}

/** Thrown by a job that stops between steps because its process is stopping. */
export class JobInterrupted extends Error {
  override name = 'JobInterrupted';
  constructor() {
    super('The worker is stopping; the job resumes elsewhere');
  }
}

/**
 * Thrown by a job with nothing to do before `until`: it runs again then, and the run counts as no
 * attempt (a fan-out waiting for the next recipients' time, say).
 */
export class JobDeferred extends Error {
  override name = 'JobDeferred';
  constructor(readonly until: Date) {
    super(`Nothing to do before ${until.toISOString()}`);
  }
}

export interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
  /** At most one queued job carries a given key; enqueueing it again does nothing. */
  singletonKey?: string;
}

export interface WorkOptions {
  concurrency?: number;
  /**
   * How long a claimed job stays invisible to other workers while its process lives; the job of a
   * process that is gone (its session with it) is taken over at once.
   */
  leaseMs?: number;
  /** Delay before the first retry; doubled each attempt, capped at an hour. */
  retryBaseMs?: number;
  /**
   * The longest delay before a retry (an hour unless set). The attempts count every run, a takeover
   * of a job whose lease lapsed included, so a long job taken over often would otherwise wait the
   * whole hour after its first failure.
   */
  maxRetryMs?: number;
}

type Handler<P> = (job: Job<P>) => Promise<void>;

const CHANNEL = 'jobs';
const POLL_MS = 1000;

/** Writes a job; pass the transaction that writes the row the job is about. */
export async function enqueue(
  ex: Executor,
  queue: string,
  payload: Record<string, unknown>,
  options: EnqueueOptions = {},
): Promise<void> {
  await run(
    ex,
    sql`
    insert into jobs (queue, payload, run_at, max_attempts, singleton_key)
    values (${queue}, ${JSON.stringify(payload)}::jsonb, ${options.runAt ?? new Date()}, ${options.maxAttempts ?? 10},
      ${options.singletonKey ?? null})
    on conflict (singleton_key) do nothing`,
  );
  await run(ex, sql`select pg_notify(${CHANNEL}, ${queue})`);
}

/** Writes one job per payload in one statement. */
export async function enqueueMany(
  ex: Executor,
  queue: string,
  payloads: Record<string, unknown>[],
  options: EnqueueOptions = {},
): Promise<void> {
  if (payloads.length === 0) return;
  await run(
    ex,
    sql`
    insert into jobs (queue, payload, run_at, max_attempts)
    select ${queue}, p, ${options.runAt ?? new Date()}, ${options.maxAttempts ?? 10}
    from jsonb_array_elements(${JSON.stringify(payloads)}::jsonb) p`,
  );
  await run(ex, sql`select pg_notify(${CHANNEL}, ${queue})`);
}

interface QueueWorker {
  queue: string;
  // biome-ignore lint/suspicious/noExplicitAny: each queue's handler reads its own payload type
  handler: Handler<any>;
  concurrency: number;
  leaseMs: number;
  retryBaseMs: number;
  maxRetryMs?: number;
  intervalMs?: number;
  running: number;
  loop: PollingLoop;
}

/** Runs the handlers of the queues this process works on, polling and woken by NOTIFY. */
export class JobRunner {
  private workers: QueueWorker[] = [];
  private unlisten?: () => Promise<void>;
  private readonly stopped = new AbortController();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  work<P = Record<string, unknown>>(queue: string, handler: Handler<P>, options: WorkOptions = {}): void {
    const w: QueueWorker = {
      queue,
      handler,
      concurrency: options.concurrency ?? 4,
      leaseMs: options.leaseMs ?? 60_000,
      retryBaseMs: options.retryBaseMs ?? 1000,
      maxRetryMs: options.maxRetryMs,
      running: 0,
      loop: new PollingLoop({
        intervalMs: POLL_MS,
        round: () => this.round(w),
        onError: (err) => this.log.error({ err, queue }, 'claiming jobs failed'),
      }),
    };
    this.workers.push(w);
  }

  /** A recurring job: one row per name, rescheduled after each run, shared by every worker process. */
  every(name: string, intervalMs: number, handler: () => Promise<void>): void {
    this.work(`every:${name}`, handler, { concurrency: 1 });
    this.workers[this.workers.length - 1]!.intervalMs = intervalMs;
  }

  async start(): Promise<void> {
    const { db } = this.database;
    for (const w of this.workers.filter((w) => w.intervalMs)) {
      await enqueue(db, w.queue, {}, { singletonKey: w.queue });
    }
    // An empty payload (the LISTEN connection was restored) may hide jobs of any queue.
    this.unlisten = await this.database.listen(CHANNEL, (queue) => {
      for (const w of this.workers) if (!queue || w.queue === queue) w.loop.wake();
    });
    for (const w of this.workers) w.loop.start();
  }

  /**
   * Stops claiming and waits up to `drainMs` for running jobs; a job still running after that is
   * abandoned and runs again elsewhere when its lease ends.
   */
  async stop(drainMs = 10_000): Promise<void> {
    this.stopped.abort();
    await Promise.all(this.workers.map((w) => w.loop.stop(drainMs)));
    await this.unlisten?.();
  }

  private async round(w: QueueWorker): Promise<boolean> {
    const free = w.concurrency - w.running;
    // Nothing is claimed without the process's session: without its lock, the claim would look abandoned at once.
    const session = this.database.session();
    if (free <= 0 || session === undefined) return false;
    const claimed = await this.claim(w, free, session);
    for (const job of claimed) w.loop.track(this.run(w, job));
    return claimed.length === free;
  }

  /**
   * Leases due jobs to this process. A job leased to a process that is gone is taken over at once;
   * what makes that safe with the old process perhaps still alive, cut off from the database, is
   * that its writes about the job are fenced by `locked_by` and each handler tolerates a second
   * runner (docs/decisions.md, "Jobs of a process that is gone").
   */
  private async claim(w: QueueWorker, limit: number, session: number): Promise<Job[]> {
    const now = this.clock.now();
    const leaseEnd = new Date(now.getTime() + w.leaseMs);
    const owner = String(this.database.processKey);
    const result = await run<{
      id: string;
      queue: string;
      payload: Record<string, unknown>;
      attempts: number;
      max_attempts: number;
    }>(
      this.database.db,
      sql`
      update jobs set locked_until = ${leaseEnd}, locked_by = ${owner}::bigint, attempts = attempts + 1
      where id in (
        select id from jobs
        where queue = ${w.queue} and state = 'queued' and run_at <= ${now}
          and (locked_until is null or locked_until <= ${now}
            or (locked_by is not null and ${ownerGone(sql`locked_by`)}))
        order by run_at, id
        limit ${limit}
        for update skip locked)
      returning id, queue, payload, attempts, max_attempts`,
    );
    return result.rows.map((r) => ({
      id: Number(r.id),
      queue: r.queue,
      payload: r.payload,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      heartbeat: async () => {
        const until = new Date(this.clock.now().getTime() + w.leaseMs);
        const renewed = await run(
          this.database.db,
          sql`update jobs set locked_until = ${until} where id = ${r.id} and ${this.ours()} returning id`,
        );
        if (renewed.rows.length === 0) throw new JobTakenOver();
      },
      held: () => this.database.session() === session,
      signal: this.stopped.signal,
    }));
  }

  private async run(w: QueueWorker, job: Job): Promise<void> {
    w.running++;
    const { db } = this.database;
    try {
      await w.handler(job);
      if (w.intervalMs) {
        await run(
          db,
          sql`update jobs set run_at = ${new Date(this.clock.now().getTime() + w.intervalMs)},
            attempts = 0, locked_until = null, locked_by = null where id = ${job.id} and ${this.ours()}`,
        );
      } else {
        await run(db, sql`delete from jobs where id = ${job.id} and ${this.ours()}`);
      }
    } catch (err) {
      if (err instanceof JobTakenOver) return;
      if (err instanceof JobDeferred) {
        await run(
          db,
          sql`update jobs set run_at = ${err.until}, locked_until = null, locked_by = null,
            attempts = greatest(attempts - 1, 0) where id = ${job.id} and ${this.ours()}`,
        ).catch((e) => this.log.error({ err: e, queue: job.queue }, 'deferring a job failed'));
        return;
      }
      if (err instanceof JobInterrupted) {
        await run(
          db,
          sql`update jobs set locked_until = null, locked_by = null, attempts = greatest(attempts - 1, 0)
            where id = ${job.id} and ${this.ours()}`,
        ).catch(() => {});
        return;
      }
      this.log.warn({ err, queue: job.queue, jobId: job.id, attempt: job.attempts }, 'job failed');
      await this.fail(w, job, err).catch((e) => this.log.error({ err: e }, 'recording a job failure failed'));
    } finally {
      w.running--;
      w.loop.wake();
    }
  }

  private async fail(w: QueueWorker, job: Job, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    const now = this.clock.now().getTime();
    const finalFailure = !w.intervalMs && job.attempts >= job.maxAttempts;
    const backoff = Math.min(backoffMs(job.attempts, w.retryBaseMs), w.maxRetryMs ?? Number.POSITIVE_INFINITY);
    const retryAt = new Date(now + (w.intervalMs ?? backoff));
    await run(
      this.database.db,
      sql`
      update jobs set
        state = ${finalFailure ? 'failed' : 'queued'},
        run_at = ${retryAt},
        locked_until = null,
        locked_by = null,
        attempts = ${w.intervalMs ? 0 : job.attempts},
        last_error = ${message.slice(0, 2000)}
      where id = ${job.id} and ${this.ours()}`,
    );
  }

  /**
   * A write about a job holds only while the job is this process's: one that took it over has put
   * its own key in `locked_by`.
   */
  private ours() {
    return sql`locked_by = ${String(this.database.processKey)}::bigint`;
  }
}
