import { normalizeEmail } from './email.js';
import type { Role } from './roles.js';

/**
 * Single sign-on with an OpenID Connect provider (docs/operations.md, "Single sign-on"): what the
 * environment configures, and the rules a provider's answer must pass before anyone is signed in.
 */
export interface SsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** "Sign in with <providerName>" on the sign-in page. */
  providerName: string;
  /** Lower-cased domains whose addresses may sign in; `any` lets every verified address in. */
  allowedDomains: string[] | 'any';
  /** The project (id or exact name) a new account joins, with `role`; none when unset. */
  project?: string;
  role: Role;
  /** Password sign-in is off for the instance: the provider is the only way in. */
  ssoOnly: boolean;
}

/**
 * Why a sign-in through the provider ended without a session; the sign-in page explains each
 * (`?sso_error=<reason>`).
 */
export const SSO_FAILURES = [
  'state',
  'provider',
  'unavailable',
  'no_email',
  'email_unverified',
  'domain_not_allowed',
  'not_set_up',
  'misconfigured',
] as const;
export type SsoFailure = (typeof SSO_FAILURES)[number];

/** The allowed domains as written in OIDC_ALLOWED_DOMAINS: a comma-separated list, or `*`. */
export function parseAllowedDomains(value: string): string[] | 'any' | null {
  if (value.trim() === '*') return 'any';
  const domains = value
    .split(',')
    .map((d) => d.trim().toLowerCase().replace(/^@/, ''))
    .filter(Boolean);
  const wellFormed = domains.every((d) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d));
  return domains.length > 0 && wellFormed ? domains : null;
}

/** Plain HTTP reaches a provider only on this machine (a development or test provider). */
export function issuerProblem(issuer: string): string | null {
  const url = new URL(issuer);
  if (url.protocol === 'https:') return null;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  return url.protocol === 'http:' && loopback ? null : 'must be an https:// URL (http:// only on localhost)';
}

/** The claims of the ID token or the userinfo answer, of which the address and its verification count. */
export type ProviderClaims = Record<string, unknown> & {
  email?: unknown;
  email_verified?: unknown;
  xms_edov?: unknown;
};

/**
 * The address a provider vouches for, or why it is refused: it must be present, verified by the
 * provider, and in an allowed domain. Verified is `email_verified: true` (as the claim or as the
 * string some providers send), or Entra ID's `xms_edov: true` (the address's domain is verified by
 * the tenant), since Entra ID sends no `email_verified`.
 */
export function verifiedAddress(
  claims: ProviderClaims,
  allowed: SsoSettings['allowedDomains'],
): { email: string } | { failure: SsoFailure } {
  const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : null;
  if (!email) return { failure: 'no_email' };
  const verified = [claims.email_verified, claims.xms_edov].some((claim) => claim === true || claim === 'true');
  if (!verified) return { failure: 'email_unverified' };
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (allowed !== 'any' && !allowed.includes(domain)) return { failure: 'domain_not_allowed' };
  return { email };
}
