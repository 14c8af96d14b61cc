import type { AppContext } from '../../platform/context.js';
import { dropPartitionsBefore, maintainPartitions } from '../../platform/db/partitions.js';

const DAY_MS = 86_400_000;

/**
 * Keeps the webhook deliveries' month partitions ahead of time, and drops, whole, the months all of
 * whose deliveries are past WEBHOOK_DELIVERY_RETENTION_DAYS: a delivery log only needs to outlive
 * its retries and the questions asked about them, so no batch deletes are needed.
 */
export async function maintainDeliveryStorage(
  ctx: AppContext,
): Promise<{ sealed: string[]; made: string[]; dropped: string[] }> {
  const now = ctx.clock.now();
  const { sealed, made } = await maintainPartitions(ctx.database, 'webhook_deliveries', now);
  const cutoff = new Date(now.getTime() - ctx.config.webhookDeliveryRetentionDays * DAY_MS);
  const dropped = await dropPartitionsBefore(ctx.db, 'webhook_deliveries', cutoff);
  if (sealed.length > 0 || made.length > 0 || dropped.length > 0)
    ctx.log.info({ sealed, made, dropped }, 'webhook delivery partitions maintained');
  return { sealed, made, dropped };
}
