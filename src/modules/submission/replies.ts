import { isDatabaseUnavailable, isTransientConflict } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { ContentLimitError, PoolBusyError } from '../../platform/untrusted/pool.js';

/** An error smtp-server sends as the reply `responseCode message`. */
export type SmtpReply = Error & { responseCode: number };

/** `message` starts with its enhanced status code (RFC 3463), as smtp-server adds none of its own. */
export const smtpReply = (code: number, message: string): SmtpReply =>
  Object.assign(new Error(message), { responseCode: code });

/** The text of the 250 that accepts a message: its email ids, one per envelope recipient, in their order. */
export const acceptedText = (emailIds: string[]) => `Accepted: ${emailIds.join(',')}`;

/** One line of reasonable length: the text may come from the parser or from a field of the message. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300);

/**
 * The reply to a message the service did not take, or null for a fault of its own (which the caller
 * logs and answers 451, so that the client keeps the message and tries again). What the message
 * cannot change (its sender, its content, its size) is a 5xx: sending it again would fail the same way.
 */
export function refusalOf(err: unknown): SmtpReply | null {
  if (err instanceof AppError) {
    // The sender domain is not verified (or not this project's): the message says which and why.
    if (err.statusCode === 403) return smtpReply(550, `5.7.1 ${oneLine(err.message)}`);
    if (err.statusCode === 422) {
      const errors = err.options.errors ?? [];
      const reasons = errors
        .slice(0, 3)
        .map((e) => (e.field ? `${e.field}: ${e.message}` : e.message))
        .join('; ');
      // The sizes of /v1/send: attachments over 10 MB together, or a message that would pass 40 MB.
      const tooBig = errors.some((e) => e.field === 'attachments' && e.code === 'too_big' && /bytes/.test(e.message));
      return tooBig
        ? smtpReply(552, `5.3.4 Message refused: ${oneLine(reasons)}`)
        : smtpReply(550, `5.6.0 Message refused: ${oneLine(reasons || err.message)}`);
    }
    if (err.statusCode === 503) return smtpReply(451, `4.3.0 ${oneLine(err.message)}`);
    return null;
  }
  if (err instanceof PoolBusyError) return smtpReply(451, '4.3.2 Too many messages being read; try again shortly');
  if (err instanceof ContentLimitError) {
    // mailparser's bounds: 1 MB of header per MIME part, 1,000 parts.
    if (err.code === 'EMAXLEN') return smtpReply(552, `5.3.4 Message refused: ${oneLine(err.message)}`);
    if (err.reason === 'invalid')
      return smtpReply(554, `5.6.0 Message refused: it could not be parsed: ${oneLine(err.message)}`);
    return smtpReply(554, `5.6.0 Message refused: reading it ${oneLine(err.message)}`);
  }
  if (isDatabaseUnavailable(err)) return smtpReply(451, '4.3.0 The database is unavailable; try again shortly');
  if (isTransientConflict(err)) return smtpReply(451, '4.3.0 The message collided with a concurrent change; try again');
  return null;
}
