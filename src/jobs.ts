import type { AppContext } from './platform/context.js';
import { purgeExpiredIdempotencyKeys } from './platform/http/idempotency.js';
import type { JobRunner } from './platform/queue.js';
import { CONTACT_JOB_QUEUE, runContactJob } from './modules/contacts/jobs.js';
import { endSnooze, SNOOZE_END_QUEUE } from './modules/contacts/service.js';
import { checkAllDomains } from './modules/domains/service.js';

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
  });
  runner.every('verify-domains', 5 * 60_000, async () => {
    await checkAllDomains(ctx);
  });
}
