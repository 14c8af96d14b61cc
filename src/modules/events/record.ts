import { sql } from 'drizzle-orm';
import { run, type Tx } from '../../platform/db/client.js';
import type { EventBus, RecordedEvent } from '../../platform/event-bus.js';

export interface NewEvent {
  projectId: string;
  contactId: string;
  name: string;
  data?: Record<string, unknown>;
  at: Date;
}

/** The one writer of the events table: stores the event and publishes it in the same transaction. */
export async function recordEvent(tx: Tx, bus: EventBus, event: NewEvent): Promise<RecordedEvent> {
  const data = event.data ?? {};
  const result = await run(tx, sql`
    insert into events (project_id, contact_id, name, data, created_at)
    values (${event.projectId}, ${event.contactId}, ${event.name}, ${JSON.stringify(data)}::jsonb, ${event.at})
    returning id`);
  const recorded: RecordedEvent = {
    id: (result.rows[0] as { id: string }).id,
    projectId: event.projectId,
    contactId: event.contactId,
    name: event.name,
    data,
    createdAt: event.at,
  };
  await bus.publish(tx, recorded);
  return recorded;
}
