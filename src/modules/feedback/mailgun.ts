import type { FastifyInstance } from 'fastify';
import { mailgunReport, mailgunSignatureValid } from '../../domain/feedback/mailgun.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import { applyRelayReports } from './service.js';

/**
 * `POST /feedback/mailgun`: Mailgun's webhooks (failed, complained), one event per request. The
 * signature it carries in the body is checked against `MAILGUN_WEBHOOK_SIGNING_KEY` before the
 * event is read; a wrong or missing one is a 401 and changes nothing. Registered only when the key
 * is configured.
 */
export async function mailgunRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const key = ctx.config.mailgunWebhookSigningKey;
  if (!key) return;

  fastify.post('/feedback/mailgun', { config: { auth: 'none' }, schema: { hide: true } }, async (req, reply) => {
    if (!mailgunSignatureValid(key, req.body))
      throw new AppError(401, 'INVALID_SIGNATURE', 'The Mailgun webhook signature does not verify');
    const eventData = (req.body as Record<string, unknown>)['event-data'];
    if (!eventData || typeof eventData !== 'object' || Array.isArray(eventData))
      throw new AppError(400, 'INVALID_NOTIFICATION', 'No Mailgun event-data object');
    const report = mailgunReport(eventData);
    const applied = report ? await applyRelayReports(ctx, 'Mailgun', [{ report }]) : 0;
    return reply.code(200).send({ received: true, applied });
  });
}
