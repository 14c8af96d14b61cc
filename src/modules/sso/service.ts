import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { type SsoFailure, type SsoSettings, verifiedAddress } from '../../domain/sso.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import * as projects from '../projects/service.js';
import { type OidcProvider, ProviderUnreachable } from './provider.js';
import * as repo from './repo.js';
import type { SignInMethods, SsoSettingsView } from './schemas.js';

export { OidcProvider } from './provider.js';

/**
 * Signing in through the OpenID Connect provider (docs/operations.md, "Single sign-on"). The state
 * goes to the browser in a short-lived HttpOnly cookie; the nonce and PKCE verifier stay in
 * `sso_sign_ins` under the state's hash, and the provider's answer takes that row, so an answer
 * counts once.
 */

/** Between the start and the provider's answer: a person has this long to sign in there. */
export const SIGN_IN_SECONDS = 10 * 60;
export const STATE_COOKIE = 'postbox_sso';
export const CALLBACK_PATH = '/auth/oidc/callback';

/** A sign-in through the provider that ends without a session, for the reason the page explains. */
export class SsoFailed extends Error {
  constructor(
    readonly reason: SsoFailure,
    detail: string = reason,
    options?: ErrorOptions,
  ) {
    super(detail, options);
  }
}

const hashState = (state: string) => createHash('sha256').update(state).digest('base64url');

/** Refuses a password, to sign in or to make an account with, on an "SSO only" instance. */
export function assertPasswordSignIn(settings: SsoSettings | undefined): void {
  if (!settings?.ssoOnly) return;
  throw new AppError(403, 'PASSWORD_SIGN_IN_DISABLED', `This instance signs in through ${settings.providerName} only`, {
    suggestion: 'Sign in with single sign-on (GET /auth/oidc/start), as the sign-in page offers.',
  });
}

export function signInMethods(settings: SsoSettings | undefined): SignInMethods {
  return {
    sso: settings ? { providerName: settings.providerName, startUrl: '/auth/oidc/start' } : null,
    passwordSignIn: !settings?.ssoOnly,
  };
}

/** A new sign-in: the provider's address to send the browser to, and the state for its cookie. */
export async function startSignIn(
  ctx: AppContext,
  provider: OidcProvider,
  redirectUri: string,
): Promise<{ url: URL; state: string }> {
  const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
  let url: URL;
  try {
    url = await provider.authorizationUrl(redirectUri, checks);
  } catch (err) {
    throw new SsoFailed('unavailable', `provider discovery failed: ${(err as Error).message}`, { cause: err });
  }
  const now = ctx.clock.now();
  await repo.insertSignIn(ctx.db, {
    stateHash: hashState(checks.state),
    nonce: checks.nonce,
    codeVerifier: checks.codeVerifier,
    expiresAt: new Date(now.getTime() + SIGN_IN_SECONDS * 1000),
    now,
  });
  return { url, state: checks.state };
}

/**
 * The provider's answer (`callbackUrl`, the redirect URI with its query): its state must be the
 * browser's (`cookieState`) and a sign-in started here, unused and unexpired; its code must give an
 * ID token for our nonce; and the address must be verified and allowed. Answers that address.
 */
export async function finishSignIn(
  ctx: AppContext,
  provider: OidcProvider,
  settings: SsoSettings,
  callbackUrl: URL,
  cookieState: string | undefined,
): Promise<string> {
  const state = callbackUrl.searchParams.get('state');
  if (!state || state !== cookieState) throw new SsoFailed('state', 'state differs from the browser cookie');
  const started = await repo.takeSignIn(ctx.db, hashState(state), ctx.clock.now());
  if (!started) throw new SsoFailed('state', 'no unused, unexpired sign-in with this state');
  const refused = callbackUrl.searchParams.get('error');
  if (refused) throw new SsoFailed('provider', `the provider answered ${refused}`);
  const checks = { state, nonce: started.nonce, codeVerifier: started.code_verifier };
  let claims: Awaited<ReturnType<OidcProvider['claims']>>;
  try {
    claims = await provider.claims(callbackUrl, checks);
  } catch (err) {
    const reason = err instanceof ProviderUnreachable ? 'unavailable' : 'provider';
    throw new SsoFailed(reason, (err as Error).message, { cause: err });
  }
  const address = verifiedAddress(claims, settings.allowedDomains);
  if ('failure' in address) throw new SsoFailed(address.failure);
  return address.email;
}

/** The project OIDC_PROJECT names (its id, or a name only one project has), or null. */
export async function configuredProject(ex: Executor, setting: string): Promise<projects.ProjectRow | null> {
  const found = await projects.projectsByIdOrName(ex, setting);
  return found.length === 1 ? found[0]! : null;
}

export async function settingsView(
  ctx: AppContext,
  settings: SsoSettings | undefined,
  redirectUri: string,
): Promise<SsoSettingsView> {
  const project = settings?.project ? await configuredProject(ctx.db, settings.project) : null;
  return {
    enabled: !!settings,
    issuer: settings?.issuer ?? null,
    providerName: settings?.providerName ?? null,
    clientId: settings?.clientId ?? null,
    redirectUri,
    allowedDomains: settings?.allowedDomains ?? [],
    projectSetting: settings?.project ?? null,
    project: project && { id: project.id, name: project.name },
    role: settings?.role ?? 'member',
    ssoOnly: settings?.ssoOnly ?? false,
  };
}
