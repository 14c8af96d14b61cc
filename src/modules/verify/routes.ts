import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { wrapped } from '../../platform/http/envelope.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function verifyRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Verify'];

  // Secret key only (the default); the project is not needed by the checks but the key must be one.
  app.post('/v1/verify', { schema: { tags, body: s.verifyBody, response: { 200: s.verifyResponse } } }, async (req) => {
    projectOf(req);
    return wrapped(await service.verifyEmail(ctx, req.body.email));
  });
}
