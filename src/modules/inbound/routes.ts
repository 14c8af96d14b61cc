import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function inboundRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Inbound'];
  app.get(
    '/inbound',
    { schema: { tags, querystring: s.listInboundQuery, response: { 200: s.inboundPageSchema } } },
    (req) => service.listInbound(ctx, projectOf(req).id, req.query),
  );
  app.get('/inbound/:id', { schema: { tags, params: s.idParams, response: { 200: s.inboundSchema } } }, (req) =>
    service.getInbound(ctx, projectOf(req).id, req.params.id),
  );
}
