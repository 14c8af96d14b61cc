import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import type { OutcomeEffects } from '../emails/service.js';

/**
 * A campaign's counters change in the statement that changes what they count, so they stay exact
 * without ever recounting its emails:
 *
 *   totalRecipients  the audience when it was frozen (campaigns/repo `freezeAudience`)
 *   sentCount        messages the relay accepted                 (delivery outcomes, below)
 *   deliveredCount   accepted messages that have not bounced     (delivery outcomes; `countBounce`)
 *   bouncedCount     messages refused with a 5xx or given up after the retries (delivery outcomes),
 *                    or reported by a delivery status notification later (`countBounce`)
 *   complainedCount  messages reported as spam                   (`countComplaint`)
 *   openedCount      emails opened at least once                 (tracking, `countEngagement`)
 *   clickedCount     emails with at least one click              (tracking, `countEngagement`)
 *   skippedCount     recipients not sent to: unsubscribed or deleted before their turn, or cancelled
 */

export const CANCELLED_REASON = 'Not sent: the campaign was cancelled';

/** True for an email (aliased `e`) of a cancelled campaign: a retry of it is skipped, not queued. */
export const OF_CANCELLED_CAMPAIGN = sql`(e.campaign_id is not null and exists (
  select 1 from campaigns cc where cc.id = e.campaign_id and cc.status = 'CANCELLED'))`;

/**
 * A CTE for the statement that records delivery outcomes: adds the final outcomes among the rows
 * of the CTE `source` (columns `campaign_id`, `status`: `sent`, `failed` or `skipped`) to their campaigns.
 */
export function deliveryCountsCte(source: string): SQL {
  return sql`campaign_counts as (
    update campaigns c set
      sent_count = c.sent_count + t.sent,
      delivered_count = c.delivered_count + t.sent,
      bounced_count = c.bounced_count + t.failed,
      skipped_count = c.skipped_count + t.skipped
    from (
      select campaign_id, count(*) filter (where status = 'sent')::int as sent,
        count(*) filter (where status = 'failed')::int as failed,
        count(*) filter (where status = 'skipped')::int as skipped
      from ${sql.raw(source)} where campaign_id is not null group by campaign_id) t
    where c.id = t.campaign_id)`;
}

/** A bounce reported after the message was accepted: it is no longer counted as delivered. */
export async function countBounce(ex: Executor, campaignId: string): Promise<void> {
  await run(
    ex,
    sql`
    update campaigns set bounced_count = bounced_count + 1, delivered_count = greatest(delivered_count - 1, 0)
    where id = ${campaignId}`,
  );
}

export async function countComplaint(ex: Executor, campaignId: string): Promise<void> {
  await run(ex, sql`update campaigns set complained_count = complained_count + 1 where id = ${campaignId}`);
}

/** A first open or first click of a campaign's email, in the transaction that records it. */
export async function countEngagement(
  ex: Executor,
  campaignId: string,
  first: { open: boolean; click: boolean },
): Promise<void> {
  if (!first.open && !first.click) return;
  await run(
    ex,
    sql`
    update campaigns set
      opened_count = opened_count + ${first.open ? 1 : 0},
      clicked_count = clicked_count + ${first.click ? 1 : 0}
    where id = ${campaignId}`,
  );
}

/**
 * SENDING → SENT for the campaigns among `ids` whose every recipient has an email and whose
 * emails have all left the queue (sent, failed or skipped). Safe to call any number of times.
 */
export async function completeCampaigns(ex: Executor, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await run(
    ex,
    sql`
    update campaigns c set status = 'SENT', updated_at = ${now}
    where c.id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
      and c.status = 'SENDING' and c.fanned_out_at is not null
      and not exists (select 1 from emails e where e.campaign_id = c.id and e.status = 'queued')`,
    { prepared: true },
  );
}

/** What delivery outcomes change in campaigns (emails/repo `recordOutcomes`; wired in src/worker.ts). */
export const campaignOutcomeEffects: OutcomeEffects = {
  skipRetryWhen: OF_CANCELLED_CAMPAIGN,
  skipReason: CANCELLED_REASON,
  countFinal: deliveryCountsCte,
  afterCommit: completeCampaigns,
};
