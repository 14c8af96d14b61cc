import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function templateRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Templates'];

  app.post(
    '/templates',
    {
      config: { legacyRequired: ['name', 'subject', 'body', 'from'] },
      schema: { tags, body: s.createTemplateBody, response: { 201: s.templateSchema } },
    },
    async (req, reply) => {
      const template = await service.createTemplate(ctx, projectOf(req).id, req.body);
      reply.status(201);
      return template;
    },
  );

  app.get('/templates', { schema: { tags, querystring: s.listTemplatesQuery, response: { 200: s.templatePageSchema } } }, (req) =>
    service.listTemplates(ctx, { ...req.query, projectId: projectOf(req).id }),
  );

  app.get('/templates/:id', { schema: { tags, params: s.idParams, response: { 200: s.templateSchema } } }, (req) =>
    service.getTemplate(ctx, projectOf(req).id, req.params.id),
  );
  app.patch(
    '/templates/:id',
    { schema: { tags, params: s.idParams, body: s.patchTemplateBody, response: { 200: s.templateSchema } } },
    (req) => service.updateTemplate(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.delete('/templates/:id', { schema: { tags, params: s.idParams } }, async (req, reply) => {
    await service.deleteTemplate(ctx, projectOf(req).id, req.params.id);
    return reply.status(204).send();
  });

  app.post('/templates/:id/duplicate', { schema: { tags, params: s.idParams, response: { 201: s.templateSchema } } }, async (req, reply) => {
    const template = await service.duplicateTemplate(ctx, projectOf(req).id, req.params.id);
    reply.status(201);
    return template;
  });
  app.get('/templates/:id/usage', { schema: { tags, params: s.idParams, response: { 200: s.templateUsageResponse } } }, (req) =>
    service.templateUsage(ctx, projectOf(req).id, req.params.id),
  );
}
