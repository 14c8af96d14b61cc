import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Db, run } from './db/client.js';

/**
 * A random secret generated on first use and kept in the database, so every process of the
 * instance (API replicas, workers) signs and checks with the same one.
 */
export async function instanceSecret(db: Db, name: string): Promise<Buffer> {
  await run(
    db,
    sql`insert into instance_secrets (name, value) values (${name}, ${randomBytes(32).toString('base64')})
      on conflict (name) do nothing`,
  );
  const r = await run<{ value: string }>(db, sql`select value from instance_secrets where name = ${name}`);
  return Buffer.from(r.rows[0]!.value, 'base64');
}

/** The key of the hashes an erase keeps (domain/erasure.ts). */
export const ERASURE_SALT = 'erasure-salt';
