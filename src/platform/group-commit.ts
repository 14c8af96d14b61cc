/**
 * Group commit: requests that arrive while earlier batches are being written wait, and then go to
 * the database together, in one transaction written by `write`. A request on an idle process is
 * written at once (no timer); under load the batches grow by themselves, as far as `maxBatch`.
 * Each caller is answered with its own outcome once its batch is written.
 */

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface GroupCommitOptions<T, R> {
  /** Writes a batch; returns one outcome per item, in the order of `items`. */
  write(items: T[]): Promise<Outcome<R>[]>;
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
  resolve(value: R): void;
  reject(error: unknown): void;
}

export class GroupCommit<T, R> {
  private queue: Waiting<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly options: GroupCommitOptions<T, R>) {}

  /** Items submitted and not yet in a batch. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Every batch writer is taken: what is submitted now waits for a batch to finish. */
  get full(): boolean {
    return this.inFlight >= this.options.maxInFlight;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
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
      outcomes = await this.options.write(batch.map((w) => w.item));
    } catch (error) {
      outcomes = batch.map(() => ({ ok: false, error }));
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i] ?? { ok: false, error: new Error('no outcome for this item') };
      if (outcome.ok) w.resolve(outcome.value);
      else w.reject(outcome.error);
    });
  }
}
