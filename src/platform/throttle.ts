/** Says yes at most once per `everyMs`: for signals whose repeats add nothing (a wake-up NOTIFY). */
export class Throttle {
  private last = 0;

  constructor(private readonly everyMs: number) {}

  due(now = Date.now()): boolean {
    if (now - this.last < this.everyMs) return false;
    this.last = now;
    return true;
  }
}
