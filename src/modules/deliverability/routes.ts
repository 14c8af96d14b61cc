import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const deliverabilityRoutes = moduleRoutes(
  'Domains',
  async (app, ctx) => {
    app.get('/domains/:id/health', { schema: { params: s.idParams, response: { 200: s.domainHealthSchema } } }, (req) =>
      service.domainHealth(ctx, projectOf(req).id, req.params.id),
    );
  },
  { scope: 'admin' },
);
