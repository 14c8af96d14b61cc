import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import type { SuppressionReason } from './schemas.js';

/** Every query on `suppressions` lives here. */

export interface SuppressionRow {
  project_id: string;
  email: string;
  reason: SuppressionReason;
  email_id: string | null;
  detail: string | null;
  created_at: Date;
}

export interface NewSuppression {
  projectId: string;
  email: string;
  reason: SuppressionReason;
  emailId?: string | null;
  detail?: string | null;
}

/** Lists the address; one already listed keeps its first reason. Returns the row as stored. */
export async function suppress(
  ex: Executor,
  s: NewSuppression,
  now: Date,
): Promise<{ row: SuppressionRow; created: boolean }> {
  const r = await run<SuppressionRow & { created: boolean }>(
    ex,
    sql`
    with added as (
      insert into suppressions (project_id, email, reason, email_id, detail, created_at)
      values (${s.projectId}, ${s.email.toLowerCase()}, ${s.reason}, ${s.emailId ?? null}, ${s.detail ?? null}, ${now})
      on conflict do nothing
      returning *)
    select *, true as created from added
    union all
    select *, false from suppressions where project_id = ${s.projectId} and email = ${s.email.toLowerCase()}
      and not exists (select 1 from added)`,
  );
  const { created, ...row } = r.rows[0]!;
  return { row, created };
}

export async function unsuppress(ex: Executor, projectId: string, email: string): Promise<boolean> {
  const r = await run(
    ex,
    sql`delete from suppressions where project_id = ${projectId} and email = ${email.toLowerCase()} returning 1`,
  );
  return r.rows.length > 0;
}

export async function findSuppression(ex: Executor, projectId: string, email: string): Promise<SuppressionRow | null> {
  const r = await run<SuppressionRow>(
    ex,
    sql`select * from suppressions where project_id = ${projectId} and email = ${email.toLowerCase()}`,
  );
  return r.rows[0] ?? null;
}

export interface SuppressionListQuery {
  projectId: string;
  reason?: SuppressionReason;
  offset: number;
  limit: number;
}

/** Newest first. */
export async function listSuppressions(
  ex: Executor,
  q: SuppressionListQuery,
): Promise<{ rows: SuppressionRow[]; total: number }> {
  const where = sql`project_id = ${q.projectId}${q.reason ? sql` and reason = ${q.reason}` : sql``}`;
  const [rows, total] = await Promise.all([
    run<SuppressionRow>(
      ex,
      sql`select * from suppressions where ${where} order by created_at desc, email
        limit ${q.limit} offset ${q.offset}`,
    ),
    run<{ n: number }>(ex, sql`select count(*)::int as n from suppressions where ${where}`),
  ]);
  return { rows: rows.rows, total: total.rows[0]!.n };
}
