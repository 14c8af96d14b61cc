import { sampleFieldTypes } from '../../domain/contact-data.js';
import { isReservedEventName } from '../../domain/event-names.js';
import type { AppContext } from '../../platform/context.js';
import { retryingConflicts } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { type CursorPage, cursorPage, invalidCursorError, isKeysetCursor } from '../../platform/http/pagination.js';
import * as audit from '../audit/service.js';
import type { EventListQuery, EventRow } from './repo.js';
import * as repo from './repo.js';
import type { TrackedEvent } from './schemas.js';

export { type EventListQuery, eventsOfContacts } from './repo.js';

/** How many of an event's latest occurrences tell the keys and types of its data. */
const EVENT_DATA_SAMPLE = 200;

export function reservedEventError(field: string, name: string): AppError {
  return new AppError(422, 'VALIDATION_ERROR', 'Request validation failed', {
    errors: [
      {
        field,
        message: `"${name}" is a reserved event name emitted by the service`,
        code: 'reserved_event',
        received: name,
      },
    ],
  });
}

export function toEvent(row: EventRow): TrackedEvent {
  return {
    id: row.id,
    name: row.name,
    contactId: row.contact_id,
    email: row.email,
    data: row.data,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
export type EventView = ReturnType<typeof toEvent>;

export async function listEvents(ctx: AppContext, q: EventListQuery): Promise<CursorPage<EventView>> {
  if (q.after && !isKeysetCursor(q.after, 'timestamp')) throw invalidCursorError();
  const [rows, total] = await Promise.all([
    repo.listEvents(ctx.db, { ...q, limit: q.limit + 1 }),
    q.after ? Promise.resolve(0) : repo.countEvents(ctx.db, q),
  ]);
  return { ...cursorPage(rows, q.limit, (row) => [new Date(row.created_at).toISOString(), row.id], toEvent), total };
}

const DAY = 86_400_000;

export async function eventStats(ctx: AppContext, projectId: string, range: { since?: Date; until?: Date }) {
  const until = range.until ?? ctx.clock.now();
  const since = range.since ?? new Date(until.getTime() - 30 * DAY);
  const [byName, contacts] = await Promise.all([
    repo.eventStats(ctx.db, projectId, since, until),
    repo.distinctContacts(ctx.db, projectId, since, until),
  ]);
  return {
    since: since.toISOString(),
    until: until.toISOString(),
    total: byName.reduce((sum, r) => sum + r.count, 0),
    uniqueContacts: contacts,
    byName: byName.map((r) => ({
      name: r.name,
      count: r.count,
      uniqueContacts: r.contacts,
      lastSeenAt: new Date(r.last_seen_at).toISOString(),
    })),
  };
}

export async function eventNames(ctx: AppContext, projectId: string) {
  return { names: await repo.eventNames(ctx.db, projectId) };
}

/** The keys of an event's data, typed from its latest occurrences. */
export async function eventDataFields(ctx: AppContext, projectId: string, name: string) {
  return sampleFieldTypes(await repo.recentEventData(ctx.db, projectId, name, EVENT_DATA_SAMPLE));
}

export async function eventUsage(ctx: AppContext, projectId: string, name: string) {
  return { event: name, ...(await ctx.usage.find(ctx.db, 'event', projectId, name)) };
}

export async function deleteEvents(ctx: AppContext, projectId: string, name: string) {
  if (isReservedEventName(name)) throw reservedEventError('eventName', name);
  // Its counts and events are written meanwhile by tracking, the dispatcher and contacts' deletions.
  const deleted = await retryingConflicts(() =>
    audit.audited(
      ctx,
      (tx) => repo.deleteEventsNamed(tx, projectId, name),
      (n) => ({
        projectId,
        action: 'events.deleted',
        target: { type: 'event_name', id: name },
        changes: { deleted: n },
      }),
    ),
  );
  return { event: name, deleted };
}
