import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import type { ZodApp } from '../../platform/http/module-routes.js';
import * as s from '../sso/schemas.js';
import * as sso from '../sso/service.js';
import * as twoFactor from '../two-factor/service.js';
import * as instance from './instance.js';
import type { SessionHooks } from './member-routes.js';
import { ssoAccount } from './sso-users.js';

/**
 * Single sign-on through the OpenID Connect provider set in OIDC_* (docs/operations.md, "Single
 * sign-on"). Start and callback are browser navigations: each ends in a redirect, to the provider or
 * back to the dashboard, which explains a refusal (`?sso_error=<reason>`). An account with
 * two-factor sign-in gives its code next, as after a password.
 */
export function ssoRoutes(app: ZodApp, ctx: AppContext, hooks: SessionHooks) {
  const tags = ['Single sign-on'];
  const settings = ctx.config.sso;
  const open = { auth: 'none' as const };
  const redirectUri = () => `${ctx.config.publicUrl}${sso.CALLBACK_PATH}`;
  const dashboard = (query = '') => `${ctx.config.publicUrl}/app/${query}`;

  app.get('/auth/sso', { config: open, schema: { tags, response: { 200: s.signInMethodsSchema } } }, () =>
    sso.signInMethods(settings),
  );
  app.get(
    '/instance/sso',
    { config: open, onRequest: hooks.signedIn, schema: { tags: ['Instance'], response: { 200: s.ssoSettingsSchema } } },
    async (req) => {
      await instance.requireInstanceAdmin(ctx.db, req.userId ?? '');
      return sso.settingsView(ctx, settings, redirectUri());
    },
  );
  if (!settings) return;

  const provider = new sso.OidcProvider(settings);
  const stateCookie = {
    httpOnly: true,
    // Lax: the provider's redirect back is a navigation from its site, which must bring the cookie.
    sameSite: 'lax' as const,
    secure: ctx.config.publicUrl.startsWith('https:'),
    path: '/auth/oidc',
  };
  // Each start and answer costs a row and requests to the provider: slowed per address.
  const limited = {
    config: {
      ...open,
      rateLimit: {
        max: 30,
        timeWindow: 60_000,
        keyGenerator: (req: { ip: string }) => `sso:${req.ip}`,
        allowList: () => false,
      },
    },
  };
  const refused = (reply: FastifyReply, err: unknown) => {
    if (!(err instanceof sso.SsoFailed)) throw err;
    const level = err.reason === 'misconfigured' || err.reason === 'unavailable' ? 'error' : 'info';
    ctx.log[level]({ reason: err.reason, detail: err.message }, 'single sign-on refused');
    return reply.redirect(dashboard(`?sso_error=${err.reason}`));
  };

  app.get('/auth/oidc/start', { ...limited, schema: { tags } }, async (_req, reply) => {
    try {
      const { url, state } = await sso.startSignIn(ctx, provider, redirectUri());
      reply.setCookie(sso.STATE_COOKIE, state, { ...stateCookie, maxAge: sso.SIGN_IN_SECONDS });
      return reply.redirect(url.href);
    } catch (err) {
      return refused(reply, err);
    }
  });
  app.get(sso.CALLBACK_PATH, { ...limited, schema: { tags } }, async (req, reply) => {
    reply.clearCookie(sso.STATE_COOKIE, stateCookie);
    const callbackUrl = new URL(redirectUri());
    callbackUrl.search = new URL(req.url, 'http://callback').search;
    try {
      const email = await sso.finishSignIn(ctx, provider, settings, callbackUrl, req.cookies[sso.STATE_COOKIE]);
      const user = await ssoAccount(ctx, settings, email);
      if (await twoFactor.isEnabled(ctx.db, user.id)) {
        await hooks.challenge(reply, user.id);
        return reply.redirect(dashboard('?sign_in=second-factor'));
      }
      await hooks.signIn(req, reply, user);
      return reply.redirect(dashboard());
    } catch (err) {
      return refused(reply, err);
    }
  });
}
