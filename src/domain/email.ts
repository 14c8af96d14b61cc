import { z } from 'zod';

/** Addresses are compared and stored lower-cased and trimmed, so one person is one contact. */
export const emailSchema = z.string().trim().toLowerCase().max(320).email();

/**
 * What an email is for: MARKETING mail only reaches subscribed contacts and carries an unsubscribe
 * link; TRANSACTIONAL mail reaches every contact; HEADLESS mail is sent exactly as rendered
 * (docs/decisions.md, "Mail types").
 */
export const emailTypeSchema = z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']);
export type EmailType = z.infer<typeof emailTypeSchema>;

export function normalizeEmail(raw: string): string | null {
  const parsed = emailSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** Headers the service writes itself on every email: `/v1/send` may not set them. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'reply-to',
  'sender',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'dkim-signature',
  'return-path',
  'list-unsubscribe',
  'list-unsubscribe-post',
]);

/**
 * Whether a header is one the service writes itself (above), or part of a resent block (RFC 5322
 * 3.6.6: Resent-From, -Sender, -Date, -To, -Cc, -Bcc, -Message-ID, and RFC 822's Resent-Reply-To).
 * A resent block names who re-sent the message, as Sender names who sent it: the service sends it,
 * so a block written by a client would vouch, under the project's DKIM signature, for an originator
 * nobody checked (another project's domain); and a block is one unit, so all of it goes.
 */
export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_HEADERS.has(lower) || lower.startsWith('resent-');
}
