import { sql, type SQL } from 'drizzle-orm';
import { run, type Executor } from '../../platform/db/client.js';

export interface NewEvent {
  projectId: string;
  contactId: string;
  name: string;
  data?: Record<string, unknown>;
  at: Date;
}

/**
 * Stores an event and its outbox entry in one statement; the worker hands it to the subscribers
 * (platform/event-bus). Events recorded together with a contact upsert go through
 * contacts/repo `upsertContacts` instead, which writes the same two rows.
 */
export async function recordEvent(ex: Executor, event: NewEvent): Promise<string> {
  const r = await run(ex, sql`
    with stored as (
      insert into events (project_id, contact_id, name, data, created_at)
      values (${event.projectId}, ${event.contactId}, ${event.name}, ${JSON.stringify(event.data ?? {})}::jsonb, ${event.at})
      returning id),
    outbox as (insert into event_outbox (event_id, available_at) select id, ${event.at} from stored)
    select id from stored`);
  return (r.rows[0] as { id: string }).id;
}

/**
 * Common table expressions that store one event per row of the CTE named `source` (which has a
 * `contact_id` column), each with its outbox entry: set-wise `recordEvent`, for statements that
 * change many contacts at once. `prefix` keeps the names apart when a statement uses it twice.
 */
export function recordEventsFrom(prefix: string, source: string, event: Omit<NewEvent, 'contactId'>): SQL {
  const stored = sql.raw(`${prefix}_events`);
  return sql`
    ${stored} as (
      insert into events (project_id, contact_id, name, data, created_at)
      select ${event.projectId}::uuid, contact_id, ${event.name}, ${JSON.stringify(event.data ?? {})}::jsonb, ${event.at}
      from ${sql.raw(source)}
      returning id),
    ${sql.raw(`${prefix}_outbox`)} as (insert into event_outbox (event_id, available_at) select id, ${event.at} from ${stored})`;
}
