import type { AppContext } from './platform/context.js';
import { purgeExpiredIdempotencyKeys } from './platform/http/idempotency.js';
import { purgeRevokedSessions } from './modules/accounts/sessions.js';
import type { JobRunner } from './platform/queue.js';
import { CONTACT_JOB_QUEUE, runContactJob } from './modules/contacts/jobs.js';
import { endSnooze, SNOOZE_END_QUEUE } from './modules/contacts/service.js';
import { checkAllDomains } from './modules/domains/service.js';
import { deliverWebhook, WEBHOOK_DELIVERY_QUEUE } from './modules/webhooks/delivery.js';
import { countSegment, refreshAllSegmentCounts, SEGMENT_COUNT_QUEUE } from './modules/segments/service.js';
import {
  CAMPAIGN_FANOUT_QUEUE,
  CAMPAIGN_START_QUEUE,
  fanOutCampaign,
  rescueCampaigns,
  startScheduledCampaign,
} from './modules/campaigns/sending.js';

/** Short, renewed by the fan-out's heartbeat, so a crashed worker's campaign resumes within seconds. */
const FANOUT_LEASE_MS = 15_000;

/** Every background job of the worker role, named for what it does. */
export function registerJobs(runner: JobRunner, ctx: AppContext): void {
  runner.work<{ jobId: string }>(CONTACT_JOB_QUEUE, (job) => runContactJob(ctx, job.payload.jobId, job.heartbeat), {
    concurrency: 2,
    leaseMs: 15_000,
  });
  runner.work<{ projectId: string; contactId: string }>(SNOOZE_END_QUEUE, (job) =>
    endSnooze(ctx, job.payload.projectId, job.payload.contactId),
  );
  runner.every('purge-idempotency-keys', 60 * 60_000, async () => {
    await purgeExpiredIdempotencyKeys(ctx.db, ctx.clock.now());
    await purgeRevokedSessions(ctx.db, ctx.clock.now());
  });
  runner.every('verify-domains', 5 * 60_000, async () => {
    await checkAllDomains(ctx);
  });
  runner.work<{ segmentId: string }>(SEGMENT_COUNT_QUEUE, (job) => countSegment(ctx, job.payload.segmentId), { concurrency: 1 });
  runner.every('refresh-segment-counts', 5 * 60_000, async () => {
    await refreshAllSegmentCounts(ctx);
  });
  runner.work<{ campaignId: string; scheduledFor: string }>(CAMPAIGN_START_QUEUE, (job) =>
    startScheduledCampaign(ctx, job.payload.campaignId, job.payload.scheduledFor),
  );
  runner.work<{ campaignId: string }>(CAMPAIGN_FANOUT_QUEUE, (job) => fanOutCampaign(ctx, job.payload.campaignId, job), {
    concurrency: 2,
    leaseMs: FANOUT_LEASE_MS,
  });
  runner.every('rescue-campaigns', 30_000, () => rescueCampaigns(ctx));
  runner.work<{ deliveryId: string }>(WEBHOOK_DELIVERY_QUEUE, (job) => deliverWebhook(ctx, job), {
    concurrency: 10,
    // Longer than a request's 10 s timeout, so a slow receiver never gets the same delivery twice at once.
    leaseMs: 60_000,
    retryBaseMs: ctx.config.delivery.retryBaseMs,
  });
}
