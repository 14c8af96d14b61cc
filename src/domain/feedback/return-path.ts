import { timingSafeEqual } from 'node:crypto';
import type { LinkSigner } from '../signed-links.js';

/**
 * The per-message return path (VERP): `bounces+<email id><signature>@bounces.<sender domain>`. The
 * id is the email's uuid in hex and the signature 64 bits of HMAC, also hex, so the local part stays
 * within 64 characters and survives a relay that changes its case. A report sent to it names its
 * email without trusting anything else in the message.
 */
export function returnPath(signer: LinkSigner, emailId: string, fromEmail: string): string {
  const hex = emailId.replace(/-/g, '').toLowerCase();
  const domain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1);
  return `bounces+${hex}${signature(signer, hex)}@bounces.${domain}`;
}

/** The email id a return path names, or null when it is not one the service made. */
export function readReturnPath(signer: LinkSigner, address: string): string | null {
  const match = /^bounces\+([0-9a-f]{32})([0-9a-f]{16})@bounces\./.exec(address.toLowerCase());
  if (!match) return null;
  const [, hex, given] = match as unknown as [string, string, string];
  if (!timingSafeEqual(Buffer.from(signature(signer, hex)), Buffer.from(given))) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function signature(signer: LinkSigner, hex: string): string {
  return Buffer.from(signer.sign('return-path', hex), 'base64url').subarray(0, 8).toString('hex');
}
