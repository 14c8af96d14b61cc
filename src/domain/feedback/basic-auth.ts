import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an `Authorization` header carries exactly the `user:password` configured for a relay's
 * webhook (HTTP basic auth, which Postmark and Brevo send when the URL holds the credentials).
 * Both sides are hashed first, so the comparison takes the same time whatever their lengths.
 */
export function basicAuthMatches(header: string | undefined, credentials: string): boolean {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const given = createHash('sha256').update(Buffer.from(match[1]!, 'base64')).digest();
  const expected = createHash('sha256').update(credentials, 'utf8').digest();
  return timingSafeEqual(given, expected);
}
