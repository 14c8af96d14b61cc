import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/http/errors.js';
import { type CursorValue, cursorPage, invalidCursorError, isKeysetCursor } from '../../platform/http/pagination.js';
import { recordEvent } from '../events/record.js';
import type { InboundRow } from './repo.js';
import * as repo from './repo.js';
import type { InboundEmail } from './schemas.js';

// A domain part of at most 255 characters: each attempt reads a bounded stretch of the header.
const OUR_MESSAGE_ID = /<([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^>\s]{1,255}>/gi;
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * A message to addresses of verified domains: parsed and its HTML sanitized (in the worker pool,
 * under its deadline: a message that cannot be read within it throws ContentLimitError), stored once per project
 * that verified one of those domains, and announced as `email.received` for the sender's contact
 * (a sender who is no contact is stored without an event: mail from strangers creates no contacts).
 * Returns how many projects took it; 0 when none did.
 */
export async function receiveMail(ctx: AppContext, recipients: string[], raw: Buffer): Promise<number> {
  const targets = await repo.projectsReceiving(ctx.db, [...new Set(recipients.map(domainOf))]);
  if (targets.length === 0) return 0;
  const parsed = await ctx.untrusted.mail(raw);
  const sender = parsed.from;
  const replyToEmailIds = [...parsed.replyTo.matchAll(OUR_MESSAGE_ID)].slice(0, 100).map((m) => m[1]!.toLowerCase());
  const now = ctx.clock.now();
  const base = {
    from_email: (sender?.address ?? '').toLowerCase(),
    from_name: sender?.name || null,
    subject: parsed.subject.slice(0, 998),
    text: parsed.text,
    html: parsed.html,
    message_id: parsed.messageId,
    attachments: parsed.attachments,
    received_at: now,
  };
  for (const projectId of new Set(targets.map((t) => t.project_id))) {
    const domains = new Set(targets.filter((t) => t.project_id === projectId).map((t) => t.domain));
    await ctx.db.transaction(async (tx) => {
      const row = await repo.insertInbound(
        tx,
        { ...base, project_id: projectId, to: recipients.filter((r) => domains.has(domainOf(r))) },
        replyToEmailIds,
      );
      if (!row.contact_id) return;
      await recordEvent(tx, {
        projectId,
        contactId: row.contact_id,
        name: 'email.received',
        data: {
          inboundId: row.id,
          ...(row.in_reply_to_email_id ? { emailId: row.in_reply_to_email_id } : {}),
          from: row.from_email,
          subject: row.subject,
        },
        at: now,
      });
    });
  }
  return new Set(targets.map((t) => t.project_id)).size;
}

function toInbound(row: InboundRow): InboundEmail {
  return {
    id: row.id,
    contactId: row.contact_id,
    from: row.from_email,
    fromName: row.from_name,
    to: row.to,
    subject: row.subject,
    text: row.text,
    html: row.html,
    messageId: row.message_id,
    inReplyToEmailId: row.in_reply_to_email_id,
    attachments: row.attachments,
    receivedAt: iso(row.received_at),
  };
}

export async function listInbound(ctx: AppContext, projectId: string, q: { limit: number; cursor?: CursorValue[] }) {
  if (q.cursor && !isKeysetCursor(q.cursor, 'timestamp')) throw invalidCursorError();
  const [rows, total] = await Promise.all([
    repo.listInbound(ctx.db, projectId, q.cursor as [string, string] | undefined, q.limit + 1),
    q.cursor ? 0 : repo.countInbound(ctx.db, projectId),
  ]);
  return { ...cursorPage(rows, q.limit, (r) => [iso(r.received_at), r.id], toInbound), total };
}

export async function getInbound(ctx: AppContext, projectId: string, id: string) {
  const row = await repo.findInbound(ctx.db, projectId, id);
  if (!row) throw notFound('Inbound email');
  return toInbound(row);
}
