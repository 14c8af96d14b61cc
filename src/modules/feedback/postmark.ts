import type { FastifyInstance } from 'fastify';
import { basicAuthMatches } from '../../domain/feedback/basic-auth.js';
import { postmarkReport } from '../../domain/feedback/postmark.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import { applyRelayReports } from './service.js';

/**
 * `POST /feedback/postmark`: Postmark's Bounce and Spam Complaint webhooks, one record per request.
 * Postmark signs nothing; its webhooks authenticate with HTTP basic auth, the `user:password` of
 * `POSTMARK_WEBHOOK_CREDENTIALS`, checked before the body is read (401 otherwise). The email is named
 * by the metadata our mail carries to Postmark (see relay-metadata.ts). Registered only when the
 * credentials are configured.
 */
export async function postmarkRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const credentials = ctx.config.postmarkWebhookCredentials;
  if (!credentials) return;

  fastify.post(
    '/feedback/postmark',
    {
      config: { auth: 'none' },
      schema: { hide: true },
      onRequest: async (req) => {
        if (!basicAuthMatches(req.headers.authorization, credentials))
          throw new AppError(401, 'INVALID_CREDENTIALS', 'The Postmark webhook credentials are wrong or missing');
      },
    },
    async (req, reply) => {
      const record = req.body;
      if (!record || typeof record !== 'object' || Array.isArray(record) || !('RecordType' in record))
        throw new AppError(400, 'INVALID_NOTIFICATION', 'Not a Postmark webhook record');
      const report = postmarkReport(record);
      const applied = report ? await applyRelayReports(ctx, 'Postmark', [report]) : 0;
      return reply.code(200).send({ received: true, applied });
    },
  );
}
