import type { Database } from './db/client.js';

/**
 * A small read-through cache shared by the requests of one process, for rows read on every send
 * and changed rarely (sender domains, templates). A change anywhere NOTIFYs `channel` with the key
 * (or nothing, for everything) and every process drops its copy; the TTL bounds staleness should a
 * notification ever be missed.
 */
export class NotifiedCache<V> {
  private entries = new Map<string, { value: V; until: number }>();
  /** Bumped by every eviction: a value loaded across one may predate the change, so it is not kept. */
  private generation = 0;
  private listening: Promise<unknown> | undefined;

  constructor(
    private readonly database: Database,
    private readonly channel: string,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * Starts listening for changes. `get` does it on first use; a cache first used inside a
   * transaction on the embedded database must be started before, since LISTEN needs the connection
   * the transaction holds.
   */
  async listen(): Promise<void> {
    this.listening ??= this.database.listen(this.channel, (changed) => this.evict(changed)).catch(() => undefined);
    await this.listening;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    await this.listen();
    // Without notifications a change would go unseen: read through until they flow again.
    const trusted = this.database.notificationsLive();
    const hit = this.entries.get(key);
    if (trusted && hit && hit.until > Date.now()) return hit.value;
    const loadedIn = this.generation;
    const value = await load();
    if (!trusted || loadedIn !== this.generation) return value;
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

const caches = new WeakMap<Database, Map<string, NotifiedCache<unknown>>>();

/** The process's cache for `channel` on this database, made on first use. */
export function notifiedCache<V>(database: Database, channel: string): NotifiedCache<V> {
  let byChannel = caches.get(database);
  if (!byChannel) caches.set(database, (byChannel = new Map()));
  let cache = byChannel.get(channel);
  if (!cache) byChannel.set(channel, (cache = new NotifiedCache<unknown>(database, channel)));
  return cache as NotifiedCache<V>;
}
