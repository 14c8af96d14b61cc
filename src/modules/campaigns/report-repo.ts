import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';

/**
 * The queries of a campaign's report and live progress. Each reads a few index entries, never the
 * campaign's whole list of emails: the rate reads the messages sent in the last minutes
 * (`emails_campaign_sent`), the deferred ones only those pacing holds (`emails_campaign_paced`),
 * engagement and links their own small tables, kept up to date by tracking (counters.ts).
 */

export interface RecentSending {
  last_minute: number;
  /** Messages accepted since `since`. */
  recent: number;
  deferred: number;
  deferred_until: Date | string | null;
}

export async function recentSending(ex: Executor, campaignId: string, since: Date, now: Date): Promise<RecentSending> {
  const minuteAgo = new Date(now.getTime() - 60_000);
  const r = await run<RecentSending>(
    ex,
    sql`
    select
      (select count(*) from emails where campaign_id = ${campaignId} and sent_at > ${minuteAgo})::int as last_minute,
      (select count(*) from emails where campaign_id = ${campaignId} and sent_at > ${since})::int as recent,
      count(*)::int as deferred, max(next_attempt_at) as deferred_until
    from emails
    where campaign_id = ${campaignId} and status = 'queued' and paced_at = next_attempt_at
      and next_attempt_at > ${now}`,
  );
  return r.rows[0]!;
}

export async function engagementSpan(ex: Executor, campaignId: string): Promise<{ first: Date | string | null }> {
  const r = await run<{ first: Date | string | null }>(
    ex,
    sql`select min(minute) as first from campaign_engagement where campaign_id = ${campaignId}`,
  );
  return r.rows[0]!;
}

export async function engagement(
  ex: Executor,
  campaignId: string,
  interval: 'minute' | 'hour' | 'day',
): Promise<{ at: Date | string; opens: number; clicks: number }[]> {
  const r = await run<{ at: Date | string; opens: number; clicks: number }>(
    ex,
    sql`
    select date_trunc(${interval}, minute, 'UTC') as at, sum(opens)::int as opens, sum(clicks)::int as clicks
    from campaign_engagement where campaign_id = ${campaignId}
    group by 1 order by 1`,
  );
  return r.rows;
}

export interface LinkRow {
  url: string;
  clicks: number;
  unique_clicks: number;
  last_clicked_at: Date | string;
}

export async function links(
  ex: Executor,
  campaignId: string,
  window: { limit: number; offset: number },
): Promise<LinkRow[]> {
  const r = await run<LinkRow>(
    ex,
    sql`
    select url, clicks, unique_clicks, last_clicked_at from campaign_links where campaign_id = ${campaignId}
    order by clicks desc, id limit ${window.limit} offset ${window.offset}`,
  );
  return r.rows;
}

export async function countLinks(ex: Executor, campaignId: string): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from campaign_links where campaign_id = ${campaignId}`,
  );
  return r.rows[0]!.n;
}
