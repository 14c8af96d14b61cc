import { type GuardCounts, guardrailVerdict, type PauseReason } from '../../domain/campaign-guardrails.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/client.js';
import * as audit from '../audit/service.js';
import { parkCampaignEmails } from '../emails/service.js';
import { announceCampaign } from './events.js';
import { excludeStateChanges } from './fan-out-repo.js';
import type { GuardrailRow } from './guardrail-repo.js';
import * as repo from './guardrail-repo.js';
import type { CampaignRow } from './repo.js';
import { policyOf } from './settings.js';

/**
 * Pausing a campaign: by its guardrails (domain/campaign-guardrails.ts), checked after every batch
 * of delivery outcomes and by the recurring rescue, or by hand (service.ts).
 *
 * A paused campaign's queued emails stay queued but are parked (emails `PARKED_UNTIL`): the claim
 * reads its lane's index in due order and stops at the first email not yet due, so parked emails
 * cost it nothing, where excluding a paused campaign in the claim would step over all of its
 * emails on every claim. Its fan-out stops at its next page. Messages a worker already holds (at
 * most DELIVERY_CONCURRENCY per worker) still go out, and one of them the relay defers is parked
 * with its retry.
 */

/**
 * SENDING → PAUSED in the caller's transaction, of which it must be the first: parks the queued
 * emails no live worker holds, marks the campaign and announces `campaign.paused` with `data`.
 * Emails are taken before the campaign, in the order delivery outcomes and cancels take them, and
 * never those a live worker holds, so a pause does not wait for an outcome statement that waits for
 * the campaign. Fan-out pages being stored are waited for first (`excludeStateChanges`), so their
 * emails are parked too. Null (nothing changed that matters) when the campaign was not sending.
 */
export async function pauseInTransaction(
  ctx: AppContext,
  tx: Tx,
  campaignId: string,
  reason: PauseReason,
  now: Date,
  data: Record<string, unknown> = {},
): Promise<CampaignRow | null> {
  await excludeStateChanges(tx, campaignId, 'change');
  await parkCampaignEmails(tx, [campaignId]);
  const row = await repo.markPaused(tx, campaignId, reason, now, reason !== 'manual');
  if (!row) return null;
  // A guardrail's pause is the system's, whatever request's outcome tripped it.
  await audit.record(tx, {
    projectId: row.project_id,
    action: 'campaign.paused',
    target: { type: 'campaign', id: campaignId },
    changes: { reason },
    ...(reason === 'manual' ? {} : { actor: { kind: 'system' } }),
  });
  await announceCampaign(ctx, tx, 'campaign.paused', [row], now, () => ({
    reason,
    ...data,
    pausedAt: now.toISOString(),
  }));
  return row;
}

const countsOf = (row: GuardrailRow): GuardCounts => ({
  sent: row.sent_count,
  rejected: row.rejected_count,
  hardBounced: row.hard_bounced_count,
  complained: row.complained_count,
});

/** Rates as the webhook reports them: 4 decimals, like the stats. */
const rounded = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * Judges these campaigns (those still sending) by their project's guardrails and pauses those over a
 * threshold, each in its own transaction. Safe to call any number of times, from several workers at
 * once: only the call that moves a campaign out of SENDING announces it.
 */
export async function checkGuardrails(ctx: AppContext, ex: Executor, campaignIds: string[], now: Date): Promise<void> {
  for (const row of await repo.sendingWithGuardrails(ex, campaignIds)) {
    const verdict = guardrailVerdict(countsOf(row), row.guard_baseline, policyOf(row, ctx.config.campaignGuardrails));
    if (!verdict.pause) continue;
    const paused = await ctx.db.transaction((tx) =>
      pauseInTransaction(ctx, tx, row.id, verdict.reason, now, {
        rate: rounded(verdict.rate),
        threshold: verdict.threshold,
        sample: verdict.sample,
      }),
    );
    if (paused) {
      ctx.log.warn(
        { campaignId: row.id, reason: verdict.reason, rate: verdict.rate, sample: verdict.sample },
        'campaign paused by its guardrails',
      );
    }
  }
}
