import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';

/** Every query on `inbound_emails` lives here. */

export interface InboundRow {
  id: string;
  project_id: string;
  contact_id: string | null;
  from_email: string;
  from_name: string | null;
  to: string[];
  subject: string;
  text: string | null;
  html: string | null;
  message_id: string | null;
  in_reply_to_email_id: string | null;
  attachments: { filename: string | null; contentType: string; size: number }[];
  received_at: Date;
}

export type NewInbound = Omit<InboundRow, 'id' | 'contact_id' | 'in_reply_to_email_id'>;

/** The projects whose verified domains include one of `domains`. */
export async function projectsReceiving(
  ex: Executor,
  domains: string[],
): Promise<{ project_id: string; domain: string }[]> {
  const r = await run<{ project_id: string; domain: string }>(
    ex,
    sql`
    select distinct project_id, domain from domains
      where verified and domain = any(${`{${domains.join(',')}}`}::text[])`,
  );
  return r.rows;
}

/**
 * Stores a received message for a project, linked to the sender's contact and to the email it
 * replies to when they are the project's; returns the row.
 */
export async function insertInbound(ex: Executor, m: NewInbound, replyToEmailIds: string[]): Promise<InboundRow> {
  const r = await run<InboundRow>(
    ex,
    sql`
    insert into inbound_emails (project_id, contact_id, from_email, from_name, "to", subject, text, html, message_id,
      in_reply_to_email_id, attachments, received_at)
    values (${m.project_id},
      (select id from contacts where project_id = ${m.project_id} and email = ${m.from_email}),
      ${m.from_email}, ${m.from_name}, ${JSON.stringify(m.to)}::jsonb, ${m.subject}, ${m.text}, ${m.html},
      ${m.message_id},
      (select id from emails where project_id = ${m.project_id}
        and id = any(${`{${replyToEmailIds.join(',')}}`}::uuid[]) limit 1),
      ${JSON.stringify(m.attachments)}::jsonb, ${m.received_at})
    returning *`,
  );
  return r.rows[0]!;
}

export async function findInbound(ex: Executor, projectId: string, id: string): Promise<InboundRow | null> {
  const r = await run<InboundRow>(ex, sql`select * from inbound_emails where project_id = ${projectId} and id = ${id}`);
  return r.rows[0] ?? null;
}

export async function listInbound(
  ex: Executor,
  projectId: string,
  after: [string, string] | undefined,
  limit: number,
): Promise<InboundRow[]> {
  const r = await run<InboundRow>(
    ex,
    sql`
    select * from inbound_emails where project_id = ${projectId}
      ${after ? sql`and (received_at, id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql``}
    order by received_at desc, id desc limit ${limit}`,
  );
  return r.rows;
}

export async function countInbound(ex: Executor, projectId: string): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from inbound_emails where project_id = ${projectId}`,
  );
  return r.rows[0]!.n;
}
