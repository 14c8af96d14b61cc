import { randomUUID } from 'node:crypto';
import { type DataPatch, parseDataPatch, renderData } from '../../domain/contact-data.js';
import { isReservedEventName } from '../../domain/event-names.js';
import type { AppContext } from '../../platform/context.js';
import { type Executor, queryDeadlineMs } from '../../platform/db/client.js';
import { GroupCommit, type Outcome, transactionalWrite } from '../../platform/group-commit.js';
import { claimIdempotencyKeys, type RequestIdentity, rememberResponses } from '../../platform/http/idempotency.js';
import { reservedEventError } from '../events/service.js';
import type { TrackBody } from './schemas.js';
import { writeContacts } from './service.js';

/** What one /v1/track request writes. */
export interface TrackRequest {
  projectId: string;
  email: string;
  subscribed?: boolean;
  patch: DataPatch;
  eventId: string;
  event: string;
  at: Date;
  identity: RequestIdentity;
}

export interface Tracked {
  contact: string;
  event: string;
  timestamp: string;
}

/*
 * Two batches in flight: while one is in the database the next is gathered and sent (one at a time
 * served about 13 % fewer requests/s in bench/track.ts). A hundred requests bound a statement's
 * parameters to about 13 MB (64 KB of `data` per request, stored on the contact and on the event).
 */
const MAX_BATCH = 100;
const MAX_IN_FLIGHT = 2;

/**
 * /v1/track by group commit: concurrent requests are written together, each answered once its own
 * rows are committed (platform/group-commit.ts).
 */
export class Tracker {
  private readonly batches: GroupCommit<TrackRequest, Tracked>;

  constructor(private readonly ctx: AppContext) {
    this.batches = new GroupCommit({
      // The Idempotency-Keys, the contacts, the events with their outbox entries and the kept
      // responses: at most four statements whatever the size of the batch.
      write: transactionalWrite(ctx.database, (tx, requests) => writeBatch(ctx, tx, requests)),
      deadlineMs: queryDeadlineMs(ctx.config.databaseTimeouts),
      maxBatch: MAX_BATCH,
      maxInFlight: MAX_IN_FLIGHT,
      exclusiveKey: (r) => (r.identity.idempotencyKey ? `${r.projectId} ${r.identity.idempotencyKey}` : undefined),
    });
  }

  /** Requests waiting for a batch. */
  get waiting(): number {
    return this.batches.waiting;
  }

  /** Every batch writer is taken. */
  get full(): boolean {
    return this.batches.full;
  }

  track(projectId: string, input: TrackBody, identity: RequestIdentity): Promise<Tracked> {
    if (isReservedEventName(input.event)) throw reservedEventError('event', input.event);
    return this.batches.submit({
      projectId,
      email: input.email,
      subscribed: input.subscribed,
      patch: parseDataPatch(input.data),
      eventId: randomUUID(),
      event: input.event,
      at: this.ctx.clock.now(),
      identity,
    });
  }
}

const trackers = new WeakMap<AppContext, Tracker>();

/** The process's tracker: /v1/track and /events/track share its batches. */
export function trackerOf(ctx: AppContext): Tracker {
  const tracker = trackers.get(ctx) ?? new Tracker(ctx);
  trackers.set(ctx, tracker);
  return tracker;
}

async function writeBatch(ctx: AppContext, ex: Executor, requests: TrackRequest[]): Promise<Outcome<Tracked>[]> {
  const keyed = requests.filter((r) => r.identity.idempotencyKey);
  const refusals = await claimIdempotencyKeys(
    ex,
    keyed.map((r) => ({
      projectId: r.projectId,
      key: r.identity.idempotencyKey!,
      method: r.identity.method,
      path: r.identity.path,
      statusCode: 200,
      now: r.at,
      ttlHours: ctx.config.idempotencyTtlHours,
    })),
  );
  const refused = new Map<TrackRequest, Error>();
  for (const [i, r] of keyed.entries()) if (refusals[i]) refused.set(r, refusals[i]);
  const accepted = requests.filter((r) => !refused.has(r));
  const contacts = await writeContacts(
    ctx,
    ex,
    accepted.map((r) => ({
      projectId: r.projectId,
      input: { email: r.email, subscribed: r.subscribed, patch: r.patch },
      events: [{ id: r.eventId, name: r.event, data: renderData(r.patch.set, r.patch), at: r.at }],
    })),
    { subscribedByDefault: true, source: 'track', at: latest(accepted) },
  );
  const tracked = new Map<TrackRequest, Tracked>();
  for (const [i, r] of accepted.entries()) {
    tracked.set(r, { contact: contacts[i]!.contact.id, event: r.eventId, timestamp: r.at.toISOString() });
  }
  await rememberResponses(
    ex,
    accepted
      .filter((r) => r.identity.idempotencyKey)
      .map((r) => ({ projectId: r.projectId, key: r.identity.idempotencyKey!, data: tracked.get(r) })),
  );
  return requests.map((r) => {
    const value = tracked.get(r);
    return value ? { ok: true, value } : { ok: false, error: refused.get(r) };
  });
}

/** The moment of the batch's latest request: the contacts' `updated_at`. */
function latest(requests: TrackRequest[]): Date | undefined {
  if (requests.length === 0) return undefined;
  return new Date(Math.max(...requests.map((r) => r.at.getTime())));
}
