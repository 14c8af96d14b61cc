import { type SQL, sql } from 'drizzle-orm';
import { type Db, run } from '../db/client.js';

/** The delivery lanes (docs/decisions.md, "Lanes"): mail without a campaign, claimed first, and campaign mail. */
export const EMAIL_LANES = ['transactional', 'campaign'] as const;
export type EmailLane = (typeof EMAIL_LANES)[number];

/** Work waiting in one queue: ready now (`due`), set for later (`scheduled`), and how late its head is. */
export interface Backlog {
  due: number;
  scheduled: number;
  /**
   * Seconds since the item the queue's workers take next became due: how long work entering the
   * queue now waits at least, in a queue served in order. 0 when nothing is due.
   */
  oldestDueSeconds: number;
}

export interface QueueSnapshot {
  /** Emails with status `queued`, by lane: due ones include those being sent right now. */
  emails: Record<EmailLane, Backlog>;
  /** Background jobs per queue (`jobs`), and jobs that failed for good. */
  jobs: Map<string, Backlog & { failed: number }>;
  /** Events waiting in `event_outbox` to reach their subscribers (due) or to be retried (scheduled). */
  outbox: Backlog;
  /** Workflow executions under way: due for their next step, or waiting (a delay or an event). */
  workflows: Backlog;
}

/** Bound on the statement: a scrape must never hold a connection for long. */
const STATEMENT_TIMEOUT_MS = 2_000;

/**
 * One queue's counts over `items` (a FROM clause holding only the rows still waiting, `at` the time
 * each is due) and the due time of `head`, the first row in the order its workers claim them.
 */
function backlog(items: SQL, at: SQL, head: SQL, now: Date): SQL {
  return sql`(select json_build_object(
      'due', count(*) filter (where ${at} <= ${now}),
      'scheduled', count(*) filter (where ${at} > ${now} or ${at} is null),
      'oldest', (${head}))
    from ${items})`;
}

const QUEUED_EMAILS: Record<EmailLane, SQL> = {
  transactional: sql`status = 'queued' and campaign_id is null`,
  campaign: sql`status = 'queued' and campaign_id is not null`,
};

function emailLane(lane: EmailLane, now: Date): SQL {
  const queued = QUEUED_EMAILS[lane];
  return backlog(
    sql`emails where ${queued}`,
    sql`next_attempt_at`,
    sql`select next_attempt_at from emails where ${queued} order by next_attempt_at limit 1`,
    now,
  );
}

/**
 * Reads every backlog in one statement, on every scrape, so each part reads only the rows still
 * waiting, through the partial indexes the workers claim with: `emails_due_transactional` and
 * `emails_due_campaign` (one per delivery lane), `jobs_due`, `workflow_executions_due`. Sent emails
 * and finished executions (millions of rows) are never read. Each head is one probe at the start of
 * its index; the outbox's is the first due entry by id, the dispatcher's order, through the primary
 * key. `event_outbox` and failed jobs are counted without an index: both hold only what is left to
 * do or to look at, and are small unless something is already wrong.
 */
export async function readQueues(db: Db, now: Date): Promise<QueueSnapshot> {
  const row = await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local statement_timeout = ${STATEMENT_TIMEOUT_MS}`));
    const r = await run<{
      transactional: RawBacklog;
      campaign: RawBacklog;
      jobs: (RawBacklog & { queue: string; state: 'queued' | 'failed' })[];
      outbox: RawBacklog;
      workflows: RawBacklog;
    }>(
      tx,
      sql`
      select
        ${emailLane('transactional', now)} as transactional,
        ${emailLane('campaign', now)} as campaign,
        (select coalesce(json_agg(j), '[]'::json) from (
           select queue, 'queued' as state, count(*) filter (where run_at <= ${now}) as due,
             count(*) filter (where run_at > ${now}) as scheduled, min(run_at) as oldest
           from jobs where state = 'queued' group by queue
           union all
           -- Jobs that failed for good: their count goes in the due column.
           select queue, 'failed', count(*), 0, null from jobs where state = 'failed' group by queue) j) as jobs,
        ${backlog(
          sql`event_outbox`,
          sql`available_at`,
          sql`select available_at from event_outbox where available_at <= ${now} order by id limit 1`,
          now,
        )} as outbox,
        ${backlog(
          sql`workflow_executions where status in ('running', 'waiting')`,
          sql`next_run_at`,
          sql`select next_run_at from workflow_executions where status in ('running', 'waiting')
              order by next_run_at limit 1`,
          now,
        )} as workflows`,
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
    emails: { transactional: toBacklog(row.transactional, now), campaign: toBacklog(row.campaign, now) },
    jobs,
    outbox: toBacklog(row.outbox, now),
    workflows: toBacklog(row.workflows, now),
  };
}

interface RawBacklog {
  due: number | string;
  scheduled: number | string;
  /** When the head became due; a head not due yet counts as 0 seconds. */
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
