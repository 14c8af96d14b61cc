import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';

/** Every query on `users` lives here; projects belong to the projects module. */

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  created_at: Date;
}

/** A new user; null when the email is taken. */
export async function insertUser(
  ex: Executor,
  email: string,
  passwordHash: string,
  now: Date,
): Promise<UserRow | null> {
  const r = await run<UserRow>(
    ex,
    sql`
    insert into users (email, password_hash, created_at, updated_at) values (${email}, ${passwordHash}, ${now}, ${now})
    on conflict (email) do nothing
    returning id, email, password_hash, created_at`,
  );
  return r.rows[0] ?? null;
}

export async function findUserByEmail(ex: Executor, email: string): Promise<UserRow | null> {
  const r = await run<UserRow>(ex, sql`select id, email, password_hash, created_at from users where email = ${email}`);
  return r.rows[0] ?? null;
}

export async function findUser(ex: Executor, id: string): Promise<UserRow | null> {
  const r = await run<UserRow>(ex, sql`select id, email, password_hash, created_at from users where id = ${id}`);
  return r.rows[0] ?? null;
}

export async function anyUser(ex: Executor): Promise<boolean> {
  const r = await run<{ exists: boolean }>(ex, sql`select exists (select 1 from users) as exists`);
  return r.rows[0]!.exists;
}

/** Held until the transaction ends: two owners set up at once cannot both find no user. */
export async function lockSetup(ex: Executor): Promise<void> {
  await run(ex, sql`select pg_advisory_xact_lock(hashtext('postbox:owner-setup'))`);
}
