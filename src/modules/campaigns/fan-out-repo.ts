import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import { type NewEmail, storeEmailsWith, wakeDelivery } from '../emails/service.js';
import { MARKETING_RECIPIENT } from '../segments/audience.js';
import type { CampaignRow } from './repo.js';
import type { RecipientReason } from './schemas.js';

/** The queries of the fan-out: the frozen audience, and one email per recipient. */

// ---------------------------------------------------------------------------------------------
// Fan-out: the frozen audience, and one email per recipient.

/**
 * Writes the recipient list once, from the audience condition compiled for this moment, and stores
 * its size (and, for a spread, each recipient's place in contact id order); marketing campaigns leave out contacts that are unsubscribed (`MARKETING_RECIPIENT`).
 * Returns false when the list was already written.
 */
export async function freezeAudience(ex: Executor, c: CampaignRow, audience: SQL, now: Date): Promise<boolean> {
  const subscribedOnly = c.type === 'MARKETING' ? sql` and ${MARKETING_RECIPIENT}` : sql``;
  // Only a spread needs each recipient's place, and numbering costs a sort of the whole audience.
  const position = c.spread_hours ? sql`(row_number() over (order by c.id) - 1)::int` : sql`null::int`;
  const r = await run(
    ex,
    sql`
    with listed as (
      insert into campaign_recipients (campaign_id, contact_id, position)
      select ${c.id}::uuid, c.id, ${position} from contacts c where c.project_id = ${c.project_id} and (${audience})${subscribedOnly}
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
  /** Its place in the audience, for a spread campaign (null otherwise). */
  position: number | null;
  /** The A/B test variant it gets in the test phase; null: the campaign's content, or the winner's. */
  variant: number | null;
}

/**
 * The next recipients without an email, in contact id order after `after`; `testPhase`: only those
 * the A/B test's first phase deals a variant.
 */
export async function pendingRecipients(
  ex: Executor,
  campaignId: string,
  after: string | null,
  limit: number,
  testPhase = false,
): Promise<PendingRecipient[]> {
  const r = await run<PendingRecipient>(
    ex,
    sql`
    select r.contact_id, c.email, c.subscribed, c.data, r.position, r.variant
    from campaign_recipients r left join contacts c on c.id = r.contact_id
    where r.campaign_id = ${campaignId} and r.email_id is null and r.outcome = 'queued'
      ${after ? sql`and r.contact_id > ${after}` : sql``} ${testPhase ? sql`and r.variant is not null` : sql``}
    order by r.contact_id
    limit ${limit}`,
  );
  return r.rows;
}

/** The class of the advisory locks that keep a campaign's fan-out pages and state changes apart. */
const PAGE_LOCK_CLASS = 727_003;

/**
 * Taken first in the transaction of a fan-out page (`shared`: pages go side by side) or of a pause
 * or cancel (alone): a state change waits for the pages being stored, and a page started after it
 * reads the new state. Not the campaign's row: delivery outcomes update its counters many times a
 * second, and a page holding that row for as long as it was being stored stalled them all.
 */
export async function excludeStateChanges(tx: Executor, campaignId: string, mode: 'page' | 'change'): Promise<void> {
  const lock = mode === 'page' ? sql`pg_advisory_xact_lock_shared` : sql`pg_advisory_xact_lock`;
  await run(tx, sql`select ${lock}(${PAGE_LOCK_CLASS}, hashtext(${campaignId}::uuid::text))`);
}

/**
 * Stores a page of a campaign's emails in one statement. Each email is stored only if this
 * statement is the one that gives its recipient an email id, so two workers racing over one page
 * can never make two emails for a recipient. Recipients whose contact is gone are skipped as
 * `deleted`. Skipped emails and those recipients are added to the campaign's skipped count.
 *
 * The campaign must be SENDING. Called in a transaction that holds `excludeStateChanges` for the
 * campaign, so a pause or a cancel waits for the page to commit and then finds its emails queued
 * (to park or skip), and a page that waited for one sees the new state and stores nothing.
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
        and exists (select 1 from campaigns where id = ${campaignId} and status = 'SENDING')
      returning r.email_id),
    dropped as (
      update campaign_recipients set outcome = 'skipped', reason = 'deleted'
      where campaign_id = ${campaignId} and email_id is null and outcome = 'queued'
        and contact_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(goneContactIds)}::jsonb))
        and exists (select 1 from campaigns where id = ${campaignId} and status = 'SENDING')
      returning 1)`,
    admit: sql`i.id in (select email_id from claimed)`,
    after: sql`
    counted as (
      update campaigns set skipped_count = skipped_count
        + (select count(*) from stored where status = 'skipped') + (select count(*) from dropped),
        last_send_at = greatest(last_send_at, (select max(i."notBefore") from input i
          where i.id in (select id from stored where status = 'queued')))
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

/**
 * How many of the campaign's emails are due for delivery, counted up to `cap`. Those waiting for
 * their time (a pacing slot, the next day's warm-up allowance, a retry) take no place in the queue
 * ahead of others, so they do not hold the fan-out back: a limited domain would otherwise stop the
 * other domains' emails from being made.
 */
export async function queuedBacklog(ex: Executor, campaignId: string, cap: number, now: Date): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`
    select count(*)::int as n from (select 1 from emails where campaign_id = ${campaignId} and status = 'queued'
      and next_attempt_at <= ${now} limit ${cap}) q`,
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
