import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const dmarcRoutes = moduleRoutes(
  'Domains',
  async (app, ctx) => {
    app.get(
      '/domains/:id/dmarc',
      { schema: { params: s.idParams, querystring: s.dmarcRangeQuery, response: { 200: s.dmarcSummarySchema } } },
      (req) => service.dmarcSummary(ctx, projectOf(req).id, req.params.id, req.query),
    );
  },
  { scope: 'admin' },
);
