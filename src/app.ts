import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { Redis } from 'ioredis';
import { accountRoutes } from './modules/accounts/routes.js';
import { sessionProjects } from './modules/accounts/service.js';
import { Sessions } from './modules/accounts/sessions.js';
import { activityRoutes } from './modules/activity/routes.js';
import { apiKeyRoutes } from './modules/api-keys/routes.js';
import { auditRoutes } from './modules/audit/routes.js';
import { campaignRoutes } from './modules/campaigns/routes.js';
import { contactRoutes } from './modules/contacts/routes.js';
import { deliverabilityRoutes } from './modules/deliverability/routes.js';
import { dmarcRoutes } from './modules/dmarc/routes.js';
import { domainRoutes } from './modules/domains/routes.js';
import { emailRoutes } from './modules/emails/routes.js';
import { eventRoutes } from './modules/events/routes.js';
import { brevoRoutes } from './modules/feedback/brevo.js';
import { mailgunRoutes } from './modules/feedback/mailgun.js';
import { postmarkRoutes } from './modules/feedback/postmark.js';
import { sendgridRoutes } from './modules/feedback/sendgrid.js';
import { snsRoutes } from './modules/feedback/sns.js';
import { formPublicRoutes } from './modules/forms/public-routes.js';
import { formRoutes } from './modules/forms/routes.js';
import { inboundRoutes } from './modules/inbound/routes.js';
import { mcpRoutes } from './modules/mcp/routes.js';
import { pacingRoutes } from './modules/pacing/routes.js';
import { privacyRoutes, privacySettingsRoutes } from './modules/privacy/routes.js';
import { segmentRoutes } from './modules/segments/routes.js';
import { spamCheckRoutes } from './modules/spam-check/routes.js';
import { subscriptionRoutes } from './modules/subscriptions/routes.js';
import { suppressionRoutes } from './modules/suppressions/routes.js';
import { templateRoutes } from './modules/templates/routes.js';
import { topicRoutes } from './modules/topics/routes.js';
import { trackingRoutes } from './modules/tracking/routes.js';
import { trackingSettingsRoutes } from './modules/tracking-settings/routes.js';
import { uploadRoutes } from './modules/uploads/routes.js';
import { verifyRoutes } from './modules/verify/routes.js';
import { webAppRoutes } from './modules/web-app/routes.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { workflowRoutes } from './modules/workflows/routes.js';
import type { AppContext } from './platform/context.js';
import { probe, probeDatabase } from './platform/health.js';
import { registerAuth } from './platform/http/auth.js';
import { AppError, errorBody, handleError } from './platform/http/errors.js';
import { fallbackStore, rateLimitNamespace } from './platform/http/rate-limit-store.js';
import { registerRequestScope } from './platform/http/request-scope.js';
import { registerStorableInput } from './platform/http/storable-input.js';
import { registerHttpMetrics } from './platform/metrics/http.js';
import type { Metrics } from './platform/metrics/registry.js';
import { instanceSecret } from './platform/secrets.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The API docs load the Swagger UI's own files and the OpenAPI document from here and nothing else,
 * and no other site may frame them (clickjacking). The UI sets inline styles, hence 'unsafe-inline'
 * for styles only.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

