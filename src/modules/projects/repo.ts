import { sql } from 'drizzle-orm';
import { KEYS_CHANGED } from '../../domain/api-keys.js';
import { isTimeZone } from '../../domain/local-time.js';
import { type Executor, notify, run } from '../../platform/db/client.js';

/** Every query on `projects` lives here. */

export interface ProjectRow {
  id: string;
  name: string;
  disabled: boolean;
  /** Members must sign in with a second factor to use it. */
  require_two_factor: boolean;
  /** The IANA zone of contacts whose data names none (a workflow's DELAY until a time of day). */
  timezone: string;
  created_at: Date;
  updated_at: Date;
}

const columns = sql`id, name, disabled, require_two_factor, timezone, created_at, updated_at`;

export async function insertProject(
  ex: Executor,
  v: { name: string; publicKeyHash: string; secretKeyHash: string; ownerId: string | null },
): Promise<ProjectRow> {
  const r = await run<ProjectRow>(
    ex,
    sql`
    insert into projects (name, public_key_hash, secret_key_hash, owner_id)
    values (${v.name}, ${v.publicKeyHash}, ${v.secretKeyHash}, ${v.ownerId})
    returning ${columns}`,
  );
  return r.rows[0]!;
}

export async function anyProjectExists(ex: Executor): Promise<boolean> {
  const r = await run(ex, sql`select 1 from projects limit 1`);
  return r.rows.length > 0;
}

/** The project a key hash belongs to, by the kind of key. */
export async function projectByKeyHash(
  ex: Executor,
  kind: 'public' | 'secret',
  hash: string,
): Promise<ProjectRow | null> {
  const column = kind === 'public' ? sql`public_key_hash` : sql`secret_key_hash`;
  const r = await run<ProjectRow>(ex, sql`select ${columns} from projects where ${column} = ${hash} limit 1`);
  return r.rows[0] ?? null;
}

export async function setDisabled(ex: Executor, id: string, disabled: boolean, now: Date): Promise<void> {
  await run(ex, sql`update projects set disabled = ${disabled}, updated_at = ${now} where id = ${id}`);
  await notify(ex, KEYS_CHANGED);
}

/**
 * The given user, or the first user (by creation) when null, becomes the owner of every project
 * that never had one; `owner_id` keeps who that was. Returns the projects claimed and their owner.
 */
export async function claimOwnerless(ex: Executor, userId: string | null): Promise<{ id: string; owner_id: string }[]> {
  const owner = userId ?? sql`(select id from users order by created_at, id limit 1)`;
  const r = await run<{ id: string; owner_id: string | null }>(
    ex,
    sql`update projects set owner_id = ${owner} where owner_id is null returning id, owner_id`,
  );
  // Without any user, nothing is claimed.
  return r.rows.filter((row): row is { id: string; owner_id: string } => row.owner_id !== null);
}

export async function projectById(ex: Executor, id: string): Promise<ProjectRow | null> {
  const r = await run<ProjectRow>(ex, sql`select ${columns} from projects where id = ${id}`, { prepared: true });
  return r.rows[0] ?? null;
}

/** The project with this id, or the projects with exactly this name (at most two: one is an answer, two are not). */
export async function projectsByIdOrName(ex: Executor, idOrName: string): Promise<ProjectRow[]> {
  const r = await run<ProjectRow>(
    ex,
    sql`select ${columns} from projects where id::text = ${idOrName} or name = ${idOrName}
      order by id::text = ${idOrName} desc limit 2`,
  );
  const exact = r.rows.find((p) => p.id === idOrName);
  return exact ? [exact] : r.rows;
}

export async function projectsByIds(ex: Executor, ids: readonly string[]): Promise<ProjectRow[]> {
  if (ids.length === 0) return [];
  const r = await run<ProjectRow>(
    ex,
    sql`select ${columns} from projects where id = any(${`{${ids.join(',')}}`}::uuid[]) order by created_at, id`,
  );
  return r.rows;
}

/**
 * Changes a project; every process drops its cached keys in the same commit, so a disabled
 * project or a replaced key stops working at once. Who may change it is the caller's rule.
 */
export async function updateProject(
  ex: Executor,
  id: string,
  change: {
    name?: string;
    disabled?: boolean;
    requireTwoFactor?: boolean;
    timezone?: string;
    keyHashes?: { public: string; secret: string };
  },
  now: Date,
): Promise<ProjectRow | null> {
  const r = await run<ProjectRow>(
    ex,
    sql`
    update projects set
      name = coalesce(${change.name ?? null}, name),
      disabled = coalesce(${change.disabled ?? null}::boolean, disabled),
      require_two_factor = coalesce(${change.requireTwoFactor ?? null}::boolean, require_two_factor),
      timezone = coalesce(${change.timezone ?? null}, timezone),
      public_key_hash = coalesce(${change.keyHashes?.public ?? null}, public_key_hash),
      secret_key_hash = coalesce(${change.keyHashes?.secret ?? null}, secret_key_hash),
      updated_at = ${now}
    where id = ${id}
    returning ${columns}`,
  );
  if (r.rows[0]) await notify(ex, KEYS_CHANGED);
  return r.rows[0] ?? null;
}

/** Each of the projects' default time zone, by project id. */
export async function projectTimeZones(ex: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const r = await run<{ id: string; timezone: string }>(
    ex,
    sql`select id, timezone from projects where id = any(${`{${ids.join(',')}}`}::uuid[])`,
  );
  // A zone saved under an older runtime's tz data may be unknown to this one: UTC then, not a failure.
  return new Map(r.rows.map((row) => [row.id, isTimeZone(row.timezone) ? row.timezone : 'UTC']));
}

/** One project's default time zone (see projectTimeZones). */
export async function projectTimeZone(ex: Executor, id: string): Promise<string> {
  return (await projectTimeZones(ex, [id])).get(id) ?? 'UTC';
}

/** The projects the user is a member of that require two-factor sign-in (reads their memberships). */
export async function projectsRequiringTwoFactor(
  ex: Executor,
  userId: string,
): Promise<{ id: string; name: string }[]> {
  const r = await run<{ id: string; name: string }>(
    ex,
    sql`select p.id, p.name from projects p join project_members m on m.project_id = p.id
      where m.user_id = ${userId} and p.require_two_factor order by p.created_at, p.id`,
  );
  return r.rows;
}

/** Each project's own event retention in days, null where it takes the instance's. */
export async function eventRetentions(ex: Executor): Promise<{ id: string; days: number | null }[]> {
  const r = await run<{ id: string; days: number | null }>(
    ex,
    sql`select id, event_retention_days as days from projects order by id`,
  );
  return r.rows;
}
