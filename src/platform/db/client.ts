import { createHash } from 'node:crypto';
import { type ExtractTablesWithRelations, is, type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { type PgDatabase, PgDialect, type PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { SERVICE_FILES } from '../service-files.js';
import { startEmbeddedPostgres } from './embedded.js';
import { errorChain, pgErrorCode } from './errors.js';
import { brief, type ConnectionLog, Notifications } from './notifications.js';

/** No Drizzle schema: the SQL migrations are the only schema, and queries are written in SQL (docs/decisions.md). */
type NoSchema = Record<string, never>;
export type Db = PgDatabase<PgQueryResultHKT, NoSchema>;
export type Tx = PgTransaction<PgQueryResultHKT, NoSchema, ExtractTablesWithRelations<NoSchema>>;
/** Anything that runs queries: the database itself or an open transaction. */
export type Executor = Db | Tx;

export interface Database {
  db: Db;
  /**
   * A few connections for the statements the delivery loop runs many times a second (claims and
   * outcomes), whose sessions never choose a sequential scan where an index applies. Those run as
   * named prepared statements, planned once per connection: a plan made while a table looked empty,
   * on a new installation's first campaign, would otherwise go on scanning the whole table as it
   * grows, until an analyze of it replaced the plan (docs/performance.md, "The outcome statement's
   * stale plan"). Once means once: these sessions keep the generic plan. The partitions of `emails`
   * a call reads are chosen as it runs, from the creation times of its emails, so a plan made afresh
   * for each call gains nothing and costs more than the call (docs/performance.md, "Emails
   * partitioned by month"). Behind a pooler they are direct connections (`databaseSessionUrl`), so
   * the settings hold.
   */
  indexed: Db;
  /** The server's address without credentials, for logs. */
  location: string;
  migrate(): Promise<void>;
  /**
   * Runs `work` on a connection of its own with no statement timeout, for maintenance that scans a
   * whole table without blocking its readers and writers (validating a constraint).
   */
  unbounded<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Calls `onMessage` for every NOTIFY on `channel`, and with an empty payload after the LISTEN
   * connection was lost and restored (notifications may have been missed); returns the unsubscribe function.
   */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Whether the process's own session is up: notifications flow (a cache invalidated by them may
   * serve what it holds) and the advisory lock on `processKey` is held (work it claims is its own).
   */
  notificationsLive(): boolean;
  /**
   * The number of the session that holds the process's lock, undefined while none does; each
   * reconnect gives a new one. Work claimed under one session is no longer surely this process's
   * once it changed: in between, with no lock held, another process may have taken it over.
   */
  session(): number | undefined;
  /** Identifies this process to the others: see `ownerGone`. */
  processKey: bigint;
  /**
   * Runs `work` in a transaction that commits only if the server reaches the commit before
   * `deadline` (a `Date.now()` time), by its own clock: a caller answered at the deadline that the
   * database did not answer in time knows its work was not written, even if the database was frozen
   * in the middle and carries on once thawed. Fails with a DeadlineError otherwise.
   */
  transactionBefore<T>(deadline: number, work: (tx: Db) => Promise<T>): Promise<T>;
  /** Connections of the pool: open, checked out, and callers waiting for one. */
  poolStats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/** Bounds on every database call, so a server that is gone or frozen gives an error, never a hang. */
export interface DatabaseTimeouts {
  /** Opening a connection, and waiting for a free one in the pool. */
  connectMs: number;
  /** Server-side `statement_timeout`; the client gives up a little later if the server does not answer at all. */
  statementMs: number;
  /** Server-side `idle_in_transaction_session_timeout`. */
  idleInTransactionMs: number;
}

export const defaultTimeouts: DatabaseTimeouts = { connectMs: 5_000, statementMs: 30_000, idleInTransactionMs: 60_000 };

/**
 * The longest a query waits for its answer: a free connection, then the server's statement timeout
 * and the client's wait beyond it for a server that does not answer at all. Work that waits on a
 * shared writer (group commit) is answered within the same time.
 */
export function queryDeadlineMs(t: DatabaseTimeouts): number {
  return t.connectMs + queryTimeoutMs(t);
}

const queryTimeoutMs = (t: DatabaseTimeouts) => t.statementMs + t.connectMs;

/** The database did not answer within a request's deadline: a 503 (its code is a statement timeout's). */
export class DeadlineError extends Error {
  readonly code = '57014';
  constructor() {
    super('The database did not answer in time');
  }
}

/**
 * What a commit needs after the server's check of the deadline, before its answer reaches the
 * client: the commit itself (a WAL flush) and the way back. A server frozen inside this window is
 * the one case the check cannot cover (docs/decisions.md, "A frozen database and the group commit").
 */
const COMMIT_MARGIN_MS = 500;

export interface OpenOptions {
  databaseUrl?: string;
  /**
   * A direct connection for what needs a session of its own (the process lock, LISTEN, the
   * migration lock) when `databaseUrl` goes through a pooler in transaction mode (PgBouncer); the
   * pool then sets nothing on its connections, and the server's settings of the role apply.
   */
  databaseSessionUrl?: string;
  /** Connections of the pool at most (DB_POOL_SIZE); 20 by default. */
  databasePoolSize?: number;
  dataDir: string;
  timeouts?: DatabaseTimeouts;
  log?: ConnectionLog;
  onNotice?: (message: string) => void;
}

const DEFAULT_POOL_SIZE = 20;
/** The delivery loop has one claim and one outcome statement in flight at a time, and rarely a release. */
const INDEXED_POOL_SIZE = 3;

const quietLog: ConnectionLog = { warn: () => {}, info: () => {}, debug: () => {} };

const UNAVAILABLE_CODES = new Set([
  '57014',
  '53300',
  '25P03',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
]);
const UNAVAILABLE_MESSAGES = new RegExp(
  'Connection terminated|timeout exceeded when trying to connect|Query read timeout|' +
    'Client has encountered a connection error|Connection ended unexpectedly',
  'i',
);

/** Whether an error means the database could not be reached or did not answer in time (worth a 503 and a retry). */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const { code, message } of errorChain(err)) {
    // 08: connection exception; 57P01-03: shutting down, crash recovery, cannot connect now;
    // 57014: statement timeout; 53300: too many connections; 25P03: idle-in-transaction timeout.
    if (/^08/.test(code) || /^57P0[1-3]$/.test(code) || UNAVAILABLE_CODES.has(code)) return true;
    if (UNAVAILABLE_MESSAGES.test(message)) return true;
  }
  return false;
}

