import { retentionPlan } from '../../domain/retention.js';
import type { AppContext } from '../../platform/context.js';
import { dropPartitionsBefore, maintainPartitions } from '../../platform/db/partitions.js';
import { eventRetentions } from '../projects/service.js';
import { deleteEventsBefore } from './repo.js';

/** Rows per delete statement: short transactions that never hold many row locks or much WAL at once. */
const RETENTION_BATCH = 5_000;

/** Keeps the events table's partitions ahead of time (`maintainPartitions`). */
export async function maintainEventPartitions(ctx: AppContext): Promise<{ sealed: string[]; made: string[] }> {
  const done = await maintainPartitions(ctx.database, 'events', ctx.clock.now());
  if (done.sealed.length > 0 || done.made.length > 0) ctx.log.info(done, 'event partitions maintained');
  return done;
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
