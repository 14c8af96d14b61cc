import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function eventRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Events'];

  app.get(
    '/events',
    { schema: { tags, querystring: s.listEventsQuery, response: { 200: s.eventPageSchema } } },
    (req) => service.listEvents(ctx, { ...req.query, projectId: projectOf(req).id, after: req.query.cursor }),
  );
  app.get('/events/stats', { schema: { tags, querystring: s.statsQuery, response: { 200: s.statsResponse } } }, (req) =>
    service.eventStats(ctx, projectOf(req).id, req.query),
  );
  app.get('/events/names', { schema: { tags, response: { 200: z.object({ names: z.array(z.string()) }) } } }, (req) =>
    service.eventNames(ctx, projectOf(req).id),
  );
  app.get(
    '/events/:eventName/usage',
    { schema: { tags, params: s.eventNameParams, response: { 200: s.eventUsageResponse } } },
    (req) => service.eventUsage(ctx, projectOf(req).id, req.params.eventName),
  );
  app.delete(
    '/events/:eventName',
    {
      schema: {
        tags,
        params: s.eventNameParams,
        response: { 200: z.object({ event: z.string(), deleted: z.number().int() }) },
      },
    },
    (req) => service.deleteEvents(ctx, projectOf(req).id, req.params.eventName),
  );
}
