import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { created, noContent } from '../../platform/http/envelope.js';
import type { ZodApp } from '../../platform/http/module-routes.js';
import * as s from '../members/schemas.js';
import * as members from '../members/service.js';
import * as sso from '../sso/service.js';
import type { UserRow } from './repo.js';
import { endedMemberSessionsSchema } from './schemas.js';
import * as service from './service.js';
import * as userSessions from './user-sessions.js';

/** What the account routes lend these: the session hooks, and signing a new account in. */
export interface SessionHooks {
  /** Needs a session; sets `req.userId` and `req.session`. */
  signedIn: (req: FastifyRequest) => Promise<void>;
  /** The session's user, if any; refuses a change from another origin. */
  optionalUser: (req: FastifyRequest) => Promise<string | null>;
  signIn: (req: FastifyRequest, reply: FastifyReply, user: UserRow, secondFactor?: boolean) => Promise<unknown>;
  /** The user's first step is done: their second factor is asked next (POST /auth/login/second-factor). */
  challenge: (reply: FastifyReply, userId: string) => Promise<void>;
  /** Counts the second-factor codes an account tries (a preHandler). */
  codeAttempts: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The route options of sign-in: the per-address throttle and the same-origin check. */
  signInRequest: { config: FastifyContextConfig; onRequest: (req: FastifyRequest) => Promise<void> };
  setSession: (reply: FastifyReply, token: string, maxAge: number) => unknown;
  /** Refuses a project (`:id`) that requires a second factor to a session without one (a preHandler). */
  projectSecondFactor: (req: FastifyRequest) => Promise<void>;
}

/**
 * A project's members and invitations, for the dashboard: session only, like `/users/@me/…`. API
 * keys do not reach them; a key acts as its project, not as anyone in it.
 */
export function memberRoutes(app: ZodApp, ctx: AppContext, hooks: SessionHooks) {
  const tags = ['Members'];
  const user = (req: FastifyRequest) => req.userId ?? '';
  const mine = { config: { auth: 'none' as const }, onRequest: hooks.signedIn, preHandler: hooks.projectSecondFactor };

  app.get(
    '/projects/:id/members',
    { ...mine, schema: { tags, params: s.projectParams, response: { 200: z.array(s.memberSchema) } } },
    (req) => members.listMembers(ctx, user(req), req.params.id),
  );
  app.patch(
    '/projects/:id/members/:userId',
    {
      ...mine,
      schema: { tags, params: s.memberParams, body: s.changeRoleBody, response: { 200: s.changedMemberSchema } },
    },
    (req) => members.changeRole(ctx, user(req), req.params.id, req.params.userId, req.body.role),
  );
  app.delete(
    '/projects/:id/members/:userId',
    { ...mine, schema: { tags, params: s.memberParams, response: { 200: s.removedMemberSchema } } },
    (req) => members.removeMember(ctx, user(req), req.params.id, req.params.userId),
  );
  // An owner signs a member out of every session (their own sessions are under /users/@me/sessions).
  app.delete(
    '/projects/:id/members/:userId/sessions',
    { ...mine, schema: { tags, params: s.memberParams, response: { 200: endedMemberSessionsSchema } } },
    (req) => userSessions.endMemberSessions(ctx, user(req), req.params.id, req.params.userId),
  );
  app.get(
    '/projects/:id/invites',
    { ...mine, schema: { tags, params: s.projectParams, response: { 200: z.array(s.inviteSchema) } } },
    (req) => members.listInvites(ctx, user(req), req.params.id),
  );
  app.post(
    '/projects/:id/invites',
    {
      ...mine,
      schema: { tags, params: s.projectParams, body: s.inviteBody, response: { 201: s.createdInviteSchema } },
    },
    (req, reply) => created(reply, service.inviteMember(ctx, user(req), req.params.id, req.body)),
  );
  app.delete('/projects/:id/invites/:inviteId', { ...mine, schema: { tags, params: s.inviteParams } }, (req, reply) =>
    noContent(reply, members.revokeInvite(ctx, user(req), req.params.id, req.params.inviteId)),
  );

  // The link itself is the credential to read and accept it (256 random bits; only its hash is stored).
  app.get(
    '/invites/:token',
    { config: { auth: 'none' }, schema: { tags, params: s.tokenParams, response: { 200: s.invitePreviewSchema } } },
    (req) => service.previewInvite(ctx, req.params.token),
  );
  // Not limited like sign-in: a password is hashed only for a pending link, and each link works once.
  app.post(
    '/invites/:token/accept',
    {
      config: { auth: 'none' },
      schema: { tags, params: s.tokenParams, body: s.acceptInviteBody, response: { 200: s.acceptedInviteSchema } },
    },
    async (req, reply) => {
      const signedIn = await hooks.optionalUser(req);
      // A new account's password would sign it in, which "SSO only" forbids: single sign-on makes it.
      if (!signedIn) sso.assertPasswordSignIn(ctx.config.sso);
      const accepted = await service.acceptInvite(ctx, req.params.token, signedIn, req.body?.password);
      // A new account is signed in at once, as the setup of the owner is.
      if (accepted.created) await hooks.signIn(req, reply, accepted.user);
      return { projectId: accepted.projectId, role: accepted.role };
    },
  );
}
