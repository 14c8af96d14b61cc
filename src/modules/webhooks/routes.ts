import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { created } from '../../platform/http/envelope.js';
import { moduleRoutes, resourceById, type ZodApp } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

// Webhooks carry signing secrets and receive every event of the project: admins' business.
export const webhookRoutes = moduleRoutes('Webhooks', routes, { role: 'admin', scope: 'admin' });

function routes(app: ZodApp, ctx: AppContext) {
  app.post('/webhooks', { schema: { body: s.createWebhookBody, response: { 201: s.webhookSchema } } }, (req, reply) =>
    created(reply, service.createWebhook(ctx, projectOf(req).id, req.body)),
  );
  app.get('/webhooks', { schema: { response: { 200: z.array(s.webhookSchema) } } }, (req) =>
    service.listWebhooks(ctx, projectOf(req).id),
  );
  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: { params: s.idParams, querystring: s.listDeliveriesQuery, response: { 200: s.deliveryPageSchema } },
    },
    (req) => service.listDeliveries(ctx, projectOf(req).id, req.params.id, req.query),
  );
  app.post(
    '/webhooks/:id/rotate-secret',
    { schema: { params: s.idParams, response: { 200: s.webhookSchema } } },
    (req) => service.rotateSecret(ctx, projectOf(req).id, req.params.id),
  );
  resourceById(
    app,
    ctx,
    '/webhooks',
    { resource: s.webhookSchema, update: { method: 'PATCH', body: s.patchWebhookBody } },
    { get: service.getWebhook, update: service.updateWebhook, delete: service.deleteWebhook },
  );
}
