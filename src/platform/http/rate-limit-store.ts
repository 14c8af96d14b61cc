import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Db } from '../db/client.js';
import { instanceSecret } from '../secrets.js';

/** The store contract of @fastify/rate-limit (its built-in stores are not typed). */
interface Counter {
  current: number;
  ttl: number;
}
type Callback = (err: Error | null, result?: Counter) => void;
interface Store {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}
/** What the plugin passes a store's constructor (its global options). */
interface StoreParams {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
}

const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  c: boolean,
  e: boolean,
  redis: Redis,
  ns: string,
) => Store;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  c: boolean,
  e: boolean,
  cache?: number,
) => Store;

/**
 * The prefix of this installation's counters in Redis. Every process on one database shares it;
 * another installation pointed at the same Redis (a staging copy, a second tenant) counts apart,
 * so its sign-ins cannot use up this one's limits.
 */
export async function rateLimitNamespace(db: Db): Promise<string> {
  return `ratelimit:${(await instanceSecret(db, 'rate-limit-namespace')).toString('hex').slice(0, 16)}:`;
}

export interface FallbackLog {
  warn(message: string): void;
  info(message: string): void;
}

/**
 * Counts in Redis, shared by every API replica, while Redis answers; otherwise in this process, so
 * a Redis that is down or frozen neither stops nor slows the API (each replica then enforces the
 * limit on its own). Passed to @fastify/rate-limit as `store`.
 */
export function fallbackStore(redis: Redis, namespace: string, log: FallbackLog) {
  let degraded = false;
  const onRedis = (ok: boolean) => {
    if (ok === !degraded) return;
    degraded = !ok;
    if (degraded) log.warn('Redis is unavailable: rate limits are counted per process until it is back');
    else log.info('Redis is back: rate limits are shared again');
  };

  class Fallback implements Store {
    constructor(
      private readonly shared: Store,
      private readonly local: Store,
    ) {}

    incr(key: string, cb: Callback, timeWindow: number, max: number): void {
      // Not connected: ioredis would fail the command anyway (no offline queue); skip the attempt.
      if (redis.status !== 'ready') {
        onRedis(false);
        this.local.incr(key, cb, timeWindow, max);
        return;
      }
      this.shared.incr(
        key,
        (err, result) => {
          onRedis(!err);
          if (err) this.local.incr(key, cb, timeWindow, max);
          else cb(null, result);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: unknown): Store {
      return new Fallback(this.shared.child(routeOptions), this.local.child(routeOptions));
    }
  }

  return class extends Fallback {
    constructor(params: StoreParams) {
      const c = params.continueExceeding ?? false;
      const e = params.exponentialBackoff ?? false;
      super(new RedisStore(c, e, redis, namespace), new LocalStore(c, e));
    }
  };
}
