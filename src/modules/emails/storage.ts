import { sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.js';
import { dropPartitionsBefore, maintainPartitions } from '../../platform/db/partitions.js';

const DAY_MS = 86_400_000;
/**
 * An email waiting to be sent, in the form of the queue's two partial indexes (`emails_due_*`), so
 * that asking a month for one reads those indexes instead of the whole partition.
 */
const QUEUED = sql`(status = 'queued' and campaign_id is null) or (status = 'queued' and campaign_id is not null)`;

/**
 * Keeps the emails' month partitions ahead of time and, when EMAIL_RETENTION_DAYS is set, drops,
 * whole, the months all of whose emails are past it. A month that still holds an email waiting to
 * be sent is kept until that email has gone out or failed.
 */
export async function maintainEmailStorage(
  ctx: AppContext,
): Promise<{ sealed: string[]; made: string[]; dropped: string[] }> {
  const now = ctx.clock.now();
  const { sealed, made } = await maintainPartitions(ctx.database, 'emails', now);
  const days = ctx.config.emailRetentionDays;
  const dropped =
    days === undefined
      ? []
      : await dropPartitionsBefore(ctx.db, 'emails', new Date(now.getTime() - days * DAY_MS), QUEUED);
  if (sealed.length > 0 || made.length > 0 || dropped.length > 0)
    ctx.log.info({ sealed, made, dropped }, 'email partitions maintained');
  return { sealed, made, dropped };
}
