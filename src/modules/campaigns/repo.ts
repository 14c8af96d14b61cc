import { type SQL, sql } from 'drizzle-orm';
import type { GuardCounts, PauseReason } from '../../domain/campaign-guardrails.js';
import { type FilterCondition, filterReferences } from '../../domain/filters/index.js';
import { likePattern } from '../../domain/formats.js';
import { type Executor, run } from '../../platform/db/client.js';
import { listOrder, type NamedListQuery } from '../../platform/db/list-order.js';
import { type NewEmail, storeEmailsWith, wakeDelivery } from '../emails/service.js';
import type { EmailContentRow, TemplateValues } from '../templates/service.js';
import type { AudienceType, CampaignStatus, RecipientOutcome, RecipientReason } from './schemas.js';

/** Every query on `campaigns` and `campaign_recipients` lives here (the counters in counters.ts). */

export interface CampaignRow extends EmailContentRow {
  status: CampaignStatus;
  audience_type: AudienceType;
  audience_condition: FilterCondition | null;
  segment_id: string | null;
  scheduled_for: Date | null;
  total_recipients: number;
  sent_count: number;
  delivered_count: number;
  opened_count: number;
  clicked_count: number;
  bounced_count: number;
  complained_count: number;
  skipped_count: number;
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
  audienceType: AudienceType;
  segmentId: string | null;
  audienceCondition: FilterCondition | null;
}

const conditionJson = (c: FilterCondition | null) => (c === null ? null : JSON.stringify(c));

export async function insertCampaign(
  ex: Executor,
  projectId: string,
  v: CampaignValues,
  now: Date,
): Promise<CampaignRow> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    insert into campaigns (project_id, name, description, subject, body, from_email, from_name, reply_to, type,
      audience_type, segment_id, audience_condition, created_at, updated_at)
    values (${projectId}, ${v.name}, ${v.description}, ${v.subject}, ${v.body}, ${v.from}, ${v.fromName}, ${v.replyTo},
      ${v.type}, ${v.audienceType}, ${v.segmentId}, ${conditionJson(v.audienceCondition)}::jsonb, ${now}, ${now})
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
      from_email = ${v.from}, from_name = ${v.fromName}, reply_to = ${v.replyTo}, type = ${v.type},
      audience_type = ${v.audienceType}, segment_id = ${v.segmentId},
      audience_condition = ${conditionJson(v.audienceCondition)}::jsonb, updated_at = ${now}
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
}

