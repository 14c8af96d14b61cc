import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import { invalidCursorError, isKeysetCursor } from '../../platform/http/pagination.js';
import * as s from './schemas.js';
import * as service from './service.js';

/**
 * The audit log, read only: no route writes, changes or removes an entry (they are written by the
 * changes themselves and removed by the retention). Owners and admins, and the project's secret key
 * (or a named key with the admin scope).
 */
export const auditRoutes = moduleRoutes(
  'Audit log',
  async (app, ctx) => {
    app.get('/audit-log', { schema: { querystring: s.auditQuery, response: { 200: s.auditPageSchema } } }, (req) => {
      if (req.query.cursor && !isKeysetCursor(req.query.cursor, 'timestamp')) throw invalidCursorError();
      return service.listEntries(ctx, projectOf(req).id, req.query);
    });
  },
  { role: 'admin', scope: 'admin' },
);
