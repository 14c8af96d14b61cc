import { projectOf } from '../../platform/http/auth.js';
import { wrapped } from '../../platform/http/envelope.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const verifyRoutes = moduleRoutes(
  'Verify',
  async (app, ctx) => {
    // Secret key only (the default); the project is not needed by the checks but the key must be one.
    app.post('/v1/verify', { schema: { body: s.verifyBody, response: { 200: s.verifyResponse } } }, async (req) => {
      projectOf(req);
      return wrapped(await service.verifyEmail(ctx, req.body.email));
    });
  },
  { scope: 'send' },
);
