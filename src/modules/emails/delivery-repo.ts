import { type SQL, sql } from 'drizzle-orm';
import { type Executor, ownerGone, run } from '../../platform/db/client.js';
import { storeEventsCte } from '../events/record.js';
import { PARKED_UNTIL } from './campaign-mail-repo.js';
import type { EmailRow } from './repo.js';
import type { StoredAttachment } from './schemas.js';

/**
 * The queries of delivery on `emails`: claiming due emails, pacing's slots, reading attachments, and
 * writing outcomes (the rest is in `repo.ts`).
 */

/** An email as delivery claims it: its body, and whether it has attachments to read. */
export type ClaimedEmail = Pick<
  EmailRow,
  | 'id'
  | 'project_id'
  | 'contact_id'
  | 'campaign_id'
  | 'type'
  | 'from_email'
  | 'from_name'
  | 'to_email'
  | 'to_name'
  | 'reply_to'
  | 'subject'
  | 'message_id'
  | 'attempts'
> & {
  html: string;
  text: string | null;
  headers: Record<string, string>;
  has_attachments: boolean;
  /** Whether it comes due at a slot that pacing gave it: it goes without taking another. */
  holds_slot: boolean;
  /** When it was made, which names the partition of `emails` that holds it. */
  created_at: Date;
};

/** An email as the statements that change it find it: its id, and when it was made, which names its partition. */
export interface EmailKey {
  id: string;
  madeAt: Date;
}

export const keyOf = (email: ClaimedEmail): EmailKey => ({ id: email.id, madeAt: email.created_at });

/** How many due emails one claim may take from each lane (see `claimDueEmails`). */
export interface ClaimLimits {
  /** Mail without a campaign: `/v1/send`, workflow steps, campaign tests. Taken first. */
  transactional: number;
  /** Campaign mail, also bounded by what the transactional lane left of `total`. */
  campaign: number;
  total: number;
}

/** The conditions a due email meets in either lane: its time has come and no live process holds it. */
const dueNow = (now: Date) => sql`status = 'queued' and next_attempt_at <= ${now}
  and (locked_until is null or (locked_until <= ${now} and (locked_by is null or ${ownerGone(sql`locked_by`)})))`;

/**
 * A condition on the email `e`: it was made between the first and the last `made` of the rows of
 * `source`. The partitions of `emails` outside that span are never read: a statement that reaches
 * its emails by an array of ids would otherwise probe the index on `id` of every month kept.
 */
const madeWithin = (source: SQL, made: SQL) =>
  sql`e.created_at >= (select min(${made}) from ${source}) and e.created_at <= (select max(${made}) from ${source})`;

/**
 * Claims due emails for the worker process `owner`: first mail without a campaign, then campaign
 * mail up to what that left of `limits.total`. Each lane is read in `next_attempt_at` order from
 * its own partial index (`emails_due_transactional`, `emails_due_campaign`), so a password reset is
 * found at once behind any number of due campaign messages, and neither lane is ever sorted. Other
 * workers skip the claimed emails while that process lives, however long it takes; once it is gone
 * (its session's advisory lock is no longer held) they are due again from `reclaimableAt` on.
 * Attachments are fetched one email at a time, so a batch never holds many of them in memory.
 */
