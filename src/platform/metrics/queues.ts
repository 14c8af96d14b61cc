import { sql } from 'drizzle-orm';
import { type Db, run } from '../db/client.js';

/** Work waiting in one queue: ready now (`due`), set for later (`scheduled`), and the age of the oldest due item. */
export interface Backlog {
  due: number;
  scheduled: number;
  /** Seconds since the oldest due item became due; 0 when nothing is due. */
  oldestDueSeconds: number;
}

export interface QueueSnapshot {
  /** Emails with status `queued`: due ones include those being sent right now. */
  emails: Backlog;
  /** Background jobs per queue (`jobs`), and jobs that failed for good. */
  jobs: Map<string, Backlog & { failed: number }>;
  /** Events waiting in `event_outbox` to reach their subscribers (due) or to be retried (scheduled). */
  outbox: Backlog;
  /** Workflow executions under way: due for their next step, or waiting (a delay or an event). */
  workflows: Backlog;
}

/** Bound on the statement: a scrape must never hold a connection for long. */
const STATEMENT_TIMEOUT_MS = 2_000;

const backlog = (column: string, now: Date) => sql`json_build_object(
  'due', count(*) filter (where ${sql.raw(column)} <= ${now}),
  'scheduled', count(*) filter (where ${sql.raw(column)} > ${now} or ${sql.raw(column)} is null),
  'oldest', min(${sql.raw(column)}) filter (where ${sql.raw(column)} <= ${now}))`;

/**
 * Reads every backlog in one statement. Each part reads only the rows still waiting, through the
 * partial indexes the workers claim with (`emails_due_transactional` and `emails_due_campaign`, one
 * per delivery lane; `jobs_due`, `workflow_executions_due`), so the cost follows the size of the
 * backlogs, not of the tables: sent emails and finished executions
 * (millions of rows) are never read. `event_outbox` and failed jobs have no such index; both hold
 * only what is left to do or to look at, and are small unless something is already wrong.
 */
export async function readQueues(db: Db, now: Date): Promise<QueueSnapshot> {
  const row = await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local statement_timeout = ${STATEMENT_TIMEOUT_MS}`));
    const r = await run<{
      emails: RawBacklog;
      jobs: (RawBacklog & { queue: string; state: 'queued' | 'failed' })[];
      outbox: RawBacklog;
      workflows: RawBacklog;
    }>(
      tx,
      sql`
      select
        (select ${backlog('next_attempt_at', now)} from (
           select next_attempt_at from emails where status = 'queued' and campaign_id is null
           union all
           select next_attempt_at from emails where status = 'queued' and campaign_id is not null) q) as emails,
        (select coalesce(json_agg(j), '[]'::json) from (
           select queue, 'queued' as state, count(*) filter (where run_at <= ${now}) as due,
             count(*) filter (where run_at > ${now}) as scheduled,
             min(run_at) filter (where run_at <= ${now}) as oldest
           from jobs where state = 'queued' group by queue
           union all
           -- Jobs that failed for good: their count goes in the due column.
           select queue, 'failed', count(*), 0, null from jobs where state = 'failed' group by queue) j) as jobs,
        (select ${backlog('available_at', now)} from event_outbox) as outbox,
        (select ${backlog('next_run_at', now)} from workflow_executions
          where status in ('running', 'waiting')) as workflows`,
    );
    return r.rows[0]!;
  });
  const jobs = new Map<string, Backlog & { failed: number }>();
  for (const j of row.jobs) {
    const entry = jobs.get(j.queue) ?? { due: 0, scheduled: 0, oldestDueSeconds: 0, failed: 0 };
    if (j.state === 'failed') entry.failed = Number(j.due);
    else Object.assign(entry, toBacklog(j, now));
    jobs.set(j.queue, entry);
  }
  return {
    emails: toBacklog(row.emails, now),
    jobs,
    outbox: toBacklog(row.outbox, now),
    workflows: toBacklog(row.workflows, now),
  };
}

interface RawBacklog {
  due: number | string;
  scheduled: number | string;
  oldest: string | null;
}

function toBacklog(raw: RawBacklog, now: Date): Backlog {
  const oldest = raw.oldest === null ? null : new Date(raw.oldest);
  return {
    due: Number(raw.due),
    scheduled: Number(raw.scheduled),
    oldestDueSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
