import { type SQL, sql } from 'drizzle-orm';
import { TOPICS_CHANGED_EVENT } from '../../domain/event-names.js';
import { type Executor, run } from '../../platform/db/client.js';
import type { CampaignCounters, CampaignRow } from '../campaigns/service.js';

/** What the analytics read of a campaign: never its body. */
export type CampaignSummaryRow = Pick<CampaignRow, 'id' | 'name' | 'status' | 'sent_at'> & CampaignCounters;
const SUMMARY = sql`id, name, status, sent_at, total_recipients, sent_count, delivered_count, opened_count,
  clicked_count, bounced_count, complained_count`;

/** Every query of the activity feed and analytics lives here. */

export interface ActivityRow {
  id: string;
  name: string;
  data: Record<string, unknown>;
  created_at: Date;
  contact_id: string;
  email: string;
  email_id: string | null;
  campaign_id: string | null;
  subject: string | null;
}

export interface ActivityListQuery {
  projectId: string;
  types: readonly string[];
  contactId?: string;
  campaignId?: string;
  since?: Date;
  until?: Date;
  /** The `[createdAt, id]` of the last row of the previous page. */
  after?: [string, string];
  limit: number;
}

const textArray = (values: readonly string[]) => sql`${`{${values.map((v) => `"${v}"`).join(',')}}`}::text[]`;

/**
 * Newest first, through `events_project_created` read backwards; a type filter is checked on the
 * way. Email events name their email by id, which gives the subject and the campaign.
 */
export async function listActivity(ex: Executor, q: ActivityListQuery): Promise<ActivityRow[]> {
  const where = activityFilter(q);
  if (q.after) where.push(sql`(e.created_at, e.id) < (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)`);
  const r = await run<ActivityRow>(
    ex,
    sql`
    select e.id, e.name, e.data, e.created_at, e.contact_id, c.email, m.id as email_id, m.campaign_id, m.subject
    from events e
    join contacts c on c.id = e.contact_id
    left join emails m on m.id = (e.data->>'emailId')::uuid
    where ${sql.join(where, sql` and `)}
    order by e.created_at desc, e.id desc
    limit ${q.limit}`,
  );
  return r.rows;
}

function activityFilter(q: Omit<ActivityListQuery, 'after' | 'limit'>): SQL[] {
  const where: SQL[] = [sql`e.project_id = ${q.projectId}`, sql`e.name = any(${textArray(q.types)})`];
  if (q.contactId) where.push(sql`e.contact_id = ${q.contactId}`);
  if (q.campaignId) where.push(sql`e.data->>'campaignId' = ${q.campaignId}`);
  if (q.since) where.push(sql`e.created_at >= ${q.since}`);
  if (q.until) where.push(sql`e.created_at < ${q.until}`);
  return where;
}

