import { decidesAt } from '../../domain/ab-test.js';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/http/errors.js';
import { numberedPage, type PageRequest, pageWindow } from '../../platform/http/pagination.js';
import { waitsForWinner } from './ab-test.js';
import * as repo from './repo.js';
import * as reportRepo from './report-repo.js';
import type { CampaignEngagement, CampaignProgress } from './schemas.js';

/** A campaign's live progress and its report's series: clicks per link, opens and clicks over time. */

async function requireCampaign(ctx: AppContext, projectId: string, id: string) {
  const row = await repo.findCampaign(ctx.db, projectId, id);
  if (!row) throw notFound('Campaign');
  return row;
}

/** The rate is judged over the last five minutes, or since sending started if that is later (at least 10 s). */
const RATE_WINDOW_MS = 5 * 60_000;
const SHORTEST_WINDOW_MS = 10_000;

/**
 * GET /campaigns/{id}/progress. The estimate assumes the current rate holds for what is pending,
 * and never ends before the last slot pacing already holds for the campaign, nor before the last
 * time one of its emails waits for (a local time, a place in a spread, an A/B test's winner).
 */
export async function campaignProgress(ctx: AppContext, projectId: string, id: string): Promise<CampaignProgress> {
  const c = await requireCampaign(ctx, projectId, id);
  const now = ctx.clock.now();
  const pending = Math.max(0, c.total_recipients - c.delivered_count - c.bounced_count - c.skipped_count);
  const since = new Date(Math.max(now.getTime() - RATE_WINDOW_MS, c.sent_at ? Date.parse(iso(c.sent_at)) : 0));
  const windowMs = Math.max(now.getTime() - since.getTime(), SHORTEST_WINDOW_MS);
  // Before sending starts there is nothing to read; after it ends, the last minutes still show how it went.
  const started = c.status !== 'DRAFT' && c.status !== 'SCHEDULED';
  const recent = started
    ? await reportRepo.recentSending(ctx.db, c.id, since, now)
    : { last_minute: 0, recent: 0, deferred: 0, deferred_until: null };
  const ratePerMinute = Math.round((recent.recent / windowMs) * 60_000 * 10) / 10;
  let eta: Date | null = null;
  if (c.status === 'SENDING' && pending > 0) {
    const atRate = ratePerMinute > 0 ? now.getTime() + (pending / ratePerMinute) * 60_000 : null;
    const lastSlot = recent.deferred_until === null ? null : Date.parse(iso(recent.deferred_until));
    // The rest of an A/B test goes once the winner is decided, after the wait.
    const waitsUntil = waitsForWinner(c)
      ? decidesAt(c.ab_test!, new Date(c.sent_at!), ctx.config.abTestHourMs).getTime()
      : c.last_send_at === null
        ? null
        : Date.parse(iso(c.last_send_at));
    const lastTime = waitsUntil !== null && waitsUntil > now.getTime() ? waitsUntil : null;
    const bounds = [atRate, lastSlot, lastTime].filter((t): t is number => t !== null);
    eta = bounds.length === 0 ? null : new Date(Math.max(...bounds));
  }
  return {
    campaignId: c.id,
    status: c.status,
    totalRecipients: c.total_recipients,
    done: c.total_recipients - pending,
    sent: c.sent_count,
    pending,
    sentLastMinute: recent.last_minute,
    ratePerMinute,
    deferred: recent.deferred,
    deferredUntil: iso(recent.deferred_until),
    estimatedCompletionAt: iso(eta),
    etaSeconds: eta === null ? null : Math.max(0, Math.round((eta.getTime() - now.getTime()) / 1000)),
  };
}

const HOUR = 3_600_000;

/** The widest interval that still shows the span as a curve: minutes for 3 hours, hours for a week, then days. */
function intervalFor(spanMs: number): CampaignEngagement['interval'] {
  if (spanMs <= 3 * HOUR) return 'minute';
  if (spanMs <= 7 * 24 * HOUR) return 'hour';
  return 'day';
}

/** GET /campaigns/{id}/engagement: first opens and first clicks per interval, from when they began. */
export async function campaignEngagement(
  ctx: AppContext,
  projectId: string,
  id: string,
  interval?: CampaignEngagement['interval'],
): Promise<CampaignEngagement> {
  const c = await requireCampaign(ctx, projectId, id);
  let chosen = interval;
  if (!chosen) {
    const { first } = await reportRepo.engagementSpan(ctx.db, c.id);
    chosen = intervalFor(first ? ctx.clock.now().getTime() - Date.parse(iso(first)) : 0);
  }
  const rows = await reportRepo.engagement(ctx.db, c.id, chosen);
  return {
    campaignId: c.id,
    interval: chosen,
    data: rows.map((r) => ({ at: iso(r.at), opens: r.opens, clicks: r.clicks })),
  };
}

/** GET /campaigns/{id}/links: the tracked links of the campaign's emails by clicks, most clicked first. */
export async function campaignLinks(ctx: AppContext, projectId: string, id: string, q: PageRequest) {
  const c = await requireCampaign(ctx, projectId, id);
  const [rows, total] = await Promise.all([
    reportRepo.links(ctx.db, c.id, pageWindow(q)),
    reportRepo.countLinks(ctx.db, c.id),
  ]);
  return numberedPage(
    rows.map((r) => ({
      url: r.url,
      clicks: r.clicks,
      uniqueClicks: r.unique_clicks,
      lastClickedAt: iso(r.last_clicked_at),
    })),
    total,
    q,
  );
}
