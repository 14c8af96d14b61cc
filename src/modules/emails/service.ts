import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseDataPatch } from '../../domain/contact-data.js';
import { newEmailId } from '../../domain/email-id.js';
import { iso } from '../../domain/formats.js';
import { TemplateError } from '../../domain/render.js';
import { choiceOf, NO_TRACKING, resolveTracking } from '../../domain/tracking.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError, fieldErrorsFromIssues, notFound, validationError } from '../../platform/http/errors.js';
import type { RequestIdentity } from '../../platform/http/idempotency.js';
import { claimIdempotencyKey, rememberResponse } from '../../platform/http/idempotency.js';
import {
  type CursorValue,
  cursorPage,
  invalidCursorError,
  isKeysetCursor,
  type KeysetPage,
} from '../../platform/http/pagination.js';
import { outboxFile } from '../../platform/mail/transport.js';
import { upsertContact } from '../contacts/service.js';
import { assertVerifiedSender, capturingMail } from '../domains/service.js';
import { cachedTemplate } from '../templates/service.js';
import { findTopic, membersAmong } from '../topics/service.js';
import { trackingFor } from '../tracking-settings/service.js';
import { isParked } from './campaign-mail-repo.js';
import { type Content, composeEmail, type Render } from './compose.js';
import * as repo from './repo.js';
import type { EmailRecord, StoredAttachment, Submission } from './schemas.js';
import { MAX_ATTACHMENT_BYTES, MAX_MESSAGE_BYTES, type SendBody, submissionSchema } from './schemas.js';

/** A campaign's queued emails: cancelled, paused and resumed, and the marketing cap. */
export {
  campaignsWithIdleQueuedEmails,
  PARKED_UNTIL,
  parkCampaignEmails,
  recentMarketingCounts,
  skipQueuedCampaignEmails,
  unparkCampaignEmails,
} from './campaign-mail-repo.js';
/** What delivery outcomes change beyond the emails, given by the campaigns module. */
export type { FollowUp, OutcomeEffects } from './delivery-repo.js';
/** Storing emails, alone or in one statement with the caller's own writes; what other modules change on an email after it left. */
export {
  countHit,
  EMAILS_CHANNEL,
  type Engagement,
  emailByMessageId,
  emailSentTo,
  insertEmails,
  markBounced,
  markComplained,
  type NewEmail,
  type StoreJoin,
  SUPPRESSED_REASON,
  storeEmailsWith,
  type TouchedEmail,
  wakeDelivery,
} from './repo.js';

type Address = NonNullable<SendBody['from']>;
const asAddress = (a: Address) => (typeof a === 'string' ? { email: a, name: undefined } : a);

/** Decoded size of base64 text (without white space) without decoding it. */
const decodedBytes = (clean: string) =>
  Math.floor((clean.length * 3) / 4) - (clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0);

/**
 * `attachments` without white space in their content; `bodyChars` and `attachmentChars` as the
 * message will carry them (the attachments' base64 as sent).
 */
function checkSizes(bodyChars: number, attachments: StoredAttachment[], attachmentChars: number): void {
  const attached = attachments.reduce((n, a) => n + decodedBytes(a.content), 0);
  if (attached > MAX_ATTACHMENT_BYTES) {
    throw validationError([
      {
        field: 'attachments',
        message: `Attachments total ${attached} bytes; at most ${MAX_ATTACHMENT_BYTES}`,
        code: 'too_big',
      },
    ]);
  }
  // Base64 in the message costs 4/3 of the decoded size, plus line breaks.
  if (bodyChars + attachmentChars * 1.03 > MAX_MESSAGE_BYTES) {
    throw validationError([
      { field: 'attachments', message: `The message would exceed ${MAX_MESSAGE_BYTES} bytes`, code: 'too_big' },
    ]);
  }
}

/** The deprecated `name` names the sender only when `from` is a bare address. */
function senderName(body: SendBody, templateName: string | null): string | null {
  if (typeof body.from === 'string') return body.name ?? templateName;
  if (body.from) return body.from.name ?? null;
  return templateName;
}

