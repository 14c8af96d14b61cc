import { type SQL, sql } from 'drizzle-orm';
import { type FilterCondition, filterReferences } from '../../domain/filters/index.js';
import { likePattern } from '../../domain/formats.js';
import { type Executor, run } from '../../platform/db/client.js';
import { listOrder, type NamedListQuery } from '../../platform/db/list-order.js';
import { type NewEmail, storeEmailsWith, wakeDelivery } from '../emails/service.js';
import type { EmailContentRow, TemplateValues } from '../templates/service.js';
import type { AudienceType, CampaignStatus } from './schemas.js';

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
 * SCHEDULED or SENDING → CANCELLED, dropping the recipients not yet given an email and counting
 * them and `skippedEmails` (the queued emails skipped before, in the same transaction) as skipped,
 * so `pending` drains to zero. Null when the campaign is not cancellable.
 */
export async function cancelCampaign(
  ex: Executor,
  projectId: string,
  id: string,
  skippedEmails: number,
  now: Date,
): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    with unsent as (
      delete from campaign_recipients where campaign_id = ${id} and email_id is null
        and exists (select 1 from campaigns where id = ${id} and project_id = ${projectId}
          and status in ('SCHEDULED', 'SENDING'))
      returning 1)
    update campaigns set status = 'CANCELLED', updated_at = ${now},
      skipped_count = skipped_count + ${skippedEmails} + (select count(*) from unsent)
    where project_id = ${projectId} and id = ${id} and status in ('SCHEDULED', 'SENDING')
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** Of these campaigns, those cancelled. */
export async function cancelledAmong(ex: Executor, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const r = await run<{ id: string }>(
    ex,
    sql`
    select id from campaigns
    where id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
      and status = 'CANCELLED'`,
  );
  return r.rows.map((row) => row.id);
}

/** Adds emails skipped after the fact to their campaigns' skipped counts. */
export async function addSkipped(ex: Executor, counts: Map<string, number>): Promise<void> {
  if (counts.size === 0) return;
  await run(
    ex,
    sql`
    update campaigns c set skipped_count = c.skipped_count + s.n
    from (select key::uuid as id, value::int as n
      from jsonb_each_text(${JSON.stringify(Object.fromEntries(counts))}::jsonb)) s
    where c.id = s.id`,
  );
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
    where r.campaign_id = ${campaignId} and r.email_id is null ${after ? sql`and r.contact_id > ${after}` : sql``}
    order by r.contact_id
    limit ${limit}`,
  );
  return r.rows;
}

/**
 * Stores a page of a campaign's emails in one statement. Each email is stored only if this
 * statement is the one that gives its recipient an email id, so two workers racing over one page
 * can never make two emails for a recipient. Recipients whose contact is gone are dropped. Skipped
 * emails and dropped recipients are added to the campaign's skipped count.
 */
export async function storeCampaignEmails(
  ex: Executor,
  campaignId: string,
  emails: NewEmail[],
  goneContactIds: string[],
  now: Date,
  wake: boolean,
): Promise<number> {
  const [row] = await storeEmailsWith<{ queued: number }>(ex, emails, now, {
    before: sql`
    claimed as (
      update campaign_recipients r set email_id = i.id
      from input i
      where r.campaign_id = ${campaignId} and r.contact_id = i."contactId" and r.email_id is null
        and exists (select 1 from campaigns where id = ${campaignId} and status = 'SENDING')
      returning r.email_id),
    dropped as (
      delete from campaign_recipients
      where campaign_id = ${campaignId} and email_id is null
        and contact_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(goneContactIds)}::jsonb))
      returning 1)`,
    admit: sql`i.id in (select email_id from claimed)`,
    after: sql`
    counted as (
      update campaigns set skipped_count = skipped_count
        + (select count(*) from stored where status = 'skipped') + (select count(*) from dropped)
      where id = ${campaignId})`,
    result: sql`(select count(*) from stored where status = 'queued')::int as queued, ${wakeDelivery(wake)}`,
  });
  return row!.queued;
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
