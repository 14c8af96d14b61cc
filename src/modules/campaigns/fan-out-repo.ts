import { type SQL, sql } from 'drizzle-orm';
import type { ZoneFields } from '../../domain/campaign-timing.js';
import { type Executor, run } from '../../platform/db/client.js';
import { type NewEmail, storeEmailsWith, wakeDelivery } from '../emails/service.js';
import { MARKETING_RECIPIENT } from '../segments/audience.js';
import type { CampaignRow } from './repo.js';
import type { RecipientReason } from './schemas.js';

/** The queries of the fan-out: the frozen audience, and one email per recipient. */

// ---------------------------------------------------------------------------------------------
// Fan-out: the frozen audience, and one email per recipient.

/**
 * How the freezing statements reckon each recipient's send time (`send_at`): an expression over the
 * contact (`c`) and its place in the audience (`place`, 0-based in contact id order) of `total`, and a
 * join it may need; null for a campaign sent all at once.
 */
export interface SendAtSql {
  join: SQL;
  sendAt: (place: SQL, total: number) => SQL;
  /** Whether the time depends on the place: only then is the audience counted first. */
  byPlace: boolean;
}

interface FrozenSlice {
  n: number;
  last_id: string | null;
  last_at: Date | null;
}

/** Contacts written per statement when freezing: each statement stays well under the statement timeout. */
const FREEZE_SLICE = 50_000;

/**
 * Writes the recipient list once, from the audience condition compiled for this moment, with each
 * recipient's send time when the campaign is timed, and stores its size and its last send time;
 * marketing campaigns leave out contacts that are unsubscribed (`MARKETING_RECIPIENT`). In slices in
 * contact id order, in the caller's transaction (which holds the campaign): a contact that joins or
 * changes while they are written is taken as its slice finds it. Returns false when the list was
 * already written.
 */
export async function freezeAudience(
  ex: Executor,
  c: CampaignRow,
  audience: SQL,
  now: Date,
  timing: SendAtSql | null,
): Promise<boolean> {
  const matching = sql`c.project_id = ${c.project_id} and (${audience})${
    c.type === 'MARKETING' ? sql` and ${MARKETING_RECIPIENT}` : sql``
  }`;
  const total = timing?.byPlace
    ? (await run<{ n: number }>(ex, sql`select count(*)::int as n from contacts c where ${matching}`)).rows[0]!.n
    : 0;
  let listed = 0;
  let lastSendAt: Date | null = null;
  let after: string | null = null;
  for (;;) {
    const place = sql`(${listed}::bigint + row_number() over (order by c.id) - 1)`;
    const r: { rows: FrozenSlice[] } = await run<FrozenSlice>(
      ex,
      sql`
      with slice as (
        select c.id from contacts c where ${matching} ${after ? sql`and c.id > ${after}` : sql``}
        order by c.id limit ${FREEZE_SLICE}),
      listed as (
        insert into campaign_recipients (campaign_id, contact_id, send_at)
        select ${c.id}::uuid, c.id, ${timing ? timing.sendAt(place, total) : sql`null::timestamptz`}
        from slice join contacts c on c.id = slice.id ${timing ? timing.join : sql``}
        on conflict do nothing
        returning contact_id, send_at)
      select (select count(*) from slice)::int as n, (select max(id::text) from slice) as last_id,
        (select max(send_at) from listed) as last_at`,
    );
    const row: FrozenSlice = r.rows[0]!;
    if (row.n === 0) break;
    listed += row.n;
    after = row.last_id;
    if (row.last_at && (!lastSendAt || new Date(row.last_at) > lastSendAt)) lastSendAt = new Date(row.last_at);
    if (row.n < FREEZE_SLICE) break;
  }
  const frozen = await run(
    ex,
    sql`
    update campaigns set total_recipients = ${listed}, last_send_at = ${lastSendAt}, frozen_at = ${now}, updated_at = ${now}
    where id = ${c.id} and frozen_at is null
    returning id`,
  );
  return frozen.rows.length > 0;
}

