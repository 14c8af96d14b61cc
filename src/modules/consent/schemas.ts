import { z } from 'zod';
import { cursorPageSchema, cursorQuery, limitQuery } from '../../platform/http/pagination.js';

export const consentQuery = z.object({ limit: limitQuery, cursor: cursorQuery });
export type ConsentQuery = z.infer<typeof consentQuery>;

export const consentRecordSchema = z.object({
  id: z.string().uuid(),
  at: z.string(),
  /** subscribed, unsubscribed, snoozed, pending, confirmed, complained or bounced. */
  change: z.enum(['subscribed', 'unsubscribed', 'snoozed', 'pending', 'confirmed', 'complained', 'bounced']),
  /** The topic changed; null for the subscription as a whole. */
  topicId: z.string().uuid().nullable(),
  /** The path: api, dashboard paths, form, import, bulk, unsubscribe_page, one_click, manage_page, complaint… */
  source: z.string(),
  /** The form, import or bulk job, email or workflow execution the change came through. */
  sourceId: z.string().nullable(),
  actor: z.object({
    /** A dashboard user, a named key, the secret key, the visitor of a public page, or the system (jobs). */
    kind: z.enum(['user', 'key', 'secret-key', 'visitor', 'system']),
    id: z.string().nullable(),
    /** The user's address or the key's name when the change was made. */
    label: z.string().nullable(),
  }),
  /** Kept for a visitor's own changes (forms, subscription pages) only. */
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  /** The consent text the visitor was shown. */
  consentText: z.string().nullable(),
});

export const consentPageSchema = cursorPageSchema(consentRecordSchema);
export type ConsentPage = z.infer<typeof consentPageSchema>;
