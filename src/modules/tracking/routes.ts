import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromImageProxy } from '../../domain/open-proxies.js';
import type { AppContext } from '../../platform/context.js';
import { sendMessagePage } from '../subscriptions/routes.js';
import * as service from './service.js';

/**
 * The public tracking endpoints behind `openPixelUrl` and `clickUrl`. The open pixel always
 * answers the image, so a bad link shows nothing to the reader; a click redirects only to a URL
 * the service itself signed for that email, so the endpoint can never be an open redirect.
 * HEAD requests (link scanners) answer the same but count nothing.
 */

const route = { config: { auth: 'none' as const }, schema: { hide: true } };

/** A transparent 1×1 GIF (43 bytes). */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

type TrackRequest = FastifyRequest<{
  Params: { emailId: string; signature: string };
  Querystring: Record<string, unknown>;
}>;

function sendPixel(reply: FastifyReply) {
  return reply
    .status(200)
    .header('content-type', 'image/gif')
    .header('cache-control', 'no-store, max-age=0')
    .header('pragma', 'no-cache')
    .send(PIXEL);
}

const HTTP_URL = /^https?:\/\//i;

/**
 * The redirect target for a signed `url`: http(s) only, and a valid header value (characters
 * outside printable ASCII percent-encoded, which browsers read back as the same URL).
 */
export function redirectTarget(url: string): string | null {
  if (!HTTP_URL.test(url) || url.length > 16_384) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    return url.replace(/[^\x21-\x7e]+/g, (s) => encodeURI(s));
  } catch {
    return null;
  }
}

export async function trackingRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  await fastify.register(
    async (app) => {
      app.setNotFoundHandler((request, reply) => sendMessagePage(request, reply, 404));
      app.setErrorHandler((error: FastifyError, request, reply) => {
        if (request.routeOptions.url?.startsWith('/t/open/')) return sendPixel(reply);
        const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
        if (status === 500) request.log.error({ err: error }, 'tracking failed');
        return sendMessagePage(request, reply, status);
      });

      app.get('/open/:emailId/:signature', route, async (request: TrackRequest, reply) => {
        const { emailId, signature } = request.params;
        if (request.method === 'GET' && ctx.links.verify(signature, 'open', emailId)) {
          // The reader sees the image whatever happens here.
          await service
            .recordOpen(ctx, emailId, fromImageProxy(request.ip, request.headers['user-agent']))
            .catch((err) => request.log.error({ err, emailId }, 'recording an open failed'));
        }
        return sendPixel(reply);
      });

      app.get('/click/:emailId/:signature', route, async (request: TrackRequest, reply) => {
        const { emailId, signature } = request.params;
        const url = request.query.url;
        const target =
          typeof url === 'string' && ctx.links.verify(signature, 'click', emailId, url) ? redirectTarget(url) : null;
        if (!target) return sendMessagePage(request, reply, 404);
        if (request.method === 'GET') {
          // The reader reaches the link whatever happens here.
          await service
            .recordClick(ctx, emailId, url as string)
            .catch((err) => request.log.error({ err, emailId }, 'recording a click failed'));
        }
        return reply.header('cache-control', 'no-store').redirect(target, 302);
      });
    },
    { prefix: '/t' },
  );
}
