/**
 * Untrusted content is processed here, on worker threads, not on the event loop: inbound MIME
 * parsing and HTML sanitizing, Liquid parsing and rendering, html-to-text. (Two fast paths stay on
 * the calling thread where the input's size bounds the work, as tests show: the text part of HTML
 * up to 16 KiB, here, and small admitted templates, in templates.ts.) Every task has a deadline in
 * CPU time: when its thread has worked that long on it, the thread is terminated (V8 stops it even
 * inside a tight loop) and a fresh one takes its place; a thread that outgrows its heap dies the
 * same way. Both end the task with a ContentLimitError, which callers treat as a permanent failure
 * with its reason. Waiting for a core is not the content's fault: a task starved that way ends,
 * at worst, as a PoolBusyError, to be tried again.
 *
 * One thread is kept warm (none in a worker process); more (up to the cores, 2 to 4) start under
 * load and leave after 30 s idle. A task that needs a thread started has its deadline counted from
 * when that thread is ready: on a busy machine, loading a thread's code at its lower priority took
 * seconds, and ordinary content failed for it.
 *
 * Back-pressure is explicit: each kind of task has its own queue, bounded, and its own share of the
 * threads (inbound mail never takes them all, so a flood of hostile messages cannot stall delivery
 * or rendering). A full queue is a PoolBusyError, a temporary condition: 503 with Retry-After at
 * the API, 451 to an SMTP client, a later attempt for a queued email.
 *
 * The threads run at a lower priority (nice +5), so that under load the event loop gets the cores
 * first. For that reason RSA key generation (our own work, but hundreds of milliseconds of CPU) runs
 * here too, one at a time: on libuv's thread pool it competed with the event loop at full priority
 * and, unbounded, held up everything else that pool does (password hashing at sign-in waited 11.8 s).
 */
import os from 'node:os';
import type { Logger } from 'pino';
import { Piscina } from 'piscina';
import type { AggregateReport } from '../../domain/dmarc-aggregate.js';
import type { Report } from '../../domain/feedback/reports.js';
import type { ReadMessage } from '../../domain/submission.js';
import { textFromHtml } from '../mail/message.js';
import { SERVICE_FILES } from '../service-files.js';
import type * as mailTasks from './mail-tasks.js';
import type * as tasks from './tasks.js';
import { CPU_TICK_MS, cpuUsed, newTaskClock, type TimedInput } from './thread-cpu.js';

export type TaskKind = 'template' | 'mail' | 'submission' | 'text' | 'keys';

/** Why content was refused: it took too long, needed too much memory, or could not be read. */
export type LimitReason = 'time' | 'memory' | 'invalid';

/**
 * The content reached a bound or cannot be processed: permanent, retrying would fail the same way.
 * For a bound, the message completes a subject: "Rendering " + "took longer than 2 s (the limit) and was stopped".
 */
