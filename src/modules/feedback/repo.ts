import { sql } from 'drizzle-orm';
import { run, type Executor } from '../../platform/db/client.js';
import type { BounceType } from '../../platform/db/schema.js';

/** The email a report is about, as far as the report needs it. */
export interface ReportedEmail {
  id: string;
  project_id: string;
  contact_id: string | null;
  campaign_id: string | null;
  to_email: string;
}

/**
 * Marks a sent email bounced, with its campaign's counters (a bounced message is no longer
 * delivered), in one statement. Null when the email was not `sent` (unknown, never sent, or already
 * bounced): a report repeated or crossing another changes nothing.
 */
export async function markBounced(
  ex: Executor,
  emailId: string,
  bounce: { type: BounceType; reason: string },
  now: Date,
): Promise<ReportedEmail | null> {
  const r = await run<ReportedEmail>(ex, sql`
    with bounced as (
      update emails set status = 'bounced', bounced_at = ${now}, bounce_type = ${bounce.type}, last_error = ${bounce.reason.slice(0, 2000)},
        updated_at = ${now}
      where id = ${emailId} and status = 'sent'
      returning id, project_id, contact_id, campaign_id, to_email),
    counted as (
      update campaigns set bounced_count = bounced_count + 1, delivered_count = greatest(delivered_count - 1, 0)
      where id = (select campaign_id from bounced))
    select * from bounced`);
  return r.rows[0] ?? null;
}

/** Marks an email complained about, with its campaign's counter, the first time only. */
export async function markComplained(ex: Executor, emailId: string, now: Date): Promise<ReportedEmail | null> {
  const r = await run<ReportedEmail>(ex, sql`
    with complained as (
      update emails set complained_at = ${now}, updated_at = ${now}
      where id = ${emailId} and complained_at is null and status in ('sent', 'bounced')
      returning id, project_id, contact_id, campaign_id, to_email),
    counted as (
      update campaigns set complained_count = complained_count + 1 where id = (select campaign_id from complained))
    select * from complained`);
  return r.rows[0] ?? null;
}

/** The email whose Message-ID is exactly `messageId` (angle brackets included), found through its id. */
export async function emailByMessageId(ex: Executor, emailId: string, messageId: string): Promise<string | null> {
  const r = await run<{ id: string }>(ex, sql`select id from emails where id = ${emailId} and message_id = ${messageId}`);
  return r.rows[0]?.id ?? null;
}

/** Whether the inbound listener takes mail for this domain: a registered sender domain or its `bounces.` subdomain. */
export async function acceptsDomain(ex: Executor, domain: string): Promise<boolean> {
  const bare = domain.toLowerCase().replace(/^bounces\./, '');
  const r = await run(ex, sql`select 1 from domains where domain = ${bare} limit 1`);
  return r.rows.length > 0;
}
