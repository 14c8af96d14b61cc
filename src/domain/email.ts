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
