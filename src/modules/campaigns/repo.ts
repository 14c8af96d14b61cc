import { type SQL, sql } from 'drizzle-orm';
import type { AbTest, AbWinner } from '../../domain/ab-test.js';
import type { GuardCounts, PauseReason } from '../../domain/campaign-guardrails.js';
import type { LocalTime } from '../../domain/campaign-timing.js';
import { type FilterCondition, filterReferences } from '../../domain/filters/index.js';
import { likePattern } from '../../domain/formats.js';
import { type Executor, run } from '../../platform/db/client.js';
import { idIn, listOrder, type NamedListQuery } from '../../platform/db/list-order.js';
import type { EmailContentRow, TemplateValues } from '../templates/service.js';
import type { AudienceType, CampaignStatus } from './schemas.js';

/**
 * The queries on `campaigns`: creating, reading and the state changes (the guardrails' in
 * `guardrail-repo.ts`, the recipients' in `recipient-repo.ts`, the fan-out's in `fan-out-repo.ts`,
 * the counters in `counters.ts`).
 */

export interface CampaignRow extends EmailContentRow {
  status: CampaignStatus;
  audience_type: AudienceType;
  audience_condition: FilterCondition | null;
  segment_id: string | null;
  topic_id: string | null;
  scheduled_for: Date | null;
  /** When its emails go (domain/campaign-timing): at a time of day in each recipient's zone, or spread. */
  local_time: LocalTime | null;
  spread_hours: number | null;
  /** Its A/B test (domain/ab-test), and the variant that won it once decided. */
  ab_test: AbTest | null;
  ab_winner: AbWinner | null;
  /** When the test phase had all its emails. */
  ab_tested_at: Date | null;
  /** The latest time one of its emails waits for (local time or spread); null when none waits. */
  last_send_at: Date | null;
  total_recipients: number;
  sent_count: number;
  delivered_count: number;
  opened_count: number;
  clicked_count: number;
  bounced_count: number;
  complained_count: number;
  skipped_count: number;
  unsubscribed_count: number;
  /** Messages the relay refused for good, and accepted ones reported later as hard bounces (the guardrails). */
  rejected_count: number;
  hard_bounced_count: number;
  /** The guardrails' counts when sending last (re)started: a resume or a resend judges a fresh sample. */
  guard_baseline: GuardCounts | null;
  paused_at: Date | null;
  paused_reason: PauseReason | null;
  frozen_at: Date | null;
  fanned_out_at: Date | null;
  sent_at: Date | null;
}

export interface CampaignValues extends TemplateValues {
  bodySource: Record<string, unknown> | null;
  audienceType: AudienceType;
  segmentId: string | null;
  audienceCondition: FilterCondition | null;
  topicId: string | null;
  localTime: LocalTime | null;
  spreadHours: number | null;
  abTest: AbTest | null;
}

const json = (c: object | null) => (c === null ? null : JSON.stringify(c));

export async function insertCampaign(
  ex: Executor,
  projectId: string,
  v: CampaignValues,
  now: Date,
): Promise<CampaignRow> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    insert into campaigns (project_id, name, description, subject, body, body_source, from_email, from_name, reply_to,
      type, track_opens, track_clicks, audience_type, segment_id, audience_condition, local_time, spread_hours,
      ab_test, topic_id, created_at, updated_at)
    values (${projectId}, ${v.name}, ${v.description}, ${v.subject}, ${v.body}, ${json(v.bodySource)}::jsonb, ${v.from},
      ${v.fromName}, ${v.replyTo}, ${v.type}, ${v.trackOpens}, ${v.trackClicks}, ${v.audienceType}, ${v.segmentId}, ${json(v.audienceCondition)}::jsonb,
      ${json(v.localTime)}::jsonb, ${v.spreadHours}, ${json(v.abTest)}::jsonb, ${v.topicId}, ${now}, ${now})
    returning *`,
  );
  return r.rows[0]!;
}

/** A campaign of the project, or null; `lock` holds it until the transaction ends. */
export async function findCampaign(
  ex: Executor,
  projectId: string,
  id: string,
  lock = false,
): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    select * from campaigns where project_id = ${projectId} and id = ${id} ${lock ? sql`for update` : sql``}`,
  );
  return r.rows[0] ?? null;
}