export async function claimDueEmails(
  ex: Executor,
  now: Date,
  reclaimableAt: Date,
  limits: ClaimLimits,
  owner: bigint,
): Promise<ClaimedEmail[]> {
  const r = await run<ClaimedEmail>(
    ex,
    sql`
    with transactional as (
      select id, created_at from emails where campaign_id is null and ${dueNow(now)}
      order by next_attempt_at
      limit ${limits.transactional}
      for update skip locked),
    campaign as (
      select id, created_at from emails where campaign_id is not null and ${dueNow(now)}
      order by next_attempt_at
      limit greatest(0, least(${limits.campaign}::int, ${limits.total}::int - (select count(*) from transactional)::int))
      for update skip locked),
    claimed as (select * from transactional union all select * from campaign)
    update emails e set locked_until = ${reclaimableAt}, locked_by = ${String(owner)}::bigint, attempts = e.attempts + 1
    -- the ids as an array: the rows are reached by primary key whatever the plan thinks of the
    -- table's size (planned while it was small, a semi-join read the whole table on every claim)
    where e.id = any(array(select id from claimed)) and ${madeWithin(sql`claimed`, sql`created_at`)}
    returning e.id, e.created_at, e.project_id, e.contact_id, e.campaign_id, e.type, e.from_email, e.from_name, e.to_email, e.to_name,
      e.reply_to, e.subject, e.html, e.text, e.headers,
      (e.attachments is not null or e.attachment_set_id is not null) as has_attachments, e.message_id, e.attempts,
      coalesce(e.paced_at = e.next_attempt_at, false) as holds_slot`,
    { prepared: true },
  );
  return r.rows;
}

/**
 * Gives back the due emails that `owner` holds but has not in hand (`inHand`): those a claim took
 * whose answer never came (the connection dropped after the commit). Nobody else would take them
 * while their owner lives. Read through the due indexes, since a claim only takes due rows.
 */
export async function releaseUnheld(ex: Executor, owner: bigint, inHand: string[], now: Date): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`
    with released as (
      update emails set locked_by = null, locked_until = null, attempts = attempts - 1
      where id in (
          select id from emails where campaign_id is null and status = 'queued' and next_attempt_at <= ${now}
            and locked_by = ${String(owner)}::bigint
          union all
          select id from emails where campaign_id is not null and status = 'queued' and next_attempt_at <= ${now}
            and locked_by = ${String(owner)}::bigint)
        and id not in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(inHand)}::jsonb))
      returning 1)
    select count(*)::int as n from released`,
  );
  return r.rows[0]!.n;
}

/** The recipient domain of an email as SQL, as `domainOf` computes it and the index `emails_held_slots` keeps it. */
const RECIPIENT_DOMAIN = sql`lower(substring(to_email from '[^@]*$'))`;

/** The latest slot that a queued email of the project holds for this recipient domain, or null. */
export async function latestHeldSlot(ex: Executor, projectId: string, domain: string): Promise<Date | null> {
  const r = await run<{ slot: Date | null }>(
    ex,
    sql`select max(paced_at) as slot from emails
      where project_id = ${projectId} and ${RECIPIENT_DOMAIN} = ${domain} and status = 'queued'
        and paced_at = next_attempt_at`,
  );
  const slot = r.rows[0]?.slot;
  return slot ? new Date(slot) : null;
}

/** When a claimed email goes: at `at`, holding the pacing slot `slot` (or none); given back unless it goes now. */
export interface PacedEmail extends EmailKey {
  slot: Date | null;
  at: Date;
  release: boolean;
}

/**
 * Records pacing's decision on emails claimed by `owner`: each waits for `at`, holding `slot`.
 * Those to send later are given back, without counting the claim as an attempt, unless `keep`
 * holds for them (a cancelled or paused campaign's: they go through the outcomes that skip or park
 * them). Returns the ids given back.
 */