function templateErrorAsValidation(err: unknown): never {
  if (err instanceof TemplateError) {
    throw validationError([{ field: err.part, message: err.message, code: 'invalid_template' }]);
  }
  throw err;
}

/**
 * POST /v1/send: upserts each recipient in turn, renders its email and stores it with its
 * delivery, all in one transaction; the delivery engine sends after the commit. Nothing is sent,
 * and nothing changes, when any recipient's email cannot be made.
 */
export async function sendEmails(ctx: AppContext, projectId: string, body: SendBody, request: RequestIdentity) {
  const attachments: StoredAttachment[] = (body.attachments ?? []).map((a) => ({
    ...a,
    content: a.content.replace(/\s+/g, ''),
  }));
  checkSizes(
    body.body?.length ?? 0,
    attachments,
    (body.attachments ?? []).reduce((n, a) => n + a.content.length, 0),
  );

  // Read before the transaction: both are cached per process and need no lock.
  const template = body.template ? await cachedTemplate(ctx, projectId, body.template) : null;
  if (body.template && !template) throw notFound('Template');
  const from = body.from ? asAddress(body.from) : template ? { email: template.from, name: undefined } : undefined;
  if (!from) {
    throw validationError([
      {
        field: 'from',
        message: 'Required when the template has no sender',
        code: 'invalid_type',
        received: 'undefined',
      },
    ]);
  }
  const type = template?.type ?? 'TRANSACTIONAL';
  return storeSend(ctx, projectId, {
    content: {
      type,
      subject: body.subject ?? template!.subject,
      body: body.body ?? template!.body,
      from: { email: from.email, name: senderName(body, template?.fromName ?? null) },
      replyTo: body.reply ?? template?.replyTo ?? null,
      headers: body.headers ?? {},
      attachmentSetId: null,
      templateId: template?.id ?? null,
      campaignId: null,
      // A MARKETING template about a topic: its emails go to the topic's members only, and leave only it.
      topicId: type === 'MARKETING' ? (template?.topicId ?? null) : null,
      tracking: resolveTracking(type, await trackingFor(ctx, projectId), choiceOf(body), choiceOf(template)),
    },
    recipients: (Array.isArray(body.to) ? body.to : [body.to]).map((r) => {
      const { email, name } = asAddress(r);
      return { email, name: name ?? null };
    }),
    attachments,
    data: body.data,
    subscribed: body.subscribed,
    request,
    render: ctx.templates.render.bind(ctx.templates),
  });
}

/** A submitted message is sent as written: its subject and HTML are no templates. */
const literally: Render = async (_part, source) => source;

/**
 * A message submitted over SMTP (modules/submission): checked by the rules of `/v1/send` and stored
 * the same way, in one transaction, one email per recipient; its content is sent as written, with
 * its own text part. Answers as `/v1/send` does.
 */
export async function submitEmails(ctx: AppContext, projectId: string, input: Submission) {
  const parsed = submissionSchema.safeParse(input);
  if (!parsed.success) throw validationError(fieldErrorsFromIssues(parsed.error.issues, input));
  const s = parsed.data;
  checkSizes(
    (s.html?.length ?? 0) + (s.text?.length ?? 0),
    s.attachments,
    s.attachments.reduce((n, a) => n + a.content.length, 0),
  );
  return storeSend(ctx, projectId, {
    content: {
      type: s.type,
      subject: s.subject,
      body: s.html,
      text: s.text,
      from: s.from,
      replyTo: s.replyTo,
      headers: s.headers,
      attachmentSetId: null,
      templateId: null,
      campaignId: null,
      tracking: resolveTracking(s.type, await trackingFor(ctx, projectId), s.tracking),
    },
    recipients: s.to,
    attachments: s.attachments,
    data: undefined,
    subscribed: undefined,
    request: null,
    render: literally,
  });
}

interface Send {
  /** Merged from the template and the request; its `attachmentSetId` is set here. */
  content: Content;
  recipients: { email: string; name: string | null }[];
  /** Their content without white space. */
  attachments: StoredAttachment[];
  data: SendBody['data'];
  subscribed: boolean | undefined;
  /** Null for a send that takes no `Idempotency-Key` (SMTP). */
  request: RequestIdentity | null;
  render: Render;
}

