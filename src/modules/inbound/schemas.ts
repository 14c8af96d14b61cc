import { z } from 'zod';
import { cursorPageSchema, cursorQuery, limitQuery } from '../../platform/http/pagination.js';

export const inboundSchema = z.object({
  id: z.string().uuid(),
  contactId: z.string().uuid().nullable(),
  from: z.string(),
  fromName: z.string().nullable(),
  to: z.array(z.string()),
  subject: z.string(),
  text: z.string().nullable(),
  /** Sanitized for display. */
  html: z.string().nullable(),
  messageId: z.string().nullable(),
  inReplyToEmailId: z.string().uuid().nullable(),
  /** Attachments are listed, not kept. */
  attachments: z.array(z.object({ filename: z.string().nullable(), contentType: z.string(), size: z.number().int() })),
  receivedAt: z.string(),
});
export type InboundEmail = z.infer<typeof inboundSchema>;

export const listInboundQuery = z.object({ limit: limitQuery, cursor: cursorQuery });
export const inboundPageSchema = cursorPageSchema(inboundSchema);
export { idParams } from '../../platform/http/params.js';