/**
 * Whether a transaction lost to a concurrent one (40P01 deadlock, 40001 serialization failure):
 * nothing it did was kept, and the same work run again succeeds.
 */
export function isTransientConflict(err: unknown): boolean {
  const code = pgErrorCode(err);
  return code === '40P01' || code === '40001';
}

/**
 * Runs `work`, a transaction whose only effects are in the database, again when it loses to a
 * concurrent one, up to `attempts` times in all: nothing of the lost run was kept, and run again it
 * finds the other settled. A caller sees the conflict only when it repeats.
 */
export async function retryingConflicts<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isTransientConflict(err)) throw err;
    }
  }
}

const migrationsFolder = SERVICE_FILES.migrations;
const MIGRATION_LOCK = 727_001;

/**
 * Opens the PostgreSQL server at `databaseUrl`, or without one the embedded cluster in
 * `DATA_DIR/pg`, started when no other process has started it yet.
 */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const timeouts = opts.timeouts ?? defaultTimeouts;
  const log = opts.log ?? quietLog;
  const poolSize = opts.databasePoolSize ?? DEFAULT_POOL_SIZE;
  if (opts.databaseUrl)
    return openPostgres(opts.databaseUrl, { sessionUrl: opts.databaseSessionUrl, poolSize, timeouts, log });
  const cluster = await startEmbeddedPostgres(opts.dataDir, {
    onNotice: opts.onNotice ?? ((m) => process.stderr.write(`${m}\n`)),
  });
  const database = await openPostgres(cluster.url, { poolSize, timeouts, log });
  return {
    ...database,
    location: `embedded PostgreSQL in ${cluster.dir} (${database.location})`,
    async close() {
      await database.close();
      await cluster.release();
    },
  };
}

/** JIT compilation is off on every connection the service opens (see `sessionSettings`). */
const NO_JIT = '-c jit=off';

