import { describe, expect, it } from 'vitest';
import { parseAllowedDomains, verifiedAddress } from '../../src/domain/sso.js';
import { ssoFailureMessage } from '../../web/src/shell/sso-messages.js';

describe('single sign-on rules', () => {
  it('takes a verified address of an allowed domain, lower-cased', () => {
    const allowed = ['example.com'];
    expect(verifiedAddress({ email: 'Ann@Example.com', email_verified: true }, allowed)).toEqual({
      email: 'ann@example.com',
    });
    // Some providers send the claim as a string.
    expect(verifiedAddress({ email: 'ann@example.com', email_verified: 'true' }, allowed)).toEqual({
      email: 'ann@example.com',
    });
    // Entra ID's "the tenant verified this address's domain".
    expect(verifiedAddress({ email: 'ann@example.com', xms_edov: true }, allowed)).toEqual({
      email: 'ann@example.com',
    });
    expect(verifiedAddress({ email: 'ann@example.com', email_verified: true }, 'any')).toEqual({
      email: 'ann@example.com',
    });
  });

  it('refuses a missing, unverified or foreign address, and a look-alike domain', () => {
    const allowed = ['example.com'];
    expect(verifiedAddress({ email_verified: true }, allowed)).toEqual({ failure: 'no_email' });
    expect(verifiedAddress({ email: 'not an address', email_verified: true }, allowed)).toEqual({
      failure: 'no_email',
    });
    expect(verifiedAddress({ email: 'ann@example.com' }, allowed)).toEqual({ failure: 'email_unverified' });
    expect(verifiedAddress({ email: 'ann@example.com', email_verified: false, xms_edov: false }, allowed)).toEqual({
      failure: 'email_unverified',
    });
    for (const email of ['ann@other.com', 'ann@example.com.evil.test', 'ann@sub.example.com', 'ann@evilexample.com']) {
      expect(verifiedAddress({ email, email_verified: true }, allowed), email).toEqual({
        failure: 'domain_not_allowed',
      });
    }
  });

  it('reads the allowed domains as a list or *, and nothing else', () => {
    expect(parseAllowedDomains('example.com, @Example.org')).toEqual(['example.com', 'example.org']);
    expect(parseAllowedDomains(' * ')).toBe('any');
    expect(parseAllowedDomains('')).toBeNull();
    expect(parseAllowedDomains('example')).toBeNull();
    expect(parseAllowedDomains('*.example.com')).toBeNull();
  });

  it('explains each refusal in words, and a made-up reason only in general ones', () => {
    expect(ssoFailureMessage('unavailable', 'Keycloak')).toBe(
      'Postbox could not reach Keycloak. Please try again in a minute.',
    );
    expect(ssoFailureMessage('<script>', 'Keycloak')).toBe('Single sign-on did not sign you in. Please try again.');
    expect(ssoFailureMessage('toString', 'Keycloak')).toBe('Single sign-on did not sign you in. Please try again.');
    expect(ssoFailureMessage(null, 'Keycloak')).toBeNull();
  });
});
