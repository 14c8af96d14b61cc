import { sql } from 'drizzle-orm';
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
