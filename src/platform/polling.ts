/**
 * The wait between rounds of a polling loop: `next(full)` resolves at once (after letting pending
 * I/O run) when the last round was full, else after `intervalMs` or as soon as `wake()` is called.
 */
export class PollTimer {
  private interrupt: (() => void) | null = null;
  /** A wake that came while the loop was busy: the next wait ends at once instead of missing it. */
  private woken = false;

  constructor(private readonly intervalMs: number) {}

  wake(): void {
    if (this.interrupt) this.interrupt();
    else this.woken = true;
  }

  next(full: boolean): Promise<void> {
    // The embedded database runs on this thread: a busy loop must still give waiting requests a turn.
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
