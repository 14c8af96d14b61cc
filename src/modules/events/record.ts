import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import { countEventsCte } from './daily-counts.js';

/**
 * The only writers of `events` and `event_outbox`. An event is stored with its outbox entry in the
 * statement that stores it; the worker hands it to the subscribers (platform/event-bus). Statements
 * that store events few subscribers want may leave the others out of the outbox (`outboxWhen`).
 */

export interface NewEvent {
  projectId: string;
  contactId: string;
  name: string;
  data?: Record<string, unknown>;
  at: Date;
}

/**
 * The CTE `<name>` (`id`, `contact_id` of each event stored) and `<name>_outbox`: one event per row
 * of `rows`, a select of (project_id, contact_id, name, data, created_at), or with `withIds` of
 * (id, project_id, …) for a caller that must tell its events apart. For statements that store
 * events together with the change that caused them (a contact upsert, delivery outcomes). With
 * `outboxWhen` (EventBus `wanted`, SQL on the alias `ev`), only the events it holds for get an outbox
 * entry, and the others are counted in the daily counts at once (`<name>_counted`).
 */
export function storeEventsCte(
  name: string,
  rows: SQL,
  at: Date,
  options: { withIds?: boolean; outboxWhen?: SQL } = {},
): SQL {
  const stored = sql.raw(name);
  const columns = sql.raw(`${options.withIds ? 'id, ' : ''}project_id, contact_id, name, data, created_at`);
  if (options.outboxWhen) {
    // Only events a subscriber has work for (EventBus `wanted`) go through the outbox; the rest are
    // counted here, as the daily counts' subscriber would have counted them.
    return sql`
    ${stored} as (
      insert into events (${columns})
      ${rows}
      returning id, project_id, contact_id, name, created_at),
    ${sql.raw(`${name}_outbox`)} as (insert into event_outbox (event_id, available_at)
      select ev.id, ${at} from ${stored} ev where ${options.outboxWhen}),
    ${countEventsCte(`${name}_counted`, name, sql`not ${options.outboxWhen}`)}`;
  }
  return sql`
    ${stored} as (
      insert into events (${columns})
      ${rows}
      returning id, contact_id),
    ${sql.raw(`${name}_outbox`)} as (insert into event_outbox (event_id, available_at)
      select id, ${at} from ${stored})`;
}

export async function recordEvent(ex: Executor, event: NewEvent): Promise<string> {
  const rows = sql`values (${event.projectId}::uuid, ${event.contactId}::uuid, ${event.name},
    ${JSON.stringify(event.data ?? {})}::jsonb, ${event.at}::timestamptz)`;
  const r = await run<{ id: string }>(ex, sql`with ${storeEventsCte('stored', rows, event.at)} select id from stored`);
  return r.rows[0]!.id;
}

/**
 * `storeEventsCte` for one event per row of the CTE named `source` (which has a `contact_id`
 * column), for statements that change many contacts at once. `prefix` keeps the names apart when
 * a statement uses it twice.
 */
export function recordEventsFrom(prefix: string, source: string, event: Omit<NewEvent, 'contactId'>): SQL {
  const rows = sql`select ${event.projectId}::uuid, contact_id, ${event.name},
      ${JSON.stringify(event.data ?? {})}::jsonb, ${event.at}::timestamptz
      from ${sql.raw(source)}`;
  return storeEventsCte(`${prefix}_events`, rows, event.at);
}
