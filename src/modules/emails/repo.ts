import { type SQL, sql } from 'drizzle-orm';
import { type Executor, ownerGone, run } from '../../platform/db/client.js';
import { storeEventsCte } from '../events/record.js';
import type { BounceType, EmailStatus, EmailType, StoredAttachment } from './schemas.js';

/** Every query on `emails` lives here. */

export const EMAILS_CHANNEL = 'emails';

export interface NewEmail {
  id: string;
  projectId: string;
  /** Null only for a campaign's test email to an address that is no contact. */
  contactId: string | null;
  templateId: string | null;
  campaignId: string | null;
  type: EmailType;
  status: Extract<EmailStatus, 'queued' | 'skipped'>;
  fromEmail: string;
  fromName: string | null;
  toEmail: string;
  toName: string | null;
  replyTo: string | null;
  subject: string;
  /** Empty for a message with a text part only. */
  html: string;
  /** The plain-text part as submitted over SMTP; null (or absent): made from the HTML at delivery. */
  text?: string | null;
  headers: Record<string, string>;
  /** The request's attachments, stored once (`insertAttachmentSet`) for all of its emails. */
  attachmentSetId: string | null;
  messageId: string;
  lastError: string | null;
}

/**
 * Stores the attachments of one request once; its emails refer to them by `id`. The content goes
 * as one parameter, however many recipients share it.
 */
export async function insertAttachmentSet(
  ex: Executor,
  set: { id: string; projectId: string; attachments: StoredAttachment[] },
  now: Date,
): Promise<void> {
  await run(
    ex,
    sql`insert into attachment_sets (id, project_id, attachments, created_at)
    values (${set.id}, ${set.projectId}, ${JSON.stringify(set.attachments)}::jsonb, ${now})`,
  );
}

/** The CTE `input`: the emails as rows of a statement that stores them. */
function emailInputCte(emails: NewEmail[]): SQL {
  return sql`input as (
    select * from jsonb_to_recordset(${JSON.stringify(emails)}::jsonb) as r(
      "id" uuid, "projectId" uuid, "contactId" uuid, "templateId" uuid, "campaignId" uuid, "type" text, "status" text,
      "fromEmail" text, "fromName" text, "toEmail" text, "toName" text, "replyTo" text, "subject" text, "html" text,
      "text" text, "headers" jsonb, "attachmentSetId" uuid, "messageId" text, "lastError" text))`;
}

export const SUPPRESSED_REASON = 'Not sent: the address is on the suppression list';

/**
 * The CTE `stored`: inserts the rows of `input` (aliased `i`) that `admit` lets through, returning
 * `id` and `status`. An email to an address on its project's suppression list is stored as skipped.
 */
function emailStoreCte(now: Date, admit: SQL = sql`true`): SQL {
  return sql`stored as (
    insert into emails (id, project_id, contact_id, template_id, campaign_id, type, status, from_email, from_name,
      to_email, to_name, reply_to, subject, html, text, headers, attachment_set_id, message_id, last_error,
      next_attempt_at, created_at, updated_at)
    select i."id", i."projectId", i."contactId", i."templateId", i."campaignId", i."type",
      case when s.email is null then i."status" else 'skipped' end,
      i."fromEmail", i."fromName", i."toEmail", i."toName", i."replyTo", i."subject", i."html", i."text", i."headers",
      i."attachmentSetId", i."messageId",
      case when s.email is null or i."status" = 'skipped' then i."lastError" else ${SUPPRESSED_REASON} end,
      ${now}, ${now}, ${now}
    from input i left join suppressions s on s.project_id = i."projectId" and s.email = lower(i."toEmail")
    where ${admit}
    returning id, status)`;
}

/** NOTIFY the delivery engines, as a select-list item of a statement that stores emails. */
export const wakeDelivery = (wake: boolean): SQL => (wake ? sql`pg_notify(${EMAILS_CHANNEL}, '')` : sql`null`);

