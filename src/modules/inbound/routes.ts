import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const inboundRoutes = moduleRoutes(
  'Inbound',
  async (app, ctx) => {
    app.get(
      '/inbound',
      { schema: { querystring: s.listInboundQuery, response: { 200: s.inboundPageSchema } } },
      (req) => service.listInbound(ctx, projectOf(req).id, req.query),
    );
    app.get('/inbound/:id', { schema: { params: s.idParams, response: { 200: s.inboundSchema } } }, (req) =>
      service.getInbound(ctx, projectOf(req).id, req.params.id),
    );
  },
  { scope: 'analytics' },
);