/** A contact's field as a string, as `contactZone` reads it (any other JSON type names nothing). */
const zoneField = (name: 'timezone' | 'country' | 'locale') =>
  sql.raw(`case when jsonb_typeof(c.data->'${name}') = 'string' then c.data->>'${name}' end`);

/** The fields a contact's zone comes from, as one value to group and join by. */
export const zoneFieldsKey = sql`jsonb_build_array(${zoneField('timezone')}, ${zoneField('country')}, ${zoneField('locale')})::text`;

/** Contacts sharing the fields their zone comes from, with those fields' `key` (`zoneFieldsKey`). */
export interface ZoneGroup extends ZoneFields {
  key: string;
}

/** The audience (the recipients once frozen, else whoever matches now) grouped by the fields its zones come from. */
export async function zoneGroups(ex: Executor, c: CampaignRow, audience: SQL): Promise<ZoneGroup[]> {
  const from = c.frozen_at
    ? sql`campaign_recipients r join contacts c on c.id = r.contact_id where r.campaign_id = ${c.id}`
    : sql`contacts c where c.project_id = ${c.project_id} and (${audience})${
        c.type === 'MARKETING' ? sql` and ${MARKETING_RECIPIENT}` : sql``
      }`;
  const r = await run<ZoneGroup>(
    ex,
    sql`
    select ${zoneFieldsKey} as key, ${zoneField('timezone')} as timezone, ${zoneField('country')} as country,
      ${zoneField('locale')} as locale, count(*)::int as contacts
    from ${from}
    group by 1, 2, 3, 4`,
  );
  return r.rows;
}

export interface PendingRecipient {
  contact_id: string;
  /** Null when the contact was deleted after the audience was frozen. */
  email: string | null;
  subscribed: boolean | null;
  data: Record<string, unknown> | null;
  /** When its email is due, for a timed campaign (null otherwise). */
  send_at: Date | null;
  /** The A/B test variant it gets in the test phase; null: the campaign's content, or the winner's. */
  variant: number | null;
}

/** Where a walk of the pending recipients is: after this recipient (and, timed, this send time). */
export interface PendingCursor {
  contactId: string;
  sendAt: Date | null;
}

/**
 * The next recipients without an email after `after`: in contact id order, or for a timed campaign
 * (`dueBy` set) in the order they are due, those due by then; `testPhase`: only those the A/B
 * test's first phase deals a variant.
 */
export async function pendingRecipients(
  ex: Executor,
  campaignId: string,
  after: PendingCursor | null,
  limit: number,
  options: { testPhase?: boolean; dueBy?: Date } = {},
): Promise<PendingRecipient[]> {
  const { testPhase = false, dueBy } = options;
  const position = dueBy
    ? sql`and r.send_at <= ${dueBy} ${after ? sql`and (r.send_at, r.contact_id) > (${after.sendAt}, ${after.contactId})` : sql``}`
    : after
      ? sql`and r.contact_id > ${after.contactId}`
      : sql``;
  const r = await run<PendingRecipient>(
    ex,
    sql`
    select r.contact_id, c.email, c.subscribed, c.data, r.send_at, r.variant
    from campaign_recipients r left join contacts c on c.id = r.contact_id
    where r.campaign_id = ${campaignId} and r.email_id is null and r.outcome = 'queued'
      ${position} ${testPhase ? sql`and r.variant is not null` : sql``}
    order by ${dueBy ? sql`r.send_at, r.contact_id` : sql`r.contact_id`}
    limit ${limit}`,
  );
  return r.rows;
}

/** When the first recipient still without an email is due, for a timed campaign; null when none is left. */
export async function nextSendAt(ex: Executor, campaignId: string): Promise<Date | null> {
  const r = await run<{ at: Date | null }>(
    ex,
    sql`
    select send_at as at from campaign_recipients
    where campaign_id = ${campaignId} and email_id is null and send_at is not null and outcome = 'queued'
    order by send_at limit 1`,
  );
  return r.rows[0]?.at ?? null;
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
