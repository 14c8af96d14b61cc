import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { created } from '../../platform/http/envelope.js';
import { moduleRoutes, resourceById, type ZodApp } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

/** POST/GET/PATCH/DELETE /forms: the project's signup forms (secret key or dashboard session). */
export const formRoutes = moduleRoutes('Forms', routes, { scope: { read: 'contacts:read', write: 'contacts:write' } });

function routes(app: ZodApp, ctx: AppContext) {
  app.post('/forms', { schema: { body: s.createFormBody, response: { 201: s.formSchema } } }, (req, reply) =>
    created(reply, service.createForm(ctx, projectOf(req).id, req.body)),
  );
  app.get('/forms', { schema: { querystring: s.listFormsQuery, response: { 200: s.formPageSchema } } }, (req) =>
    service.listForms(ctx, projectOf(req).id, req.query),
  );
  app.get(
    '/forms/pending-signups',
    { schema: { querystring: s.pendingSignupsQuery, response: { 200: s.pendingSignupsSchema } } },
    (req) => service.pendingSignups(ctx, projectOf(req).id, req.query.contactIds),
  );
  app.post('/forms/preview', { schema: { body: s.previewFormBody, response: { 200: s.formPreviewSchema } } }, (req) =>
    service.previewForm(ctx, projectOf(req).id, req.body),
  );
  app.get(
    '/forms/:id/stats',
    { schema: { params: s.idParams, querystring: s.formStatsQuery, response: { 200: s.formStatsSchema } } },
    (req) => service.formStats(ctx, projectOf(req).id, req.params.id, req.query),
  );
  resourceById(
    app,
    ctx,
    '/forms',
    { resource: s.formSchema, detail: s.formDetailSchema, update: { method: 'PATCH', body: s.patchFormBody } },
    { get: service.getForm, update: service.updateForm, delete: service.deleteForm },
  );
}