/** The part every send shares: the sender check, then contacts and emails in one transaction. */
async function storeSend(ctx: AppContext, projectId: string, send: Send) {
  const now = ctx.clock.now();
  const patch = parseDataPatch(send.data);
  // Stored once for the whole request, however many recipients share it (see insertAttachmentSet).
  const attachmentSet = send.attachments.length ? { id: randomUUID(), projectId, attachments: send.attachments } : null;
  // Read before the transaction: cached per process, needs no lock.
  await assertVerifiedSender(ctx, ctx.db, projectId, send.content.from.email);
  const content: Content = { ...send.content, attachmentSetId: attachmentSet?.id ?? null };
  const idempotencyKey = send.request?.idempotencyKey;
  // A topic deleted since the template named it reaches nobody.
  const topic = content.topicId ? await findTopic(ctx.db, projectId, content.topicId) : null;

  return ctx.db.transaction(async (tx) => {
    if (idempotencyKey) {
      await claimIdempotencyKey(tx, {
        projectId,
        key: idempotencyKey,
        method: send.request!.method,
        path: send.request!.path,
        statusCode: 200,
        now,
        ttlHours: ctx.config.idempotencyTtlHours,
      });
    }
    if (attachmentSet) await repo.insertAttachmentSet(tx, attachmentSet, now);
    const emails: repo.NewEmail[] = [];
    for (const recipient of send.recipients) {
      const { contact } = await upsertContact(
        ctx,
        tx,
        { email: recipient.email, subscribed: send.subscribed, patch },
        { projectId, subscribedByDefault: false, source: 'send', at: now },
      );
      const inTopic = content.topicId
        ? topic !== null && (await membersAmong(tx, topic, [contact.id])).has(contact.id)
        : true;
      try {
        emails.push(
          await composeEmail(
            newEmailId(),
            projectId,
            content,
            { contact, name: recipient.name, transient: patch.transient, inTopic },
            { publicUrl: ctx.config.publicUrl, signer: ctx.links },
            send.render,
          ),
        );
      } catch (err) {
        templateErrorAsValidation(err);
      }
    }
    await repo.insertEmails(tx, emails, now, ctx.deliveryWake.due());
    const data = {
      emails: emails.map((e) => ({ contact: { id: e.contactId!, email: e.toEmail }, email: e.id })),
      timestamp: now.toISOString(),
    };
    if (idempotencyKey) await rememberResponse(tx, { projectId, key: idempotencyKey }, data);
    return data;
  });
}

type AddressMessage = { from: string; fromName?: string | null; to: string; subject: string; html: string };
/** Values the subject and body may use besides `email`: `data` as a contact's, `transient` on top. */
type AddressScope = { data?: Record<string, unknown>; transient?: Record<string, unknown> };

/**
 * One email of the project's to an address that need not be a contact (an invitation to the
 * dashboard): HEADLESS (nothing tracked, no footer), from a verified sender, stored and queued,
 * creating no contact and counted in no campaign. Returns its id.
 */
export async function sendToAddress(
  ctx: AppContext,
  projectId: string,
  message: AddressMessage,
  ex: Executor = ctx.db,
  scope: AddressScope = {},
): Promise<string> {
  const email = await composeToAddress(ctx, projectId, message, scope, ex);
  await storeToAddresses(ctx, ex, [email]);
  return email.id;
}

/** `sendToAddress` in two steps: the email rendered, which needs no transaction… */
export async function composeToAddress(
  ctx: AppContext,
  projectId: string,
  message: AddressMessage,
  scope: AddressScope = {},
  ex: Executor = ctx.db,
): Promise<repo.NewEmail> {
  await assertVerifiedSender(ctx, ex, projectId, message.from);
  const id = newEmailId();
  const email = await composeEmail(
    id,
    projectId,
    {
      type: 'HEADLESS',
      subject: message.subject,
      body: message.html,
      from: { email: message.from, name: message.fromName ?? null },
      replyTo: null,
      headers: {},
      attachmentSetId: null,
      templateId: null,
      campaignId: null,
      tracking: NO_TRACKING,
    },
    {
      contact: { id: randomUUID(), email: message.to, subscribed: true, data: scope.data ?? {} },
      name: null,
      transient: scope.transient ?? {},
    },
    { publicUrl: ctx.config.publicUrl, signer: ctx.links },
    ctx.templates.render.bind(ctx.templates),
  );
  return { ...email, contactId: null };
}

