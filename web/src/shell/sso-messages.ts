import type { SsoFailure } from '../../../src/api.js';

/**
 * What the sign-in page says when a sign-in through the provider came back refused
 * (`?sso_error=<reason>`): the reason is a fixed word, so a link cannot make the page say anything
 * else.
 */
const MESSAGES: Record<SsoFailure, (provider: string) => string> = {
  state: () => 'This sign-in had expired, was already used, or was started in another browser. Please sign in again.',
  provider: (provider) =>
    `${provider} did not sign you in. If you cancelled, sign in again; if not, ask your administrator.`,
  unavailable: (provider) => `Postbox could not reach ${provider}. Please try again in a minute.`,
  no_email: (provider) => `${provider} did not share your email address with Postbox, so you cannot be signed in.`,
  email_unverified: (provider) =>
    `${provider} has not verified your email address, so Postbox cannot match it to an account. Verify it there, then sign in again.`,
  domain_not_allowed: () =>
    'Your email address is not in a domain allowed to sign in here. Sign in with your work account, or ask your administrator.',
  not_set_up: () =>
    'This instance is not set up yet: its owner sets it up first with the setup token, then others can sign in.',
  misconfigured: () =>
    'Single sign-on is not set up correctly on this instance. Please tell its administrator (the server log says what is wrong).',
};

/** The message for `reason`, or null without one; a reason the server does not send gets a general message. */
export function ssoFailureMessage(reason: string | null, providerName: string): string | null {
  if (!reason) return null;
  const message = Object.hasOwn(MESSAGES, reason) ? MESSAGES[reason as SsoFailure] : null;
  return message ? message(providerName) : 'Single sign-on did not sign you in. Please try again.';
}
