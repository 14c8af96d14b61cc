import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';

/**
 * The only writers of `events` and `event_outbox`. An event is stored with its outbox entry in the
 * statement that stores it; the worker hands it to the subscribers (platform/event-bus).
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
 * events together with the change that caused them (a contact upsert, delivery outcomes).
 */
export function storeEventsCte(name: string, rows: SQL, at: Date, options: { withIds?: boolean } = {}): SQL {
  const stored = sql.raw(name);
  const columns = sql.raw(`${options.withIds ? 'id, ' : ''}project_id, contact_id, name, data, created_at`);
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
