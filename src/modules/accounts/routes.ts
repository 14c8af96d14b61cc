import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { created } from '../../platform/http/envelope.js';
import { AppError } from '../../platform/http/errors.js';
import * as instance from './instance.js';
import { memberRoutes } from './member-routes.js';
import type { UserRow } from './repo.js';
import * as s from './schemas.js';
import * as service from './service.js';
import { SESSION_COOKIE, SESSION_SECONDS, type Sessions } from './sessions.js';
import * as setup from './setup.js';

declare module 'fastify' {
  interface FastifyRequest {
    userId: string | null;
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
    return token ? sessions.verify(token, ctx.clock.now()) : null;
  };
  const signedIn = async (req: FastifyRequest) => {
    await sameOrigin(req);
    const current = await session(req);
    if (!current) throw unauthenticated();
    req.userId = current.userId;
  };
  /** The signed-in user, when a session comes with the request; a change must come from this origin. */
  const optionalUser = async (req: FastifyRequest) => {
    await sameOrigin(req);
    return (await session(req))?.userId ?? null;
  };
  const user = (req: FastifyRequest) => req.userId ?? '';
  const setSession = (reply: FastifyReply, token: string, maxAge: number) =>
    reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge });

  const signIn = async (reply: FastifyReply, user: UserRow) => {
    setSession(reply, await sessions.issue(user.id, ctx.clock.now()), SESSION_SECONDS);
    return service.toUser(user);
  };
  // Guessing passwords (or the setup token) is slowed per address, whatever the rest of the traffic.
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
  app.post(
    '/auth/login',
    { ...signInRequest, schema: { tags, body: s.loginBody, response: { 200: s.userSchema } } },
    async (req, reply) => signIn(reply, await service.login(ctx, req.body.email, req.body.password)),
  );
  app.get('/auth/setup', { config: open, schema: { tags, response: { 200: s.setupStateSchema } } }, () =>
    setup.setupRequired(ctx),
  );
  app.post(
    '/auth/setup',
    { ...signInRequest, schema: { tags, body: s.setupBody, response: { 201: s.userSchema } } },
    async (req, reply) => created(reply, signIn(reply, await setup.setUpOwner(ctx, req.body))),
  );
  app.post('/auth/logout', { config: open, onRequest: sameOrigin, schema: { tags } }, async (req, reply) => {
    const current = await session(req);
    if (current) await sessions.revoke(current);
    setSession(reply, '', 0);
    return reply.code(204).send();
  });

  const mine = { config: open, onRequest: signedIn };
  app.get('/users/@me', { ...mine, schema: { tags, response: { 200: s.userSchema } } }, (req) =>
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
      ...mine,
      schema: { tags, params: s.projectIdParams, body: s.patchProjectBody, response: { 200: s.projectSchema } },
    },
    (req) => service.updateProject(ctx, user(req), req.params.id, req.body),
  );
  app.post(
    '/users/@me/projects/:id/regenerate-keys',
    { ...mine, schema: { tags, params: s.projectIdParams, response: { 200: s.projectWithKeysSchema } } },
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

  memberRoutes(app, ctx, { signedIn, optionalUser, signIn });
}
