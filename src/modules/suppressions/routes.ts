import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function suppressionRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Suppressions'];

  app.get(
    '/suppressions',
    { schema: { tags, querystring: s.listSuppressionsQuery, response: { 200: s.suppressionPageSchema } } },
    (req) => service.listSuppressions(ctx, { ...req.query, projectId: projectOf(req).id }),
  );
  app.post(
    '/suppressions',
    { schema: { tags, body: s.addSuppressionBody, response: { 200: s.suppressionSchema, 201: s.suppressionSchema } } },
    async (req, reply) => {
      const { created, suppression } = await service.addSuppression(
        ctx,
        projectOf(req).id,
        req.body.email,
        req.body.detail,
      );
      return reply.code(created ? 201 : 200).send(suppression);
    },
  );
  app.get(
    '/suppressions/:email',
    { schema: { tags, params: s.emailParams, response: { 200: s.suppressionSchema } } },
    (req) => service.getSuppression(ctx, projectOf(req).id, req.params.email),
  );
  app.delete('/suppressions/:email', { schema: { tags, params: s.emailParams } }, async (req, reply) => {
    await service.removeSuppression(ctx, projectOf(req).id, req.params.email);
    return reply.code(204).send();
  });
}
