import path from 'node:path';
import { purgeExpiredSessions } from './modules/accounts/sessions.js';
import { purgeExpiredEntries } from './modules/audit/service.js';
import { decideWinner } from './modules/campaigns/ab-test.js';
import { campaignOutcomeEffects } from './modules/campaigns/counters.js';
import { CAMPAIGN_FANOUT_QUEUE, CAMPAIGN_START_QUEUE, CAMPAIGN_WINNER_QUEUE } from './modules/campaigns/jobs.js';
import { fanOutCampaign, rescueCampaigns, startScheduledCampaign } from './modules/campaigns/sending.js';
import { CONTACT_JOB_QUEUE, runContactJob } from './modules/contacts/jobs.js';
import { endSnooze, SNOOZE_END_QUEUE } from './modules/contacts/service.js';
import { checkAllDomains } from './modules/domains/service.js';
import { DeliveryEngine } from './modules/emails/delivery-engine.js';
import { maintainEmailStorage } from './modules/emails/storage.js';
import { subscribeDailyCounts } from './modules/events/daily-counts.js';
import { applyEventRetention, maintainEventPartitions } from './modules/events/storage.js';
import { purgeUnconfirmedSignups } from './modules/forms/signup.js';
import { ERASE_QUEUE, runErase } from './modules/privacy/erase.js';
import { applyMailRetention } from './modules/privacy/retention.js';
import { countSegment, refreshAllSegmentCounts, SEGMENT_COUNT_QUEUE } from './modules/segments/service.js';
import {
  type DeliveryJob,
  deliverWebhook,
  subscribeWebhookDeliveries,
  WEBHOOK_DELIVERY_QUEUE,
} from './modules/webhooks/sender.js';
import { maintainDeliveryStorage } from './modules/webhooks/storage.js';
import { WorkflowEngine } from './modules/workflows/engine.js';
import { subscribeWorkflowTriggers } from './modules/workflows/triggers.js';
import type { AppContext } from './platform/context.js';
import { EventDispatcher } from './platform/event-dispatcher.js';
import { purgeExpiredIdempotencyKeys } from './platform/http/idempotency.js';
import { outboxTransport, smtpTransport } from './platform/mail/transport.js';
import type { Metrics } from './platform/metrics/registry.js';
import { instrumentTransport } from './platform/metrics/relay.js';
import { JobRunner } from './platform/queue.js';

/**
 * The worker role, assembled in one place: every loop it runs, every job it takes, every
 * subscriber of the event bus, and the leases that decide how soon another worker takes over
 * the work of one that died.
 */

/** Executions claimed per round by the workflow engine. */
const WORKFLOW_BATCH = 200;
/**
 * Longer than a webhook step's timeout (10 s). A crashed worker's executions do not wait for it:
 * they are taken over as soon as its database session is gone. The lease covers a worker that is
 * alive but stuck.
 */
const WORKFLOW_LEASE_MS = 60_000;
/*
 * Job leases: a crashed worker's jobs are taken over as soon as its database session is gone; a
 * lease covers a worker that is alive but stuck.
 */
/** Short, renewed by the fan-out's heartbeat. */
const FANOUT_LEASE_MS = 15_000;
/** A campaign's fan-out that failed runs again within this, like the rescue's interval. */
const FANOUT_MAX_RETRY_MS = 30_000;
/** A contact job (an import, a bulk change) renews its lease as it goes. */
const CONTACT_JOB_LEASE_MS = 15_000;
/** Longer than a webhook request's 10 s timeout, so a slow receiver never gets the same delivery twice at once. */
const WEBHOOK_LEASE_MS = 60_000;

export interface RunningWorker {
  stop(): Promise<void>;
}

