import { Secret, TOTP } from 'otpauth';

/**
 * Time-based one-time codes (RFC 6238) as every authenticator app reads them: SHA-1, six digits,
 * thirty seconds. A code of the step before or after the current one is taken too, for a phone
 * whose clock is a little off; the step a code belongs to is returned so it can be used only once.
 */
const PERIOD = 30;
const WINDOW = 1;
const ISSUER = 'Postbox';

const totpOf = (secret: string, account: string) =>
  new TOTP({
    issuer: ISSUER,
    label: account,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });

/** A new secret of 160 bits (the size RFC 4226 recommends), in base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://` address a QR code carries to the app. */
export function totpUri(secret: string, account: string): string {
  return totpOf(secret, account).toString();
}

/** Six digits, spaces and dashes allowed between them (apps show "123 456"). */
export function normalizeTotpCode(code: string): string | null {
  const digits = code.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/** The time step a code is valid for at `now`, or null when it is wrong. */
export function totpStep(secret: string, code: string, now: Date): number | null {
  const token = normalizeTotpCode(code);
  if (!token) return null;
  const totp = totpOf(secret, '');
  const delta = totp.validate({ token, timestamp: now.getTime(), window: WINDOW });
  return delta === null ? null : totp.counter({ timestamp: now.getTime() }) + delta;
}
