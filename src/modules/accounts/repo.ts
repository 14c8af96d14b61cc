import { sql } from 'drizzle-orm';
import { notify, run, type Executor } from '../../platform/db/client.js';
import { PROJECTS_CHANGED } from '../projects/key-cache.js';

/** Every query on `users`, and on projects as their owners see them, lives here. */

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  created_at: Date;
}

export interface OwnedProjectRow {
  id: string;
  name: string;
  disabled: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A new user, who also takes every project that has no owner yet (the first user claims the default project). */
export async function insertUser(ex: Executor, email: string, passwordHash: string, now: Date): Promise<UserRow | null> {
  const r = await run<UserRow>(ex, sql`
    with created as (
      insert into users (email, password_hash, created_at, updated_at) values (${email}, ${passwordHash}, ${now}, ${now})
      on conflict (email) do nothing
      returning id, email, password_hash, created_at),
    claimed as (update projects set owner_id = (select id from created) where owner_id is null and exists (select 1 from created))
    select * from created`);
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

export async function ownedProjects(ex: Executor, userId: string): Promise<OwnedProjectRow[]> {
  const r = await run<OwnedProjectRow>(ex, sql`
    select id, name, disabled, created_at, updated_at from projects where owner_id = ${userId} order by created_at, id`);
  return r.rows;
}

export async function ownedProject(ex: Executor, userId: string, id: string): Promise<OwnedProjectRow | null> {
  const r = await run<OwnedProjectRow>(ex, sql`
    select id, name, disabled, created_at, updated_at from projects where owner_id = ${userId} and id = ${id}`);
  return r.rows[0] ?? null;
}

export async function setOwner(ex: Executor, projectId: string, userId: string): Promise<void> {
  await run(ex, sql`update projects set owner_id = ${userId} where id = ${projectId}`);
}

/**
 * Changes an owned project; every process drops its cached keys in the same commit, so a
 * disabled project or a replaced key stops working at once.
 */
export async function updateOwnedProject(
  ex: Executor,
  userId: string,
  id: string,
  change: { name?: string; disabled?: boolean; keyHashes?: { public: string; secret: string } },
  now: Date,
): Promise<OwnedProjectRow | null> {
  const r = await run<OwnedProjectRow>(ex, sql`
    update projects set
      name = coalesce(${change.name ?? null}, name),
      disabled = coalesce(${change.disabled ?? null}::boolean, disabled),
      public_key_hash = coalesce(${change.keyHashes?.public ?? null}, public_key_hash),
      secret_key_hash = coalesce(${change.keyHashes?.secret ?? null}, secret_key_hash),
      updated_at = ${now}
    where owner_id = ${userId} and id = ${id}
    returning id, name, disabled, created_at, updated_at`);
  if (r.rows[0]) await notify(ex, PROJECTS_CHANGED);
  return r.rows[0] ?? null;
}
