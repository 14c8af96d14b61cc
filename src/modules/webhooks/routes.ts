import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function webhookRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Webhooks'];

  app.post(
    '/webhooks',
    { schema: { tags, body: s.createWebhookBody, response: { 201: s.webhookSchema } } },
    async (req, reply) => reply.code(201).send(await service.createWebhook(ctx, projectOf(req).id, req.body)),
  );
  app.get('/webhooks', { schema: { tags, response: { 200: z.array(s.webhookSchema) } } }, (req) =>
    service.listWebhooks(ctx, projectOf(req).id),
  );
  app.get('/webhooks/:id', { schema: { tags, params: s.idParams, response: { 200: s.webhookSchema } } }, (req) =>
    service.getWebhook(ctx, projectOf(req).id, req.params.id),
  );
  app.patch(
    '/webhooks/:id',
    { schema: { tags, params: s.idParams, body: s.patchWebhookBody, response: { 200: s.webhookSchema } } },
    (req) => service.updateWebhook(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.post(
    '/webhooks/:id/rotate-secret',
    { schema: { tags, params: s.idParams, response: { 200: s.webhookSchema } } },
    (req) => service.rotateSecret(ctx, projectOf(req).id, req.params.id),
  );
  app.delete('/webhooks/:id', { schema: { tags, params: s.idParams } }, async (req, reply) => {
    await service.deleteWebhook(ctx, projectOf(req).id, req.params.id);
    return reply.code(204).send();
  });
  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: { tags, params: s.idParams, querystring: s.listDeliveriesQuery, response: { 200: s.deliveryPageSchema } },
    },
    (req) => service.listDeliveries(ctx, projectOf(req).id, req.params.id, req.query),
  );
}
