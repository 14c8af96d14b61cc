import { type SQL, sql } from 'drizzle-orm';
import { type GuardCounts, type GuardrailPolicy, guardrailVerdict } from '../../domain/campaign-guardrails.js';
import type { AppContext } from '../../platform/context.js';
import { type Executor, run } from '../../platform/db/client.js';
import type { BounceType } from '../emails/schemas.js';
import type { FollowUp, OutcomeEffects } from '../emails/service.js';
import { announceCampaign, finalCounts } from './events.js';
import type { SettingsRow } from './guardrail-repo.js';
import { checkGuardrails } from './guardrails.js';
import type { CampaignRow } from './repo.js';
import { policyOf } from './settings.js';

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
 *   unsubscribedCount recipients who unsubscribed from its email (subscriptions, `countUnsubscribe`)
 *   skippedCount     recipients not sent to: unsubscribed or deleted before their turn, or cancelled
 *   rejectedCount    messages the relay refused for good (5xx)    (delivery outcomes) } the guardrails'
 *   hardBouncedCount accepted messages reported as hard bounces   (`countBounce`)     } bounce rate
 *
 * Each recipient's `outcome` (campaign_recipients) changes in the same statements, so the counters
 * and the recipient list agree: delivered + complained recipients = deliveredCount, bounced +
 * failed = bouncedCount, skipped = skippedCount, queued = the stats' `pending` (a resend moves its
 * recipients' old outcomes out of the counters as it queues them again).
 */

export const CANCELLED_REASON = 'Not sent: the campaign was cancelled';

/** True for an email (aliased `e`) of a cancelled campaign: a retry of it is skipped, not queued. */
export const OF_CANCELLED_CAMPAIGN = sql`(e.campaign_id is not null and exists (
  select 1 from campaigns cc where cc.id = e.campaign_id and cc.status = 'CANCELLED'))`;

/** True for an email (aliased `e`) of a paused campaign: given back or retried, it is parked. */
export const OF_PAUSED_CAMPAIGN = sql`(e.campaign_id is not null and exists (
  select 1 from campaigns cc where cc.id = e.campaign_id and cc.status = 'PAUSED'))`;

/**
 * CTEs for the statement that records delivery outcomes: add the final outcomes among the rows of
 * the CTE `source` (columns `id`, `campaign_id`, `status`: `sent`, `failed` or `skipped`, and
 * `rejected`) to their campaigns, and set the outcome of the recipients whose current email they are
 * (found through the email index; a skipped one here is a retry let go after a cancel).
 */
export function deliveryCountsCte(source: string): SQL {
  const from = sql.raw(source);
  return sql`campaign_counts as (
    update campaigns c set
      sent_count = c.sent_count + t.sent,
      delivered_count = c.delivered_count + t.sent,
      bounced_count = c.bounced_count + t.failed,
      skipped_count = c.skipped_count + t.skipped,
      rejected_count = c.rejected_count + t.rejected
    from (
      select campaign_id, count(*) filter (where status = 'sent')::int as sent,
        count(*) filter (where status = 'failed')::int as failed,
        count(*) filter (where status = 'skipped')::int as skipped,
        count(*) filter (where status = 'failed' and rejected)::int as rejected
      from ${from} where campaign_id is not null group by campaign_id) t
    where c.id = t.campaign_id
    returning c.id, c.status, c.fanned_out_at, c.sent_count, c.rejected_count, c.hard_bounced_count, c.complained_count,
      c.guard_baseline,
      (select to_jsonb(s) from campaign_settings s where s.project_id = c.project_id) as settings),
  recipient_outcomes as (
    update campaign_recipients r set
      outcome = case f.status when 'sent' then 'delivered' when 'failed' then 'failed' else 'skipped' end,
      reason = case f.status when 'sent' then null
        when 'failed' then case when f.rejected then 'rejected' else 'undeliverable' end
        else 'cancelled' end
    from ${from} f
    -- by the email alone, through its index: with the campaign too, the planner may walk the
    -- campaign's whole primary-key range for each outcome
    where f.campaign_id is not null and r.email_id = f.id)`;
}

/** The statement's last select: each campaign `deliveryCountsCte` counted in, as it left it. */
export const COUNTED_CAMPAIGNS = sql`select * from campaign_counts`;

/** A campaign as the delivery outcome statement left it (`COUNTED_CAMPAIGNS`). */
interface CountedCampaign extends FollowUp {
  status: CampaignRow['status'];
  fanned_out_at: Date | null;
  sent_count: number;
  rejected_count: number;
  hard_bounced_count: number;
  complained_count: number;
  guard_baseline: GuardCounts | null;
  settings: Pick<SettingsRow, 'max_complaint_rate' | 'max_bounce_rate' | 'min_sample'> | null;
}

/**
 * Of the campaigns an outcome statement counted in, those that need a statement of their own:
 * `over` a guardrail (paused by `checkGuardrails`, which judges them again), and `mayBeDone`, those
 * fanned out, whose queue may be empty. While a campaign fans out, and within its thresholds, an
 * outcome commit costs nothing more.
 */
export function followUpsOf(
  campaigns: CountedCampaign[],
  defaults: GuardrailPolicy,
): { over: string[]; mayBeDone: string[] } {
  const sending = campaigns.filter((c) => c.status === 'SENDING');
  return {
    over: sending
      .filter(
        (c) =>
          guardrailVerdict(
            {
              sent: c.sent_count,
              rejected: c.rejected_count,
              hardBounced: c.hard_bounced_count,
              complained: c.complained_count,
            },
            c.guard_baseline,
            policyOf(c.settings, defaults),
          ).pause,
      )
      .map((c) => c.id),
    mayBeDone: sending.filter((c) => c.fanned_out_at !== null).map((c) => c.id),
  };
}

