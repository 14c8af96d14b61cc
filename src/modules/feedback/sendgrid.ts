import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sendgridReports } from '../../domain/feedback/sendgrid.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import { applyRelayReports } from './service.js';

const SIGNATURE = 'x-twilio-email-event-webhook-signature';
const TIMESTAMP = 'x-twilio-email-event-webhook-timestamp';

/** SendGrid's verification key as its settings page shows it (base64 DER), or as PEM. */
export function sendgridKey(text: string): KeyObject {
  const trimmed = text.trim();
  return trimmed.startsWith('-----')
    ? createPublicKey(trimmed)
    : createPublicKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'spki' });
}

/**
 * `POST /feedback/sendgrid`: SendGrid's Event Webhook, with Signed Event Webhook on. Each delivery
 * is verified as SendGrid documents it (ECDSA P-256 with SHA-256 over the timestamp header followed
 * by the raw body, against `SENDGRID_WEBHOOK_PUBLIC_KEY`) before it is read; a wrong or missing
 * signature is a 401 and changes nothing. Registered only when the key is configured.
 */
export async function sendgridRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const configured = ctx.config.sendgridWebhookPublicKey;
  if (!configured) return;
  let key: KeyObject;
  try {
    key = sendgridKey(configured);
  } catch {
    throw new Error('SENDGRID_WEBHOOK_PUBLIC_KEY is not a public key: give the base64 key SendGrid shows, or a PEM');
  }
  // The signature covers the bytes as sent: the body is read raw here, and parsed only once verified.
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  fastify.post('/feedback/sendgrid', { config: { auth: 'none' }, schema: { hide: true } }, async (req, reply) => {
    const signature = req.headers[SIGNATURE];
    const timestamp = req.headers[TIMESTAMP];
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const valid =
      typeof signature === 'string' &&
      typeof timestamp === 'string' &&
      verify('sha256', Buffer.concat([Buffer.from(timestamp), body]), key, Buffer.from(signature, 'base64'));
    if (!valid) throw new AppError(401, 'INVALID_SIGNATURE', 'The SendGrid event webhook signature does not verify');
    let events: unknown;
    try {
      events = JSON.parse(body.toString('utf8'));
    } catch {
      throw new AppError(400, 'INVALID_NOTIFICATION', 'Not a JSON array of SendGrid events');
    }
    if (!Array.isArray(events)) throw new AppError(400, 'INVALID_NOTIFICATION', 'Not a JSON array of SendGrid events');
    const applied = await applyRelayReports(
      ctx,
      'SendGrid',
      sendgridReports(events).map((report) => ({ report })),
    );
    return reply.code(200).send({ received: true, applied });
  });
}