export async function countActivity(ex: Executor, q: Omit<ActivityListQuery, 'after' | 'limit'>): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from events e where ${sql.join(activityFilter(q), sql` and `)}`,
  );
  return r.rows[0]!.n;
}

/**
 * All events of these names: those dispatched, from the daily counts, and those still waiting in the
 * outbox (or parked there), counted directly. A few milliseconds however many events there are.
 */
export async function totalByNames(ex: Executor, projectId: string, names: readonly string[]): Promise<number> {
  const r = await run<{ n: string }>(
    ex,
    sql`
    select coalesce((select sum(count) from event_daily_counts
        where project_id = ${projectId} and name = any(${textArray(names)})), 0)
      + (select count(*) from event_outbox o join events e on e.id = o.event_id
         where e.project_id = ${projectId} and e.name = any(${textArray(names)})) as n`,
  );
  return Number(r.rows[0]!.n);
}

/** Events of these names per name over whole UTC days, from the daily counts. */
export async function countsByName(
  ex: Executor,
  projectId: string,
  names: readonly string[],
  since: string,
  until: string,
): Promise<Map<string, number>> {
  const r = await run<{ name: string; n: string }>(
    ex,
    sql`
    select name, sum(count) as n from event_daily_counts
    where project_id = ${projectId} and name = any(${textArray(names)})
      and day between ${since}::date and ${until}::date
    group by name`,
  );
  return new Map(r.rows.map((row) => [row.name, Number(row.n)]));
}

/** Per UTC day and name, zero days left out. */
export async function dailyCounts(
  ex: Executor,
  projectId: string,
  names: readonly string[],
  since: string,
  until: string,
) {
  const r = await run<{ day: string; name: string; count: number }>(
    ex,
    sql`
    select to_char(day, 'YYYY-MM-DD') as day, name, count from event_daily_counts
    where project_id = ${projectId} and name = any(${textArray(names)})
      and day between ${since}::date and ${until}::date`,
  );
  return r.rows;
}

/** The most frequent event names over whole UTC days, leaving out the service's own events. */
export async function topEventNames(ex: Executor, projectId: string, since: string, until: string, limit: number) {
  const r = await run<{ name: string; n: string }>(
    ex,
    sql`
    select name, sum(count) as n from event_daily_counts
    where project_id = ${projectId} and day between ${since}::date and ${until}::date
      and name not like 'email.%' and name not in ('contact.subscribed', 'contact.unsubscribed', ${TOPICS_CHANGED_EVENT})
      and name !~ '^segment\\..+\\.(entry|exit)$'
    group by name having sum(count) > 0 order by n desc, name limit ${limit}`,
  );
  return r.rows.map((row) => ({ name: row.name, count: Number(row.n) }));
}

/** Activity types that have happened in the project. */
export async function presentNames(ex: Executor, projectId: string, names: readonly string[]): Promise<string[]> {
  const r = await run<{ name: string }>(
    ex,
    sql`
    select distinct name from event_daily_counts where project_id = ${projectId} and name = any(${textArray(names)})
      and count > 0 order by name`,
  );
  return r.rows.map((row) => row.name);
}

/** Events of these names since `since`, through `events_project_name_created` (one range per name). */
export async function countSince(
  ex: Executor,
  projectId: string,
  names: readonly string[],
  since: Date,
): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`
    select count(*)::int as n from events where project_id = ${projectId} and name = any(${textArray(names)})
      and created_at >= ${since}`,
  );
  return r.rows[0]!.n;
}

export async function scheduledCampaigns(ex: Executor, projectId: string, limit: number) {
  const r = await run<{ id: string; name: string; scheduled_for: Date }>(
    ex,
    sql`
    select id, name, scheduled_for from campaigns
    where project_id = ${projectId} and status = 'SCHEDULED' order by scheduled_for, id limit ${limit}`,
  );
  return r.rows;
}

export async function activeExecutions(ex: Executor, projectId: string) {
  const r = await run<{
    workflow_id: string;
    name: string;
    running: number;
    waiting: number;
    next_run_at: Date | null;
  }>(
    ex,
    sql`
    select x.workflow_id, w.name, count(*) filter (where x.status = 'running')::int as running,
      count(*) filter (where x.status = 'waiting')::int as waiting, min(x.next_run_at) as next_run_at
    from workflow_executions x join workflows w on w.id = x.workflow_id
    where x.project_id = ${projectId} and x.status in ('running', 'waiting')
    group by x.workflow_id, w.name order by min(x.next_run_at) nulls last`,
  );
  return r.rows;
}

const ORDER: Record<string, SQL> = {
  sent: sql`sent_count desc`,
  delivered: sql`delivered_count desc`,
  opened: sql`opened_count desc`,
  clicked: sql`clicked_count desc`,
  bounced: sql`bounced_count desc`,
  openRate: sql`(case when delivered_count = 0 then 0 else opened_count::float / delivered_count end) desc`,
  clickRate: sql`(case when delivered_count = 0 then 0 else clicked_count::float / delivered_count end) desc`,
};

/** Campaigns that have started sending, best first by `metric`. */
export async function topCampaigns(
  ex: Executor,
  projectId: string,
  metric: string,
  limit: number,
): Promise<CampaignSummaryRow[]> {
  const r = await run<CampaignSummaryRow>(
    ex,
    sql`
    select ${SUMMARY} from campaigns where project_id = ${projectId} and sent_at is not null
    order by ${ORDER[metric] ?? ORDER.opened!}, sent_at desc, id limit ${limit}`,
  );
  return r.rows;
}

/** Campaigns that started sending in the range, newest first. */
export async function campaignsSentBetween(
  ex: Executor,
  projectId: string,
  since: Date,
  until: Date,
): Promise<CampaignSummaryRow[]> {
  const r = await run<CampaignSummaryRow>(
    ex,
    sql`
    select ${SUMMARY} from campaigns where project_id = ${projectId} and sent_at >= ${since} and sent_at < ${until}
    order by sent_at desc, id limit 1000`,
  );
  return r.rows;
}
