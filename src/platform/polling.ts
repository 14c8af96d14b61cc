/**
 * The wait between rounds of a polling loop: `next(full)` resolves at once (after letting pending
 * I/O run) when the last round was full, else after `intervalMs` or as soon as `wake()` is called.
 */
class PollTimer {
  private interrupt: (() => void) | null = null;
  /** A wake that came while the loop was busy: the next wait ends at once instead of missing it. */
  private woken = false;

  constructor(private readonly intervalMs: number) {}

  wake(): void {
    if (this.interrupt) this.interrupt();
    else this.woken = true;
  }

  next(full: boolean): Promise<void> {
    // A full round means more is due: go on, but through setImmediate so that answers to requests
    // (and the outcomes of work already started) get their turn on this thread first.
    if (full || this.woken) {
      this.woken = false;
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.interrupt = null;
        resolve();
      };
      const timer = setTimeout(done, this.intervalMs);
      this.interrupt = done;
    });
  }
}

export interface PollingLoopOptions {
  /** How long to wait for a wake-up after a round that was not full. */
  intervalMs: number;
  /**
   * Claims what is due and starts it (handing each piece of work to `track`); returns whether the
   * round was full, in which case the next one starts at once.
   */
  round: () => Promise<boolean>;
  /** A round that threw; the loop goes on after the usual wait. Not called once stopping. */
  onError: (err: unknown) => void;
}

/**
 * The loop every engine of the worker runs (jobs, deliveries, workflow steps, events): rounds
 * until stopped, woken early by NOTIFY or by work that finished, and a stop that waits for the
 * current round and then, up to a deadline, for the work the rounds started. Work still running
 * after the deadline is abandoned: its claim or lease lets another process take it over.
 */
export class PollingLoop {
  private stopping = false;
  private done: Promise<void> = Promise.resolve();
  private readonly timer: PollTimer;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly options: PollingLoopOptions) {
    this.timer = new PollTimer(options.intervalMs);
  }

  /** True once `stop` was called: rounds and work in progress should wind down. */
  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    this.done = this.run();
  }

  wake(): void {
    this.timer.wake();
  }

  /** Follows a piece of work a round started, so that `stop` can wait for it. */
  track(work: Promise<unknown>): void {
    this.running.add(work);
    work.finally(() => this.running.delete(work)).catch(() => {});
  }

  /** Stops starting rounds and waits for the current one, then up to `drainMs` for tracked work. */
  async stop(drainMs: number): Promise<void> {
    this.stopping = true;
    this.timer.wake();
    await this.done;
    await withDeadline(Promise.allSettled([...this.running]), drainMs);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let full = false;
      try {
        full = await this.options.round();
      } catch (err) {
        if (!this.stopping) this.options.onError(err);
      }
      await this.timer.next(full);
    }
  }
}

/** Waits for `work`, or `ms` at most. */
export async function withDeadline(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
