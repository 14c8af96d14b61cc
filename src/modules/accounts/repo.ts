import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import type { ProjectCreation } from './schemas.js';

/** Every query on `users` and `instance_settings` lives here; projects belong to the projects module. */

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
  // The first user, who sets the instance up, is its first instance admin.
  const r = await run<UserRow>(
    ex,
    sql`
    insert into users (email, password_hash, created_at, updated_at, instance_admin)
    values (${email}, ${passwordHash}, ${now}, ${now}, not exists (select 1 from users))
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

export interface InstanceAdminRow {
  id: string;
  email: string;
  /** The first user, who set the instance up (the earliest instance admin): always one. */
  first: boolean;
}

/** The instance admins, the first user first. */
export async function instanceAdmins(ex: Executor): Promise<InstanceAdminRow[]> {
  const r = await run<InstanceAdminRow>(
    ex,
    sql`select id, email, id = (select id from users where instance_admin order by created_at, id limit 1) as first
      from users where instance_admin order by created_at, id`,
  );
  return r.rows;
}

export async function isInstanceAdmin(ex: Executor, userId: string): Promise<boolean> {
  const r = await run<{ instance_admin: boolean }>(ex, sql`select instance_admin from users where id = ${userId}`);
  return r.rows[0]?.instance_admin ?? false;
}

/** Names or un-names an instance admin; false when there is no such user. */
export async function setInstanceAdmin(ex: Executor, userId: string, admin: boolean, now: Date): Promise<boolean> {
  const r = await run(
    ex,
    sql`update users set instance_admin = ${admin}, updated_at = ${now} where id = ${userId} returning id`,
  );
  return r.rows.length > 0;
}

/** Who may create projects: as set, or, unset, instance admins once the instance has a second user. */
export async function projectCreation(ex: Executor): Promise<ProjectCreation> {
  const r = await run<{ setting: ProjectCreation }>(
    ex,
    sql`select coalesce(
      (select project_creation from instance_settings),
      case when (select count(*) from (select 1 from users limit 2) u) > 1 then 'admins' else 'everyone' end
    ) as setting`,
  );
  return r.rows[0]!.setting;
}

export async function setProjectCreation(ex: Executor, setting: ProjectCreation, now: Date): Promise<void> {
  await run(
    ex,
    sql`insert into instance_settings (id, project_creation, updated_at) values (true, ${setting}, ${now})
      on conflict (id) do update set project_creation = excluded.project_creation, updated_at = excluded.updated_at`,
  );
}

export async function setPasswordHash(ex: Executor, userId: string, hash: string, now: Date): Promise<void> {
  await run(ex, sql`update users set password_hash = ${hash}, updated_at = ${now} where id = ${userId}`);
}