/** What a caller writes in the statement that stores its emails: see `storeEmailsWith`. */
export interface StoreJoin {
  /** CTEs run before the insert; they may read the emails as the CTE `input`. */
  before?: SQL;
  /** Which rows of `input` (aliased `i`) are stored; all by default. */
  admit?: SQL;
  /** CTEs run with the insert; they may read `stored` (`id`, `status`). */
  after?: SQL;
  /** The statement's select list and what follows it. */
  result: SQL;
}

/**
 * Stores emails in one statement with the caller's own writes, so both happen or neither (a
 * campaign's recipients claim their emails, a workflow execution moves on with its email). An
 * email to an address on its project's suppression list is stored as skipped.
 */
export async function storeEmailsWith<T extends Record<string, unknown>>(
  ex: Executor,
  emails: NewEmail[],
  now: Date,
  join: StoreJoin,
): Promise<T[]> {
  const ctes = [emailInputCte(emails), join.before, emailStoreCte(now, join.admit), join.after].filter(
    (c): c is SQL => !!c,
  );
  const r = await run<T>(ex, sql`with ${sql.join(ctes, sql`, `)} select ${join.result}`);
  return r.rows;
}

/**
 * Stores accepted emails; with `wake`, also wakes the delivery engines once the transaction
 * commits (NOTIFY serializes commits in PostgreSQL, so callers send it sparingly).
 */
export async function insertEmails(ex: Executor, emails: NewEmail[], now: Date, wake: boolean): Promise<void> {
  if (emails.length === 0) return;
  await storeEmailsWith(ex, emails, now, { result: sql`count(*), ${wakeDelivery(wake)} from stored` });
}

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
};

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
      select id from emails where campaign_id is null and ${dueNow(now)}
      order by next_attempt_at
      limit ${limits.transactional}
      for update skip locked),
    campaign as (
      select id from emails where campaign_id is not null and ${dueNow(now)}
      order by next_attempt_at
      limit greatest(0, least(${limits.campaign}::int, ${limits.total}::int - (select count(*) from transactional)::int))
      for update skip locked)
    update emails e set locked_until = ${reclaimableAt}, locked_by = ${String(owner)}::bigint, attempts = e.attempts + 1
    where e.id in (select id from transactional union all select id from campaign)
    returning e.id, e.project_id, e.contact_id, e.campaign_id, e.type, e.from_email, e.from_name, e.to_email, e.to_name,
      e.reply_to, e.subject, e.html, e.text, e.headers,
      (e.attachments is not null or e.attachment_set_id is not null) as has_attachments, e.message_id, e.attempts,
      coalesce(e.paced_at = e.next_attempt_at, false) as holds_slot`,
    { prepared: true },
  );
  return r.rows;
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
export interface PacedEmail {
  id: string;
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
    update emails e set paced_at = i.slot, next_attempt_at = i.at,
      locked_by = case when i.release then null else e.locked_by end,
      locked_until = case when i.release then null else e.locked_until end,
      attempts = case when i.release then e.attempts - 1 else e.attempts end
    from jsonb_to_recordset(${JSON.stringify(emails)}::jsonb) as i(id uuid, slot timestamptz, at timestamptz, release boolean)
    where e.id = i.id and e.status = 'queued' and e.locked_by = ${String(owner)}::bigint and not (i.release and ${keep})
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
  /** Runs once outcomes are committed, for the campaigns whose emails reached a final state. */
  afterCommit(ex: Executor, campaignIds: string[], now: Date): Promise<void>;
}

export type Outcome =
  | { id: string; status: 'sent'; response: string }
  /** `rejected`: the relay refused it for good (a 5xx answer), rather than given up after retries or unsendable. */
  | { id: string; status: 'failed'; error: string; rejected?: boolean }
  | { id: string; status: 'retry'; error: string; nextAttemptAt: Date }
  /**
   * Given back unsent, due again now or from `until`: the worker lost its session before sending,
   * or the recipient domain has as many messages in flight as it may. No attempt is counted.
   */
  | { id: string; status: 'released'; until?: Date };

/**
 * Writes a batch of delivery outcomes in one statement, with an `email.sent` or `email.failed`
 * event (and its outbox entry) for each final one, and the campaign counters they change. A retry
 * of a cancelled campaign's email is skipped instead. Only rows still queued and still held by
 * `owner` change, so a late duplicate outcome, or one of a worker whose email was taken over, is a
 * no-op. Returns the campaigns whose emails reached a final state, which may now be complete.
 */
export async function recordOutcomes(
  ex: Executor,
  outcomes: Outcome[],
  now: Date,
  owner: bigint,
  effects: OutcomeEffects,
): Promise<string[]> {
  if (outcomes.length === 0) return [];
  const rows = outcomes.map((o) => ({
    id: o.id,
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
  const r = await run<{ campaign_id: string }>(
    ex,
    sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(id uuid, status text, released boolean, rejected boolean, error text, response text, next timestamptz)),
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
      where e.id = any((select array_agg(id) from input)::uuid[]) and e.id = i.id and e.status = 'queued'
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
    )},
    ${effects.countFinal('final')}
    select distinct campaign_id from final where campaign_id is not null`,
    // Run for every few messages: planned once per connection.
    { prepared: true },
  );
  return r.rows.map((row) => row.campaign_id);
}