/** A campaign by id alone, for jobs. */
export async function campaignById(ex: Executor, id: string, lock = false): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(ex, sql`select * from campaigns where id = ${id} ${lock ? sql`for update` : sql``}`);
  return r.rows[0] ?? null;
}

export async function campaignStatus(ex: Executor, id: string): Promise<CampaignStatus | null> {
  const r = await run<{ status: CampaignStatus }>(ex, sql`select status from campaigns where id = ${id}`);
  return r.rows[0]?.status ?? null;
}

export async function replaceCampaign(
  ex: Executor,
  projectId: string,
  id: string,
  v: CampaignValues,
  now: Date,
): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns set name = ${v.name}, description = ${v.description}, subject = ${v.subject}, body = ${v.body},
      body_source = ${json(v.bodySource)}::jsonb, from_email = ${v.from}, from_name = ${v.fromName}, reply_to = ${v.replyTo}, type = ${v.type},
      track_opens = ${v.trackOpens}, track_clicks = ${v.trackClicks},
      audience_type = ${v.audienceType}, segment_id = ${v.segmentId},
      audience_condition = ${json(v.audienceCondition)}::jsonb, local_time = ${json(v.localTime)}::jsonb,
      spread_hours = ${v.spreadHours}, ab_test = ${json(v.abTest)}::jsonb, topic_id = ${v.topicId}, updated_at = ${now}
    where project_id = ${projectId} and id = ${id}
    returning *`,
  );
  return r.rows[0] ?? null;
}

export async function deleteCampaign(ex: Executor, projectId: string, id: string): Promise<void> {
  await run(ex, sql`delete from campaigns where project_id = ${projectId} and id = ${id}`);
}

export interface CampaignListQuery extends NamedListQuery {
  status?: CampaignStatus;
  /** Only these campaigns: how a page that mentions campaigns names them. */
  ids?: string[];
}

function listFilter(q: CampaignListQuery): SQL {
  const parts: SQL[] = [sql`project_id = ${q.projectId}`];
  if (q.status) parts.push(sql`status = ${q.status}`);
  if (q.ids) parts.push(idIn(q.ids));
  if (q.search) {
    const pattern = likePattern(q.search);
    parts.push(sql`(name ilike ${pattern} or subject ilike ${pattern} or from_email ilike ${pattern})`);
  }
  return sql.join(parts, sql` and `);
}

export async function listCampaigns(ex: Executor, q: CampaignListQuery): Promise<CampaignRow[]> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    select * from campaigns where ${listFilter(q)}
    ${listOrder(q.sort, q.dir)}
    limit ${q.limit} offset ${q.offset}`,
  );
  return r.rows;
}

export async function countCampaigns(ex: Executor, q: CampaignListQuery): Promise<number> {
  const r = await run<{ n: number }>(ex, sql`select count(*)::int as n from campaigns where ${listFilter(q)}`);
  return r.rows[0]!.n;
}

/** Scheduled or sending campaigns of the project whose audience is, or names, the segment. */
export async function activeCampaignsUsingSegment(
  ex: Executor,
  projectId: string,
  segmentId: string,
): Promise<{ id: string; name: string }[]> {
  const r = await run<Pick<CampaignRow, 'id' | 'name' | 'segment_id' | 'audience_condition'>>(
    ex,
    sql`
    select id, name, segment_id, audience_condition from campaigns
    where project_id = ${projectId} and status in ('SCHEDULED', 'SENDING')`,
  );
  return r.rows
    .filter(
      (c) =>
        c.segment_id === segmentId ||
        (c.audience_condition && filterReferences(c.audience_condition).segments.includes(segmentId)),
    )
    .map((c) => ({ id: c.id, name: c.name }));
}

/** Campaigns of the project whose filtered audience names a field or event, for the usage endpoints. */
export async function campaignConditions(
  ex: Executor,
  projectId: string,
): Promise<{ id: string; name: string; condition: FilterCondition }[]> {
  const r = await run<{ id: string; name: string; condition: FilterCondition }>(
    ex,
    sql`
    select id, name, audience_condition as condition from campaigns
    where project_id = ${projectId} and audience_condition is not null order by created_at desc`,
  );
  return r.rows;
}

