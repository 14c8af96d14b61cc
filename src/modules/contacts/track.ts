import { parseDataPatch, renderData } from '../../domain/contact-data.js';
import { isReservedEventName } from '../../domain/event-names.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { claimIdempotencyKey, type RequestIdentity, rememberResponse } from '../../platform/http/idempotency.js';
import { reservedEventError } from '../events/service.js';
import type { TrackBody } from './schemas.js';
import { upsertContact } from './service.js';

/**
 * Upserts the contact and records the event: one statement in the common case. A transaction is
 * needed only to claim an Idempotency-Key with the work, or when an explicit `subscribed` may flip
 * the subscription and add its event.
 */
export async function trackEvent(ctx: AppContext, projectId: string, input: TrackBody, request: RequestIdentity) {
  if (isReservedEventName(input.event)) throw reservedEventError('event', input.event);
  const patch = parseDataPatch(input.data);
  const now = ctx.clock.now();
  const track = async (ex: Executor) => {
    const { contact, eventId } = await upsertContact(
      ctx,
      ex,
      { email: input.email, subscribed: input.subscribed, patch },
      {
        projectId,
        subscribedByDefault: true,
        source: 'track',
        at: now,
        event: { name: input.event, data: renderData(patch.set, patch) },
      },
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
