import fs from 'node:fs';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SERVICE_FILES } from '../../platform/service-files.js';

/** Where `npm run build:web` (run by `npm install`) writes the dashboard, or the build copies it. */
const WEB_ROOT = SERVICE_FILES.webApp;

/**
 * Nothing the API returns reaches the page as markup, and the page loads code only from here;
 * mail and templates are shown in sandboxed frames of their own (`srcdoc`, inheriting this policy).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

const wantsPage = (req: FastifyRequest) => (req.headers.accept ?? '').includes('text/html');

/**
 * The dashboard at `/app/`: its built files, and its `index.html` for every other path below it
 * (the app routes in the browser). A browser opening `/` is sent there; API clients asking for `/`
 * keep the JSON 404 they always had.
 */
export async function webAppRoutes(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config as object), auth: 'none' };
    route.schema = { ...route.schema, hide: true };
  });
  // The invitation link's token is in the page's path (`/app/invite/<token>`): no request to another
  // site (a link, an image in a previewed email) may carry it in Referer (docs/decisions.md).
  app.addHook('onSend', async (req, reply) => {
    if (req.url.startsWith('/app'))
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('referrer-policy', 'same-origin');
  });

  app.get('/', (req, reply) => {
    if (wantsPage(req)) return reply.redirect('/app/');
    return reply.callNotFound();
  });

  if (!fs.existsSync(`${WEB_ROOT}index.html`)) {
    const notBuilt = (_req: FastifyRequest, reply: FastifyReply) =>
      reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The dashboard is not built yet: run `npm run build:web` (npm install runs it) and restart.');
    app.get('/app', notBuilt);
    app.get('/app/*', notBuilt);
    return;
  }
  // Only here: the page's code is sent once per release and compresses to a third.
  await app.register(compress, { global: true, encodings: ['br', 'gzip'] });
  // Built files have hashed names: their content never changes. The page itself is asked for anew.
  await app.register(fastifyStatic, {
    root: WEB_ROOT,
    prefix: '/app/',
    wildcard: false,
    maxAge: '365d',
    immutable: true,
    setHeaders: (res, file) => {
      if (file.endsWith('.html')) res.header('cache-control', 'no-cache');
    },
  });
  app.get('/app', (_req, reply) => reply.redirect('/app/'));
  app.get('/app/*', (req, reply) => {
    // A missing built file is a 404, not the page (a stale tab asking for an old chunk).
    if (req.url.startsWith('/app/assets/')) return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}
