/**
 * Group commit: requests that arrive while earlier batches are being written wait, and then go to
 * the database together, in one transaction written by `write`. A request on an idle process is
 * written at once (no timer); under load the batches grow by themselves, as far as `maxBatch`.
 * Each caller is answered with its own outcome once its batch is written, or, when the database is
 * frozen or too slow, with a `DeadlineError` once `deadlineMs` have passed since it was submitted:
 * waiting in the queue or in a batch being written. The writer is given the batch's deadline (its
 * oldest item's) and must not commit after it, so that an item answered with the error is not
 * written (see `Database.transactionBefore`).
 */

import { type Database, type Db, DeadlineError, isDatabaseUnavailable, isTransientConflict } from './db/client.js';

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface GroupCommitOptions<T, R> {
  /**
   * Writes a batch; returns one outcome per item, in the order of `items`. Its items are answered
   * with a DeadlineError at `deadline` (a `Date.now()` time) if it has not finished by then.
   */
  write(items: T[], deadline: number): Promise<Outcome<R>[]>;
  /** How long an item may wait for its answer, in the queue and in its batch. */
  deadlineMs: number;
  maxBatch: number;
  /** Batches written at the same time. */
  maxInFlight: number;
  /**
   * Items with the same key never share a batch (an Idempotency-Key, which one statement cannot
   * claim twice); a later one waits for a later batch, as it would wait for the first one's lock.
   */
  exclusiveKey?(item: T): string | undefined;
}

/**
 * The next batch: items in arrival order, at most `max`, none sharing a key with an earlier one of
 * the batch. What is left keeps its order.
 */
export function takeBatch<T>(
  queue: readonly T[],
  max: number,
  keyOf: (item: T) => string | undefined = () => undefined,
): { batch: T[]; rest: T[] } {
  const batch: T[] = [];
  const rest: T[] = [];
  const keys = new Set<string>();
  for (const item of queue) {
    const key = keyOf(item);
    if (batch.length >= max || (key !== undefined && keys.has(key))) {
      rest.push(item);
      continue;
    }
    if (key !== undefined) keys.add(key);
    batch.push(item);
  }
  return { batch, rest };
}

interface Waiting<T, R> {
  item: T;
  deadline: number;
  answered: boolean;
  settle(outcome: Outcome<R>): void;
}

export class GroupCommit<T, R> {
  private queue: Waiting<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly options: GroupCommitOptions<T, R>) {}

  /** Items submitted and not yet in a batch. */
  get waiting(): number {
    return this.queue.filter((w) => !w.answered).length;
  }

  /** Every batch writer is taken: what is submitted now waits for a batch to finish. */
  get full(): boolean {
    return this.inFlight >= this.options.maxInFlight;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const { deadlineMs } = this.options;
      const waiting: Waiting<T, R> = {
        item,
        deadline: Date.now() + deadlineMs,
        answered: false,
        settle: (outcome) => {
          if (waiting.answered) return;
          waiting.answered = true;
          clearTimeout(timer);
          if (outcome.ok) resolve(outcome.value);
          else reject(outcome.error);
        },
      };
      // Still queued, it never goes to the database (the next batch leaves it out); in a batch, the
      // batch does not commit after this moment.
      const timer = setTimeout(() => waiting.settle({ ok: false, error: new DeadlineError() }), deadlineMs);
      this.queue.push(waiting);
      this.schedule();
    });
  }

  /**
   * Starts batches on the next turn of the event loop rather than now, so that the requests read
   * from the sockets in this turn go together.
   */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const keyOf = this.options.exclusiveKey;
    this.queue = this.queue.filter((w) => !w.answered);
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const { batch, rest } = takeBatch(this.queue, this.options.maxBatch, keyOf && ((w) => keyOf(w.item)));
      this.queue = rest;
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        if (this.queue.length > 0) this.schedule();
      });
    }
  }

  private async flush(batch: Waiting<T, R>[]): Promise<void> {
    let outcomes: Outcome<R>[];
    try {
      const deadline = Math.min(...batch.map((w) => w.deadline));
      outcomes = await this.options.write(
        batch.map((w) => w.item),
        deadline,
      );
    } catch (error) {
      outcomes = batch.map(() => ({ ok: false, error }));
    }
    for (const [i, w] of batch.entries()) {
      w.settle(outcomes[i] ?? { ok: false, error: new Error('no outcome for this item') });
    }
  }
}

/**
 * A `write` that writes a batch in one transaction, committed only before the batch's deadline
 * (`Database.transactionBefore`). A batch that fails is written again item by item, so that an item
 * that cannot be written fails alone; a database that cannot be reached fails them all at once, and
 * a lone item that lost a deadlock, which kept nothing, is written once more while it has time.
 */
export function transactionalWrite<T, R>(
  database: Pick<Database, 'transactionBefore'>,
  writeBatch: (tx: Db, items: T[]) => Promise<Outcome<R>[]>,
): GroupCommitOptions<T, R>['write'] {
  const write = async (items: T[], deadline: number, retried: boolean): Promise<Outcome<R>[]> => {
    try {
      return await database.transactionBefore(deadline, (tx) => writeBatch(tx, items));
    } catch (error) {
      if (items.length === 1 && isTransientConflict(error) && !retried && Date.now() < deadline)
        return write(items, deadline, true);
      if (items.length === 1 || isDatabaseUnavailable(error)) return items.map(() => ({ ok: false, error }));
      return (await Promise.all(items.map((item) => write([item], deadline, false)))).flat();
    }
  };
  return (items, deadline) => write(items, deadline, false);
}
