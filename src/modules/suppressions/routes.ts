import { projectOf } from '../../platform/http/auth.js';
import { noContent } from '../../platform/http/envelope.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const suppressionRoutes = moduleRoutes(
  'Suppressions',
  async (app, ctx) => {
    app.get(
      '/suppressions',
      { schema: { querystring: s.listSuppressionsQuery, response: { 200: s.suppressionPageSchema } } },
      (req) => service.listSuppressions(ctx, { ...req.query, projectId: projectOf(req).id }),
    );
    app.post(
      '/suppressions',
      { schema: { body: s.addSuppressionBody, response: { 200: s.suppressionSchema, 201: s.suppressionSchema } } },
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
      { schema: { params: s.emailParams, response: { 200: s.suppressionSchema } } },
      (req) => service.getSuppression(ctx, projectOf(req).id, req.params.email),
    );
    app.delete('/suppressions/:email', { schema: { params: s.emailParams } }, (req, reply) =>
      noContent(reply, service.removeSuppression(ctx, projectOf(req).id, req.params.email)),
    );
  },
  { scope: { read: 'contacts:read', write: 'contacts:write' } },
);
