import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { created, noContent } from '../../platform/http/envelope.js';
import type { ZodApp } from '../../platform/http/module-routes.js';
import * as t from '../two-factor/schemas.js';
import * as twoFactor from '../two-factor/service.js';
import type { SessionHooks } from './member-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';
import * as userSessions from './user-sessions.js';

/**
 * The signed-in user's security: two-factor sign-in, their sessions and their password
 * (docs/operations.md, "Two-factor sign-in" and "Sessions"). Session only, like every `/users/@me/…`.
 */
export function securityRoutes(app: ZodApp, ctx: AppContext, hooks: SessionHooks) {
  const tags = ['Security'];
  const mine = { config: { auth: 'none' as const }, onRequest: hooks.signedIn };
  // A code is counted per account as signing in counts it: a stolen session cannot guess its way
  // past the code that turning two-factor sign-in off asks for.
  const withCode = { ...mine, preHandler: hooks.codeAttempts };
  const user = (req: FastifyRequest) => req.userId ?? '';
  const session = (req: FastifyRequest) => req.session!;

  app.get('/users/@me/two-factor', { ...mine, schema: { tags, response: { 200: t.twoFactorStatusSchema } } }, (req) =>
    twoFactor.status(ctx, user(req)),
  );
  app.post(
    '/users/@me/two-factor',
    { ...mine, schema: { tags, response: { 201: t.enrolmentSchema } } },
    async (req, reply) => created(reply, twoFactor.beginEnrolment(ctx, await service.me(ctx, user(req)))),
  );
  app.post(
    '/users/@me/two-factor/confirm',
    { ...withCode, schema: { tags, body: t.codeBody, response: { 200: t.recoveryCodesSchema } } },
    (req) => userSessions.confirmTwoFactor(ctx, user(req), session(req).id, req.body.code),
  );
  app.post('/users/@me/two-factor/disable', { ...withCode, schema: { tags, body: t.codeBody } }, (req, reply) =>
    noContent(reply, twoFactor.disable(ctx, user(req), req.body.code)),
  );
  app.post(
    '/users/@me/two-factor/recovery-codes',
    { ...withCode, schema: { tags, body: t.codeBody, response: { 200: t.recoveryCodesSchema } } },
    (req) => twoFactor.regenerateRecoveryCodes(ctx, user(req), req.body.code),
  );

  app.get(
    '/users/@me/sessions',
    { ...mine, schema: { tags, response: { 200: z.array(s.userSessionSchema) } } },
    (req) => userSessions.listSessions(ctx, user(req), session(req).id),
  );
  app.delete('/users/@me/sessions/:id', { ...mine, schema: { tags, params: s.sessionParams } }, async (req, reply) => {
    await userSessions.endSession(ctx, user(req), req.params.id);
    // Ending the session of this very request is signing out: the cookie goes too.
    if (req.params.id === session(req).id) hooks.setSession(reply, '', 0);
    return reply.code(204).send();
  });
  app.delete(
    '/users/@me/sessions',
    { ...mine, schema: { tags, response: { 200: s.endedSessionsSchema } } },
    async (req) => ({ endedSessions: await userSessions.endOtherSessions(ctx, user(req), session(req).id) }),
  );
  // Guessing the current password is slowed as signing in is.
  app.post(
    '/users/@me/password',
    {
      ...mine,
      config: hooks.signInRequest.config,
      schema: { tags, body: s.changePasswordBody, response: { 200: s.endedSessionsSchema } },
    },
    (req) => userSessions.changePassword(ctx, user(req), session(req).id, req.body),
  );
}
