import type { FastifyRequest } from 'fastify';
import { projectOf } from '../../platform/http/auth.js';
import { wrapped } from '../../platform/http/envelope.js';
import { idempotencyKeyOf, requestIdentity } from '../../platform/http/idempotency.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

/** A 40 MB message arrives base64-encoded inside JSON: about 54 MB of request body. */
const SEND_BODY_LIMIT = 56 * 1024 * 1024;

export const emailRoutes = moduleRoutes(
  'Emails',
  async (app, ctx) => {
    app.post(
      '/v1/send',
      {
        bodyLimit: SEND_BODY_LIMIT,
        // The key header is checked before the body so a bad key is a 400 whatever the body holds.
        onRequest: async (req: FastifyRequest) => void idempotencyKeyOf(req),
        schema: { body: s.sendBody, response: { 200: s.sendResponse } },
      },
      async (req) => wrapped(await service.sendEmails(ctx, projectOf(req).id, req.body, requestIdentity(req))),
    );

    app.get('/emails', { schema: { querystring: s.listEmailsQuery, response: { 200: s.emailPageSchema } } }, (req) =>
      service.listEmails(ctx, { ...req.query, projectId: projectOf(req).id }),
    );
    app.get(
      '/emails/:id/content',
      { schema: { params: s.emailIdParams, response: { 200: s.emailContentSchema } } },
      (req) => service.getEmailContent(ctx, projectOf(req).id, req.params.id),
    );
    app.get('/emails/:id', { schema: { params: s.emailIdParams, response: { 200: s.emailRecordSchema } } }, (req) =>
      service.getEmail(ctx, projectOf(req).id, req.params.id),
    );

    app.get(
      '/emails/:id/raw',
      {
        schema: {
          summary: 'The captured message, exactly as it would have left (only while no SMTP relay is configured)',
          params: s.emailIdParams,
          produces: ['message/rfc822'],
        },
      },
      async (req, reply) =>
        reply.type('message/rfc822').send(await service.capturedMessage(ctx, projectOf(req).id, req.params.id)),
    );
  },
  { scope: { read: 'analytics', write: 'send' } },
);
