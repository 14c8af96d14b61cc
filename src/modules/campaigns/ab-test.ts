/**
 * A campaign's A/B test (domain/ab-test). Freezing the audience draws the test phase
 * (`drawTestPhase`); the fan-out makes the test phase's emails first, each with its recipient's
 * variant, and then waits; the winner job, enqueued with the send, decides after the wait by the
 * test's metric unless the marketer picked one by hand, and wakes the fan-out, which gives the rest
 * the winner's content. Each recipient still gets one email: the variant is only which content it
 * is made with.
 */
import {
  type AbTest,
  type AbWinner,
  compareVariants,
  decidesAt,
  hasWinnerPhase,
  METRIC_WORDS,
  pickWinner,
  variantName,
} from '../../domain/ab-test.js';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, notFound, validationError } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import type { Content } from '../emails/compose.js';
import * as abRepo from './ab-test-repo.js';
import { enqueueFanOut } from './jobs.js';
import type { CampaignRow } from './repo.js';
import * as repo from './repo.js';

/** The rest of the audience waits: the test phase is out and no winner is decided yet. */
export const waitsForWinner = (c: Pick<CampaignRow, 'ab_test' | 'ab_winner'>) =>
  hasWinnerPhase(c.ab_test) && !c.ab_winner;

/** Each variant's content: the campaign's, with what the variant changes. */
export function variantContents(content: Content, test: AbTest | null): Content[] {
  return (test?.variants ?? []).map((v) => ({
    ...content,
    subject: v.subject ?? content.subject,
    body: v.body ?? content.body,
    from: { ...content.from, name: v.fromName === undefined ? content.from.name : v.fromName },
  }));
}

/** The content a recipient's email is made with: its variant's, else the winner's, else the campaign's. */
export function contentChooser(c: CampaignRow, content: Content): (variant: number | null) => Content {
  const variants = variantContents(content, c.ab_test);
  const rest = c.ab_winner ? variants[c.ab_winner.variant]! : content;
  return (variant) => (variant === null ? rest : (variants[variant] ?? rest));
}

/** Records the winner and wakes the fan-out for the rest; false when a winner was already decided. */
async function settle(ctx: AppContext, campaignId: string, winner: AbWinner): Promise<CampaignRow | null> {
  return ctx.db.transaction(async (tx) => {
    const row = await abRepo.recordWinner(tx, campaignId, winner);
    if (!row) return null;
    if (row.status === 'SENDING') await enqueueFanOut(tx, campaignId);
    await audit.record(tx, {
      projectId: row.project_id,
      action: 'campaign.winner_chosen',
      target: { type: 'campaign', id: campaignId },
      changes: { winner: variantName(winner.variant), chosenBy: winner.chosenBy },
    });
    return row;
  });
}

/** The winner job: after the wait, the variant that did best by the test's metric. */
export async function decideWinner(ctx: AppContext, campaignId: string): Promise<void> {
  const c = await repo.campaignById(ctx.db, campaignId);
  if (!c || !waitsForWinner(c) || (c.status !== 'SENDING' && c.status !== 'PAUSED')) return;
  const test = c.ab_test!;
  const { variants } = await abRepo.variantFigures(ctx.db, c.id, test.variants.length);
  const best = pickWinner(test.metric, variants);
  await settle(ctx, c.id, {
    variant: best.variant,
    chosenBy: 'metric',
    decidedAt: ctx.clock.now().toISOString(),
    reason: best.reason,
  });
}

/** The variant a letter names in the campaign's test (A is 0); 422 on `variant` when it names none. */
export function variantOf(c: Pick<CampaignRow, 'ab_test'>, letter: string): number {
  const variant = letter.toUpperCase().charCodeAt(0) - 65;
  const count = c.ab_test?.variants.length ?? 0;
  if (letter.length !== 1 || variant < 0 || variant >= count) {
    const message = count
      ? `This test's variants are ${c.ab_test!.variants.map((_, i) => variantName(i)).join(', ')}`
      : 'This campaign has no A/B test';
    throw validationError([{ field: 'variant', message, code: 'unknown_variant', received: letter }]);
  }
  return variant;
}

/** POST /campaigns/{id}/ab-test/winner: the marketer picks the winner before the wait ends. */
export async function chooseWinner(ctx: AppContext, projectId: string, id: string, letter: string) {
  const c = await repo.findCampaign(ctx.db, projectId, id);
  if (!c) throw notFound('Campaign');
  if (!hasWinnerPhase(c.ab_test)) {
    throw new AppError(409, 'NO_WINNER_PHASE', 'This campaign has no A/B test with a winner phase', {
      suggestion: 'Only a campaign whose test goes to a share of the audience sends a winner to the rest.',
    });
  }
  const variant = variantOf(c, letter);
  if (c.ab_winner) throw winnerDecided(c.ab_winner);
  if (c.status !== 'SENDING' && c.status !== 'PAUSED') {
    throw new AppError(409, 'CAMPAIGN_NOT_TESTING', `A ${c.status} campaign is not testing its variants`, {
      details: { status: c.status },
      suggestion: 'The winner is picked while the test phase is sending or waiting.',
    });
  }
  const row = await settle(ctx, c.id, {
    variant,
    chosenBy: 'manual',
    decidedAt: ctx.clock.now().toISOString(),
    reason: `${variantName(variant)} was picked by hand.`,
  });
  if (!row) {
    const now = await repo.findCampaign(ctx.db, projectId, id);
    throw winnerDecided(now!.ab_winner!);
  }
  return row;
}

const winnerDecided = (w: AbWinner) =>
  new AppError(409, 'WINNER_DECIDED', `Variant ${variantName(w.variant)} already won this test`, {
    details: { winner: variantName(w.variant), chosenBy: w.chosenBy },
  });

/** GET /campaigns/{id}/ab-test: each variant's figures side by side, and the winner with why. */
export async function abTestReport(ctx: AppContext, projectId: string, id: string) {
  const c = await repo.findCampaign(ctx.db, projectId, id);
  if (!c) throw notFound('Campaign');
  if (!c.ab_test) throw notFound('A/B test');
  const test = c.ab_test;
  const started = c.sent_at !== null && c.status !== 'DRAFT' && c.status !== 'SCHEDULED';
  // Before sending there is nothing to count.
  const figures = started ? await abRepo.variantFigures(ctx.db, c.id, test.variants.length) : null;
  const comparisons = figures ? compareVariants(test.metric, figures.variants) : null;
  return {
    campaignId: c.id,
    metric: test.metric,
    metricName: METRIC_WORDS[test.metric],
    testPercent: test.testPercent,
    waitHours: test.waitHours,
    decidesAt:
      started && hasWinnerPhase(test)
        ? decidesAt(test, new Date(c.sent_at!), ctx.config.abTestHourMs).toISOString()
        : null,
    testedAt: iso(c.ab_tested_at),
    winner: c.ab_winner ? { ...c.ab_winner, variant: variantName(c.ab_winner.variant) } : null,
    machineOpens: figures?.machineOpens ?? 0,
    variants: test.variants.map((v, i) => ({
      variant: variantName(i),
      subject: v.subject ?? c.subject,
      fromName: v.fromName === undefined ? c.from_name : v.fromName,
      changesBody: v.body !== undefined,
      figures: figures?.variants[i] ?? null,
      rate: comparisons?.[i]?.rate ?? null,
      difference: comparisons?.[i]?.difference ?? null,
      confidence: comparisons?.[i]?.confidence ?? null,
    })),
    rest: figures?.rest ?? null,
  };
}
