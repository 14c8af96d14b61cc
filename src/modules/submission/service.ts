import { type Envelope, emailFromMessage } from '../../domain/submission.js';
import type { AppContext } from '../../platform/context.js';
import { validationError } from '../../platform/http/errors.js';
import { submitEmails } from '../emails/service.js';

/**
 * A message submitted over SMTP by a project: read under the untrusted-content bounds (a small one on
 * the event loop, bounded by its size; the others in the worker pool, under a deadline: see
 * platform/untrusted/pool.ts), mapped onto the email of `/v1/send` (domain/submission.ts) and stored
 * by the emails service like any send, in one transaction. Resolves with the email ids, one per envelope recipient, once
 * they are committed.
 */
export async function submitMessage(
  ctx: AppContext,
  projectId: string,
  envelope: Envelope,
  raw: Uint8Array,
): Promise<string[]> {
  const message = await ctx.untrusted.submission(raw);
  const reading = emailFromMessage(message, envelope);
  if (!reading.ok) throw validationError([{ field: '', message: reading.reason, code: 'invalid_message' }]);
  const sent = await submitEmails(ctx, projectId, reading.email);
  return sent.emails.map((e) => e.email);
}
