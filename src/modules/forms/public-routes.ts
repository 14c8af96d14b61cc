import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formStringsFor } from '../../domain/form-i18n.js';
import { isUuid } from '../../domain/formats.js';
import { parseSubmission, textIn } from '../../domain/signup-form.js';
import { baseLocale, type Locale, localeFromAcceptLanguage } from '../../domain/subscriber-i18n.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import { instanceSecret } from '../../platform/secrets.js';
import { sendMessagePage, sendPage } from '../subscriptions/routes.js';
import { FormChallenges } from './challenge.js';
import * as pages from './pages.js';
import * as s from './schemas.js';
import { FORM_SCRIPT } from './script.js';
import * as service from './service.js';
import * as signup from './signup.js';
import { formStatsCounter } from './stats.js';
import { Submissions } from './submissions.js';

/**
 * The public side of signup forms, all without a key (the form id is public): the hosted page
 * /f/<id>, the pages behind a confirmation link, the script, and for browsers and static sites
 * GET /v1/forms/<id>/challenge and POST /v1/forms/<id>/submissions, open (CORS) to the form's
 * allowed origins only. Every refusal says why in the visitor's language and stores nothing.
 */

/**
 * Per client address and per form, in the platform's rate-limit counters (Redis when configured):
 * FORM_RATE_LIMIT_PER_IP (30) and FORM_RATE_LIMIT_PER_FORM (600) submissions per 10 minutes.
 */
const RATE_WINDOW_MS = 10 * 60_000;

const open = { auth: 'none' as const };
type FormRequest = FastifyRequest<{ Params: { id: string } }>;
type TokenRequest = FastifyRequest<{ Params: { token: string } }>;

/** The visitor's language: the one the form was shown in, else what the browser asks for. */
function visitorLocale(request: FastifyRequest, chosen?: unknown): Locale {
  const query = (request.query as { lang?: unknown } | undefined)?.lang;
  const given = typeof chosen === 'string' ? chosen : typeof query === 'string' ? query : null;
  return (given && baseLocale(given)) || localeFromAcceptLanguage(request.headers['accept-language']);
}

const refused = (status: number, code: string, message: string, retryAfterSeconds?: number) =>
  new AppError(status, code, message, retryAfterSeconds ? { retryAfterSeconds } : {});

/** A form's pages run the form's script and may be framed by the sites the form allows. */
const sendHtml = (reply: FastifyReply, status: number, html: string, frameAncestors = "'none'") =>
  sendPage(
    reply,
    status,
    html,
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; " +
      `base-uri 'none'; frame-ancestors ${frameAncestors}`,
  );

