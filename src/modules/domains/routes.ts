import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { created, noContent } from '../../platform/http/envelope.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function domainRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Domains'];

  app.post(
    '/domains',
    { schema: { tags, body: s.createDomainBody, response: { 201: s.domainSchema } } },
    (req, reply) => created(reply, service.createDomain(ctx, projectOf(req).id, req.body.domain)),
  );

  app.get(
    '/domains/project/:projectId',
    { schema: { tags, params: s.projectIdParams, response: { 200: s.domainListSchema } } },
    (req) => service.listDomains(ctx, projectOf(req).id, req.params.projectId),
  );

  app.get('/domains/:id/verify', { schema: { tags, params: s.idParams, response: { 200: s.domainSchema } } }, (req) =>
    service.verifyDomain(ctx, projectOf(req).id, req.params.id),
  );

  app.delete('/domains/:id', { schema: { tags, params: s.idParams } }, (req, reply) =>
    noContent(reply, service.deleteDomain(ctx, projectOf(req).id, req.params.id)),
  );
}
