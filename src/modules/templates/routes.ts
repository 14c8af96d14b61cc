import { projectOf } from '../../platform/http/auth.js';
import { created, noContent } from '../../platform/http/envelope.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import { getVersion, listVersions } from './history.js';
import { previewContent } from './preview.js';
import * as s from './schemas.js';
import * as service from './service.js';
import { authorOf } from './versions.js';

export const templateRoutes = moduleRoutes(
  'Templates',
  async (app, ctx) => {
    app.post(
      '/templates',
      {
        config: { legacyRequired: ['name', 'subject', 'body', 'from'] },
        schema: { body: s.createTemplateBody, response: { 201: s.templateSchema } },
      },
      (req, reply) => {
        const project = projectOf(req);
        return created(reply, service.createTemplate(ctx, project.id, req.body, authorOf(project)));
      },
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
      (req, reply) => {
        const project = projectOf(req);
        return created(reply, service.duplicateTemplate(ctx, project.id, req.params.id, authorOf(project)));
      },
    );
    app.get(
      '/templates/:id/usage',
      { schema: { params: s.idParams, response: { 200: s.templateUsageResponse } } },
      (req) => service.templateUsage(ctx, projectOf(req).id, req.params.id),
    );

    // Written out rather than through resourceById: a save records who made it.
    app.get('/templates/:id', { schema: { params: s.idParams, response: { 200: s.templateSchema } } }, (req) =>
      service.getTemplate(ctx, projectOf(req).id, req.params.id),
    );
    app.patch(
      '/templates/:id',
      { schema: { params: s.idParams, body: s.patchTemplateBody, response: { 200: s.templateSchema } } },
      (req) => {
        const project = projectOf(req);
        return service.updateTemplate(ctx, project.id, req.params.id, req.body, authorOf(project));
      },
    );
    app.delete('/templates/:id', { schema: { params: s.idParams } }, (req, reply) =>
      noContent(reply, service.deleteTemplate(ctx, projectOf(req).id, req.params.id)),
    );

    app.get(
      '/templates/:id/versions',
      {
        schema: {
          description: 'Every saved version of the template, newest first: who saved it, when, and what it changed.',
          params: s.idParams,
          querystring: s.listVersionsQuery,
          response: { 200: s.versionPageSchema },
        },
      },
      (req) => listVersions(ctx, projectOf(req).id, req.params.id, req.query),
    );
    app.get(
      '/templates/:id/versions/:n',
      {
        schema: {
          description: 'One version with the whole content the template had then.',
          params: s.versionParams,
          response: { 200: s.versionSchema },
        },
      },
      (req) => getVersion(ctx, projectOf(req).id, req.params.id, req.params.n),
    );
    app.post(
      '/templates/:id/versions/:n/restore',
      {
        schema: {
          description: "Gives the template version n's content again, saved as its next version.",
          params: s.versionParams,
          response: { 200: s.templateSchema },
        },
      },
      (req) => {
        const project = projectOf(req);
        return service.restoreVersion(ctx, project.id, req.params.id, req.params.n, authorOf(project));
      },
    );
  },
  { scope: 'templates' },
);
