import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/http/errors.js';
import { numberedPage, pageWindow } from '../../platform/http/pagination.js';
import { newSigningSecret } from '../../platform/webhook.js';
import * as audit from '../audit/service.js';
import type { DeliveryRow, WebhookRow } from './repo.js';
import * as repo from './repo.js';
import type { createWebhookBody, patchWebhookBody, Webhook, WebhookDelivery } from './schemas.js';

/** Events about a project's resources (campaigns), sent to webhooks in the caller's transaction. */
export { announce, type ProjectEvent } from './sender.js';

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    secret: row.secret,
    projectId: row.project_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventName: row.event_name,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.response_status,
    lastError: row.last_error,
    deliveredAt: iso(row.delivered_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

async function requireWebhook(ctx: AppContext, projectId: string, id: string): Promise<WebhookRow> {
  const row = await repo.findWebhook(ctx.db, projectId, id);
  if (!row) throw notFound('Webhook');
  return row;
}

export async function createWebhook(ctx: AppContext, projectId: string, body: z.infer<typeof createWebhookBody>) {
  const values = {
    url: body.url,
    events: [...new Set(body.events)],
    description: body.description ?? null,
    enabled: body.enabled,
  };
  // Not the URL: one may carry a token in its query.
  const [row] = await audit.changeAudited<WebhookRow>(
    ctx.db,
    repo.insertWebhookStatement(projectId, values, newSigningSecret(), ctx.clock.now()),
    {
      projectId,
      action: 'webhook.created',
      target: { type: 'webhook', id: sql`changed.id::text` },
      changes: { events: values.events, enabled: values.enabled },
    },
  );
  if (!row) throw new Error('The webhook was not inserted');
  return toWebhook(row);
}

export async function listWebhooks(ctx: AppContext, projectId: string) {
  return (await repo.listWebhooks(ctx.db, projectId)).map(toWebhook);
}

export async function getWebhook(ctx: AppContext, projectId: string, id: string) {
  return toWebhook(await requireWebhook(ctx, projectId, id));
}

export async function updateWebhook(
  ctx: AppContext,
  projectId: string,
  id: string,
  body: z.infer<typeof patchWebhookBody>,
) {
  const values = { ...body, ...(body.events ? { events: [...new Set(body.events)] } : {}) };
  const [row] = await audit.changeAudited<WebhookRow>(
    ctx.db,
    repo.updateWebhookStatement(projectId, id, values, ctx.clock.now()),
    { projectId, action: 'webhook.updated', target: { type: 'webhook', id }, changes: audit.fieldsOf(body) },
  );
  if (!row) throw notFound('Webhook');
  return toWebhook(row);
}

/** A new secret at once; deliveries already under way are signed with the new one from their next attempt. */
export async function rotateSecret(ctx: AppContext, projectId: string, id: string) {
  const [row] = await audit.changeAudited<WebhookRow>(
    ctx.db,
    repo.updateWebhookStatement(projectId, id, { secret: newSigningSecret() }, ctx.clock.now()),
    { projectId, action: 'webhook.secret_rotated', target: { type: 'webhook', id } },
  );
  if (!row) throw notFound('Webhook');
  return toWebhook(row);
}

export async function deleteWebhook(ctx: AppContext, projectId: string, id: string): Promise<void> {
  const [deleted] = await audit.changeAudited(ctx.db, repo.deleteWebhookStatement(projectId, id), {
    projectId,
    action: 'webhook.deleted',
    target: { type: 'webhook', id },
  });
  if (!deleted) throw notFound('Webhook');
}

export async function listDeliveries(
  ctx: AppContext,
  projectId: string,
  id: string,
  q: { page: number; pageSize: number; status?: DeliveryRow['status'] },
) {
  await requireWebhook(ctx, projectId, id);
  const { rows, total } = await repo.listDeliveries(ctx.db, {
    webhookId: id,
    status: q.status,
    ...pageWindow(q),
  });
  return numberedPage(rows.map(toDelivery), total, q);
}