// ---------------------------------------------------------------------------------------------
// State changes. Each is conditional on the state it leaves, so a stale caller changes nothing.

/** DRAFT or SCHEDULED → SENDING now; null when the campaign was in neither state. */
export async function markSending(ex: Executor, projectId: string, id: string, now: Date): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns set status = 'SENDING', scheduled_for = null, sent_at = ${now}, updated_at = ${now}
    where project_id = ${projectId} and id = ${id} and status in ('DRAFT', 'SCHEDULED')
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** DRAFT or SCHEDULED → SCHEDULED for `at`. */
export async function markScheduled(
  ex: Executor,
  projectId: string,
  id: string,
  at: Date,
  now: Date,
): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns set status = 'SCHEDULED', scheduled_for = ${at}, updated_at = ${now}
    where project_id = ${projectId} and id = ${id} and status in ('DRAFT', 'SCHEDULED')
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** SCHEDULED → DRAFT: its start job then finds nothing to start. Null when it was not scheduled. */
export async function markUnscheduled(
  ex: Executor,
  projectId: string,
  id: string,
  now: Date,
): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns set status = 'DRAFT', scheduled_for = null, updated_at = ${now}
    where project_id = ${projectId} and id = ${id} and status = 'SCHEDULED'
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** SCHEDULED for exactly `at` → SENDING: a schedule that was changed or cancelled since does nothing. */
export async function startScheduled(ex: Executor, id: string, at: Date, now: Date): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns set status = 'SENDING', sent_at = ${now}, updated_at = ${now}
    where id = ${id} and status = 'SCHEDULED' and scheduled_for = ${at}
    returning *`,
  );
  return r.rows[0] ?? null;
}

/**
 * SCHEDULED, SENDING or PAUSED → CANCELLED. The recipients not yet given an email, and those whose
 * email was skipped earlier in the same transaction, become skipped as `cancelled` and are counted,
 * so `pending` drains to zero. Null when the campaign is not cancellable.
 */
export async function cancelCampaign(
  ex: Executor,
  projectId: string,
  id: string,
  now: Date,
): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    with unsent as (
      update campaign_recipients r set outcome = 'skipped', reason = 'cancelled'
      where r.campaign_id = ${id} and r.outcome = 'queued'
        and (r.email_id is null or exists (select 1 from emails e where e.id = r.email_id and e.status = 'skipped'))
        and exists (select 1 from campaigns where id = ${id} and project_id = ${projectId}
          and status in ('SCHEDULED', 'SENDING', 'PAUSED'))
      returning 1)
    update campaigns set status = 'CANCELLED', paused_at = null, paused_reason = null, updated_at = ${now},
      skipped_count = skipped_count + (select count(*) from unsent)
    where project_id = ${projectId} and id = ${id} and status in ('SCHEDULED', 'SENDING', 'PAUSED')
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** Of these campaigns, those in `status`. */
export async function campaignsInStatus(ex: Executor, ids: string[], status: CampaignStatus): Promise<string[]> {
  if (ids.length === 0) return [];
  const r = await run<{ id: string }>(
    ex,
    sql`
    select id from campaigns
    where id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
      and status = ${status}`,
  );
  return r.rows.map((row) => row.id);
}

/**
 * The recipients of these cancelled campaigns whose email was skipped after the fact (a retry
 * let go since the cancel) become skipped as `cancelled`, and are counted.
 */
export async function markCancelledRecipients(ex: Executor, campaignIds: string[]): Promise<void> {
  if (campaignIds.length === 0) return;
  await run(
    ex,
    sql`
    with marked as (
      update campaign_recipients r set outcome = 'skipped', reason = 'cancelled'
      from emails e
      where r.campaign_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(campaignIds)}::jsonb))
        and r.outcome = 'queued' and e.id = r.email_id and e.status = 'skipped'
      returning r.campaign_id)
    update campaigns c set skipped_count = c.skipped_count + m.n
    from (select campaign_id, count(*)::int as n from marked group by campaign_id) m
    where c.id = m.campaign_id`,
  );
}
