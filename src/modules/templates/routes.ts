import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { created, noContent } from '../../platform/http/envelope.js';
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
    (req, reply) => created(reply, service.createTemplate(ctx, projectOf(req).id, req.body)),
  );

  app.get(
    '/templates',
    { schema: { tags, querystring: s.listTemplatesQuery, response: { 200: s.templatePageSchema } } },
    (req) => service.listTemplates(ctx, { ...req.query, projectId: projectOf(req).id }),
  );

  app.get('/templates/:id', { schema: { tags, params: s.idParams, response: { 200: s.templateSchema } } }, (req) =>
    service.getTemplate(ctx, projectOf(req).id, req.params.id),
  );
  app.patch(
    '/templates/:id',
    { schema: { tags, params: s.idParams, body: s.patchTemplateBody, response: { 200: s.templateSchema } } },
    (req) => service.updateTemplate(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.delete('/templates/:id', { schema: { tags, params: s.idParams } }, (req, reply) =>
    noContent(reply, service.deleteTemplate(ctx, projectOf(req).id, req.params.id)),
  );

  app.post(
    '/templates/:id/duplicate',
    { schema: { tags, params: s.idParams, response: { 201: s.templateSchema } } },
    (req, reply) => created(reply, service.duplicateTemplate(ctx, projectOf(req).id, req.params.id)),
  );
  app.get(
    '/templates/:id/usage',
    { schema: { tags, params: s.idParams, response: { 200: s.templateUsageResponse } } },
    (req) => service.templateUsage(ctx, projectOf(req).id, req.params.id),
  );
}