/**
 * What every session of the pool is started with: JIT compilation costs 50–100 ms on every plan
 * above jit_above_cost (a segment count over a million contacts, say) and wins nothing back on
 * queries of this size. A pooler in transaction mode refuses startup parameters it does not track
 * (or, told to ignore them, drops them): behind one, the same settings are the role's
 * (docs/scaling.md).
 */
function sessionSettings(timeouts: DatabaseTimeouts, options = NO_JIT): pg.PoolConfig {
  return {
    options,
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
  };
}

async function openPostgres(
  url: string,
  options: { sessionUrl?: string; poolSize: number; timeouts: DatabaseTimeouts; log: ConnectionLog },
): Promise<Database> {
  const { sessionUrl, poolSize, timeouts, log } = options;
  const pooled = sessionUrl !== undefined;
  // A connection that breaks (a server restart, say) emits 'error' on its client, idle or checked
  // out; unhandled, that would end the process. The query that was running fails by itself, and
  // the LISTEN connection reports the outage once.
  const onClientError = (err: Error) => log.debug({ err: brief(err) }, 'database connection lost');
  const openPool = (connectionString: string, max: number, settings: pg.PoolConfig) => {
    const pool = new pg.Pool({
      connectionString,
      max,
      ...settings,
      connectionTimeoutMillis: timeouts.connectMs,
      // The server cancels a slow statement first; this only ends the wait on a server that is gone or frozen.
      query_timeout: queryTimeoutMs(timeouts),
      keepAlive: true,
    });
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', onClientError));
    const db = drizzlePg(pool) as unknown as Db;
    const dialect = new PgDialect();
    preparedRunners.set(db, (query) => {
      const { sql: text, params } = dialect.sqlToQuery(query);
      return pool.query({ name: statementName(text), text, values: params as unknown[] });
    });
    return { pool, db };
  };
  const { pool, db } = openPool(url, poolSize, pooled ? {} : sessionSettings(timeouts));
  const indexed = openPool(
    sessionUrl ?? url,
    INDEXED_POOL_SIZE,
    sessionSettings(timeouts, `${NO_JIT} -c enable_seqscan=off -c plan_cache_mode=force_generic_plan`),
  );
  if (pooled) await warnOfUnboundedStatements(pool, log);
  // The process lock and LISTEN live as long as their session: never on a pooled one.
  const notifications = new Notifications(sessionUrl ?? url, log);
  const parsed = new URL(url);
  return {
    db,
    indexed: indexed.db,
    location: `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`,
    async migrate() {
      // Its own connection without timeouts: building an index on a large table may take minutes.
      // The migration lock is a session's too.
      const client = new pg.Client({ connectionString: sessionUrl ?? url, options: NO_JIT });
      client.on('error', onClientError);
      await client.connect();
      try {
        // Replicas starting together take turns; the second finds nothing left to apply.
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
        await migratePg(drizzlePg(client), { migrationsFolder });
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
        await client.end().catch(() => {});
      }
    },
    async unbounded(work) {
      const client = new pg.Client({ connectionString: url, options: NO_JIT });
      client.on('error', onClientError);
      await client.connect();
      try {
        return await work(drizzlePg(client) as unknown as Db);
      } finally {
        await client.end().catch(() => {});
      }
    },
    listen: (channel, onMessage) => notifications.listen(channel, onMessage),
    notificationsLive: () => notifications.live,
    session: () => notifications.session,
    processKey: notifications.key,
    transactionBefore: (deadline, work) => transactionBefore(pool, deadline, work),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await notifications.close();
      await Promise.all([pool.end(), indexed.pool.end()]);
    },
  };
}

/** Behind a pooler the timeouts are the role's: a statement without one could hold a connection for ever. */
async function warnOfUnboundedStatements(pool: pg.Pool, log: ConnectionLog): Promise<void> {
  const r = await pool.query<{ statement: string; idle: string }>(
    `select current_setting('statement_timeout') as statement,
       current_setting('idle_in_transaction_session_timeout') as idle`,
  );
  const { statement, idle } = r.rows[0]!;
  if (statement === '0' || idle === '0') {
    log.warn(
      { statement_timeout: statement, idle_in_transaction_session_timeout: idle },
      'the pooled connections run without a statement or idle-in-transaction timeout: set them on the role (docs/scaling.md)',
    );
  }
}

