import { type SQL, sql } from 'drizzle-orm';
import { MACHINE_OPEN_WINDOW_MS } from '../../domain/open-proxies.js';
import { type Executor, run } from '../../platform/db/client.js';
import { idIn } from '../../platform/db/list-order.js';
import type { BounceType, EmailStatus, EmailType, StoredAttachment } from './schemas.js';

/**
 * The queries on `emails` for storing and reading them and for what happens after they left
 * (delivery's are in `delivery-repo.ts`, a campaign's queued mail's in `campaign-mail-repo.ts`).
 */

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
  /** The earliest it may go (ISO 8601); null or absent: at once. Resuming a paused campaign keeps to it. */
  notBefore?: string | null;
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
      "text" text, "headers" jsonb, "attachmentSetId" uuid, "messageId" text, "lastError" text,
      "notBefore" timestamptz))`;
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
      next_attempt_at, not_before, created_at, updated_at)
    select i."id", i."projectId", i."contactId", i."templateId", i."campaignId", i."type",
      case when s.email is null then i."status" else 'skipped' end,
      i."fromEmail", i."fromName", i."toEmail", i."toName", i."replyTo", i."subject", i."html", i."text", i."headers",
      i."attachmentSetId", i."messageId",
      case when s.email is null or i."status" = 'skipped' then i."lastError" else ${SUPPRESSED_REASON} end,
      coalesce(i."notBefore", ${now}), i."notBefore", ${now}, ${now}
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
  /** Only these emails (by primary key): how a page of events names the emails it mentions. */
  ids?: string[];
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
  if (q.ids) filters.push(idIn(q.ids));
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

/**
 * The email `emailId` when it was sent to `address` (any case): how a relay that reports its own
 * message id, and ours only as metadata it kept, names an email.
 */
export async function emailSentTo(ex: Executor, emailId: string, address: string): Promise<string | null> {
  const r = await run<{ id: string }>(
    ex,
    sql`select id from emails where id = ${emailId} and lower(to_email) = ${address.toLowerCase()}`,
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
  fromProxy = false,
): Promise<Engagement | null> {
  const click = kind === 'click';
  // Opens by a provider's proxy moments after sending are its prefetch (domain/open-proxies), until
  // an open that is not one shows a reader.
  const machine = sql`${fromProxy}::boolean and e.sent_at is not null
    and e.sent_at > ${new Date(now.getTime() - MACHINE_OPEN_WINDOW_MS)}`;
  const r = await run<Engagement>(
    ex,
    sql`
    with before as (select id, opened_at, clicked_at from emails where id = ${emailId} for update)
    update emails e set
      click_count = e.click_count + ${click ? 1 : 0},
      clicked_at = ${click ? sql`coalesce(e.clicked_at, ${now})` : sql`e.clicked_at`},
      open_count = e.open_count + (case when ${!click}::boolean or before.opened_at is null then 1 else 0 end),
      opened_at = coalesce(e.opened_at, ${now}),
      machine_open = case when before.opened_at is null or e.machine_open then ${machine} else e.machine_open end
    from before where e.id = before.id
    returning e.id, e.project_id, e.contact_id, e.campaign_id, e.to_email, (before.opened_at is null) as first_open,
      ${click ? sql`(before.clicked_at is null)` : sql`false`} as first_click`,
  );
  return r.rows[0] ?? null;
}

export interface SenderFigures {
  sent: number;
  complained: number;
  hardBounced: number;
}

/**
 * What became of the mail a project sent from a domain since `since`: sent, complained about, bounced
 * for good. One range of the (project, created_at) index, filtered by the sender's domain.
 */
export async function senderFigures(
  ex: Executor,
  projectId: string,
  domain: string,
  since: Date,
): Promise<SenderFigures> {
  const r = await run<SenderFigures>(
    ex,
    sql`
    select count(*) filter (where sent_at is not null)::int as "sent",
           count(*) filter (where complained_at is not null)::int as "complained",
           count(*) filter (where status = 'bounced' and bounce_type = 'hard')::int as "hardBounced"
      from emails
     where project_id = ${projectId} and created_at >= ${since}
       and lower(substring(from_email from '[^@]*$')) = ${domain}`,
  );
  return r.rows[0]!;
}
