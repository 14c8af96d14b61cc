import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { claimIdempotencyKey, rememberResponse } from '../../platform/http/idempotency.js';
import { cursorPage, invalidCursorError, isKeysetCursor, type CursorPage } from '../../platform/http/pagination.js';
import { parseDataPatch, renderData } from '../../domain/contact-data.js';
import { isReservedEventName } from '../../domain/event-names.js';
import { findContact } from '../contacts/repo.js';
import { upsertContact } from '../contacts/service.js';
import * as repo from './repo.js';
import type { EventListQuery, EventRow } from './repo.js';

export interface TrackInput {
  email: string;
  event: string;
  subscribed?: boolean;
  data?: Record<string, unknown>;
}

export interface RequestIdentity {
  idempotencyKey?: string;
  method: string;
  path: string;
}

export function reservedEventError(field: string, name: string): AppError {
  return new AppError(422, 'VALIDATION_ERROR', 'Request validation failed', {
    errors: [{ field, message: `"${name}" is a reserved event name emitted by the service`, code: 'reserved_event', received: name }],
  });
}

/**
 * Upserts the contact and records the event: one statement in the common case. A transaction is
 * needed only to claim an Idempotency-Key with the work, or when an explicit `subscribed` may flip
 * the subscription and add its event.
 */
export async function trackEvent(ctx: AppContext, projectId: string, input: TrackInput, request: RequestIdentity) {
  if (isReservedEventName(input.event)) throw reservedEventError('event', input.event);
  const patch = parseDataPatch(input.data);
  const now = ctx.clock.now();
  const track = async (ex: Executor) => {
    const { contact, eventId } = await upsertContact(
      ctx,
      ex,
      { email: input.email, subscribed: input.subscribed, patch },
      { projectId, subscribedByDefault: true, source: 'track', at: now, event: { name: input.event, data: renderData(patch.set, patch) } },
    );
    return { contact: contact.id, event: eventId!, timestamp: now.toISOString() };
  };
  const key = request.idempotencyKey;
  if (!key && input.subscribed === undefined) return track(ctx.db);
  return ctx.db.transaction(async (tx) => {
    if (key) {
      await claimIdempotencyKey(tx, {
        projectId,
        key,
        method: request.method,
        path: request.path,
        statusCode: 200,
        now,
        ttlHours: ctx.config.idempotencyTtlHours,
      });
    }
    const data = await track(tx);
    if (key) await rememberResponse(tx, { projectId, key }, data);
    return data;
  });
}

export function toEvent(row: EventRow) {
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
  return cursorPage(rows, q.limit, total, (row) => [new Date(row.created_at).toISOString(), row.id], toEvent);
}

export async function listContactEvents(ctx: AppContext, q: EventListQuery & { contactId: string }) {
  if (!(await findContact(ctx.db, q.projectId, q.contactId))) throw notFound('Contact');
  return listEvents(ctx, q);
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

export async function eventUsage(ctx: AppContext, projectId: string, name: string) {
  return { event: name, ...(await ctx.usage.find(ctx.db, 'event', projectId, name)) };
}

export async function deleteEvents(ctx: AppContext, projectId: string, name: string) {
  if (isReservedEventName(name)) throw reservedEventError('eventName', name);
  return { event: name, deleted: await repo.deleteEventsNamed(ctx.db, projectId, name) };
}
