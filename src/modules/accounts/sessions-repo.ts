import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';

/** Every query on `user_sessions`. */

export interface SessionRow {
  id: string;
  user_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ip: string;
  user_agent: string;
  second_factor: boolean;
}

export async function insertSession(ex: Executor, row: SessionRow): Promise<void> {
  await run(
    ex,
    sql`insert into user_sessions (id, user_id, created_at, last_seen_at, expires_at, ip, user_agent, second_factor)
      values (${row.id}, ${row.user_id}, ${row.created_at}, ${row.last_seen_at}, ${row.expires_at}, ${row.ip},
        ${row.user_agent}, ${row.second_factor})`,
  );
}

/** The live session with this id, for one request: a primary-key read. */
export async function liveSession(ex: Executor, id: string, now: Date): Promise<SessionRow | null> {
  const r = await run<SessionRow>(ex, sql`select * from user_sessions where id = ${id} and expires_at > ${now}`, {
    prepared: true,
  });
  return r.rows[0] ?? null;
}

export async function touchSession(ex: Executor, id: string, now: Date, ip: string): Promise<void> {
  await run(ex, sql`update user_sessions set last_seen_at = ${now}, ip = ${ip} where id = ${id}`, { prepared: true });
}

export async function markSecondFactor(ex: Executor, id: string): Promise<void> {
  await run(ex, sql`update user_sessions set second_factor = true where id = ${id}`);
}

export async function liveSessionsOf(ex: Executor, userId: string, now: Date): Promise<SessionRow[]> {
  const r = await run<SessionRow>(
    ex,
    sql`select * from user_sessions where user_id = ${userId} and expires_at > ${now}
      order by last_seen_at desc, id`,
  );
  return r.rows;
}

/** Ends one of the user's sessions; false when they have no such session. */
export async function deleteSession(ex: Executor, userId: string, id: string): Promise<boolean> {
  const r = await run(ex, deleteSessionStatement(userId, id));
  return r.rows.length > 0;
}

/** The deletion of `deleteSession`, `returning id`, for a caller that writes its audit entry with it. */
export function deleteSessionStatement(userId: string, id: string): SQL {
  return sql`delete from user_sessions where user_id = ${userId} and id = ${id} returning id`;
}

/** Ends every session of the user but `keep` (null: all of them); returns how many ended. */
export async function deleteSessionsOf(ex: Executor, userId: string, keep: string | null): Promise<number> {
  const r = await run(ex, deleteSessionsOfStatement(userId, keep));
  return r.rows.length;
}

/** The deletion of `deleteSessionsOf`, `returning id`, for a caller that writes its audit entry with it. */
export function deleteSessionsOfStatement(userId: string, keep: string | null): SQL {
  return sql`delete from user_sessions where user_id = ${userId} and id is distinct from ${keep}::uuid returning id`;
}

export async function deleteExpiredSessions(ex: Executor, now: Date): Promise<void> {
  await run(ex, sql`delete from user_sessions where expires_at <= ${now}`);
}
