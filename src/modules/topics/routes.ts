import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { created } from '../../platform/http/envelope.js';
import { moduleRoutes, resourceById, type ZodApp } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

/** POST/GET/PATCH/DELETE /topics: the project's topics (secret key or dashboard session). */
export const topicRoutes = moduleRoutes('Topics', routes, {
  scope: { read: 'contacts:read', write: 'contacts:write' },
});

function routes(app: ZodApp, ctx: AppContext) {
  app.post('/topics', { schema: { body: s.createTopicBody, response: { 201: s.topicSchema } } }, (req, reply) =>
    created(reply, service.createTopic(ctx, projectOf(req).id, req.body)),
  );
  app.get('/topics', { schema: { querystring: s.listTopicsQuery, response: { 200: s.topicPageSchema } } }, (req) =>
    service.listTopics(ctx, projectOf(req).id, req.query),
  );
  resourceById(
    app,
    ctx,
    '/topics',
    { resource: s.topicSchema, update: { method: 'PATCH', body: s.patchTopicBody } },
    { get: service.getTopic, update: service.updateTopic, delete: service.deleteTopic },
  );
}