export async function formPublicRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const challenges = new FormChallenges(
    (await instanceSecret(ctx.db, 'form-challenge-key')).toString('base64'),
    ctx.clock,
  );
  const stats = formStatsCounter(ctx);
  const submissions = new Submissions(ctx);
  fastify.addHook('onClose', () => stats.stop());
  const perIp = fastify.createRateLimit({
    max: ctx.config.formRateLimit.perIp,
    timeWindow: RATE_WINDOW_MS,
    keyGenerator: (req) => `form-ip:${req.ip}`,
    allowList: () => false,
  });
  const perForm = fastify.createRateLimit({
    max: ctx.config.formRateLimit.perForm,
    timeWindow: RATE_WINDOW_MS,
    keyGenerator: (req) => `form:${(req.params as { id: string }).id}`,
    allowList: () => false,
  });

  /** The form of the path, with the CORS headers its allowed origins earn; a refusal otherwise. */
  async function formFor(request: FormRequest, reply: FastifyReply, locale: Locale) {
    const s = formStringsFor(locale);
    const form = isUuid(request.params.id) ? await service.findForm(ctx, request.params.id) : null;
    if (!form) throw refused(404, 'NOT_FOUND', s.notFound);
    const origin = request.headers.origin;
    // The service's own pages (the hosted form) are no other site; PUBLIC_URL is known once listening.
    if (origin && origin !== new URL(ctx.config.publicUrl).origin) {
      if (!form.allowed_origins.includes(origin)) throw refused(403, 'ORIGIN_NOT_ALLOWED', s.refusedOrigin);
      reply.header('access-control-allow-origin', origin);
    }
    reply.header('vary', 'Origin');
    return form;
  }

  async function checkRate(request: FastifyRequest, locale: Locale) {
    for (const limit of [perIp, perForm]) {
      const r = await limit(request);
      if (!r.isAllowed && r.isExceeded) {
        throw refused(429, 'RATE_LIMIT_EXCEEDED', formStringsFor(locale).refusedRateLimit, Math.max(1, r.ttlInSeconds));
      }
    }
  }

  // Preflight of a browser on another site: only the allowed origins hear yes.
  fastify.options<{ Params: { id: string } }>(
    '/v1/forms/:id/*',
    { config: open, schema: { hide: true } },
    async (request, reply) => {
      await formFor(request, reply, visitorLocale(request));
      return reply
        .status(204)
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'content-type')
        .header('access-control-max-age', '600')
        .send();
    },
  );

  fastify.get<{ Params: { id: string } }>(
    '/v1/forms/:id/challenge',
    { config: open, schema: { tags: ['Forms'], params: s.publicFormParams, response: { 200: s.challengeSchema } } },
    async (request, reply) => {
      const form = await formFor(request, reply, visitorLocale(request));
      reply.header('cache-control', 'no-store');
      // The form's script asks for a challenge each time the form is shown: a view, hosted or embedded.
      stats.count(form.id, 'views');
      return { success: true as const, data: await challenges.issue(form.id) };
    },
  );

  fastify.post<{ Params: { id: string } }>(
    '/v1/forms/:id/submissions',
    {
      config: open,
      schema: {
        tags: ['Forms'],
        params: s.publicFormParams,
        body: s.submissionBody,
        response: { 200: s.submissionResult },
      },
    },
    async (request, reply) => {
      const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
      const locale = visitorLocale(request, body.locale);
      const strings = formStringsFor(locale);
      const form = await formFor(request, reply, locale);
      await checkRate(request, locale);
      if (typeof body.website === 'string' && body.website.trim() !== '') {
        throw refused(400, 'BOT_SUSPECTED', strings.refusedBot);
      }
      const parsed = parseSubmission(form.fields, body.email, body.data, locale);
      if (!parsed.ok) {
        throw new AppError(422, 'VALIDATION_ERROR', parsed.errors[0]!.message, { errors: parsed.errors });
      }
      const verdict = await challenges.check(form.id, body.altcha);
      if (verdict === 'too_fast') throw refused(400, 'TOO_FAST', strings.refusedTooFast);
      if (verdict !== 'ok') throw refused(400, 'CHALLENGE_FAILED', strings.refusedChallenge);
      // The offered topics, each chosen (ticked) or not; anything else a client sends is ignored.
      const ticked = new Set(Array.isArray(body.topics) ? body.topics.filter((t) => typeof t === 'string') : []);
      const topics = Object.fromEntries(form.topics.map((id) => [id, ticked.has(id)]));
      const status = await submissions.submit(form, { ...parsed, topics }, locale);
      stats.count(form.id, 'submissions');
      const message =
        textIn(form.success_message, locale) ??
        (status === 'pending' ? strings.checkInbox.replace('{email}', parsed.email) : strings.subscribed);
      return { success: true as const, data: { status, message, redirectUrl: form.redirect_url } };
    },
  );

  fastify.get('/f/script.js', { config: open, schema: { hide: true } }, (_request, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('access-control-allow-origin', '*')
      .send(FORM_SCRIPT),
  );

  await fastify.register(async (app) => {
    // The confirmation page's button posts a form body; its content is not needed.
    await app.register(formbody, { bodyLimit: 4096 });
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) request.log.error({ err: error }, 'form page failed');
      return sendMessagePage(request, reply, status);
    });
    const route = { config: open, schema: { hide: true } };

    app.get<{ Params: { id: string } }>('/f/:id', route, async (request, reply) => {
      const form = isUuid(request.params.id) ? await service.findForm(ctx, request.params.id) : null;
      if (!form) return sendMessagePage(request, reply, 404);
      const ancestors = form.allowed_origins.length > 0 ? `'self' ${form.allowed_origins.join(' ')}` : "'self'";
      const html = pages.hostedFormPage(
        ctx.config.publicUrl,
        service.toForm(ctx, form),
        visitorLocale(request),
        await service.offeredTopics(ctx, form),
      );
      return sendHtml(reply, 200, html, ancestors);
    });

    /** The answer for a link that is expired or unknown. */
    const notValid = (request: TokenRequest, reply: FastifyReply, found: signup.TokenState) =>
      found.state === 'expired'
        ? sendHtml(reply, 410, pages.expiredPage(found.locale, request.params.token, found.days))
        : sendMessagePage(request, reply, 404);

    // A GET only shows the page: link scanners fetch it and must not confirm anything.
    app.get<{ Params: { token: string } }>('/f/confirm/:token', route, async (request, reply) => {
      const found = await signup.tokenState(ctx, request.params.token);
      if (found.state === 'confirmed') return sendHtml(reply, 200, pages.confirmedPage(found.locale, found.email));
      if (found.state !== 'valid') return notValid(request, reply, found);
      return sendHtml(reply, 200, pages.confirmPage(found.locale, found.email));
    });

    app.post<{ Params: { token: string } }>('/f/confirm/:token', route, async (request, reply) => {
      const found = await signup.confirm(ctx, request.params.token);
      if (found.state !== 'valid' && found.state !== 'confirmed') return notValid(request, reply, found);
      if (found.state === 'valid') stats.count(found.signup.form_id, 'confirmations');
      return sendHtml(reply, 200, pages.confirmedPage(found.locale, found.email));
    });

    app.post<{ Params: { token: string } }>('/f/confirm/:token/resend', route, async (request, reply) => {
      const found = await signup.resend(ctx, request.params.token);
      if (found.state === 'invalid') return sendMessagePage(request, reply, 404);
      if (found.state === 'confirmed') return sendHtml(reply, 200, pages.confirmedPage(found.locale, found.email));
      return sendHtml(reply, 200, pages.resentPage(found.locale, found.email));
    });
  });
}
