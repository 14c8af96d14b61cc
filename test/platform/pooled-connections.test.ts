import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, run } from '../../src/platform/db/client.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { admin } from '../support/global-setup.js';
import { eventually } from '../support/server.js';

/*
 * Behind PgBouncer in transaction mode (DATABASE_URL) with a direct connection beside it
 * (DATABASE_SESSION_URL). There is no pooler here: the two URLs reach the same server under two
 * application names, which tells whose session holds what.
 */
let testDb: TestDatabase;
const opened: Database[] = [];

const withName = (url: string, name: string) => {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
};

async function open(pooled: boolean, warnings: string[] = []): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: withName(testDb.url, 'pbx_pooled'),
    databaseSessionUrl: pooled ? withName(testDb.url, 'pbx_session') : undefined,
    dataDir: testDb.env.DATA_DIR!,
    log: { warn: (_fields, message) => warnings.push(message), info: () => {}, debug: () => {} },
  });
  opened.push(database);
  return database;
}

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((d) => d.close()));
});
afterAll(async () => {
  await testDb.drop();
});

describe('a pooled DATABASE_URL beside a DATABASE_SESSION_URL', () => {
  it('holds the process lock and LISTEN on the session connection, the queries on the pooled one', async () => {
    const database = await open(true);
    await database.migrate();
    const heard: string[] = [];
    await database.listen('pooled_test', (payload) => heard.push(payload));
    await run(database.db, sql`select pg_notify('pooled_test', 'hello')`);
    await eventually(async () => (heard.includes('hello') ? true : undefined));

    const holder = await run<{ application_name: string }>(
      database.db,
      sql`select a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.objsubid = 1
          and ((l.classid::bigint << 32) | l.objid::bigint) = ${String(database.processKey)}::bigint`,
    );
    expect(holder.rows).toEqual([{ application_name: 'pbx_session' }]);
    const own = await run(database.db, sql`select current_setting('application_name') as name`);
    expect(own.rows[0].name).toBe('pbx_pooled');
  });

  it('leaves the timeouts and jit of the pooled connections to the server, as set on the role or database', async () => {
    const name = new URL(testDb.url).pathname.slice(1);
    await admin(testDb.url, `alter database ${name} set statement_timeout = '7s'`);
    await admin(testDb.url, `alter database ${name} set jit = on`);
    const settings = async (database: Database) =>
      (
        await run(
          database.db,
          sql`select current_setting('statement_timeout') as statement, current_setting('jit') as jit`,
        )
      ).rows[0];

    expect(await settings(await open(true))).toEqual({ statement: '7s', jit: 'on' });
    // A direct DATABASE_URL sets its own on every connection.
    expect(await settings(await open(false))).toEqual({ statement: '30s', jit: 'off' });
  });

  it('warns at start when the pooled connections have no statement timeout of their own', async () => {
    const name = new URL(testDb.url).pathname.slice(1);
    await admin(testDb.url, `alter database ${name} set statement_timeout = 0`);
    const warnings: string[] = [];
    await open(true, warnings);
    expect(warnings).toEqual([expect.stringMatching(/without a statement or idle-in-transaction timeout/)]);

    await admin(testDb.url, `alter database ${name} set statement_timeout = '30s'`);
    await admin(testDb.url, `alter database ${name} set idle_in_transaction_session_timeout = '60s'`);
    const none: string[] = [];
    await open(true, none);
    expect(none).toEqual([]);
  });
});

describe('DB_POOL_SIZE', () => {
  it('bounds the connections a process opens, however many queries wait', async () => {
    const database = await openDatabase({
      databaseUrl: withName(testDb.url, 'pbx_bounded'),
      databasePoolSize: 3,
      dataDir: testDb.env.DATA_DIR!,
    });
    opened.push(database);
    const peak = await Promise.all(
      Array.from({ length: 12 }, () =>
        run(
          database.db,
          sql`select (select count(*)::int from pg_stat_activity where application_name = 'pbx_bounded') as n,
            pg_sleep(0.05)`,
        ),
      ),
    );
    expect(Math.max(...peak.map((r) => r.rows[0].n))).toBe(3);
    expect(database.poolStats().total).toBe(3);
  });
});
