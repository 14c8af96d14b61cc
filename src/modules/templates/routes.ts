import { projectOf } from '../../platform/http/auth.js';
import { created } from '../../platform/http/envelope.js';
import { moduleRoutes, resourceById } from '../../platform/http/module-routes.js';
import { previewContent } from './preview.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const templateRoutes = moduleRoutes(
  'Templates',
  async (app, ctx) => {
    app.post(
      '/templates',
      {
        config: { legacyRequired: ['name', 'subject', 'body', 'from'] },
        schema: { body: s.createTemplateBody, response: { 201: s.templateSchema } },
      },
      (req, reply) => created(reply, service.createTemplate(ctx, projectOf(req).id, req.body)),
    );

    app.post('/templates/preview', { schema: { body: s.previewBody, response: { 200: s.previewSchema } } }, (req) =>
      previewContent(ctx, projectOf(req).id, req.body),
    );
    app.get(
      '/templates',
      { schema: { querystring: s.listTemplatesQuery, response: { 200: s.templatePageSchema } } },
      (req) => service.listTemplates(ctx, { ...req.query, projectId: projectOf(req).id }),
    );

    app.post(
      '/templates/:id/duplicate',
      { schema: { params: s.idParams, response: { 201: s.templateSchema } } },
      (req, reply) => created(reply, service.duplicateTemplate(ctx, projectOf(req).id, req.params.id)),
    );
    app.get(
      '/templates/:id/usage',
      { schema: { params: s.idParams, response: { 200: s.templateUsageResponse } } },
      (req) => service.templateUsage(ctx, projectOf(req).id, req.params.id),
    );
    resourceById(
      app,
      ctx,
      '/templates',
      { resource: s.templateSchema, update: { method: 'PATCH', body: s.patchTemplateBody } },
      { get: service.getTemplate, update: service.updateTemplate, delete: service.deleteTemplate },
    );
  },
  { scope: 'templates' },
);
