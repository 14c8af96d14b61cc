import { type Database, type Executor, notify } from './db/client.js';

/**
 * A small read-through cache shared by the requests of one process, for rows read on every request
 * or send and changed rarely (API keys, sender domains and their signing keys, templates, workflow
 * graphs). A change anywhere NOTIFYs `channel` with the key (or nothing, for everything) and every
 * process drops its copy; the TTL bounds staleness should a notification ever be missed. The one
 * mechanism of its kind: every such cache is one of these, made through `NotifiedCaches`.
 */
export class NotifiedCache<V> {
  private entries = new Map<string, { value: V; until: number }>();
  /** Bumped by every eviction: a value loaded across one may predate the change, so it is not kept. */
  private generation = 0;
  private listening: Promise<unknown> | undefined;

  constructor(
    private readonly database: Database,
    readonly channel: string,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  /** Starts listening for changes; `get` does it on first use. */
  async listen(): Promise<void> {
    this.listening ??= this.database.listen(this.channel, (changed) => this.evict(changed)).catch(() => undefined);
    await this.listening;
  }

  /** The cached value, or `load`'s, kept when `keep` says so (a miss may be worth not remembering). */
  async get(key: string, load: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    await this.listen();
    // Without notifications a change would go unseen: read through until they flow again.
    const trusted = this.database.notificationsLive();
    const hit = this.entries.get(key);
    if (trusted && hit && hit.until > Date.now()) return hit.value;
    const loadedIn = this.generation;
    const value = await load();
    if (!trusted || loadedIn !== this.generation || !keep(value)) return value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
    return value;
  }

  evict(key = ''): void {
    this.generation++;
    if (key) this.entries.delete(key);
    else this.entries.clear();
  }
}

/** The process's caches, one per name, each emptied through its channel; held by `AppContext`. */
export class NotifiedCaches {
  private readonly caches = new Map<string, NotifiedCache<unknown>>();

  constructor(private readonly database: Database) {}

  /** The cache named `name` (by default its channel), made on first use. */
  of<V>(channel: string, name = channel): NotifiedCache<V> {
    if (!this.caches.has(name)) this.caches.set(name, new NotifiedCache<unknown>(this.database, channel));
    return this.caches.get(name) as NotifiedCache<V>;
  }

  /**
   * Announces a change of `channel`'s rows (`key`, or all of them): every process drops its copies
   * when the NOTIFY arrives, and this one at once, so a request that follows the change here reads
   * it even before its own notification comes back.
   */
  async changed(ex: Executor, channel: string, key = ''): Promise<void> {
    await notify(ex, channel, key);
    for (const cache of this.caches.values()) if (cache.channel === channel) cache.evict(key);
  }
}