export interface EmailRow {
  id: string;
  project_id: string;
  contact_id: string | null;
  template_id: string | null;
  campaign_id: string | null;
  type: EmailType;
  status: EmailStatus;
  from_email: string;
  from_name: string | null;
  to_email: string;
  to_name: string | null;
  reply_to: string | null;
  subject: string;
  message_id: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  smtp_response: string | null;
  sent_at: string | null;
  failed_at: string | null;
  opened_at: string | null;
  clicked_at: string | null;
  bounced_at: string | null;
  bounce_type: BounceType | null;
  complained_at: string | null;
  open_count: number;
  click_count: number;
  created_at: string;
  updated_at: string;
}

const EMAIL_COLUMNS = sql`id, project_id, contact_id, template_id, campaign_id, type, status, from_email, from_name,
  to_email, to_name, reply_to, subject, message_id, attempts, next_attempt_at, last_error, smtp_response, sent_at,
  failed_at, opened_at, clicked_at, bounced_at, bounce_type, complained_at, open_count, click_count, created_at,
  updated_at`;

export async function findEmail(ex: Executor, projectId: string, id: string): Promise<EmailRow | null> {
  const r = await run<EmailRow>(
    ex,
    sql`select ${EMAIL_COLUMNS} from emails where project_id = ${projectId} and id = ${id}`,
  );
  return r.rows[0] ?? null;
}

export interface EmailListQuery {
  projectId: string;
  status?: EmailStatus;
  campaignId?: string;
  /** The recipient's address, matched through their contact (indexed) rather than by scanning. */
  to?: string;
  /** The `[created_at, id]` of the last email of the previous page. */
  after?: [string, string];
  limit: number;
}

/** Newest first, `limit + 1` rows (the extra one tells that more follow). */
export async function listEmails(ex: Executor, q: EmailListQuery): Promise<EmailRow[]> {
  const filters = [sql`project_id = ${q.projectId}`];
  if (q.status) filters.push(sql`status = ${q.status}`);
  if (q.campaignId) filters.push(sql`campaign_id = ${q.campaignId}`);
  if (q.to) {
    filters.push(sql`contact_id = (select id from contacts where project_id = ${q.projectId} and email = ${q.to})`);
  }
  if (q.after) filters.push(sql`(created_at, id) < (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)`);
  const r = await run<EmailRow>(
    ex,
    sql`select ${EMAIL_COLUMNS} from emails where ${sql.join(filters, sql` and `)}
    order by created_at desc, id desc limit ${q.limit + 1}`,
  );
  return r.rows;
}

