import { verify, X509Certificate } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  isSnsUrl,
  parseSnsMessage,
  type SnsMessage,
  sesReport,
  snsDigest,
  snsStringToSign,
} from '../../domain/feedback/sns.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import { applyReport, reportedEmailId } from './service.js';

const CERT_TTL_MS = 24 * 3600 * 1000;
const FETCH_TIMEOUT_MS = 5000;

/**
 * `POST /feedback/ses`: Amazon SES bounce and complaint notifications through an SNS HTTP(S)
 * subscription. Every message's signature is checked against its signing certificate (fetched from
 * SNS over https, cached a day); a subscription is confirmed by visiting its SubscribeURL. The email is
 * found by the Message-ID the service gave it, which SES reports in the mail's headers.
 */
export async function snsRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const certificates = new Map<string, { cert: X509Certificate; until: number }>();

  async function certificate(url: string): Promise<X509Certificate> {
    const hit = certificates.get(url);
    if (hit && hit.until > Date.now()) return hit.cert;
    const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
    if (!res.ok) throw new Error(`The signing certificate answered ${res.status}`);
    const cert = new X509Certificate(await res.text());
    certificates.set(url, { cert, until: Date.now() + CERT_TTL_MS });
    return cert;
  }

  async function verified(m: SnsMessage): Promise<boolean> {
    if (!isSnsUrl(m.SigningCertURL, ctx.config.snsTrustedOrigin)) return false;
    const cert = await certificate(m.SigningCertURL).catch((err) => {
      ctx.log.warn({ err, url: m.SigningCertURL }, 'SNS: fetching the signing certificate failed');
      throw new AppError(503, 'CERTIFICATE_UNAVAILABLE', 'The signing certificate could not be fetched; try again');
    });
    return verify(snsDigest(m), Buffer.from(snsStringToSign(m)), cert.publicKey, Buffer.from(m.Signature, 'base64'));
  }

  fastify.post('/feedback/ses', { config: { auth: 'none' }, schema: { hide: true } }, async (req, reply) => {
    let body: unknown = req.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        body = null;
      }
    }
    const message = parseSnsMessage(body);
    if (!message) throw new AppError(400, 'INVALID_NOTIFICATION', 'Not an SNS message');
    if (!(await verified(message))) throw new AppError(403, 'INVALID_SIGNATURE', 'The SNS signature does not verify');

    if (message.Type === 'SubscriptionConfirmation') {
      if (!isSnsUrl(message.SubscribeURL!, ctx.config.snsTrustedOrigin))
        throw new AppError(400, 'INVALID_NOTIFICATION', 'Untrusted SubscribeURL');
      const res = await fetch(message.SubscribeURL!, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        redirect: 'error',
      }).catch(() => null);
      if (!res?.ok)
        throw new AppError(
          502,
          'SUBSCRIPTION_NOT_CONFIRMED',
          'Confirming the subscription failed; SNS will send the confirmation again',
        );
      ctx.log.info({ topic: message.TopicArn }, 'SNS: subscription confirmed');
      return reply.code(200).send({ received: true });
    }
    if (message.Type === 'Notification') {
      let notification: unknown = null;
      try {
        notification = JSON.parse(message.Message);
      } catch {
        // a test message from the console, or another producer on the topic
      }
      const report = sesReport(notification);
      const emailId = report && (await reportedEmailId(ctx, [], report, { anyDomain: true }));
      if (report && emailId) {
        const outcome = await applyReport(ctx, emailId, report);
        ctx.log.info(outcome, 'SES: report received');
      }
    }
    return reply.code(200).send({ received: true });
  });
}