function listFilter(q: CampaignListQuery): SQL {
  const parts: SQL[] = [sql`project_id = ${q.projectId}`];
  if (q.status) parts.push(sql`status = ${q.status}`);
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

// ---------------------------------------------------------------------------------------------
// Pausing and resuming (guardrails.ts, service.ts).

/** A condition on the campaign `c`: it has emails waiting, or recipients not yet given one. */
const LEFT_TO_SEND = sql`(c.fanned_out_at is null
  or exists (select 1 from emails e where e.campaign_id = c.id and e.status = 'queued'))`;

/**
 * SENDING → PAUSED for `reason`. A guardrail (`onlyWithWorkLeft`) leaves alone a campaign with
 * nothing left to send, which completes instead. Null when the campaign was not sending.
 */
export async function markPaused(
  ex: Executor,
  id: string,
  reason: PauseReason,
  now: Date,
  onlyWithWorkLeft: boolean,
): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns c set status = 'PAUSED', paused_at = ${now}, paused_reason = ${reason}, updated_at = ${now}
    where c.id = ${id} and c.status = 'SENDING' ${onlyWithWorkLeft ? sql`and ${LEFT_TO_SEND}` : sql``}
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** The guardrails' counts of a campaign now, as stored for a new baseline. */
const COUNTS_NOW = sql`jsonb_build_object('sent', sent_count, 'rejected', rejected_count,
  'hardBounced', hard_bounced_count, 'complained', complained_count)`;

/** PAUSED → SENDING, with the counts of this moment as the guardrails' new baseline. */
export async function markResumed(ex: Executor, projectId: string, id: string, now: Date): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns set status = 'SENDING', paused_at = null, paused_reason = null, updated_at = ${now},
      guard_baseline = ${COUNTS_NOW}
    where project_id = ${projectId} and id = ${id} and status = 'PAUSED'
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** A sending campaign with what its guardrails judge, and its project's own thresholds (null: the defaults). */
export interface GuardrailRow
  extends Pick<
    CampaignRow,
    | 'id'
    | 'project_id'
    | 'name'
    | 'sent_count'
    | 'rejected_count'
    | 'hard_bounced_count'
    | 'complained_count'
    | 'guard_baseline'
  > {
  max_complaint_rate: number | null;
  max_bounce_rate: number | null;
  min_sample: number | null;
}

/** Of these campaigns, those sending, with their guardrails' counts and thresholds. */
export async function sendingWithGuardrails(ex: Executor, ids: string[]): Promise<GuardrailRow[]> {
  if (ids.length === 0) return [];
  const r = await run<GuardrailRow>(
    ex,
    sql`
    select c.id, c.project_id, c.name, c.sent_count, c.rejected_count, c.hard_bounced_count, c.complained_count,
      c.guard_baseline, s.max_complaint_rate, s.max_bounce_rate, s.min_sample
    from campaigns c left join campaign_settings s on s.project_id = c.project_id
    where c.id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
      and c.status = 'SENDING'`,
    { prepared: true },
  );
  return r.rows;
}

// ---------------------------------------------------------------------------------------------
// Settings: a project's guardrail thresholds and marketing cap (settings.ts).

export interface SettingsRow {
  max_complaint_rate: number | null;
  max_bounce_rate: number | null;
  min_sample: number | null;
  marketing_cap_count: number | null;
  marketing_cap_days: number | null;
}

export async function findSettings(ex: Executor, projectId: string): Promise<SettingsRow | null> {
  const r = await run<SettingsRow>(
    ex,
    sql`
    select max_complaint_rate, max_bounce_rate, min_sample, marketing_cap_count, marketing_cap_days
    from campaign_settings where project_id = ${projectId}`,
  );
  return r.rows[0] ?? null;
}

export async function saveSettings(ex: Executor, projectId: string, v: SettingsRow, now: Date): Promise<void> {
  await run(
    ex,
    sql`
    insert into campaign_settings (project_id, max_complaint_rate, max_bounce_rate, min_sample, marketing_cap_count,
      marketing_cap_days, updated_at)
    values (${projectId}, ${v.max_complaint_rate}, ${v.max_bounce_rate}, ${v.min_sample}, ${v.marketing_cap_count},
      ${v.marketing_cap_days}, ${now})
    on conflict (project_id) do update set max_complaint_rate = excluded.max_complaint_rate,
      max_bounce_rate = excluded.max_bounce_rate, min_sample = excluded.min_sample,
      marketing_cap_count = excluded.marketing_cap_count, marketing_cap_days = excluded.marketing_cap_days,
      updated_at = excluded.updated_at`,
  );
}

// ---------------------------------------------------------------------------------------------
// Reconciliation: each recipient's outcome (recipients.ts).

export interface RecipientRow {
  contact_id: string;
  outcome: RecipientOutcome;
  reason: RecipientReason | null;
  email_id: string | null;
  email: string | null;
  detail: string | null;
  sent_at: Date | null;
}

export interface RecipientQuery {
  outcome?: RecipientOutcome;
  reason?: RecipientReason;
  /** The contact id of the last recipient of the previous page. */
  after?: string;
  limit: number;
}

function recipientFilter(campaignId: string, q: Omit<RecipientQuery, 'after' | 'limit'>): SQL {
  const parts = [sql`r.campaign_id = ${campaignId}`];
  if (q.outcome) parts.push(sql`r.outcome = ${q.outcome}`);
  if (q.reason) parts.push(sql`r.reason = ${q.reason}`);
  return sql.join(parts, sql` and `);
}

/**
 * A page of the recipients in contact id order, `limit + 1` rows (the extra one tells that more
 * follow). Filtered by outcome, it is read in order from the outcome index; each row's email and
 * contact are reached by primary key.
 */
export async function listRecipients(ex: Executor, campaignId: string, q: RecipientQuery): Promise<RecipientRow[]> {
  const r = await run<RecipientRow>(
    ex,
    sql`
    select r.contact_id, r.outcome, r.reason, r.email_id, coalesce(e.to_email, c.email) as email,
      case when r.outcome in ('failed', 'bounced', 'skipped') then e.last_error end as detail, e.sent_at
    from campaign_recipients r
      left join emails e on e.id = r.email_id
      left join contacts c on c.id = r.contact_id
    where ${recipientFilter(campaignId, q)} ${q.after ? sql`and r.contact_id > ${q.after}` : sql``}
    order by r.contact_id
    limit ${q.limit + 1}`,
  );
  return r.rows;
}

export async function countRecipients(
  ex: Executor,
  campaignId: string,
  q: Omit<RecipientQuery, 'after' | 'limit'>,
): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from campaign_recipients r where ${recipientFilter(campaignId, q)}`,
  );
  return r.rows[0]!.n;
}

/**
 * What a resend sends to again: recipients whose email never reached a receiving server and who
 * may still be mailed. `failed`: the relay refused it or it was given up after the retries;
 * skipped as `capped` or `unrenderable`: the cap may allow it now, the contact's data may render now.
 * The fan-out checks subscription, suppression and the cap again for each of them.
 */
const RESENDABLE = sql`(r.outcome = 'failed' or (r.outcome = 'skipped' and r.reason in ('capped', 'unrenderable')))`;

/**
 * SENT → SENDING for a resend, in one statement: the resendable recipients lose their email (the old
 * one stays, with its campaign) and wait again, their old outcomes leave the counters, the fan-out
 * starts over and the guardrails judge a fresh sample. Null when the campaign is not SENT (the
 * caller has it locked) or nobody is resendable.
 */
export async function reopenForResend(
  ex: Executor,
  id: string,
  now: Date,
): Promise<{ campaign: CampaignRow; resent: number } | null> {
  const r = await run<CampaignRow & { resent: number }>(
    ex,
    sql`
    with chosen as (
      select r.contact_id, r.outcome from campaign_recipients r
      where r.campaign_id = ${id} and ${RESENDABLE}
        and exists (select 1 from campaigns where id = ${id} and status = 'SENT')
      for update),
    reopened as (
      update campaign_recipients r set outcome = 'queued', reason = null, email_id = null
      from chosen ch where r.campaign_id = ${id} and r.contact_id = ch.contact_id
      returning 1),
    moved as (
      select count(*) filter (where outcome = 'failed')::int as failed,
        count(*) filter (where outcome = 'skipped')::int as skipped, count(*)::int as n from chosen)
    update campaigns set status = 'SENDING', fanned_out_at = null, paused_at = null, paused_reason = null,
      updated_at = ${now}, guard_baseline = ${COUNTS_NOW},
      bounced_count = bounced_count - (select failed from moved),
      skipped_count = skipped_count - (select skipped from moved)
    where id = ${id} and status = 'SENT' and (select n from moved) > 0
    returning *, (select n from moved) as resent`,
  );
  const row = r.rows[0];
  if (!row) return null;
  const { resent, ...campaign } = row;
  return { campaign: campaign as CampaignRow, resent };
}

// ---------------------------------------------------------------------------------------------
// Fan-out: the frozen audience, and one email per recipient.

/**
 * Writes the recipient list once, from the audience condition compiled for this moment, and stores
 * its size; marketing campaigns leave out contacts that are unsubscribed (snoozed ones included).
 * Returns false when the list was already written.
 */
export async function freezeAudience(ex: Executor, c: CampaignRow, audience: SQL, now: Date): Promise<boolean> {
  const subscribedOnly = c.type === 'MARKETING' ? sql` and c.subscribed` : sql``;
  const r = await run(
    ex,
    sql`
    with listed as (
      insert into campaign_recipients (campaign_id, contact_id)
      select ${c.id}::uuid, c.id from contacts c where c.project_id = ${c.project_id} and (${audience})${subscribedOnly}
      on conflict do nothing
      returning 1)
    update campaigns set total_recipients = (select count(*) from listed), frozen_at = ${now}, updated_at = ${now}
    where id = ${c.id} and frozen_at is null
    returning id`,
  );
  return r.rows.length > 0;
}

export interface PendingRecipient {
  contact_id: string;
  /** Null when the contact was deleted after the audience was frozen. */
  email: string | null;
  subscribed: boolean | null;
  data: Record<string, unknown> | null;
}

/** The next recipients without an email, in contact id order after `after`. */
export async function pendingRecipients(
  ex: Executor,
  campaignId: string,
  after: string | null,
  limit: number,
): Promise<PendingRecipient[]> {
  const r = await run<PendingRecipient>(
    ex,
    sql`
    select r.contact_id, c.email, c.subscribed, c.data
    from campaign_recipients r left join contacts c on c.id = r.contact_id
    where r.campaign_id = ${campaignId} and r.email_id is null and r.outcome = 'queued'
      ${after ? sql`and r.contact_id > ${after}` : sql``}
    order by r.contact_id
    limit ${limit}`,
  );
  return r.rows;
}

/**
 * Stores a page of a campaign's emails in one statement. Each email is stored only if this
 * statement is the one that gives its recipient an email id, so two workers racing over one page
 * can never make two emails for a recipient. Recipients whose contact is gone are skipped as
 * `deleted`. Skipped emails and those recipients are added to the campaign's skipped count.
 *
 * The campaign's row is locked first and must be SENDING: a pause or a cancel waits for the page
 * to commit and then finds its emails queued (to park or skip), and a page that waited for them
 * sees the new state and stores nothing.
 */
export async function storeCampaignEmails(
  ex: Executor,
  campaignId: string,
  emails: NewEmail[],
  goneContactIds: string[],
  now: Date,
  wake: boolean,
): Promise<{ queued: number; skipped: number }> {
  const [row] = await storeEmailsWith<{ queued: number; skipped: number }>(ex, emails, now, {
    before: sql`
    claimed as (
      update campaign_recipients r set email_id = i.id
      from input i
      where r.campaign_id = ${campaignId} and r.contact_id = i."contactId" and r.email_id is null
        and r.outcome = 'queued'
        and exists (select 1 from campaigns where id = ${campaignId} and status = 'SENDING' for no key update)
      returning r.email_id),
    dropped as (
      update campaign_recipients set outcome = 'skipped', reason = 'deleted'
      where campaign_id = ${campaignId} and email_id is null and outcome = 'queued'
        and contact_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(goneContactIds)}::jsonb))
        and exists (select 1 from campaigns where id = ${campaignId} and status = 'SENDING' for no key update)
      returning 1)`,
    admit: sql`i.id in (select email_id from claimed)`,
    after: sql`
    counted as (
      update campaigns set skipped_count = skipped_count
        + (select count(*) from stored where status = 'skipped') + (select count(*) from dropped)
      where id = ${campaignId})`,
    result: sql`(select count(*) from stored where status = 'queued')::int as queued,
      (select count(*) from stored where status = 'skipped')::int as skipped, ${wakeDelivery(wake)}`,
  });
  return { queued: row!.queued, skipped: row!.skipped };
}

/**
 * The recipients of a page's skipped emails become skipped with the reason: the one the fan-out
 * knew (`reasons`, by email id), else `suppressed` (the store skips suppressed addresses itself).
 * In the page's transaction, after `storeCampaignEmails`.
 */
export async function markSkippedRecipients(
  ex: Executor,
  campaignId: string,
  emailIds: string[],
  reasons: { id: string; reason: RecipientReason }[],
): Promise<void> {
  if (emailIds.length === 0) return;
  await run(
    ex,
    sql`
    update campaign_recipients r set outcome = 'skipped', reason = coalesce(m.reason, 'suppressed')
    from emails e left join jsonb_to_recordset(${JSON.stringify(reasons)}::jsonb) as m(id uuid, reason text)
      on m.id = e.id
    where e.id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(emailIds)}::jsonb))
      and e.status = 'skipped' and r.email_id = e.id and r.campaign_id = ${campaignId} and r.outcome = 'queued'`,
  );
}

/** How many of the campaign's emails wait for delivery, counted up to `cap`. */
export async function queuedBacklog(ex: Executor, campaignId: string, cap: number): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`
    select count(*)::int as n from (select 1 from emails where campaign_id = ${campaignId} and status = 'queued'
      limit ${cap}) q`,
  );
  return r.rows[0]!.n;
}

export async function markFannedOut(ex: Executor, id: string, now: Date): Promise<void> {
  await run(ex, sql`update campaigns set fanned_out_at = ${now} where id = ${id} and fanned_out_at is null`);
}

/** Campaigns in SENDING, for the rescue job. */
export async function sendingCampaigns(ex: Executor): Promise<Pick<CampaignRow, 'id' | 'fanned_out_at'>[]> {
  const r = await run<Pick<CampaignRow, 'id' | 'fanned_out_at'>>(
    ex,
    sql`select id, fanned_out_at from campaigns where status = 'SENDING'`,
  );
  return r.rows;
}
