import { retentionPlan } from '../../domain/retention.js';
import type { AppContext } from '../../platform/context.js';
import { dropPartitionsBefore, ensureMonthsAhead, sealUnpartitioned } from '../../platform/db/partitions.js';
import { eventRetentions } from '../projects/service.js';
import { deleteEventsBefore } from './repo.js';

/** Months of partitions made ahead of the current one, so a missed run or two costs nothing. */
export const EVENT_MONTHS_AHEAD = 3;
/** Rows per delete statement: short transactions that never hold many row locks or much WAL at once. */
const RETENTION_BATCH = 5_000;

/**
 * Keeps the events table's partitions ahead of time: finishes the conversion of a table from before
 * partitioning (each step resumable), then makes the months to come.
 */
export async function maintainEventPartitions(ctx: AppContext): Promise<{ sealed: string[]; made: string[] }> {
  const now = ctx.clock.now();
  const sealed = await sealUnpartitioned(ctx.database, 'events', now);
  const made = await ensureMonthsAhead(ctx.db, 'events', now, EVENT_MONTHS_AHEAD);
  if (sealed.length > 0 || made.length > 0) ctx.log.info({ sealed, made }, 'event partitions maintained');
  return { sealed, made };
}

/**
 * Removes the events past each project's retention: whole partitions where every project lets
 * them go, small batches elsewhere (docs/operations.md, "Partitioned events and their retention").
 */
export async function applyEventRetention(ctx: AppContext): Promise<{ dropped: string[]; deleted: number }> {
  const plan = retentionPlan(await eventRetentions(ctx.db), ctx.config.eventRetentionDays, ctx.clock.now());
  const dropped = plan.dropBefore ? await dropPartitionsBefore(ctx.db, 'events', plan.dropBefore) : [];
  let deleted = 0;
  for (const { projectId, before } of plan.deletes) {
    for (;;) {
      const n = await deleteEventsBefore(ctx.db, projectId, before, RETENTION_BATCH);
      deleted += n;
      if (n < RETENTION_BATCH) break;
    }
  }
  if (dropped.length > 0 || deleted > 0) ctx.log.info({ dropped, deleted }, 'events past their retention removed');
  return { dropped, deleted };
}
