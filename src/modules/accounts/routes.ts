import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { created } from '../../platform/http/envelope.js';
import { AppError } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import * as sso from '../sso/service.js';
import * as twoFactorSchemas from '../two-factor/schemas.js';
import * as twoFactor from '../two-factor/service.js';
import * as instance from './instance.js';
import { memberRoutes } from './member-routes.js';
import type { UserRow } from './repo.js';
import * as s from './schemas.js';
import { securityRoutes } from './security-routes.js';
import * as service from './service.js';
import {
  CHALLENGE_COOKIE,
  CHALLENGE_SECONDS,
  SESSION_COOKIE,
  SESSION_SECONDS,
  type Session,
  type Sessions,
} from './sessions.js';
import * as setup from './setup.js';
import { ssoRoutes } from './sso-routes.js';
import * as userSessions from './user-sessions.js';

/** Codes one account may try in CODE_WINDOW_MS, signing in and in signed-in changes together. */
const CODE_ATTEMPTS = 10;
const CODE_WINDOW_MS = 15 * 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    userId: string | null;
    /** The signed-in session, on routes that need one. */
    session: Session | null;
  }
}

const unauthenticated = () => new AppError(401, 'UNAUTHENTICATED', 'Sign in first (POST /auth/login)');
const crossOrigin = (origin: string) =>
  new AppError(
    403,
    'CROSS_ORIGIN_REQUEST',
    `A signed-in change must come from this service's own pages, not from ${origin}`,
    {
      details: { origin },
      suggestion: 'Send the request from the dashboard, or without an Origin header from a server-side client.',
    },
  );
const signInExpired = () =>
  new AppError(401, 'SIGN_IN_EXPIRED', 'Enter your email and password again: the second step has expired', {
    suggestion: `The code must follow the password within ${CHALLENGE_SECONDS / 60} minutes (POST /auth/login first).`,
  });

/**
 * The dashboard's API: password login setting a session cookie, and the signed-in user's projects.
 * These routes take no API key; `/users/@me/…` needs the session cookie.
 */
