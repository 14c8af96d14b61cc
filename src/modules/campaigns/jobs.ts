import { decidesAt, hasWinnerPhase } from '../../domain/ab-test.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { enqueue } from '../../platform/queue.js';
import type { CampaignRow } from './repo.js';

/** The jobs of a campaign's sending: its start at a schedule, its fan-out, its A/B test's decision. */

export const CAMPAIGN_START_QUEUE = 'campaigns.start';
export const CAMPAIGN_FANOUT_QUEUE = 'campaigns.fan-out';
export const CAMPAIGN_WINNER_QUEUE = 'campaigns.ab-winner';

export async function enqueueFanOut(ex: Executor, campaignId: string): Promise<void> {
  await enqueue(
    ex,
    CAMPAIGN_FANOUT_QUEUE,
    { campaignId },
    { singletonKey: `campaign-fan-out:${campaignId}`, maxAttempts: 50 },
  );
}

export async function enqueueStart(ex: Executor, campaignId: string, at: Date): Promise<void> {
  await enqueue(
    ex,
    CAMPAIGN_START_QUEUE,
    { campaignId, scheduledFor: at.toISOString() },
    { runAt: at, maxAttempts: 50 },
  );
}

/**
 * Sending starts: the fan-out, and the A/B test's decision after its wait, enqueued in the
 * transaction that moves the campaign to SENDING, so neither can be lost and each comes once.
 */
export async function enqueueSending(ctx: AppContext, ex: Executor, c: CampaignRow, now: Date): Promise<void> {
  await enqueueFanOut(ex, c.id);
  if (!hasWinnerPhase(c.ab_test)) return;
  await enqueue(
    ex,
    CAMPAIGN_WINNER_QUEUE,
    { campaignId: c.id },
    {
      runAt: decidesAt(c.ab_test!, now, ctx.config.abTestHourMs),
      singletonKey: `campaign-ab-winner:${c.id}`,
      maxAttempts: 50,
    },
  );
}
