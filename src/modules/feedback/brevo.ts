import type { FastifyInstance } from 'fastify';
import { basicAuthMatches } from '../../domain/feedback/basic-auth.js';
import { brevoReports, isBrevoDelivery } from '../../domain/feedback/brevo.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import { applyRelayReports } from './service.js';

/**
 * `POST /feedback/brevo`: Brevo's transactional webhooks (hard and soft bounces, spam complaints),
 * one event per request or a batch. Brevo signs nothing; the webhook URL carries the basic-auth
 * `user:password` of `BREVO_WEBHOOK_CREDENTIALS`, checked before the body is read (401 otherwise).
 * Registered only when the credentials are configured.
 */
export async function brevoRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const credentials = ctx.config.brevoWebhookCredentials;
  if (!credentials) return;

  fastify.post(
    '/feedback/brevo',
    {
      config: { auth: 'none' },
      schema: { hide: true },
      onRequest: async (req) => {
        if (!basicAuthMatches(req.headers.authorization, credentials))
          throw new AppError(401, 'INVALID_CREDENTIALS', 'The Brevo webhook credentials are wrong or missing');
      },
    },
    async (req, reply) => {
      if (!isBrevoDelivery(req.body))
        throw new AppError(400, 'INVALID_NOTIFICATION', 'Not a Brevo transactional event or batch of them');
      const applied = await applyRelayReports(ctx, 'Brevo', brevoReports(req.body));
      return reply.code(200).send({ received: true, applied });
    },
  );
}
