import { sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.js';
import { run } from '../../platform/db/client.js';

/**
 * Keeps `event_daily_counts` as events are dispatched, one statement per batch, in the
 * dispatcher's transaction: an event is counted exactly when it is delivered to subscribers.
 */
export function subscribeActivityRollup(ctx: AppContext): void {
  ctx.bus.subscribe(async (tx, events) => {
    const counts = new Map<string, { projectId: string; name: string; day: string; count: number }>();
    for (const e of events) {
      const day = e.createdAt.toISOString().slice(0, 10);
      const key = `${e.projectId} ${e.name} ${day}`;
      const entry = counts.get(key) ?? { projectId: e.projectId, name: e.name, day, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
    await run(tx, sql`
      insert into event_daily_counts (project_id, name, day, count)
      select c."projectId", c.name, c.day, c.count
      from jsonb_to_recordset(${JSON.stringify([...counts.values()])}::jsonb) as c("projectId" uuid, name text, day date, count int)
      -- the same order in every worker, so two batches never wait on each other's rows in a cycle
      order by 1, 2, 3
      on conflict (project_id, name, day) do update set count = event_daily_counts.count + excluded.count`);
  });
}