export async function accountRoutes(
  fastify: FastifyInstance,
  { ctx, sessions }: { ctx: AppContext; sessions: Sessions },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Accounts'];
  const open = { auth: 'none' as const };
  const secure = ctx.config.publicUrl.startsWith('https:');

  app.decorateRequest('userId', null);
  app.decorateRequest('session', null);
  // A cookie goes with every request to this host, including ones a page elsewhere makes the
  // browser send; browsers name that page in Origin, which must then be this service itself (its
  // PUBLIC_URL, or the host the request was sent to).
  const sameOrigin = async (req: FastifyRequest) => {
    const origin = req.headers.origin;
    if (req.method === 'GET' || req.method === 'HEAD' || origin === undefined) return;
    const host = URL.canParse(origin) ? new URL(origin).host : null;
    if (origin !== new URL(ctx.config.publicUrl).origin && host !== req.headers.host) throw crossOrigin(origin);
  };
  const session = async (req: FastifyRequest) => {
    const token = req.cookies[SESSION_COOKIE];
    return token ? sessions.verify(token, ctx.clock.now(), req.ip) : null;
  };
  const signedIn = async (req: FastifyRequest) => {
    await sameOrigin(req);
    const current = await session(req);
    if (!current) throw unauthenticated();
    req.userId = current.userId;
    req.session = current;
  };
  /** The signed-in user, when a session comes with the request; a change must come from this origin. */
  const optionalUser = async (req: FastifyRequest) => {
    await sameOrigin(req);
    return (await session(req))?.userId ?? null;
  };
  const user = (req: FastifyRequest) => req.userId ?? '';
  const setSession = (reply: FastifyReply, token: string, maxAge: number) =>
    reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge });
  const setChallenge = (reply: FastifyReply, token: string, maxAge: number) =>
    reply.setCookie(CHALLENGE_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: '/auth', maxAge });
  // Returns nothing: an awaited reply would wait for its own answer.
  const challenge = async (reply: FastifyReply, userId: string) => {
    setChallenge(reply, await sessions.challenge(userId, ctx.clock.now()), CHALLENGE_SECONDS);
  };
  const place = (req: FastifyRequest) => ({ ip: req.ip, userAgent: req.headers['user-agent'] ?? '' });

  const signIn = async (req: FastifyRequest, reply: FastifyReply, user: UserRow, secondFactor = false) => {
    setSession(reply, await sessions.issue(user.id, ctx.clock.now(), place(req), secondFactor), SESSION_SECONDS);
    await audit.signedIn(ctx.db, user, secondFactor);
    return service.me(ctx, user.id);
  };
  // Guessing passwords (or the setup token, or a second factor) is slowed per address, whatever the
  // rest of the traffic.
  const signInRequest = {
    config: {
      ...open,
      rateLimit: {
        max: 10,
        timeWindow: 60_000,
        keyGenerator: (req: FastifyRequest) => `login:${req.ip}`,
        allowList: () => false,
      },
    },
    onRequest: sameOrigin,
  };
  const challengedUser = async (req: FastifyRequest) => {
    const token = req.cookies[CHALLENGE_COOKIE];
    return token ? sessions.challengedUser(token, ctx.clock.now()) : null;
  };
  // And per account, from every address together: codes are six digits, and someone with the
  // password could otherwise try them from many addresses (docs/decisions.md, "Second-factor
  // throttle"). Its own counter, beside the route's per-address one.
  const codeLimit = app.createRateLimit({
    max: CODE_ATTEMPTS,
    timeWindow: CODE_WINDOW_MS,
    keyGenerator: async (req: FastifyRequest) => `second-factor:${req.userId ?? (await challengedUser(req)) ?? req.ip}`,
    // The global limit lets requests without a project through; this one counts every request.
    allowList: () => false,
  });
  const codeAttempts = async (req: FastifyRequest, reply: FastifyReply) => {
    const limit = await codeLimit(req);
    if (limit.isAllowed || !limit.isExceeded) return;
    reply.header('retry-after', String(limit.ttlInSeconds));
    throw new AppError(429, 'RATE_LIMIT_EXCEEDED', 'Too many second-factor codes tried for this account', {
      details: { limit: limit.max, retryAfterSeconds: limit.ttlInSeconds },
      suggestion: `Wait ${Math.ceil(limit.ttlInSeconds / 60)} minutes, then enter the code your app shows.`,
    });
  };

  app.post(
    '/auth/login',
    { ...signInRequest, schema: { tags, body: s.loginBody, response: { 200: s.loginResultSchema } } },
    async (req, reply) => {
      sso.assertPasswordSignIn(ctx.config.sso);
      const user = await service.login(ctx, req.body.email, req.body.password);
      if (!(await twoFactor.isEnabled(ctx.db, user.id))) return signIn(req, reply, user);
      await challenge(reply, user.id);
      return { secondFactorRequired: true as const };
    },
  );
  app.post(
    '/auth/login/second-factor',
    {
      ...signInRequest,
      preHandler: codeAttempts,
      schema: { tags, body: twoFactorSchemas.secondFactorBody, response: { 200: s.meSchema } },
    },
    async (req, reply) => {
      const userId = await challengedUser(req);
      if (!userId) throw signInExpired();
      const found = await service.secondFactor(ctx, userId, req.body);
      setChallenge(reply, '', 0);
      return signIn(req, reply, found, true);
    },
  );
  app.get('/auth/setup', { config: open, schema: { tags, response: { 200: s.setupStateSchema } } }, () =>
    setup.setupRequired(ctx),
  );
  app.post(
    '/auth/setup',
    { ...signInRequest, schema: { tags, body: s.setupBody, response: { 201: s.meSchema } } },
    async (req, reply) => created(reply, signIn(req, reply, await setup.setUpOwner(ctx, req.body))),
  );
  app.post('/auth/logout', { config: open, onRequest: sameOrigin, schema: { tags } }, async (req, reply) => {
    const current = await session(req);
    if (current) await userSessions.endSession(ctx, current.userId, current.id);
    setSession(reply, '', 0);
    return reply.code(204).send();
  });

  const mine = { config: open, onRequest: signedIn };
  // A project that requires a second factor is refused to a session without one, here as on its resources.
  const projectSecondFactor = async (req: FastifyRequest) => {
    const projectId = (req.params as { id?: string }).id;
    if (req.session && projectId) await service.assertProjectSecondFactor(ctx, projectId, req.session);
  };
  const myProject = { ...mine, preHandler: projectSecondFactor };
  app.get('/users/@me', { ...mine, schema: { tags, response: { 200: s.meSchema } } }, (req) =>
    service.me(ctx, user(req)),
  );
  app.get('/users/@me/permissions', { ...mine, schema: { tags, response: { 200: s.permissionsSchema } } }, (req) =>
    instance.permissions(ctx, user(req)),
  );
  app.get('/users/@me/projects', { ...mine, schema: { tags, response: { 200: z.array(s.projectSchema) } } }, (req) =>
    service.listProjects(ctx, user(req)),
  );
  app.post(
    '/users/@me/projects',
    { ...mine, schema: { tags, body: s.createProjectBody, response: { 201: s.projectWithKeysSchema } } },
    (req, reply) => created(reply, service.createOwnedProject(ctx, user(req), req.body.name)),
  );
  app.patch(
    '/users/@me/projects/:id',
    {
      ...myProject,
      schema: { tags, params: s.projectIdParams, body: s.patchProjectBody, response: { 200: s.projectSchema } },
    },
    (req) => service.updateProject(ctx, user(req), req.params.id, req.body),
  );
  app.post(
    '/users/@me/projects/:id/regenerate-keys',
    { ...myProject, schema: { tags, params: s.projectIdParams, response: { 200: s.projectWithKeysSchema } } },
    (req) => service.regenerateKeys(ctx, user(req), req.params.id),
  );

  // The instance's settings and its admins: instance admins only.
  const settings = { ...mine, schema: { tags: ['Instance'], response: { 200: s.instanceSettingsSchema } } };
  app.get('/instance/settings', settings, (req) => instance.settings(ctx, user(req)));
  app.patch(
    '/instance/settings',
    { ...settings, schema: { ...settings.schema, body: s.patchInstanceSettingsBody } },
    (req) => instance.updateSettings(ctx, user(req), req.body),
  );
  app.post('/instance/admins', { ...settings, schema: { ...settings.schema, body: s.instanceAdminBody } }, (req) =>
    instance.addAdmin(ctx, user(req), req.body.email),
  );
  app.delete(
    '/instance/admins/:userId',
    { ...settings, schema: { ...settings.schema, params: s.instanceAdminParams } },
    (req) => instance.removeAdmin(ctx, user(req), req.params.userId),
  );

  const hooks = {
    signedIn,
    optionalUser,
    signIn,
    challenge,
    codeAttempts,
    signInRequest,
    setSession,
    projectSecondFactor,
  };
  memberRoutes(app, ctx, hooks);
  securityRoutes(app, ctx, hooks);
  ssoRoutes(app, ctx, hooks);
}