export async function emailContent(
  ex: Executor,
  projectId: string,
  id: string,
): Promise<{ html: string; text: string | null; headers: Record<string, string> } | null> {
  const r = await run<{ html: string; text: string | null; headers: Record<string, string> }>(
    ex,
    sql`select html, text, headers from emails where project_id = ${projectId} and id = ${id}`,
  );
  return r.rows[0] ?? null;
}

// ---------------------------------------------------------------------------------------------
// What happens to an email after it left: reports, opens and clicks, cancellation.

/** The email a report, an open or a click is about, as far as the caller needs it. */
export interface TouchedEmail {
  id: string;
  project_id: string;
  contact_id: string | null;
  campaign_id: string | null;
  to_email: string;
}

/**
 * Marks a sent email bounced. Null when it was not `sent` (unknown, never sent, or already
 * bounced): a report repeated or crossing another changes nothing.
 */
export async function markBounced(
  ex: Executor,
  emailId: string,
  bounce: { type: BounceType; reason: string },
  now: Date,
): Promise<TouchedEmail | null> {
  const r = await run<TouchedEmail>(
    ex,
    sql`
    update emails set status = 'bounced', bounced_at = ${now}, bounce_type = ${bounce.type},
      last_error = ${bounce.reason.slice(0, 2000)}, updated_at = ${now}
    where id = ${emailId} and status = 'sent'
    returning id, project_id, contact_id, campaign_id, to_email`,
  );
  return r.rows[0] ?? null;
}

/** Marks an email complained about, the first time only (null otherwise). */
export async function markComplained(ex: Executor, emailId: string, now: Date): Promise<TouchedEmail | null> {
  const r = await run<TouchedEmail>(
    ex,
    sql`
    update emails set complained_at = ${now}, updated_at = ${now}
    where id = ${emailId} and complained_at is null and status in ('sent', 'bounced')
    returning id, project_id, contact_id, campaign_id, to_email`,
  );
  return r.rows[0] ?? null;
}

/** The email whose Message-ID is exactly `messageId` (angle brackets included), found through its id. */
export async function emailByMessageId(ex: Executor, emailId: string, messageId: string): Promise<string | null> {
  const r = await run<{ id: string }>(
    ex,
    sql`select id from emails where id = ${emailId} and message_id = ${messageId}`,
  );
  return r.rows[0]?.id ?? null;
}

export interface Engagement extends TouchedEmail {
  first_open: boolean;
  first_click: boolean;
}

/**
 * Counts an open, or a click (which counts as the open too when none was recorded: images are
 * often blocked). The UPDATE reads the first-open and first-click times under the row lock, so
 * concurrent hits each count and exactly one of them is the first. Null for an unknown email.
 */
export async function countHit(
  ex: Executor,
  emailId: string,
  kind: 'open' | 'click',
  now: Date,
): Promise<Engagement | null> {
  const click = kind === 'click';
  const r = await run<Engagement>(
    ex,
    sql`
    with before as (select id, opened_at, clicked_at from emails where id = ${emailId} for update)
    update emails e set
      click_count = e.click_count + ${click ? 1 : 0},
      clicked_at = ${click ? sql`coalesce(e.clicked_at, ${now})` : sql`e.clicked_at`},
      open_count = e.open_count + (case when ${!click}::boolean or before.opened_at is null then 1 else 0 end),
      opened_at = coalesce(e.opened_at, ${now})
    from before where e.id = before.id
    returning e.id, e.project_id, e.contact_id, e.campaign_id, e.to_email, (before.opened_at is null) as first_open,
      ${click ? sql`(before.clicked_at is null)` : sql`false`} as first_click`,
  );
  return r.rows[0] ?? null;
}

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

/** Makes a campaign's parked emails due now and wakes the delivery engines; returns how many. */
export async function unparkCampaignEmails(ex: Executor, campaignId: string, now: Date): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`
    with due as (
      update emails set next_attempt_at = ${now}
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
