import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run, runNamed } from '../../platform/db/client.js';

/** Every query on `audit_log`: appended to in the transaction of each change, read by `GET /audit-log`, purged by age. */

type Time = Date | string;

export interface AuditRow {
  id: string;
  project_id: string | null;
  created_at: Time;
  actor: string;
  actor_name: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  changes: Record<string, unknown> | null;
}

export interface NewEntry {
  id: string;
  projectId: string | null;
  actor: string;
  /** The actor's name as given; otherwise the user's address or the key's name is looked up in the same statement. */
  actorName: string | null;
  userId: string | null;
  keyId: string | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  changes: Record<string, unknown> | null;
}

/**
 * One statement, no round trip of its own for the actor's name: the user's address or the key's
 * name is read as the row is written, and kept as it was then. Prepared: planning it (with the two
 * lookups) cost more than running it.
 */
export async function insertEntry(ex: Executor, e: NewEntry): Promise<void> {
  await run(
    ex,
    sql`insert into audit_log (id, project_id, created_at, actor, actor_name, ip, user_agent, request_id,
        action, target_type, target_id, changes)
      values (${e.id}, ${e.projectId}, now(), ${e.actor},
        coalesce(${e.actorName}::text, (select email from users where id = ${e.userId}::uuid),
          (select name from api_keys where id = ${e.keyId}::uuid)),
        ${e.ip}, ${e.userAgent}, ${e.requestId}, ${e.action}, ${e.targetType}, ${e.targetId},
        ${e.changes === null ? null : JSON.stringify(e.changes)}::jsonb)`,
    { prepared: true },
  );
}

/** An entry written by the statement of its change: its target's id may be a column of the changed row. */
export interface StatementEntry extends Omit<NewEntry, 'id' | 'targetId'> {
  /** A value, or SQL over `changed` (the changed row): `sql\`changed.id::text\``. */
  targetId: string | null | SQL;
  /**
   * One entry whatever the change did, with the number of rows it changed under `changes[countAs]`;
   * without it, one entry for each changed row and none when no row changed.
   */
  countAs?: string;
}

/**
 * The change and its entry as one statement: `change` (an insert, update or delete with `returning`)
 * becomes the CTE `changed`, the entry is inserted from it, and the statement answers the changed
 * rows as `change` alone would. One round trip, like the change alone, and atomic without a
 * transaction: if the entry cannot be written, the change is not either, and a change that fails
 * writes no entry. In a transaction, the same holds within it.
 */
export async function changeWithEntry<T>(ex: Executor, change: SQL, e: StatementEntry): Promise<T[]> {
  const changes = e.changes === null ? null : JSON.stringify(e.changes);
  const values = sql`gen_random_uuid(), ${e.projectId}::uuid, now(), ${e.actor},
        coalesce(${e.actorName}::text, (select email from users where id = ${e.userId}::uuid),
          (select name from api_keys where id = ${e.keyId}::uuid)),
        ${e.ip}, ${e.userAgent}, ${e.requestId}, ${e.action}, ${e.targetType}`;
  const entry =
    e.countAs === undefined
      ? sql`select ${values}, ${e.targetId}::text, ${changes}::jsonb from changed`
      : sql`select ${values}, ${e.targetId}::text,
          coalesce(${changes}::jsonb, '{}'::jsonb) || jsonb_build_object(${e.countAs}::text, (select count(*) from changed)::int)`;
  // Prepared (planned once per connection): planning the entry's insert and its lookups cost more
  // than running them. Its rows are parsed as the change's alone would be.
  const r = await runNamed<T>(
    ex,
    sql`with changed as (${change}),
      audit_entry as (insert into audit_log (id, project_id, created_at, actor, actor_name, ip, user_agent, request_id,
        action, target_type, target_id, changes) ${entry})
      select * from changed`,
  );
  return r.rows;
}

export interface EntryQuery {
  projectId: string;
  actor?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
  /** The `[created_at, id]` of the last entry of the previous page. */
  after?: [string, string];
  limit: number;
}

function conditions(q: EntryQuery): SQL {
  const parts: SQL[] = [sql`project_id = ${q.projectId}`];
  if (q.actor !== undefined) parts.push(sql`actor = ${q.actor}`);
  if (q.action !== undefined) parts.push(sql`action = ${q.action}`);
  if (q.targetType !== undefined) parts.push(sql`target_type = ${q.targetType}`);
  if (q.targetId !== undefined) parts.push(sql`target_id = ${q.targetId}`);
  if (q.from !== undefined) parts.push(sql`created_at >= ${q.from}`);
  if (q.to !== undefined) parts.push(sql`created_at < ${q.to}`);
  return sql.join(parts, sql` and `);
}

/** A page, newest first: each filter has its index, ending in (created_at desc, id desc). */
export async function listEntries(ex: Executor, q: EntryQuery): Promise<AuditRow[]> {
  const after = q.after ? sql`and (created_at, id) < (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)` : sql``;
  const r = await run<AuditRow>(
    ex,
    sql`select id, project_id, created_at, actor, actor_name, ip, user_agent, request_id, action, target_type,
        target_id, changes
      from audit_log where ${conditions(q)} ${after}
      order by created_at desc, id desc limit ${q.limit + 1}`,
  );
  return r.rows;
}

/**
 * How many entries match, counted up to `cap`: an exact count over millions of entries would cost
 * more than the page itself. `capped` says the true number is larger.
 */
export async function countEntries(ex: Executor, q: EntryQuery, cap: number): Promise<{ n: number; capped: boolean }> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from (select 1 from audit_log where ${conditions(q)} limit ${cap + 1}) t`,
  );
  const n = r.rows[0]!.n;
  return { n: Math.min(n, cap), capped: n > cap };
}

/**
 * Removes up to `batch` entries older than `before`, oldest first, in a transaction that the
 * append-only trigger lets delete; answers how many went.
 */
export async function purgeBatch(ex: Executor, before: Date, batch: number): Promise<number> {
  return ex.transaction(async (tx) => {
    await run(tx, sql`select set_config('postbox.audit_purge', 'on', true)`);
    const r = await run(
      tx,
      sql`delete from audit_log where id in (
        select id from audit_log where created_at < ${before} order by created_at limit ${batch})
        returning 1`,
    );
    return r.rows.length;
  });
}
