import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { LinkSigner } from '../domain/signed-links.js';
import type { Clock } from './clock.js';
import type { Database, Db } from './db/client.js';
import type { Dns } from './dns.js';
import type { EventBus } from './event-bus.js';
import type { KeyResolver } from './http/auth.js';
import type { NotifiedCaches } from './notified-cache.js';
import type { Throttle } from './throttle.js';
import type { UntrustedPool } from './untrusted/pool.js';
import type { TemplateRenderer } from './untrusted/templates.js';
import type { UsageRegistry } from './usage.js';

/** What every module's service needs; built once per process (src/start.ts `createContext`). */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  bus: EventBus;
  usage: UsageRegistry;
  /** API key → project, shared by every request of this process (the projects module's). */
  keys: KeyResolver;
  /** The process's caches of rarely changed rows, emptied by NOTIFY. */
  caches: NotifiedCaches;
  /**
   * Whether a send should wake the delivery engines: at most every 100 ms per process. Sends in
   * between are picked up by the engine's current round or its next poll (a quarter second).
   */
  deliveryWake: Throttle;
  log: Logger;
  /** Lookups through `DNS_SERVERS`. */
  dns: Dns;
  /** Signs and checks tracking and subscriber links. */
  links: LinkSigner;
  /**
   * The key of the hashes an erase keeps (domain/erasure.ts), read at start: writes of contacts use
   * it inside their transactions, where fetching it would take a second connection from the pool.
   */
  erasureSalt: Buffer;
  /** Worker threads for untrusted content (inbound mail, HTML, html-to-text), with hard deadlines. */
  untrusted: UntrustedPool;
  /** Liquid templates: on the event loop when proven cheap, in `untrusted` otherwise. */
  templates: TemplateRenderer;
}
