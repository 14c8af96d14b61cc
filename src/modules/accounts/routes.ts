import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import * as s from './schemas.js';
import * as service from './service.js';
import { SESSION_COOKIE, SESSION_SECONDS, type Sessions } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    userId: string | null;
  }
}

const unauthenticated = () => new AppError(401, 'UNAUTHENTICATED', 'Sign in first (POST /auth/login)');

/**
 * The dashboard's API: password login setting a session cookie, and the signed-in user's projects.
 * These routes take no API key; `/users/@me/…` needs the session cookie.
 */
export async function accountRoutes(fastify: FastifyInstance, { ctx, sessions }: { ctx: AppContext; sessions: Sessions }) {
  await fastify.register(cookie);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Accounts'];
  const open = { auth: 'none' as const };
  const secure = ctx.config.publicUrl.startsWith('https:');

  app.decorateRequest('userId', null);
  const signedIn = async (req: FastifyRequest) => {
    const token = req.cookies[SESSION_COOKIE];
    const userId = token ? await sessions.userOf(token, ctx.clock.now()) : null;
    if (!userId) throw unauthenticated();
    req.userId = userId;
  };
  const user = (req: FastifyRequest) => req.userId ?? '';
  const setSession = (reply: FastifyReply, token: string, maxAge: number) =>
    reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge });

  // Guessing passwords is slowed per address, whatever the rest of the traffic.
  const loginLimit = { max: 10, timeWindow: 60_000, keyGenerator: (req: FastifyRequest) => `login:${req.ip}`, allowList: () => false };
  app.post('/auth/login', { config: { ...open, rateLimit: loginLimit }, schema: { tags, body: s.loginBody, response: { 200: s.userSchema } } }, async (req, reply) => {
    const u = await service.login(ctx, req.body.email, req.body.password);
    setSession(reply, await sessions.issue(u.id, ctx.clock.now()), SESSION_SECONDS);
    return service.toUser(u);
  });
  app.post('/auth/logout', { config: open, schema: { tags } }, async (_req, reply) => {
    setSession(reply, '', 0);
    return reply.code(204).send();
  });

  const mine = { config: open, onRequest: signedIn };
  app.get('/users/@me', { ...mine, schema: { tags, response: { 200: s.userSchema } } }, (req) => service.me(ctx, user(req)));
  app.get('/users/@me/projects', { ...mine, schema: { tags, response: { 200: z.array(s.projectSchema) } } }, (req) =>
    service.listProjects(ctx, user(req)),
  );
  app.post('/users/@me/projects', { ...mine, schema: { tags, body: s.createProjectBody, response: { 201: s.projectWithKeysSchema } } }, async (req, reply) =>
    reply.code(201).send(await service.createOwnedProject(ctx, user(req), req.body.name)),
  );
  app.patch(
    '/users/@me/projects/:id',
    { ...mine, schema: { tags, params: s.projectIdParams, body: s.patchProjectBody, response: { 200: s.projectSchema } } },
    (req) => service.updateProject(ctx, user(req), req.params.id, req.body),
  );
  app.post(
    '/users/@me/projects/:id/regenerate-keys',
    { ...mine, schema: { tags, params: s.projectIdParams, response: { 200: s.projectWithKeysSchema } } },
    (req) => service.regenerateKeys(ctx, user(req), req.params.id),
  );
}
