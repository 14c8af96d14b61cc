import { sql } from 'drizzle-orm';
import { type Executor, ownerGone, run } from '../../platform/db/client.js';
import { wakeDelivery } from './repo.js';

/**
 * The queries on a campaign's queued emails: skipping them on a cancel, parking them while the
 * campaign is paused, and the marketing mail a contact has had, for the cap (the rest is in `repo.ts`).
 */

/**
 * Skips the queued emails of these campaigns that no worker holds (those in flight finish);
 * returns how many per campaign.
 */
export async function skipQueuedCampaignEmails(
  ex: Executor,
  campaignIds: string[],
  reason: string,
  now: Date,
): Promise<Map<string, number>> {
  if (campaignIds.length === 0) return new Map();
  const r = await run<{ campaign_id: string; n: number }>(
    ex,
    sql`
    with skipped as (
      update emails set status = 'skipped', last_error = ${reason}, updated_at = ${now}
      where campaign_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(campaignIds)}::jsonb))
        and status = 'queued' and (locked_until is null or locked_until <= ${now})
      returning campaign_id)
    select campaign_id, count(*)::int as n from skipped group by campaign_id`,
  );
  return new Map(r.rows.map((row) => [row.campaign_id, row.n]));
}

/**
 * When a parked email is due: never, until its campaign is resumed. Parked emails stay `queued` but
 * sort after every due one in the claim's index (`emails_due_campaign`), so a claim never reads
 * them, however many there are; a condition in the claim would step over all of them every time.
 */
export const PARKED_UNTIL = new Date('9999-01-01T00:00:00.000Z');

export const isParked = (nextAttemptAt: Date | string): boolean =>
  new Date(nextAttemptAt).getTime() >= PARKED_UNTIL.getTime();

/**
 * Parks the queued emails of these campaigns that no live worker holds. Those in a live worker's
 * hands are left to it (it parks one it gives back or must retry, see `OutcomeEffects.parkWhen`),
 * so this never waits for a row that a worker's outcome statement holds; those of a worker that
 * died are parked, or another worker would take them over and send them.
 */
export async function parkCampaignEmails(ex: Executor, campaignIds: string[]): Promise<void> {
  if (campaignIds.length === 0) return;
  await run(
    ex,
    sql`
    update emails set next_attempt_at = ${PARKED_UNTIL}
    where campaign_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(campaignIds)}::jsonb))
      and status = 'queued' and next_attempt_at < ${PARKED_UNTIL}
      and (locked_by is null or ${ownerGone(sql`locked_by`)})`,
  );
}

/**
 * Makes a campaign's parked emails due now (those with a later `not_before`, at it) and wakes the
 * delivery engines; returns how many.
 */
export async function unparkCampaignEmails(ex: Executor, campaignId: string, now: Date): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`
    with due as (
      update emails set next_attempt_at = greatest(${now}, not_before)
      where campaign_id = ${campaignId} and status = 'queued' and next_attempt_at >= ${PARKED_UNTIL}
      returning 1)
    select count(*)::int as n, ${wakeDelivery(true)} from due`,
  );
  return r.rows[0]!.n;
}

/**
 * How many marketing emails each of these contacts has been sent, or has waiting, since `since`
 * (failed and skipped ones do not count), through the contact index.
 */
export async function recentMarketingCounts(
  ex: Executor,
  projectId: string,
  contactIds: string[],
  since: Date,
): Promise<Map<string, number>> {
  if (contactIds.length === 0) return new Map();
  const r = await run<{ contact_id: string; n: number }>(
    ex,
    sql`
    select contact_id, count(*)::int as n from emails
    where contact_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(contactIds)}::jsonb))
      and project_id = ${projectId} and type = 'MARKETING' and status in ('queued', 'sent', 'bounced')
      and created_at >= ${since}
    group by contact_id`,
  );
  return new Map(r.rows.map((row) => [row.contact_id, row.n]));
}

/** Campaigns that have queued emails no worker holds. */
export async function campaignsWithIdleQueuedEmails(ex: Executor, now: Date): Promise<string[]> {
  const r = await run<{ campaign_id: string }>(
    ex,
    sql`
    select distinct campaign_id from emails
    where campaign_id is not null and status = 'queued' and (locked_until is null or locked_until <= ${now})`,
  );
  return r.rows.map((row) => row.campaign_id);
}
