import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type NotificationHandler = (payload: string) => void;

/** Where the listener reports losing and regaining its connection (pino's logger fits). */
export interface ConnectionLog {
  warn(fields: object, message: string): void;
  info(message: string): void;
  debug(fields: object, message: string): void;
}

const PING_EVERY_MS = 10_000;
const PING_TIMEOUT_MS = 5_000;
const MAX_BACKOFF_MS = 5_000;

/**
 * One LISTEN connection per process for every channel. When it is lost (the server restarted,
 * stopped or froze), it reconnects with backoff and listens again. Notifications may be missed
 * meanwhile, so every handler is called with an empty payload when the connection is lost and
 * again when it is back; all handlers read that as "anything may have changed" (caches drop
 * everything, engines look for work). While it is down, `live` is false and caches that rely on
 * notifications read through instead of keeping anything.
 *
 * The same session holds an advisory lock on the process's `key`: other processes read from
 * `pg_locks` whether this one still lives (a killed process's session ends at once), so work it
 * held can be taken over within seconds instead of after a long lease.
 */
export class Notifications {
  /** A random 62-bit number, fixed for the life of the process. */
  readonly key = BigInt.asUintN(62, randomBytes(8).readBigUInt64BE()) || 1n;
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private client?: pg.Client;
  private connecting?: Promise<void>;
  private closed = false;
  private everConnected = false;
  private down = false;
  private backoffMs = 100;
  private retryTimer?: NodeJS.Timeout;
  private pingTimer?: NodeJS.Timeout;
  /** Sessions opened so far: the current one's number. */
  private sessions = 0;

  constructor(
    private readonly url: string,
    private readonly log: ConnectionLog,
  ) {}

  /**
   * Registers `handler`; resolves once the channel is listened to, or once a connection attempt failed (it is retried).
   */
  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const isNew = !this.handlers.has(channel);
    if (isNew) this.handlers.set(channel, new Set());
    const set = this.handlers.get(channel)!;
    set.add(handler);
    if (!this.client) await this.connect();
    else if (isNew) await this.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch((err) => this.lost(err));
    return async () => {
      set.delete(handler);
      if (set.size > 0 || this.handlers.get(channel) !== set) return;
      this.handlers.delete(channel);
      await this.client?.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
    };
  }

  /** Whether notifications are flowing (a cache may trust what it holds) and the process lock is held. */
  get live(): boolean {
    return this.client !== undefined;
  }

  /** The current session's number while it holds the lock; a new one after each reconnect. */
  get session(): number | undefined {
    return this.client ? this.sessions : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: PING_TIMEOUT_MS,
      query_timeout: PING_TIMEOUT_MS,
      keepAlive: true,
    });
    client.on('error', (err) => this.lost(err, client));
    client.on('end', () => this.lost(new Error('LISTEN connection ended'), client));
    client.on('notification', (n) => this.deliver(n.channel, n.payload ?? ''));
    try {
      await client.connect();
      const locked = await client.query('select pg_try_advisory_lock($1::bigint) as ok', [String(this.key)]);
      // Only a session of ours that the server has not yet seen end can hold it: wait for that one to go.
      if (!locked.rows[0].ok) throw new Error('the process lock is still held by an earlier session');
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      this.lost(err);
      return;
    }
    if (this.closed) return void client.end().catch(() => {});
    this.client = client;
    this.sessions++;
    this.backoffMs = 100;
    clearInterval(this.pingTimer);
    // A frozen server never closes the socket; a ping that goes unanswered tells.
    this.pingTimer = setInterval(
      () => void client.query('select 1').catch((err) => this.lost(err, client)),
      PING_EVERY_MS,
    );
    this.pingTimer.unref();
    if (this.everConnected) {
      this.log.info('LISTEN connection to the database restored; caches flushed');
      for (const channel of this.handlers.keys()) this.deliver(channel, '');
    }
    this.everConnected = true;
    this.down = false;
  }

  /** Drops the connection (if `client` is still the current one) and schedules the next attempt. */
  private lost(err: unknown, client?: pg.Client): void {
    if (client && client !== this.client) return;
    if (this.client) {
      const old = this.client;
      this.client = undefined;
      clearInterval(this.pingTimer);
      old.removeAllListeners('end');
      void old.end().catch(() => {});
    }
    if (this.closed || this.retryTimer) return;
    if (!this.down) {
      this.log.warn({ err: brief(err) }, 'LISTEN connection to the database lost; reconnecting');
      for (const channel of this.handlers.keys()) this.deliver(channel, '');
    }
    this.down = true;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, this.backoffMs);
    this.retryTimer.unref();
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  private deliver(channel: string, payload: string): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (err) {
        this.log.warn({ err, channel }, 'a notification handler failed');
      }
    }
  }
}

/** What is worth logging of a connection error: not the client object pg attaches to it. */
export function brief(err: unknown): { message: string; code?: string } {
  const e = err as { message?: string; code?: string };
  return { message: String(e?.message ?? err), ...(e?.code ? { code: e.code } : {}) };
}
