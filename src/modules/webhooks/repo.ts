import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import type { WebhookDeliveryStatus } from './schemas.js';

/** Every query on `webhooks` and `webhook_deliveries` lives here. */

/**
 * True for a stored event (the alias `ev`) that an enabled webhook of its project subscribes to, by
 * name, by a prefix ending in `.*`, or by `*` (as domain/webhook-events `eventMatches`).
 */
export const WEBHOOK_WANTS_EVENT = sql`exists (select 1 from webhooks w
  where w.project_id = ev.project_id and w.enabled
    and (w.events ? ev.name or w.events ? '*' or exists (select 1 from jsonb_array_elements_text(w.events) p(pattern)
      where p.pattern like '%.*' and starts_with(ev.name, left(p.pattern, -1)))))`;

export interface WebhookRow {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookValues {
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
}

/**
 * A webhook's columns by name: the statements that write an audit entry with them are prepared, and
 * a prepared statement whose columns change (a column added while the service runs) would fail.
 */
const WEBHOOK_COLUMNS = sql`id, project_id, url, events, description, secret, enabled, created_at, updated_at`;

/** The insert of a webhook, returning its row: run it with `audit.changeAudited`. */
export function insertWebhookStatement(projectId: string, v: WebhookValues, secret: string, now: Date): SQL {
  return sql`
    insert into webhooks (project_id, url, events, description, secret, enabled, created_at, updated_at)
    values (${projectId}, ${v.url}, ${JSON.stringify(v.events)}::jsonb, ${v.description}, ${secret}, ${v.enabled},
      ${now}, ${now})
    returning ${WEBHOOK_COLUMNS}`;
}

export async function findWebhook(ex: Executor, projectId: string, id: string): Promise<WebhookRow | null> {
  const r = await run<WebhookRow>(ex, sql`select * from webhooks where project_id = ${projectId} and id = ${id}`);
  return r.rows[0] ?? null;
}

/** Newest first; a project holds a handful, so the list is not paginated. */
export async function listWebhooks(ex: Executor, projectId: string): Promise<WebhookRow[]> {
  const r = await run<WebhookRow>(
    ex,
    sql`select * from webhooks where project_id = ${projectId} order by created_at desc, id desc`,
  );
  return r.rows;
}

/** The update of a webhook, returning its row (none when the project has no such webhook). */
export function updateWebhookStatement(
  projectId: string,
  id: string,
  v: Partial<WebhookValues> & { secret?: string },
  now: Date,
): SQL {
  return sql`
    update webhooks set
      url = coalesce(${v.url ?? null}, url),
      events = coalesce(${v.events ? JSON.stringify(v.events) : null}::jsonb, events),
      description = case when ${v.description !== undefined} then ${v.description ?? null} else description end,
      enabled = coalesce(${v.enabled ?? null}::boolean, enabled),
      secret = coalesce(${v.secret ?? null}, secret),
      updated_at = ${now}
    where project_id = ${projectId} and id = ${id}
    returning ${WEBHOOK_COLUMNS}`;
}

/** The deletion of a webhook, `returning id` (no row when the project has no such webhook). */
export function deleteWebhookStatement(projectId: string, id: string): SQL {
  return sql`delete from webhooks where project_id = ${projectId} and id = ${id} returning id`;
}

/** The enabled webhooks of these projects, for matching a batch of events. */
export async function enabledWebhooks(
  ex: Executor,
  projectIds: string[],
): Promise<Pick<WebhookRow, 'id' | 'project_id' | 'events'>[]> {
  const r = await run<Pick<WebhookRow, 'id' | 'project_id' | 'events'>>(
    ex,
    sql`
    select id, project_id, events from webhooks
    where enabled and project_id = any(${`{${projectIds.join(',')}}`}::uuid[])`,
  );
  return r.rows;
}

export interface NewDelivery {
  webhookId: string;
  eventId: string;
  eventName: string;
  payload: Record<string, unknown>;
}

/** Stores deliveries set-wise; returns their ids in order. */
export async function insertDeliveries(ex: Executor, deliveries: NewDelivery[], now: Date): Promise<string[]> {
  const r = await run<{ id: string }>(
    ex,
    sql`
    insert into webhook_deliveries (webhook_id, event_id, event_name, payload, created_at, updated_at)
    select d."webhookId", d."eventId", d."eventName", d.payload, ${now}, ${now}
    from jsonb_to_recordset(${JSON.stringify(deliveries)}::jsonb)
      as d("webhookId" uuid, "eventId" uuid, "eventName" text, payload jsonb)
    returning id`,
  );
  return r.rows.map((row) => row.id);
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_name: string;
  payload: Record<string, unknown>;
  status: WebhookDeliveryStatus;
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A pending delivery with what sending it needs; null once it is settled or its webhook is gone. */
export async function pendingDelivery(ex: Executor, id: string, createdAt?: Date) {
  const r = await run<DeliveryRow & { url: string; secret: string; enabled: boolean }>(
    ex,
    sql`
    select d.*, w.url, w.secret, w.enabled from webhook_deliveries d join webhooks w on w.id = d.webhook_id
    where d.id = ${id} and d.status = 'pending'${createdAt ? sql` and d.created_at = ${createdAt}` : sql``}`,
  );
  return r.rows[0] ?? null;
}

export async function recordAttempt(
  ex: Executor,
  delivery: { id: string; created_at: Date },
  outcome: { status: WebhookDeliveryStatus; responseStatus: number | null; error: string | null },
  now: Date,
): Promise<void> {
  await run(
    ex,
    sql`
    update webhook_deliveries set status = ${outcome.status}, attempts = attempts + 1,
      response_status = ${outcome.responseStatus},
      last_error = ${outcome.error?.slice(0, 2000) ?? null},
      delivered_at = case when ${outcome.status} = 'delivered' then ${now}::timestamptz end, updated_at = ${now}
    where id = ${delivery.id} and created_at = ${delivery.created_at} and status = 'pending'`,
  );
}

export async function listDeliveries(
  ex: Executor,
  q: { webhookId: string; status?: WebhookDeliveryStatus; offset: number; limit: number },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = sql`webhook_id = ${q.webhookId}${q.status ? sql` and status = ${q.status}` : sql``}`;
  const [rows, total] = await Promise.all([
    run<DeliveryRow>(
      ex,
      sql`select * from webhook_deliveries where ${where} order by created_at desc, id desc
        limit ${q.limit} offset ${q.offset}`,
    ),
    run<{ n: number }>(ex, sql`select count(*)::int as n from webhook_deliveries where ${where}`),
  ]);
  return { rows: rows.rows, total: total.rows[0]!.n };
}