export class ContentLimitError extends Error {
  constructor(
    readonly reason: LimitReason,
    message: string,
    /** A code from the library that refused the content (`EMAXLEN` for a header too large). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ContentLimitError';
  }
}

/**
 * Too much untrusted work is waiting already, or the task's thread was starved of CPU (`starved`):
 * try again in a few seconds.
 */
export class PoolBusyError extends Error {
  readonly retryAfterSeconds = 2;
  constructor(
    readonly kind: TaskKind,
    starved = false,
  ) {
    super(
      starved
        ? `Too busy to finish in time: ${WORK[kind]} are waiting for the processor; try again in a few seconds`
        : `Too many ${WORK[kind]} at once; try again in a few seconds`,
    );
    this.name = 'PoolBusyError';
  }
}

const WORK: Record<TaskKind, string> = {
  template: 'templates being rendered',
  mail: 'inbound messages being read',
  submission: 'submitted messages being read',
  text: 'plain-text parts being made',
  keys: 'domain keys being generated',
};

/**
 * Deadlines: the CPU time a task may use on its thread (wall-clock time where it cannot be measured,
 * thread-cpu.ts), counted from when the thread starts it.
 */
export const DEADLINE_MS: Record<TaskKind, number> = {
  // Liquid: the engine's own limit stops a render at 200 ms between nodes; this stops the rest.
  template: 2_000,
  // A 10 MB message of ordinary HTML parses and sanitizes in well under a second here.
  mail: 10_000,
  // Up to 40 MB (the submission limit): most of the time goes to base64 for the attachments.
  submission: 15_000,
  text: 5_000,
  // A backstop only: a 2048-bit key takes from tens to hundreds of milliseconds.
  keys: 60_000,
};

/**
 * HTML up to this size gets its text part on the calling thread: html-to-text's worst case there
 * (deep nesting, long lists) is a few milliseconds (test/unit/hostile-bounds), less than handing it
 * to a thread costs in all (most emails are this small). Larger HTML, and any that fails here (a
 * stack overflow), goes to the pool, whose bounds decide.
 */
export const INLINE_TEXT_CHARS = 16 * 1024;

/**
 * A submitted message this small, with at most this many MIME parts, is read on the calling thread:
 * mailparser takes about 1 ms for an ordinary one and about 10 ms for the most hostile ones tried
 * (test/unit/submission-bounds), less than a round trip through a thread costs under load (the
 * threads run at a lower priority; bench/submission.ts: 417 → 460 messages/s, 1.1 → 0.8 ms of CPU
 * per message). Larger messages, and any that fails here, go to the pool, whose bounds decide.
 */
export const INLINE_SUBMISSION_BYTES = 32 * 1024;
export const INLINE_SUBMISSION_PARTS = 8;

/** The heap of one thread: a task that needs more is refused. */
export const HEAP_MB = 512;
/**
 * A backstop for a task waiting for its thread to start (its code loads in about half a second, 3 s
 * with every core busy): a thread not ready by then is a fault of the machine, not of the content.
 */
const THREAD_START_MS = 15_000;
/**
 * A task whose thread is starved (it waited for a core more than it ran) ends as PoolBusyError, a
 * temporary condition, once this many times its deadline has passed on the clock.
 */
const STARVED_FACTOR = 10;
/** Threads beyond the warm ones leave after this long without work. */
const IDLE_MS = 30_000;

export interface PoolOptions {
  /** Threads in the pool; by default the cores, at least 2 and at most 4. */
  threads?: number;
  /**
   * Threads kept even when idle (default 1, so that an API request finds one ready); 0 in a worker
   * process, whose pool work starts no request (its first task waits for a thread to start).
   */
  warmThreads?: number;
  deadlines?: Partial<Record<TaskKind, number>>;
  log: Logger;
}

interface KindState {
  /** At most this many threads at once for this kind. */
  share: number;
  /** At most this many tasks waiting. */
  queue: number;
  active: number;
  waiting: { start: () => void; cancel: (err: Error) => void }[];
}

const KINDS: TaskKind[] = ['template', 'text', 'mail', 'submission', 'keys'];

export class UntrustedPool {
  private readonly piscina: Piscina;
  private readonly threads: number;
  private readonly deadlines: Record<TaskKind, number>;
  private readonly kinds: Record<TaskKind, KindState>;
  private running = 0;
  private turn = 0;
  private closed = false;
  /** Tasks waiting for a thread to start, in order: each thread that becomes ready starts the first one's clock. */
  private readonly awaitingThread: (() => void)[] = [];

  constructor(options: PoolOptions) {
    this.threads = options.threads ?? Math.max(2, Math.min(4, os.availableParallelism()));
    this.deadlines = { ...DEADLINE_MS, ...options.deadlines };
    this.kinds = {
      template: { share: this.threads, queue: 1_000, active: 0, waiting: [] },
      text: { share: this.threads, queue: 1_000, active: 0, waiting: [] },
      // Messages are up to 10 MB each: few wait, and one thread always stays free for the rest.
      mail: { share: Math.max(1, this.threads - 1), queue: 8, active: 0, waiting: [] },
      // Authenticated senders, apart from inbound mail so that neither can crowd the other out; the
      // submission listener bounds the bytes waiting here (its budget of buffered messages).
      submission: { share: Math.max(1, this.threads - 1), queue: 500, active: 0, waiting: [] },
      // One key at a time, at most 8 waiting (a second or two); beyond that, 503 with Retry-After.
      keys: { share: 1, queue: 8, active: 0, waiting: [] },
    };
    this.piscina = new Piscina({
      filename: SERVICE_FILES.untrustedWorker,
      minThreads: Math.min(options.warmThreads ?? 1, this.threads),
      maxThreads: this.threads,
      idleTimeout: IDLE_MS,
      concurrentTasksPerWorker: 1,
      niceIncrement: 5,
      // A small young generation: short tasks, and a thread's memory stays small (RSS counts).
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 8 },
    });
    this.piscina.on('error', (err) => options.log.warn({ err }, 'untrusted-content worker failed'));
    this.piscina.on('workerCreate', () => this.awaitingThread.shift()?.());
  }

  /** Renders (or, without a scope, only parses) one part of a template. */
  template(task: tasks.TemplateTask): Promise<tasks.TemplateResult> {
    return this.run('template', 'template', task);
  }

  /** A received message, parsed and sanitized; ContentLimitError when it cannot be read within bounds. */
  async mail(raw: Uint8Array): Promise<mailTasks.ParsedMail> {
    const result = await this.run<mailTasks.ParsedMail | tasks.Failure>('mail', 'mail', raw);
    if (!result.ok) throw new ContentLimitError('invalid', result.message, result.code);
    return result;
  }

  /** A message submitted over SMTP, read for sending; ContentLimitError when it cannot be read within bounds. */
  async submission(raw: Uint8Array): Promise<ReadMessage> {
    if (isSmallMessage(raw)) {
      try {
        const inline = await (await loadMailTasks()).submission(raw);
        if (inline.ok) return inline;
      } catch {
        // the pool's threads decide, under their bounds
      }
    }
    const result = await this.run<({ ok: true } & ReadMessage) | tasks.Failure>('submission', 'submission', raw);
    if (!result.ok) throw new ContentLimitError('invalid', result.message, result.code);
    return result;
  }

  /**
   * The DMARC aggregate report a received message carries, read under the bounds of
   * domain/dmarc-archive.ts and dmarc-aggregate.ts; ContentLimitError when it breaks one.
   */
  async dmarcReport(raw: Uint8Array): Promise<AggregateReport> {
    const result = await this.run<({ ok: true } & AggregateReport) | tasks.Failure>('mail', 'dmarcReport', raw);
    if (!result.ok) throw new ContentLimitError('invalid', result.message, result.code);
    return result;
  }

  /** The report a received message carries, or null. */
  report(raw: Uint8Array): Promise<Report | null> {
    return this.run('mail', 'report', raw);
  }

  /** The plain-text alternative of an email's HTML; ContentLimitError when it cannot be made within bounds. */
  async text(html: string): Promise<string> {
    if (html.length <= INLINE_TEXT_CHARS) {
      try {
        return textFromHtml(html);
      } catch {
        // too deep for this thread's stack: the pool's threads have a larger one, and decide
      }
    }
    const result = await this.run<{ ok: true; text: string } | tasks.Failure>('text', 'text', html);
    if (!result.ok) throw new ContentLimitError('invalid', result.message);
    return result.text;
  }

  /** A fresh RSA key pair for DKIM; PoolBusyError when too many are being generated already. */
  async rsaKey(): Promise<{ publicKey: Buffer; privateKey: string }> {
    const key = await this.run<{ publicKey: Uint8Array; privateKey: string }>('keys', 'rsaKey', null);
    return { publicKey: Buffer.from(key.publicKey), privateKey: key.privateKey };
  }

  /** Tasks waiting or running, per kind (for metrics and tests). */
  load(): Record<TaskKind, { active: number; waiting: number }> {
    const of = (k: TaskKind) => ({ active: this.kinds[k].active, waiting: this.kinds[k].waiting.length });
    return {
      template: of('template'),
      text: of('text'),
      mail: of('mail'),
      submission: of('submission'),
      keys: of('keys'),
    };
  }

  /** Refuses what waits, stops the threads (and what runs on them). */
  async close(): Promise<void> {
    this.closed = true;
    for (const k of Object.values(this.kinds))
      for (const w of k.waiting.splice(0)) w.cancel(new Error('The untrusted-content pool is closed'));
    await this.piscina.destroy();
  }

  private async run<R>(kind: TaskKind, name: string, input: unknown): Promise<R> {
    await this.slot(kind);
    const deadline = this.deadlines[kind];
    const clock = newTaskClock();
    const abort = new AbortController();
    let stopped: 'no thread' | 'limit' | 'starved' | undefined;
    const stop = (why: typeof stopped) => {
      stopped = why;
      abort.abort();
    };
    let timer: NodeJS.Timeout | undefined;
    const after = (ms: number, then: () => void) => {
      clearTimeout(timer);
      timer = setTimeout(then, ms);
    };
    let startedAt = 0;
    // At the deadline, the task is stopped if its thread worked that long on it; a thread that
    // waited for a core instead gets the rest of its time, up to STARVED_FACTOR times the deadline.
    const check = () => {
      const used = cpuUsed(clock);
      if (used === undefined || used >= deadline - CPU_TICK_MS) return stop('limit');
      if (performance.now() - startedAt >= deadline * STARVED_FACTOR) return stop('starved');
      after(Math.max(deadline - used, CPU_TICK_MS), check);
    };
    // More tasks running than threads: piscina starts one and hands it this task once its code is loaded.
    const start = () => {
      startedAt = performance.now();
      after(deadline, check);
    };
    if (this.piscina.threads.length >= this.running) start();
    else {
      after(THREAD_START_MS, () => stop('no thread'));
      this.awaitingThread.push(start);
    }
    try {
      return (await this.piscina.run({ input, clock } satisfies TimedInput, { name, signal: abort.signal })) as R;
    } catch (err) {
      if (stopped === 'no thread') throw new Error(`No thread started within ${seconds(THREAD_START_MS)}`);
      if (stopped === 'starved') throw new PoolBusyError(kind, true);
      // Our own work, not the content's: a key that takes this long is a fault of the machine.
      if (stopped && kind === 'keys') throw new Error(`Generating a key took longer than ${seconds(deadline)}`);
      if (stopped)
        throw new ContentLimitError('time', `took longer than ${seconds(deadline)} (the limit) and was stopped`);
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new ContentLimitError('memory', `needed more than ${HEAP_MB} MB of memory (the limit) and was stopped`);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      const waiting = this.awaitingThread.indexOf(start);
      if (waiting >= 0) this.awaitingThread.splice(waiting, 1);
      this.release(kind);
    }
  }

  /** Waits for a thread this kind may use, in order; refuses at once when its queue is full. */
  private slot(kind: TaskKind): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The untrusted-content pool is closed'));
    const k = this.kinds[kind];
    if (k.waiting.length === 0 && this.running < this.threads && k.active < k.share) {
      this.running++;
      k.active++;
      return Promise.resolve();
    }
    if (k.waiting.length >= k.queue) return Promise.reject(new PoolBusyError(kind));
    return new Promise((start, cancel) => k.waiting.push({ start, cancel }));
  }

  /** Hands a freed thread to the next kind in turn that has work waiting and room in its share. */
  private release(kind: TaskKind): void {
    this.running--;
    this.kinds[kind].active--;
    for (let tried = 0; tried < KINDS.length && this.running < this.threads; tried++) {
      const k = this.kinds[KINDS[this.turn++ % KINDS.length]!];
      if (k.waiting.length === 0 || k.active >= k.share) continue;
      this.running++;
      k.active++;
      k.waiting.shift()!.start();
      tried = -1; // a thread may still be free: go round again
    }
  }
}

const seconds = (ms: number) => `${ms / 1000} s`;

/** Loaded on first use only: mailparser is not carried by processes that never read a submission here. */
let inlineMailTasks: Promise<typeof mailTasks> | undefined;
const loadMailTasks = () => (inlineMailTasks ??= import('./mail-tasks.js'));

/** Small enough, in bytes and in MIME parts (each `Content-Type` field starts one), to read inline. */
export function isSmallMessage(raw: Uint8Array): boolean {
  if (raw.byteLength > INLINE_SUBMISSION_BYTES) return false;
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  const parts = text.match(/(^|\n)content-type:/gi)?.length ?? 0;
  return parts <= INLINE_SUBMISSION_PARTS;
}
