import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { idempotencyKeyOf } from '../../platform/http/idempotency.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function eventRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Events'];

  const track = async (req: FastifyRequest & { body: z.infer<typeof s.trackBody> }) => ({
    success: true as const,
    data: await service.trackEvent(ctx, projectOf(req).id, req.body, {
      idempotencyKey: idempotencyKeyOf(req),
      method: req.method,
      path: req.routeOptions.url ?? req.url,
    }),
  });
  const trackSchema = { tags, body: s.trackBody, response: { 200: s.trackResponse } };
  // The key header is checked before the body so a bad key is a 400 whatever the body holds.
  const checkKey = async (req: FastifyRequest) => void idempotencyKeyOf(req);
  app.post('/v1/track', { config: { auth: 'public' }, onRequest: checkKey, schema: trackSchema }, track);
  app.post('/events/track', { onRequest: checkKey, schema: trackSchema }, track);

  app.get('/events', { schema: { tags, querystring: s.listEventsQuery, response: { 200: s.eventPageSchema } } }, (req) =>
    service.listEvents(ctx, { ...req.query, projectId: projectOf(req).id, after: req.query.cursor }),
  );
  app.get('/events/stats', { schema: { tags, querystring: s.statsQuery, response: { 200: s.statsResponse } } }, (req) =>
    service.eventStats(ctx, projectOf(req).id, req.query),
  );
  app.get('/events/names', { schema: { tags, response: { 200: z.object({ names: z.array(z.string()) }) } } }, (req) =>
    service.eventNames(ctx, projectOf(req).id),
  );
  app.get(
    '/events/contact/:contactId',
    { schema: { tags, params: s.contactIdParams, querystring: s.listEventsQuery, response: { 200: s.eventPageSchema } } },
    (req) =>
      service.listContactEvents(ctx, {
        ...req.query,
        projectId: projectOf(req).id,
        contactId: req.params.contactId,
        after: req.query.cursor,
      }),
  );
  app.get('/events/:eventName/usage', { schema: { tags, params: s.eventNameParams, response: { 200: s.eventUsageResponse } } }, (req) =>
    service.eventUsage(ctx, projectOf(req).id, req.params.eventName),
  );
  app.delete(
    '/events/:eventName',
    { schema: { tags, params: s.eventNameParams, response: { 200: z.object({ event: z.string(), deleted: z.number().int() }) } } },
    (req) => service.deleteEvents(ctx, projectOf(req).id, req.params.eventName),
  );
}
