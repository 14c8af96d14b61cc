import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect, type PgDatabase, type PgQueryResultHKT, type PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded.js';
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, any>;
/** Anything that runs queries: the database itself or an open transaction. */
export type Executor = Db | Tx;

export interface Database {
  db: Db;
  /** The server's address without credentials, for logs. */
  location: string;
  migrate(): Promise<void>;
  /** Calls `onMessage` for every NOTIFY on `channel`; returns the unsubscribe function. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATION_LOCK = 727_001;

/**
 * Opens the PostgreSQL server at `databaseUrl`, or without one the embedded cluster in
 * `DATA_DIR/pg`, started when no other process has started it yet.
 */
export async function openDatabase(opts: { databaseUrl?: string; dataDir: string; onNotice?: (message: string) => void }): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  const cluster = await startEmbeddedPostgres(opts.dataDir, { onNotice: opts.onNotice ?? ((m) => process.stderr.write(`${m}\n`)) });
  const database = await openPostgres(cluster.url);
  return {
    ...database,
    location: `embedded PostgreSQL in ${cluster.dir} (${database.location})`,
    async close() {
      await database.close();
      await cluster.release();
    },
  };
}

async function openPostgres(url: string): Promise<Database> {
  // JIT compilation costs 50–100 ms on every plan above jit_above_cost (a segment count over a
  // million contacts, say) and wins nothing back on queries of this size.
  const pool = new pg.Pool({ connectionString: url, max: 20, options: '-c jit=off' });
  // An idle client losing its server connection must not bring the process down.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const dialect = new PgDialect();
  preparedRunners.set(db, (query) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    const name = `q${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    return pool.query({ name, text, values: params as unknown[] });
  });
  const listeners: pg.Client[] = [];
  const parsed = new URL(url);
  return {
    db,
    location: `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`,
    async migrate() {
      const client = await pool.connect();
      try {
        // Replicas starting together take turns; the second finds nothing left to apply.
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
        await migratePg(drizzlePg(client, { schema }), { migrationsFolder });
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
        client.release();
      }
    },
    async listen(channel, onMessage) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      client.on('notification', (n) => n.channel === channel && onMessage(n.payload ?? ''));
      await client.query(`LISTEN "${channel.replace(/"/g, '')}"`);
      listeners.push(client);
      return async () => {
        listeners.splice(listeners.indexOf(client), 1);
        await client.end().catch(() => {});
      };
    },
    async close() {
      await Promise.all(listeners.map((c) => c.end().catch(() => {})));
      await pool.end();
    },
  };
}

export async function notify(ex: Executor, channel: string, payload = ''): Promise<void> {
  await ex.execute(sql`select pg_notify(${channel}, ${payload})`);
}

type Runner = (query: SQL) => Promise<{ rows: any[] }>;
const preparedRunners = new WeakMap<object, Runner>();

/**
 * Runs a statement and returns its rows under `rows`. With `prepared`, a hot statement run outside
 * a transaction becomes a named prepared statement, planned once per connection instead of on every call.
 */
export async function run<T = any>(ex: Executor, query: SQL, options: { prepared?: boolean } = {}): Promise<{ rows: T[] }> {
  const prepared = options.prepared ? preparedRunners.get(ex) : undefined;
  if (prepared) return prepared(query);
  return (await ex.execute(query)) as unknown as { rows: T[] };
}