async function transactionBefore<T>(pool: pg.Pool, deadline: number, work: (tx: Db) => Promise<T>): Promise<T> {
  const commitBy = deadline - COMMIT_MARGIN_MS;
  if (Date.now() >= commitBy) throw new DeadlineError();
  const client = await pool.connect();
  let committing = false;
  let broken = false;
  try {
    await client.query('begin');
    // The server began the transaction before its answer arrived, now: a budget counted from here
    // and checked on the server's clock from the transaction's start ends no later than `commitBy`.
    const budgetMs = Math.floor(commitBy - Date.now());
    const result = await work(drizzlePg(client) as unknown as Db);
    if (Date.now() >= commitBy) throw new DeadlineError();
    // The check and the commit in one message: a server frozen before it reads the message finds
    // the budget spent when it thaws, and rolls back.
    committing = true;
    await client.query(
      `do $$ begin if clock_timestamp() > transaction_timestamp() + interval '${budgetMs} milliseconds' then ` +
        `raise exception 'the deadline passed before the commit' using errcode = '57014'; end if; end $$; commit`,
    );
    return result;
  } catch (err) {
    // A server that answers rolls back at once. One that does not may hold the transaction open
    // until it thaws: its connection is closed instead, which ends the transaction, unless the commit
    // was sent: that one may still go through, until the budget is spent, so the caller hears of
    // the failure only then.
    if (isDatabaseUnavailable(err)) broken = true;
    else await client.query('rollback').catch(() => (broken = true));
    if (broken && committing) await new Promise((r) => setTimeout(r, commitBy - Date.now()));
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * True when the process whose key is in `ownerKey` is gone: no session of this database holds its
 * advisory lock (a killed process's session ends with it).
 */
export function ownerGone(ownerKey: SQL): SQL {
  return sql`not exists (
    select 1 from pg_locks l
    where l.locktype = 'advisory' and l.granted and l.objsubid = 1
      and l.database = (select oid from pg_database where datname = current_database())
      and ((l.classid::bigint << 32) | l.objid::bigint) = ${ownerKey})`;
}

export async function notify(ex: Executor, channel: string, payload = ''): Promise<void> {
  await ex.execute(sql`select pg_notify(${channel}, ${payload})`);
}

// biome-ignore lint/suspicious/noExplicitAny: rows of untyped SQL; callers name the row type where they read it
type Runner = (query: SQL) => Promise<{ rows: any[] }>;
const preparedRunners = new WeakMap<object, Runner>();

/** What drizzle's database and transactions hold of their session: enough to run a named statement. */
interface NamedSession {
  dialect: PgDialect;
  prepareQuery(
    query: { sql: string; params: unknown[] },
    fields: undefined,
    name: string,
    arrayMode: false,
  ): { execute(): Promise<unknown> };
}

const statementName = (text: string) => `q${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

/**
 * Runs a statement as a named prepared statement, planned once per connection, on the database
 * (any connection of the pool) or in a transaction (its connection): its rows are parsed as
 * `ex.execute` parses them (timestamps as text), so it can stand in for `run` without `prepared`.
 */
// biome-ignore lint/suspicious/noExplicitAny: see Runner
export async function runNamed<T = any>(ex: Executor, query: SQL): Promise<{ rows: T[] }> {
  const session = (ex as unknown as { session: NamedSession }).session;
  const q = session.dialect.sqlToQuery(query);
  return (await session.prepareQuery(q, undefined, statementName(q.sql), false).execute()) as { rows: T[] };
}

/**
 * Runs a statement and returns its rows under `rows`. With `prepared`, a hot statement becomes a
 * named prepared statement, planned once per connection instead of on every call: on the pool (its
 * rows parsed by pg, timestamps as Dates), or in a transaction as `runNamed`.
 */
// biome-ignore lint/suspicious/noExplicitAny: see Runner
export async function run<T = any>(
  ex: Executor,
  query: SQL,
  options: { prepared?: boolean } = {},
): Promise<{ rows: T[] }> {
  if (options.prepared) {
    const pooled = preparedRunners.get(ex);
    if (pooled) return pooled(query);
    if (is(ex, PgTransaction)) return runNamed<T>(ex, query);
  }
  return (await ex.execute(query)) as unknown as { rows: T[] };
}