/**
 * …and stored, queued on the transactional lane. The delivery engines are woken at most every
 * 100 ms (`ctx.deliveryWake`, as /v1/send does; they look every 250 ms anyway): a NOTIFY in every
 * transaction would make their commits take the notification queue's lock one after the other.
 */
export async function storeToAddresses(ctx: AppContext, ex: Executor, emails: repo.NewEmail[]): Promise<void> {
  await repo.insertEmails(ex, emails, ctx.clock.now(), ctx.deliveryWake.due());
}

/** The `.eml` the dev outbox holds for an email of the project. */
export async function capturedMessage(ctx: AppContext, projectId: string, id: string): Promise<Buffer> {
  const row = await repo.findEmail(ctx.db, projectId, id);
  if (!row) throw notFound('Email');
  if (!capturingMail(ctx))
    throw new AppError(404, 'NOT_FOUND', 'Mail goes to the SMTP relay: nothing is captured', { details: { id } });
  try {
    return await fs.readFile(outboxFile(path.join(ctx.config.dataDir, 'outbox'), row.message_id));
  } catch {
    throw new AppError(
      404,
      'NOT_FOUND',
      `Email ${id} has not been delivered to the outbox yet (status ${row.status})`,
      {
        details: { id, status: row.status },
        suggestion: 'Try again once GET /emails/{id} shows the status SENT.',
      },
    );
  }
}

export async function getEmail(ctx: AppContext, projectId: string, id: string): Promise<EmailRecord> {
  const row = await repo.findEmail(ctx.db, projectId, id);
  if (!row) throw notFound('Email');
  return toEmailRecord(row);
}

/** The project's emails, newest first, a page at a time. */
export async function listEmails(
  ctx: AppContext,
  q: Omit<repo.EmailListQuery, 'after'> & { cursor?: CursorValue[] },
): Promise<KeysetPage<EmailRecord>> {
  const { cursor, ...query } = q;
  if (cursor && !isKeysetCursor(cursor, 'timestamp')) throw invalidCursorError();
  const after = cursor as [string, string] | undefined;
  const rows = await repo.listEmails(ctx.db, { ...query, after });
  return cursorPage(rows, q.limit, (r) => [iso(r.created_at)!, r.id], toEmailRecord);
}

export async function getEmailContent(ctx: AppContext, projectId: string, id: string) {
  const content = await repo.emailContent(ctx.db, projectId, id);
  if (!content) throw notFound('Email');
  return content;
}

function toEmailRecord(row: repo.EmailRow): EmailRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    contactId: row.contact_id,
    templateId: row.template_id,
    campaignId: row.campaign_id,
    type: row.type,
    status: row.status,
    from: row.from_email,
    fromName: row.from_name,
    to: row.to_email,
    toName: row.to_name,
    replyTo: row.reply_to,
    subject: row.subject,
    messageId: row.message_id,
    attempts: row.attempts,
    // A parked email (its campaign is paused) has no time set for its next attempt.
    nextAttemptAt: row.status === 'queued' && !isParked(row.next_attempt_at) ? iso(row.next_attempt_at) : null,
    lastError: row.last_error,
    smtpResponse: row.smtp_response,
    sentAt: iso(row.sent_at),
    failedAt: iso(row.failed_at),
    openedAt: iso(row.opened_at),
    clickedAt: iso(row.clicked_at),
    bouncedAt: iso(row.bounced_at),
    bounceType: row.bounce_type,
    complainedAt: iso(row.complained_at),
    openCount: row.open_count,
    clickCount: row.click_count,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Sent, complained and hard-bounced mail of a project from one sender domain since a moment. */
export const senderFigures = (ctx: AppContext, projectId: string, domain: string, since: Date) =>
  repo.senderFigures(ctx.db, projectId, domain, since);