/**
 * A bounce reported after the message was accepted: no longer counted as delivered, and its
 * recipient (if this is still their email) becomes bounced. A hard one counts for the guardrails.
 */
export async function countBounce(ex: Executor, campaignId: string, emailId: string, type: BounceType): Promise<void> {
  await run(
    ex,
    sql`
    with recipient as (
      update campaign_recipients set outcome = 'bounced', reason = ${type}
      where email_id = ${emailId} and outcome in ('delivered', 'complained')
      returning 1)
    update campaigns set bounced_count = bounced_count + 1, delivered_count = greatest(delivered_count - 1, 0),
      hard_bounced_count = hard_bounced_count + ${type === 'hard' ? 1 : 0}
    where id = ${campaignId}`,
  );
}

/** A spam report: counted, and a delivered recipient becomes complained. */
export async function countComplaint(ex: Executor, campaignId: string, emailId: string): Promise<void> {
  await run(
    ex,
    sql`
    with recipient as (
      update campaign_recipients set outcome = 'complained'
      where email_id = ${emailId} and outcome = 'delivered'
      returning 1)
    update campaigns set complained_count = complained_count + 1 where id = ${campaignId}`,
  );
}

/** An unsubscribe from the link in a campaign's email (none for another email). */
export async function countUnsubscribe(ex: Executor, emailId: string): Promise<void> {
  await run(
    ex,
    sql`
    update campaigns c set unsubscribed_count = c.unsubscribed_count + 1
    from emails e where e.id = ${emailId} and c.id = e.campaign_id`,
  );
}

/**
 * A first open or first click of a campaign's email, in the transaction that records it: the
 * campaign's counters and the minute's figures of its report (`campaign_engagement`).
 */
export async function countEngagement(
  ex: Executor,
  campaignId: string,
  first: { open: boolean; click: boolean },
  at: Date,
): Promise<void> {
  if (!first.open && !first.click) return;
  const opens = first.open ? 1 : 0;
  const clicks = first.click ? 1 : 0;
  await run(
    ex,
    sql`
    with minute as (
      insert into campaign_engagement (campaign_id, minute, opens, clicks)
      select id, date_trunc('minute', ${at}::timestamptz), ${opens}, ${clicks} from campaigns where id = ${campaignId}
      on conflict (campaign_id, minute) do update set
        opens = campaign_engagement.opens + excluded.opens, clicks = campaign_engagement.clicks + excluded.clicks)
    update campaigns set opened_count = opened_count + ${opens}, clicked_count = clicked_count + ${clicks}
    where id = ${campaignId}`,
  );
}

/**
 * A click on `url` in a campaign's email: the link's clicks, and its clickers when this email had
 * not clicked it before (`campaign_link_clickers` remembers who did).
 */
export async function countLinkClick(ex: Executor, campaignId: string, emailId: string, url: string, at: Date) {
  const link = await run<{ id: string }>(
    ex,
    sql`
    insert into campaign_links (campaign_id, url, clicks, last_clicked_at)
    select id, ${url}, 1, ${at}::timestamptz from campaigns where id = ${campaignId}
    on conflict (campaign_id, md5(url)) do update set
      clicks = campaign_links.clicks + 1, last_clicked_at = excluded.last_clicked_at
    returning id`,
  );
  // A statement of its own: in the same statement, the update would not see a link row just inserted.
  const id = link.rows[0]?.id;
  if (!id) return; // the campaign is gone
  await run(
    ex,
    sql`
    with clicker as (
      insert into campaign_link_clickers (link_id, email_id) values (${id}, ${emailId})
      on conflict do nothing
      returning link_id)
    update campaign_links set unique_clicks = unique_clicks + 1 where id in (select link_id from clicker)`,
  );
}

/**
 * SENDING → SENT for the campaigns among `ids` whose every recipient has an email and whose
 * emails have all left the queue (sent, failed or skipped), announcing `campaign.completed` with
 * their figures in the same transaction. Safe to call any number of times, from several workers at
 * once: only the call that moves a campaign announces it.
 */
export async function completeCampaigns(ctx: AppContext, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await ctx.db.transaction(async (tx) => {
    const r = await run<CampaignRow>(
      tx,
      sql`
      update campaigns c set status = 'SENT', updated_at = ${now}
      where c.id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
        and c.status = 'SENDING' and c.fanned_out_at is not null
        and not exists (select 1 from emails e where e.campaign_id = c.id and e.status = 'queued')
      returning *`,
      { prepared: true },
    );
    await announceCampaign(ctx, tx, 'campaign.completed', r.rows, now, (c) => ({
      status: c.status,
      completedAt: now.toISOString(),
      ...finalCounts(c),
    }));
  });
}

/**
 * What delivery outcomes change in campaigns (emails/repo `recordOutcomes`; wired in src/worker.ts):
 * counters and recipients, retries of cancelled campaigns skipped and of paused ones parked, and
 * once committed, the guardrails and completion of the campaigns concerned.
 */
export function campaignOutcomeEffects(ctx: AppContext): OutcomeEffects {
  return {
    skipRetryWhen: OF_CANCELLED_CAMPAIGN,
    skipReason: CANCELLED_REASON,
    parkWhen: OF_PAUSED_CAMPAIGN,
    countFinal: deliveryCountsCte,
    followUp: COUNTED_CAMPAIGNS,
    async afterCommit(ex: Executor, campaigns: FollowUp[], now: Date) {
      const { over, mayBeDone } = followUpsOf(campaigns as CountedCampaign[], ctx.config.campaignGuardrails);
      // Judged first: a campaign over a threshold with work left pauses rather than completes.
      await checkGuardrails(ctx, ex, over, now);
      await completeCampaigns(ctx, mayBeDone, now);
    },
  };
}
