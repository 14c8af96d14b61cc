import { type SQL, sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.js';
import { run } from '../../platform/db/client.js';

/**
 * The only writers of `event_daily_counts`, the per-day counts of events that the activity and
 * analytics pages read instead of counting millions of events.
 */

/**
 * Keeps `event_daily_counts` as events are dispatched, one statement per batch, in the
 * dispatcher's transaction: an event is counted exactly when it is delivered to subscribers. An
 * event that no other subscriber wants may be stored without an outbox entry; the statement that
 * stores it counts it then (`countEventsCte`), so this subscriber asks for none itself.
 */
export function subscribeDailyCounts(ctx: AppContext): void {
  ctx.bus.subscribe(
    async (tx, events) => {
      const counts = new Map<string, { projectId: string; name: string; day: string; count: number }>();
      for (const e of events) {
        const day = e.createdAt.toISOString().slice(0, 10);
        const key = `${e.projectId} ${e.name} ${day}`;
        const entry = counts.get(key) ?? { projectId: e.projectId, name: e.name, day, count: 0 };
        entry.count++;
        counts.set(key, entry);
      }
      await run(
        tx,
        sql`
      insert into event_daily_counts (project_id, name, day, count)
      select c."projectId", c.name, c.day, c.count
      from jsonb_to_recordset(${JSON.stringify([...counts.values()])}::jsonb)
        as c("projectId" uuid, name text, day date, count int)
      -- the same order in every worker, so two batches never wait on each other's rows in a cycle
      order by 1, 2, 3
      on conflict (project_id, name, day) do update set count = event_daily_counts.count + excluded.count`,
      );
    },
    { wants: sql`false` },
  );
}

/**
 * The CTE `<name>`: counts the events of the CTE `source` (`project_id`, `name`, `created_at`) for
 * which `where` holds (SQL on the alias `ev`), for a statement that stores events it leaves out of
 * the outbox: they are counted when stored instead of when dispatched.
 */
export function countEventsCte(name: string, source: string, where: SQL): SQL {
  return sql`${sql.raw(name)} as (
    insert into event_daily_counts (project_id, name, day, count)
    select ev.project_id, ev.name, (ev.created_at at time zone 'UTC')::date, count(*)::int
    from ${sql.raw(source)} ev where ${where}
    group by 1, 2, 3
    -- the order of the dispatcher's statement, so the two never wait on each other's rows in a cycle
    order by 1, 2, 3
    on conflict (project_id, name, day) do update set count = event_daily_counts.count + excluded.count)`;
}

/**
 * The CTE `uncounted`: takes the dispatched events of the contacts selected by `contactIds` out of
 * the daily counts, for the statement that deletes those contacts (their events go by cascade), so
 * statistics stay those of the events that exist.
 */
export function uncountEventsOfContactsCte(projectId: string, contactIds: SQL): SQL {
  return sql`uncounted as (
    update event_daily_counts d set count = d.count - g.n
    from (
      select e.name, (e.created_at at time zone 'UTC')::date as day, count(*)::int as n
      from events e
      where e.contact_id in (${contactIds}) and e.project_id = ${projectId}
        and not exists (select 1 from event_outbox o where o.event_id = e.id)
      group by 1, 2) g
    where d.project_id = ${projectId} and d.name = g.name and d.day = g.day)`;
}
