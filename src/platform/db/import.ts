import { sql } from 'drizzle-orm';
import { type Database, run } from './client.js';

/**
 * Loads a data-only dump made with `pg_dump --data-only --column-inserts` (how a database of the earlier
 * embedded engine, PGlite, is brought over) into a freshly migrated database, in one transaction.
 * Foreign keys are not checked while it loads, since a dump lists tables alphabetically.
 */
export async function importDataDump(database: Database, dump: string): Promise<void> {
  const r = await run<{ n: number }>(database.db, sql`select count(*)::int as n from projects`);
  if (r.rows[0]!.n > 0)
    throw new Error('The database already holds projects: import into a new DATA_DIR (or an empty database) only.');
  const statements = dump
    .split('\n')
    // Settings a newer pg_dump writes that this server may not know, the dump's role switches, and
    // its empty search_path, which would outlive the import on a pooled connection (it names every table in full).
    .filter(
      (line) =>
        !/^(SET (transaction_timeout|SESSION AUTHORIZATION)|SELECT pg_catalog\.set_config\('search_path')/.test(line),
    )
    .join('\n');
  await database.db.transaction(async (tx) => {
    await run(tx, sql`set local session_replication_role = replica`);
    // The dump brings the instance's own secrets, so links signed before keep working.
    await run(tx, sql`delete from instance_secrets`);
    await tx.execute(sql.raw(statements));
  });
}