export async function holdSlots(ex: Executor, emails: PacedEmail[], owner: bigint, keep: SQL): Promise<string[]> {
  if (emails.length === 0) return [];
  const r = await run<{ id: string }>(
    ex,
    sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(emails)}::jsonb)
        as i(id uuid, "madeAt" timestamptz, slot timestamptz, at timestamptz, release boolean))
    update emails e set paced_at = i.slot, next_attempt_at = i.at,
      locked_by = case when i.release then null else e.locked_by end,
      locked_until = case when i.release then null else e.locked_until end,
      attempts = case when i.release then e.attempts - 1 else e.attempts end
    from input i
    -- by primary key, as in recordOutcomes
    where e.id = any((select array_agg(id) from input)::uuid[]) and e.id = i.id and e.created_at = i."madeAt"
      and ${madeWithin(sql`input`, sql`"madeAt"`)}
      and e.status = 'queued' and e.locked_by = ${String(owner)}::bigint and not (i.release and ${keep})
    returning case when i.release then e.id end as id`,
  );
  return r.rows.flatMap((row) => (row.id ? [row.id] : []));
}

/** Where an email's attachments are: its attachment set, or (stored before sets existed) its own row. */
export async function attachmentsRef(
  ex: Executor,
  id: string,
): Promise<{ setId: string } | { own: StoredAttachment[] } | null> {
  const r = await run<{ attachment_set_id: string | null; attachments: StoredAttachment[] | null }>(
    ex,
    sql`select attachment_set_id, attachments from emails where id = ${id}`,
  );
  const row = r.rows[0];
  if (row?.attachment_set_id) return { setId: row.attachment_set_id };
  return row?.attachments ? { own: row.attachments } : null;
}

/**
 * The attachments of a set, one row each, their fields as text: the base64 content (up to 13 MB)
 * arrives as a plain string instead of inside one JSON document parsed whole on the event loop.
 */
export async function attachmentSet(ex: Executor, setId: string): Promise<StoredAttachment[]> {
  const r = await run<{
    filename: string;
    content: string;
    content_type: string;
    content_id: string | null;
    disposition: 'attachment' | 'inline';
  }>(
    ex,
    sql`select a->>'filename' as filename, a->>'content' as content, a->>'contentType' as content_type,
          a->>'contentId' as content_id, a->>'disposition' as disposition
        from attachment_sets s cross join lateral jsonb_array_elements(s.attachments) with ordinality as e(a, n)
        where s.id = ${setId} order by e.n`,
  );
  return r.rows.map((row) => ({
    filename: row.filename,
    content: row.content,
    contentType: row.content_type,
    ...(row.content_id ? { contentId: row.content_id } : {}),
    disposition: row.disposition,
  }));
}

/**
 * What delivery outcomes change beyond the emails: the campaigns of campaign emails. Given by the
 * campaigns module and passed in where the worker is assembled, so emails do not depend on it.
 */
export interface OutcomeEffects {
  /** A condition on the email `e`: its retry is skipped instead of queued, with `skipReason`. */
  skipRetryWhen: SQL;
  skipReason: string;
  /** A condition on the email `e`: an email left queued (a retry, or given back unsent) is parked (see `PARKED_UNTIL`). */
  parkWhen: SQL;
  /**
   * CTEs counting the final outcomes among the rows of the CTE named `source` (`id`, `campaign_id`,
   * `status`, and `rejected`: true for a message the relay refused for good).
   */
  countFinal(source: string): SQL;
  /**
   * The statement's last select, after the CTEs of `countFinal`: a row (`FollowUp`) for each
   * campaign whose emails reached a final state, with what `afterCommit` needs to judge it.
   */
  followUp: SQL;
  /**
   * Runs once outcomes are committed, with the latest row of each campaign named since the last
   * run: it decides from them alone which campaigns need a statement of their own.
   */
  afterCommit(ex: Executor, campaigns: FollowUp[], now: Date): Promise<void>;
}

/** A campaign as the outcome statement left it; its other columns are the campaigns module's. */
export interface FollowUp {
  id: string;
}

export type Outcome = EmailKey &
  (
    | { status: 'sent'; response: string }
    /** `rejected`: the relay refused it for good (a 5xx answer), rather than given up after retries or unsendable. */
    | { status: 'failed'; error: string; rejected?: boolean }
    | { status: 'retry'; error: string; nextAttemptAt: Date }
    /**
     * Given back unsent, due again now or from `until`: the worker lost its session before sending,
     * or the recipient domain has as many messages in flight as it may. No attempt is counted.
     */
    | { status: 'released'; until?: Date }
  );

/**
 * Writes a batch of delivery outcomes in one statement, with an `email.sent` or `email.failed`
 * event for each final one (and its outbox entry where `subscribed`, EventBus `wanted`, holds for
 * it), and the campaign counters they change. A retry of a cancelled campaign's email is skipped instead. Only rows still queued and still held by
 * `owner` change, so a late duplicate outcome, or one of a worker whose email was taken over, is a
 * no-op. Returns the campaigns whose emails reached a final state (which may now be complete, or
 * over a guardrail), as the statement left them.
 */
export async function recordOutcomes(
  ex: Executor,
  outcomes: Outcome[],
  now: Date,
  owner: bigint,
  effects: OutcomeEffects,
  subscribed: SQL,
): Promise<FollowUp[]> {
  if (outcomes.length === 0) return [];
  // Run for every few messages: planned once per connection.
  const r = await run<FollowUp>(ex, outcomeStatement(outcomes, now, owner, effects, subscribed), { prepared: true });
  return r.rows;
}

/** The statement of `recordOutcomes`. */
function outcomeStatement(
  outcomes: Outcome[],
  now: Date,
  owner: bigint,
  effects: OutcomeEffects,
  subscribed: SQL,
): SQL {
  const rows = outcomes.map((o) => ({
    id: o.id,
    made: o.madeAt,
    status: o.status === 'retry' || o.status === 'released' ? 'queued' : o.status,
    released: o.status === 'released',
    rejected: o.status === 'failed' && o.rejected === true,
    error: 'error' in o ? o.error.slice(0, 2000) : null,
    response: o.status === 'sent' ? o.response.slice(0, 1000) : null,
    next:
      o.status === 'retry'
        ? o.nextAttemptAt.toISOString()
        : o.status === 'released'
          ? (o.until?.toISOString() ?? null)
          : null,
  }));
  return sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(id uuid, made timestamptz, status text, released boolean, rejected boolean, error text, response text,
          next timestamptz)),
    changed as (
      update emails e set
        status = case when i.status = 'queued' and ${effects.skipRetryWhen} then 'skipped' else i.status end,
        locked_until = null,
        locked_by = null,
        attempts = case when i.released then e.attempts - 1 else e.attempts end,
        smtp_response = coalesce(i.response, e.smtp_response),
        next_attempt_at = case when i.status = 'queued' and ${effects.parkWhen} then ${PARKED_UNTIL}::timestamptz
          else coalesce(i.next, e.next_attempt_at) end,
        last_error = case when i.status = 'queued' and ${effects.skipRetryWhen} then ${effects.skipReason}
          when i.released then e.last_error else i.error end,
        sent_at = case when i.status = 'sent' then ${now}::timestamptz else e.sent_at end,
        failed_at = case when i.status = 'failed' then ${now}::timestamptz else e.failed_at end,
        updated_at = ${now}
      from input i
      -- the ids as an array: the rows are reached by primary key, never through the queue's index
      where e.id = any((select array_agg(id) from input)::uuid[]) and e.id = i.id and e.created_at = i.made
        and ${madeWithin(sql`input`, sql`made`)} and e.status = 'queued'
        and e.locked_by = ${String(owner)}::bigint
      returning e.id, e.project_id, e.contact_id, e.campaign_id, e.status, i.error, i.rejected),
    final as (select * from changed where status in ('sent', 'failed', 'skipped')),
    ${storeEventsCte(
      'stored',
      sql`select project_id, contact_id, 'email.' || status,
        jsonb_strip_nulls(jsonb_build_object('emailId', id, 'campaignId', campaign_id,
          'reason', case when status = 'failed' then error end)),
        ${now}::timestamptz
      from final where contact_id is not null and status <> 'skipped'`,
      now,
      // Most of these events have no subscriber: no outbox entry, and no dispatch, for those.
      { outboxWhen: subscribed },
    )},
    ${effects.countFinal('final')}
    ${effects.followUp}`;
}