export async function startWorker(ctx: AppContext, metrics?: Metrics): Promise<RunningWorker> {
  const runner = new JobRunner(ctx.database, ctx.clock, ctx.log);
  registerJobs(runner, ctx);
  await runner.start();

  await subscribeWorkflowTriggers(ctx);
  subscribeWebhookDeliveries(ctx);
  subscribeDailyCounts(ctx);
  const dispatcher = new EventDispatcher(ctx.database, ctx.bus, ctx.clock, ctx.log);
  dispatcher.start();

  const { config } = ctx;
  const transport = config.smtpUrl
    ? smtpTransport(config.smtpUrl, { maxConnections: config.smtpMaxConnections })
    : outboxTransport(path.join(config.dataDir, 'outbox'));
  const relay = metrics ? instrumentTransport(transport, metrics) : transport;
  // Two messages per pooled connection: one being sent and one ready behind it, so a connection never
  // waits for the next message to be built; a send waits behind at most that one. The outbox has no such bound.
  const relaySlots = config.smtpUrl ? 2 * config.smtpMaxConnections : config.delivery.concurrency;
  const delivery = new DeliveryEngine(ctx, relay, { ...config.delivery, relaySlots }, campaignOutcomeEffects(ctx));
  await delivery.start();

  const workflows = new WorkflowEngine(ctx, { batch: WORKFLOW_BATCH, leaseMs: WORKFLOW_LEASE_MS });
  await workflows.start();

  return {
    async stop() {
      await workflows.stop();
      await delivery.stop();
      await dispatcher.stop();
      await runner.stop();
    },
  };
}

/** Every background job, named for what it does. */
function registerJobs(runner: JobRunner, ctx: AppContext): void {
  runner.work<{ jobId: string }>(CONTACT_JOB_QUEUE, (job) => runContactJob(ctx, job.payload.jobId, job.heartbeat), {
    concurrency: 2,
    leaseMs: CONTACT_JOB_LEASE_MS,
  });
  runner.work<{ projectId: string; contactId: string }>(SNOOZE_END_QUEUE, (job) =>
    endSnooze(ctx, job.payload.projectId, job.payload.contactId),
  );
  runner.every('purge-idempotency-keys', 60 * 60_000, async () => {
    await purgeExpiredIdempotencyKeys(ctx.db, ctx.clock.now());
    await purgeExpiredSessions(ctx.db, ctx.clock.now());
    await purgeExpiredEntries(ctx);
    await purgeUnconfirmedSignups(ctx);
  });
  runner.every('partitions', 60 * 60_000, async () => {
    await maintainEventPartitions(ctx);
    await applyEventRetention(ctx);
    await maintainDeliveryStorage(ctx);
    await maintainEmailStorage(ctx);
  });
  runner.every('mail-retention', 60 * 60_000, async () => {
    await applyMailRetention(ctx);
  });
  // One erase at a time per worker: its batches are short, and other work goes on in between.
  runner.work<{ jobId: string }>(ERASE_QUEUE, (job) => runErase(ctx, job.payload.jobId, job), {
    concurrency: 1,
    leaseMs: CONTACT_JOB_LEASE_MS,
    retryBaseMs: 2_000,
    maxRetryMs: 60_000,
  });
  runner.every('verify-domains', 5 * 60_000, async () => {
    await checkAllDomains(ctx);
  });
  runner.work<{ segmentId: string }>(SEGMENT_COUNT_QUEUE, (job) => countSegment(ctx, job.payload.segmentId), {
    concurrency: 1,
  });
  runner.every('refresh-segment-counts', 5 * 60_000, async () => {
    await refreshAllSegmentCounts(ctx);
  });
  runner.work<{ campaignId: string; scheduledFor: string }>(CAMPAIGN_START_QUEUE, (job) =>
    startScheduledCampaign(ctx, job.payload.campaignId, job.payload.scheduledFor),
  );
  runner.work<{ campaignId: string }>(
    CAMPAIGN_FANOUT_QUEUE,
    (job) => fanOutCampaign(ctx, job.payload.campaignId, job),
    {
      concurrency: 2,
      leaseMs: FANOUT_LEASE_MS,
      // Resumable at any point, and taken over whenever a page outlasts its lease on a busy machine:
      // a failure (threads or the database short for a moment) is retried soon, whatever its count.
      maxRetryMs: FANOUT_MAX_RETRY_MS,
    },
  );
  runner.work<{ campaignId: string }>(CAMPAIGN_WINNER_QUEUE, (job) => decideWinner(ctx, job.payload.campaignId));
  runner.every('rescue-campaigns', 30_000, () => rescueCampaigns(ctx));
  runner.work<DeliveryJob>(WEBHOOK_DELIVERY_QUEUE, (job) => deliverWebhook(ctx, job), {
    concurrency: 10,
    leaseMs: WEBHOOK_LEASE_MS,
    retryBaseMs: ctx.config.delivery.retryBaseMs,
  });
}
