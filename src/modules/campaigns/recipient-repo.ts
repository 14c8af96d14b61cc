import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import { COUNTS_NOW } from './guardrail-repo.js';
import type { CampaignRow } from './repo.js';
import type { RecipientEngagement, RecipientOutcome, RecipientReason } from './schemas.js';

/** The queries of reconciliation on `campaign_recipients`: each recipient's outcome, and reopening for a resend. */

// ---------------------------------------------------------------------------------------------
// Reconciliation: each recipient's outcome (recipients.ts).

export interface RecipientRow {
  contact_id: string;
  outcome: RecipientOutcome;
  reason: RecipientReason | null;
  email_id: string | null;
  email: string | null;
  detail: string | null;
  send_at: Date | null;
  sent_at: Date | null;
}

export interface RecipientQuery {
  outcome?: RecipientOutcome;
  reason?: RecipientReason;
  engagement?: RecipientEngagement;
  /** The contact id of the last recipient of the previous page. */
  after?: string;
  limit: number;
}

function recipientFilter(campaignId: string, q: Omit<RecipientQuery, 'after' | 'limit'>): SQL {
  const parts = [sql`r.campaign_id = ${campaignId}`];
  if (q.outcome) parts.push(sql`r.outcome = ${q.outcome}`);
  if (q.reason) parts.push(sql`r.reason = ${q.reason}`);
  // Through the recipient's email, by primary key: read in contact order, a page stops at its limit.
  if (q.engagement) {
    const at = q.engagement === 'opened' ? sql`opened_at` : sql`clicked_at`;
    parts.push(sql`exists (select 1 from emails x where x.id = r.email_id and x.${at} is not null)`);
  }
  return sql.join(parts, sql` and `);
}

/**
 * A page of the recipients in contact id order, `limit + 1` rows (the extra one tells that more
 * follow). Filtered by outcome, it is read in order from the outcome index; each row's email and
 * contact are reached by primary key.
 */
export async function listRecipients(ex: Executor, campaignId: string, q: RecipientQuery): Promise<RecipientRow[]> {
  const r = await run<RecipientRow>(
    ex,
    sql`
    select r.contact_id, r.outcome, r.reason, r.email_id, coalesce(e.to_email, c.email) as email,
      case when r.outcome in ('failed', 'bounced', 'skipped') then e.last_error end as detail, r.send_at, e.sent_at
    from campaign_recipients r
      left join emails e on e.id = r.email_id
      left join contacts c on c.id = r.contact_id
    where ${recipientFilter(campaignId, q)} ${q.after ? sql`and r.contact_id > ${q.after}` : sql``}
    order by r.contact_id
    limit ${q.limit + 1}`,
  );
  return r.rows;
}

export async function countRecipients(
  ex: Executor,
  campaignId: string,
  q: Omit<RecipientQuery, 'after' | 'limit'>,
): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from campaign_recipients r where ${recipientFilter(campaignId, q)}`,
  );
  return r.rows[0]!.n;
}

/**
 * What a resend sends to again: recipients whose email never reached a receiving server and who
 * may still be mailed. `failed`: the relay refused it or it was given up after the retries;
 * skipped as `capped` or `unrenderable`: the cap may allow it now, the contact's data may render now.
 * The fan-out checks subscription, suppression and the cap again for each of them.
 */
const RESENDABLE = sql`(r.outcome = 'failed' or (r.outcome = 'skipped' and r.reason in ('capped', 'unrenderable')))`;

/**
 * SENT → SENDING for a resend, in one statement: the resendable recipients lose their email (the old
 * one stays, with its campaign) and wait again, their old outcomes leave the counters, the fan-out
 * starts over and the guardrails judge a fresh sample. Null when the campaign is not SENT (the
 * caller has it locked) or nobody is resendable.
 */
export async function reopenForResend(
  ex: Executor,
  id: string,
  now: Date,
): Promise<{ campaign: CampaignRow; resent: number } | null> {
  const r = await run<CampaignRow & { resent: number }>(
    ex,
    sql`
    with chosen as (
      select r.contact_id, r.outcome from campaign_recipients r
      where r.campaign_id = ${id} and ${RESENDABLE}
        and exists (select 1 from campaigns where id = ${id} and status = 'SENT')
      for update),
    reopened as (
      update campaign_recipients r set outcome = 'queued', reason = null, email_id = null
      from chosen ch where r.campaign_id = ${id} and r.contact_id = ch.contact_id
      returning 1),
    moved as (
      select count(*) filter (where outcome = 'failed')::int as failed,
        count(*) filter (where outcome = 'skipped')::int as skipped, count(*)::int as n from chosen)
    update campaigns set status = 'SENDING', fanned_out_at = null, paused_at = null, paused_reason = null,
      updated_at = ${now}, guard_baseline = ${COUNTS_NOW},
      bounced_count = bounced_count - (select failed from moved),
      skipped_count = skipped_count - (select skipped from moved)
    where id = ${id} and status = 'SENT' and (select n from moved) > 0
    returning *, (select n from moved) as resent`,
  );
  const row = r.rows[0];
  if (!row) return null;
  const { resent, ...campaign } = row;
  return { campaign: campaign as CampaignRow, resent };
}
