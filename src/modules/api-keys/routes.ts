import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { created, noContent } from '../../platform/http/envelope.js';
import { moduleRoutes, type ZodApp } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

// A key can do what its scopes allow without anyone signed in: giving one out is an admin's business.
export const apiKeyRoutes = moduleRoutes('API keys', routes, { role: 'admin', scope: 'admin' });

function routes(app: ZodApp, ctx: AppContext) {
  app.get('/api-keys/scopes', { schema: { response: { 200: s.scopeListSchema } } }, () => s.SCOPE_LIST);
  app.get('/api-keys', { schema: { response: { 200: z.array(s.apiKeySchema) } } }, (req) =>
    service.listKeys(ctx, projectOf(req).id),
  );
  app.post(
    '/api-keys',
    { schema: { body: s.createKeyBody, response: { 201: s.keyWithSecretSchema } } },
    (req, reply) => {
      const project = projectOf(req);
      return created(reply, service.createKey(ctx, project.id, project.actor, req.body));
    },
  );
  app.get('/api-keys/:id', { schema: { params: s.idParams, response: { 200: s.apiKeySchema } } }, (req) =>
    service.getKey(ctx, projectOf(req).id, req.params.id),
  );
  app.patch(
    '/api-keys/:id',
    { schema: { params: s.idParams, body: s.patchKeyBody, response: { 200: s.apiKeySchema } } },
    (req) => service.updateKey(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.post(
    '/api-keys/:id/rotate',
    { schema: { params: s.idParams, body: s.rotateKeyBody, response: { 200: s.keyWithSecretSchema } } },
    (req) => service.rotateKey(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.delete('/api-keys/:id', { schema: { params: s.idParams } }, (req, reply) =>
    noContent(reply, service.revokeKey(ctx, projectOf(req).id, req.params.id)),
  );
}
