import { projectOf } from '../../platform/http/auth.js';
import { created, noContent } from '../../platform/http/envelope.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

// Which domains the project sends from (and their DKIM keys) is an admin's choice; members read them.
const admins = { role: 'admin' as const };

export const domainRoutes = moduleRoutes(
  'Domains',
  async (app, ctx) => {
    app.post(
      '/domains',
      { config: admins, schema: { body: s.createDomainBody, response: { 201: s.domainSchema } } },
      (req, reply) => created(reply, service.createDomain(ctx, projectOf(req).id, req.body.domain)),
    );

    app.get(
      '/domains/project/:projectId',
      { schema: { params: s.projectIdParams, response: { 200: s.domainListSchema } } },
      (req) => service.listDomains(ctx, projectOf(req).id, req.params.projectId),
    );

    app.get('/domains/:id/verify', { schema: { params: s.idParams, response: { 200: s.domainSchema } } }, (req) =>
      service.verifyDomain(ctx, projectOf(req).id, req.params.id),
    );

    app.delete('/domains/:id', { config: admins, schema: { params: s.idParams } }, (req, reply) =>
      noContent(reply, service.deleteDomain(ctx, projectOf(req).id, req.params.id)),
    );
  },
  { scope: 'admin' },
);
