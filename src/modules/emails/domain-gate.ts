/**
 * Messages in flight per recipient domain in this process, each domain to its own limit
 * (docs/decisions.md, "Pacing"). Past its limit a domain's messages wait, but only as many again:
 * more would fill the delivery window and hold other domains' mail up, so those go back to the
 * queue for a moment instead (`full`).
 */
export class DomainGate {
  private readonly domains = new Map<string, { busy: number; waiting: (() => void)[] }>();

  /** Whether `key` has `limit` messages in flight and as many waiting. */
  full(key: string, limit: number | null): boolean {
    const d = this.domains.get(key);
    return limit !== null && d !== undefined && d.busy + d.waiting.length >= 2 * limit;
  }

  /** Runs `work` once `key` has fewer than `limit` messages in flight (null: at once). */
  async run<T>(key: string, limit: number | null, work: () => Promise<T>): Promise<T> {
    if (limit === null) return work();
    const d = this.domains.get(key) ?? this.domains.set(key, { busy: 0, waiting: [] }).get(key)!;
    if (d.busy >= limit) await new Promise<void>((admitted) => d.waiting.push(admitted));
    else d.busy++;
    try {
      return await work();
    } finally {
      // The place passes straight to the next in line, so a new arrival cannot jump the queue.
      const next = d.waiting.shift();
      if (next) next();
      else if (--d.busy === 0) this.domains.delete(key);
    }
  }
}
