import { sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.js';
import { run } from '../../platform/db/client.js';

/**
 * The retention of email bodies and inbound mail, per project (docs/operations.md, "Retention"):
 * past its days, an email keeps its row (recipient, subject, status, times, counters) and loses its
 * content; inbound mail goes. Each statement takes a small batch by index, so no table is locked and
 * no transaction is long. The events' retention is in events/storage.ts.
 */

const BATCH = 1_000;
const DAY_MS = 86_400_000;

interface Retention {
  id: string;
  email_days: number | null;
  inbound_days: number | null;
  bodies_before: Date | null;
}

export async function applyMailRetention(ctx: AppContext): Promise<{ emailBodies: number; inboundEmails: number }> {
  const now = ctx.clock.now();
  const projects = await run<Retention>(
    ctx.db,
    sql`select id, email_body_retention_days as email_days, inbound_retention_days as inbound_days,
        email_bodies_purged_before as bodies_before
      from projects where email_body_retention_days is not null or inbound_retention_days is not null order by id`,
  );
  let emailBodies = 0;
  let inboundEmails = 0;
  for (const p of projects.rows) {
    if (p.email_days !== null)
      emailBodies += await purgeEmailBodies(ctx, p, new Date(now.getTime() - p.email_days * DAY_MS), now);
    if (p.inbound_days !== null) {
      const before = new Date(now.getTime() - p.inbound_days * DAY_MS);
      for (;;) {
        const r = await run(
          ctx.db,
          sql`delete from inbound_emails where id in (
              select id from inbound_emails where project_id = ${p.id} and received_at < ${before}
              order by received_at, id limit ${BATCH})
            returning 1`,
        );
        inboundEmails += r.rows.length;
        if (r.rows.length < BATCH) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
  if (emailBodies > 0 || inboundEmails > 0)
    ctx.log.info({ emailBodies, inboundEmails }, 'mail past its retention removed');
  return { emailBodies, inboundEmails };
}

/**
 * Empties the content of the project's emails made before `before`, from where the last run stopped
 * (`email_bodies_purged_before`), so a run reads only what it has to empty. An email still queued
 * keeps its content.
 */
async function purgeEmailBodies(ctx: AppContext, p: Retention, before: Date, now: Date): Promise<number> {
  let from = p.bodies_before ?? new Date(0);
  let emptied = 0;
  for (;;) {
    const r = await ctx.db.transaction(async (tx) => {
      const batch = await run<{ n: number; last: Date | null; emptied: number }>(
        tx,
        sql`
        with batch as (
          select id, created_at from emails where project_id = ${p.id} and created_at >= ${from} and created_at < ${before}
          order by created_at, id limit ${BATCH}),
        emptied as (
          update emails e set html = '', text = null, headers = '{}'::jsonb, attachments = null,
            content_removed_at = ${now}
          from batch b where e.id = b.id and e.content_removed_at is null and e.status <> 'queued'
          returning 1)
        select (select count(*)::int from batch) as n, (select max(created_at) from batch) as last,
          (select count(*)::int from emptied) as emptied`,
      );
      const row = batch.rows[0]!;
      // Full batch: the next starts at its last time (rows of that same millisecond are read again,
      // and left as they are). Otherwise everything before the cutoff is done.
      const reached = row.n === BATCH && row.last ? new Date(row.last) : before;
      await run(tx, sql`update projects set email_bodies_purged_before = ${reached} where id = ${p.id}`);
      return { ...row, reached };
    });
    emptied += r.emptied;
    if (r.n < BATCH || r.reached.getTime() <= from.getTime()) break;
    from = r.reached;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return emptied;
}
