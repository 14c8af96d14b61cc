import { sql } from 'drizzle-orm';
import { KEYS_CHANGED } from '../../domain/api-keys.js';
import { type Executor, notify, run } from '../../platform/db/client.js';

/**
 * Every query on `api_keys`. A change NOTIFYs KEYS_CHANGED: every process forgets the keys it resolved.
 * Times come back as the driver gives them, a Date or its text, as elsewhere (`iso` takes both).
 */

type Time = Date | string;

export interface ApiKeyRow {
  id: string;
  project_id: string;
  name: string;
  scopes: string[];
  key_hint: string;
  previous_valid_until: Time | null;
  expires_at: Time | null;
  created_by: string;
  /** Who `created_by` names: a user's address or a key's name; null for the project's secret key or one deleted since. */
  created_by_label: string | null;
  created_at: Time;
  rotated_at: Time | null;
  last_used_at: Time | null;
  last_used_ip: string | null;
  revoked_at: Time | null;
}

const listed = sql`
  k.id, k.project_id, k.name, k.scopes, k.key_hint, k.previous_valid_until, k.expires_at, k.created_by,
  coalesce(u.email, c.name) as created_by_label, k.created_at, k.rotated_at, k.last_used_at,
  k.last_used_ip, k.revoked_at`;

const withCreators = sql`
  api_keys k
  left join users u on k.created_by = 'user:' || u.id::text
  left join api_keys c on k.created_by = 'key:' || c.id::text`;

export async function insertKey(
  ex: Executor,
  v: {
    id: string;
    projectId: string;
    name: string;
    scopes: string[];
    hash: string;
    hint: string;
    expiresAt: Date | null;
    createdBy: string;
    now: Date;
  },
): Promise<void> {
  await run(
    ex,
    sql`insert into api_keys (id, project_id, name, scopes, key_hash, key_hint, expires_at, created_by, created_at)
      values (${v.id}, ${v.projectId}, ${v.name}, ${`{${v.scopes.join(',')}}`}::text[], ${v.hash}, ${v.hint},
        ${v.expiresAt}, ${v.createdBy}, ${v.now})`,
  );
}

export async function listKeys(ex: Executor, projectId: string): Promise<ApiKeyRow[]> {
  const r = await run<ApiKeyRow>(
    ex,
    sql`select ${listed} from ${withCreators} where k.project_id = ${projectId}
      order by k.revoked_at is not null, k.created_at desc, k.id`,
  );
  return r.rows;
}

export async function findKey(ex: Executor, projectId: string, id: string): Promise<ApiKeyRow | null> {
  const r = await run<ApiKeyRow>(
    ex,
    sql`select ${listed} from ${withCreators} where k.project_id = ${projectId} and k.id = ${id}`,
  );
  return r.rows[0] ?? null;
}

/** What a presented key resolves to: a live key by its current secret, or by the secret a rotation replaced. */
export interface KeyMatch {
  id: string;
  project_id: string;
  scopes: string[];
  /** When this secret stops working (its expiry, or the end of the rotation's overlap). */
  valid_until: Time | null;
}

export async function keyByHash(ex: Executor, hash: string): Promise<KeyMatch | null> {
  const r = await run<KeyMatch>(
    ex,
    sql`
    select id, project_id, scopes,
      case when key_hash = ${hash} then expires_at
        else least(previous_valid_until, coalesce(expires_at, previous_valid_until)) end as valid_until
    from api_keys
    where (key_hash = ${hash} or previous_key_hash = ${hash}) and revoked_at is null
    limit 1`,
    { prepared: true },
  );
  return r.rows[0] ?? null;
}

/** Whether a key changed; when one did, every process drops the keys it resolved, in the same commit. */
async function changed(ex: Executor, count: number): Promise<boolean> {
  if (count > 0) await notify(ex, KEYS_CHANGED);
  return count > 0;
}

export async function updateKey(
  ex: Executor,
  projectId: string,
  id: string,
  change: { name?: string; scopes?: string[]; expiresAt?: Date | null },
): Promise<boolean> {
  const r = await run(
    ex,
    sql`update api_keys set
      name = coalesce(${change.name ?? null}, name),
      scopes = coalesce(${change.scopes ? `{${change.scopes.join(',')}}` : null}::text[], scopes),
      expires_at = case when ${change.expiresAt !== undefined} then ${change.expiresAt ?? null}::timestamptz else expires_at end
    where project_id = ${projectId} and id = ${id} and revoked_at is null
    returning id`,
  );
  return changed(ex, r.rows.length);
}

/** The new secret replaces the current one, which keeps working until `overlapUntil` (or stops now). */
export async function rotateKey(
  ex: Executor,
  projectId: string,
  id: string,
  v: { hash: string; hint: string; overlapUntil: Date; now: Date },
): Promise<boolean> {
  const r = await run(
    ex,
    sql`update api_keys set
      previous_key_hash = case when ${v.overlapUntil} > ${v.now}::timestamptz then key_hash end,
      previous_valid_until = case when ${v.overlapUntil} > ${v.now}::timestamptz then ${v.overlapUntil}::timestamptz end,
      key_hash = ${v.hash}, key_hint = ${v.hint}, rotated_at = ${v.now}
    where project_id = ${projectId} and id = ${id} and revoked_at is null
    returning id`,
  );
  return changed(ex, r.rows.length);
}

export async function revokeKey(ex: Executor, projectId: string, id: string, now: Date): Promise<boolean> {
  const r = await run(
    ex,
    sql`update api_keys set revoked_at = ${now}, previous_key_hash = null, previous_valid_until = null
      where project_id = ${projectId} and id = ${id} and revoked_at is null
    returning id`,
  );
  return changed(ex, r.rows.length);
}

/** Records the last use of each key given; a key's later use is never overwritten by an earlier one. */
export async function recordUses(ex: Executor, uses: { id: string; at: Date; ip: string }[]): Promise<void> {
  if (uses.length === 0) return;
  await run(
    ex,
    sql`update api_keys k set last_used_at = u.at, last_used_ip = u.ip
      from jsonb_to_recordset(${JSON.stringify(uses)}::jsonb) as u(id uuid, at timestamptz, ip text)
      where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.at)`,
  );
}
