import { randomUUID } from 'node:crypto';
import { eventMatches } from '../../domain/webhook-events.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { enqueueMany, type Job, JobInterrupted } from '../../platform/queue.js';
import { sendWebhook, WebhookError } from '../../platform/webhook.js';
import * as repo from './repo.js';

export const WEBHOOK_DELIVERY_QUEUE = 'webhook.deliver';
/** With DELIVERY_RETRY_BASE_SECONDS at 30: retries over about four hours, then the delivery fails. */
export const WEBHOOK_MAX_ATTEMPTS = 10;
const TIMEOUT_MS = 10_000;

/** An event as webhooks carry it: `data` is the payload's `data`, with `eventId` (and `contactId`) added. */
interface HookEvent {
  id: string;
  projectId: string;
  /** Absent for events about a project's resource rather than a contact (see `announce`). */
  contactId?: string;
  name: string;
  createdAt: Date;
  data: Record<string, unknown>;
}

/** A delivery row and a job for each enabled webhook of the event's project that subscribes to it, in `ex`. */
async function writeDeliveries(ctx: AppContext, ex: Executor, events: HookEvent[]): Promise<void> {
  if (events.length === 0) return;
  const hooks = await repo.enabledWebhooks(ex, [...new Set(events.map((e) => e.projectId))]);
  if (hooks.length === 0) return;
  const deliveries: repo.NewDelivery[] = [];
  for (const event of events) {
    for (const hook of hooks) {
      if (hook.project_id !== event.projectId || !eventMatches(hook.events, event.name)) continue;
      deliveries.push({
        webhookId: hook.id,
        eventId: event.id,
        eventName: event.name,
        payload: {
          type: event.name,
          timestamp: event.createdAt.toISOString(),
          data: { ...event.data, eventId: event.id, ...(event.contactId ? { contactId: event.contactId } : {}) },
        },
      });
    }
  }
  if (deliveries.length === 0) return;
  const now = ctx.clock.now();
  const ids = await repo.insertDeliveries(ex, deliveries, now);
  await enqueueMany(
    ex,
    WEBHOOK_DELIVERY_QUEUE,
    ids.map((deliveryId): DeliveryJob => ({ deliveryId, createdAt: now.toISOString() })),
    { maxAttempts: WEBHOOK_MAX_ATTEMPTS },
  );
}

/**
 * A delivery's job names its row by id and time: the time picks the month partition that holds it
 * (jobs enqueued before deliveries were partitioned carry the id alone, and probe every partition).
 */
export type DeliveryJob = {
  deliveryId: string;
  createdAt?: string;
};

/**
 * Every dispatched event that a project's enabled webhook subscribes to becomes a delivery row and
 * a job, in the dispatcher's transaction: accepted events are never lost to a crash, and each
 * delivery is attempted by exactly one worker at a time.
 */
export function subscribeWebhookDeliveries(ctx: AppContext): void {
  ctx.bus.subscribe((tx, events) => writeDeliveries(ctx, tx, events), { wants: repo.WEBHOOK_WANTS_EVENT });
}

/** An event about a project's resource rather than a contact (`campaign.paused`): it goes to webhooks only. */
export interface ProjectEvent {
  projectId: string;
  name: string;
  data: Record<string, unknown>;
  at: Date;
}

/**
 * Sends project events to the webhooks that subscribe to them, with deliveries written in `ex`, the
 * transaction of the change they announce: they happen together or not at all. Such events have
 * no contact, so they are not stored as events (a contact's timeline, workflow triggers); each gets
 * an id of its own, the `eventId` of its payload.
 */
export function announce(ctx: AppContext, ex: Executor, events: ProjectEvent[]): Promise<void> {
  return writeDeliveries(
    ctx,
    ex,
    events.map((e) => ({ id: randomUUID(), projectId: e.projectId, name: e.name, createdAt: e.at, data: e.data })),
  );
}

/**
 * One attempt of a delivery: a 2xx settles it, a temporary failure (timeout, connection error, 408,
 * 429, 5xx) is recorded and retried with backoff by the queue, anything else fails it at once.
 */
export async function deliverWebhook(ctx: AppContext, job: Job<DeliveryJob>): Promise<void> {
  const { deliveryId, createdAt } = job.payload;
  const delivery = await repo.pendingDelivery(ctx.db, deliveryId, createdAt ? new Date(createdAt) : undefined);
  if (!delivery) return;
  const now = () => ctx.clock.now();
  if (!delivery.enabled) {
    return repo.recordAttempt(
      ctx.db,
      delivery,
      { status: 'failed', responseStatus: null, error: 'The webhook was disabled' },
      now(),
    );
  }
  // Once the session the job was claimed under is gone, another worker may have taken the delivery
  // over: it is handed back rather than sent a second time at once.
  if (!job.held()) throw new JobInterrupted();
  try {
    const answer = await sendWebhook({
      url: delivery.url,
      method: 'POST',
      headers: {},
      body: JSON.stringify(delivery.payload),
      id: delivery.id,
      secret: delivery.secret,
      timeoutMs: TIMEOUT_MS,
      allowPrivate: ctx.config.webhookAllowPrivate,
    });
    await repo.recordAttempt(
      ctx.db,
      delivery,
      { status: 'delivered', responseStatus: answer.status, error: null },
      now(),
    );
  } catch (err) {
    const failure = err instanceof WebhookError ? err : new WebhookError(String(err), true);
    const retry = failure.temporary && job.attempts < job.maxAttempts;
    if (!retry) {
      return repo.recordAttempt(
        ctx.db,
        delivery,
        { status: 'failed', responseStatus: failure.status ?? null, error: failure.message },
        now(),
      );
    }
    await repo.recordAttempt(
      ctx.db,
      delivery,
      { status: 'pending', responseStatus: failure.status ?? null, error: failure.message },
      now(),
    );
    throw failure;
  }
}