export async function buildApp(ctx: AppContext, options: { metrics?: Metrics } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    trustProxy: ctx.config.trustProxy,
    // Path parameters such as event names (255 characters) and field names (262) must reach
    // validation, which answers longer ones with a 422; only absurd lengths stop at the router.
    routerOptions: { maxParamLength: 1024 },
    // Undecodable paths and over-long parameters are refused by the router before any hook runs:
    // they still leave in the standard envelope, with the request id header.
    frameworkErrors: (error, request, reply) => {
      const status = error.statusCode ?? 400;
      reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
      return (reply as FastifyReply)
        .status(status)
        .send(errorBody(request, status, status === 414 ? 'URI_TOO_LONG' : 'BAD_REQUEST', error.message));
    },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }) as unknown as FastifyInstance;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send(errorBody(request, 404, 'NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`)),
  );
  // First of all hooks: the rest of the request runs where `currentRequest()` finds it (the audit log's actor).
  registerRequestScope(app);
  // nosniff on every answer: a browser must never read JSON, an upload or a text page as HTML or script.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  });
  if (options.metrics) registerHttpMetrics(app, options.metrics);

  const sessions = new Sessions(await instanceSecret(ctx.db, 'session-signing-key'), ctx.db);
  await app.register(cookie);
  registerAuth(app, ctx.keys, sessionProjects(ctx, sessions), () => ctx.clock.now());
  registerStorableInput(app);

  const redis = ctx.config.redisUrl ? connectRedis(ctx.config.redisUrl, ctx.log) : undefined;
  if (redis) app.addHook('onClose', async () => void redis.quit().catch(() => {}));
  await app.register(rateLimit, {
    global: true,
    // The public key has a bucket of its own: anyone can copy it from a web page, and must not be
    // able to use up the limit of the backend's secret key with it.
    max: (req) =>
      req.project?.keyKind === 'public' ? ctx.config.rateLimitPublicPerMinute : ctx.config.rateLimitPerMinute,
    timeWindow: 60_000,
    ...(redis
      ? {
          store: fallbackStore(redis, await rateLimitNamespace(ctx.db), {
            warn: (m) => ctx.log.warn(m),
            info: (m) => ctx.log.info(m),
          }),
        }
      : {}),
    // Counted per project; requests without one (health, docs) are not limited.
    keyGenerator: (req) => (req.project ? `${req.project.id}:${req.project.keyKind}` : req.ip),
    allowList: (req) => !req.project,
    enableDraftSpec: true,
    // Not expected (the store falls back to per-process counters), but a limiter fault must never refuse requests.
    skipOnError: true,
    errorResponseBuilder: (_req, c) =>
      new AppError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit of ${c.max} requests per minute exceeded`, {
        details: { limit: c.max, retryAfterSeconds: Math.ceil(c.ttl / 1000) },
      }),
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Email platform API', version: '1.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), auth: 'none' };
    });
    await docs.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CONTENT_SECURITY_POLICY });
    docs.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  });

  // The database is required (503 without it); Redis only shares rate-limit counters, so without
  // it the API still serves, on per-process counters, and reports itself degraded.
  app.get('/health', { config: { auth: 'none' }, schema: { hide: true } }, async (_req, reply) => {
    const [database, redisState] = await Promise.all([
      probeDatabase(ctx.db),
      redis ? probe(() => redis.ping()) : undefined,
    ]);
    const dependencies = { database, ...(redisState ? { redis: redisState } : {}) };
    if (database === 'down')
      return reply.status(503).header('retry-after', '5').send({ status: 'unavailable', dependencies });
    return { status: redisState === 'down' ? 'degraded' : 'ok', dependencies };
  });

  await app.register(contactRoutes, { ctx });
  await app.register(privacyRoutes, { ctx });
  await app.register(eventRoutes, { ctx });
  await app.register(subscriptionRoutes, { ctx });
  await app.register(formRoutes, { ctx });
  await app.register(topicRoutes, { ctx });
  await app.register(formPublicRoutes, { ctx });
  await app.register(trackingRoutes, { ctx });
  await app.register(emailRoutes, { ctx });
  await app.register(verifyRoutes, { ctx });
  await app.register(domainRoutes, { ctx });
  await app.register(dmarcRoutes, { ctx });
  await app.register(deliverabilityRoutes, { ctx });
  await app.register(templateRoutes, { ctx });
  await app.register(segmentRoutes, { ctx });
  await app.register(campaignRoutes, { ctx });
  await app.register(spamCheckRoutes, { ctx });
  await app.register(pacingRoutes, { ctx });
  await app.register(trackingSettingsRoutes, { ctx });
  await app.register(privacySettingsRoutes, { ctx });
  await app.register(workflowRoutes, { ctx });
  await app.register(suppressionRoutes, { ctx });
  await app.register(webhookRoutes, { ctx });
  await app.register(apiKeyRoutes, { ctx });
  await app.register(auditRoutes, { ctx });
  await app.register(activityRoutes, { ctx });
  await app.register(inboundRoutes, { ctx });
  await app.register(uploadRoutes, { ctx });
  await app.register(snsRoutes, { ctx });
  await app.register(sendgridRoutes, { ctx });
  await app.register(mailgunRoutes, { ctx });
  await app.register(postmarkRoutes, { ctx });
  await app.register(brevoRoutes, { ctx });
  await app.register(mcpRoutes, { ctx });
  await app.register(accountRoutes, { ctx, sessions });
  await app.register(webAppRoutes);
  return app;
}

/**
 * Redis for the shared rate-limit counters, bounded so it can never hold a request up: commands
 * fail after 500 ms instead of waiting, nothing is queued while it is disconnected (the limiter
 * counts per process meanwhile), and it reconnects by itself.
 */
function connectRedis(url: string, log: AppContext['log']): Redis {
  const redis = new Redis(url, {
    commandTimeout: 500,
    connectTimeout: 2_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(100 * 2 ** times, 5_000),
  });
  let reported = false;
  redis.on('error', (err) => {
    if (!reported) log.warn({ err: { message: err.message } }, 'Redis connection error; reconnecting');
    reported = true;
  });
  redis.on('ready', () => (reported = false));
  return redis;
}
