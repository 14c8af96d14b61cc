import { z } from 'zod';
import { cursorPageSchema, cursorQuery, limitQuery } from '../../platform/http/pagination.js';

const time = z.string().datetime({ offset: true });

/** `user:<id>`, `key:<id>` (a named key), `secret-key`, `system` or `anonymous`. */
export const ACTOR_KINDS = ['user', 'key', 'secret-key', 'system', 'anonymous'] as const;
const actorFilter = z
  .string()
  .regex(
    /^(user:[0-9a-f-]{36}|key:[0-9a-f-]{36}|secret-key|system|anonymous)$/i,
    'An actor is user:<id>, key:<id>, secret-key, system or anonymous',
  );

export const auditQuery = z
  .object({
    limit: limitQuery,
    cursor: cursorQuery,
    actor: actorFilter.optional().describe('Who made the changes: user:<id>, key:<id>, secret-key or system'),
    action: z
      .string()
      .regex(/^[a-z_]+\.[a-z_]+$/, 'An action is <target>.<verb>, as contact.updated')
      .optional(),
    targetType: z
      .string()
      .regex(/^[a-z_]+$/)
      .optional(),
    targetId: z.string().min(1).max(320).optional().describe('With targetType: one record'),
    from: time.optional().describe('Entries at or after this time'),
    to: time.optional().describe('Entries before this time'),
  })
  .refine((q) => q.targetId === undefined || q.targetType !== undefined, {
    message: 'targetId goes with targetType',
    path: ['targetId'],
  });
export type AuditQuery = z.infer<typeof auditQuery>;

export const auditEntrySchema = z.object({
  id: z.string().uuid(),
  createdAt: z.string(),
  actor: z.object({
    kind: z.enum(ACTOR_KINDS),
    id: z.string().nullable(),
    /** The user's address or the key's name when the change was made. */
    label: z.string().nullable(),
  }),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  requestId: z.string().nullable(),
  /** `<target>.<verb>`: contact.updated, member.role_changed, api_key.created. */
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }),
  /** What changed: the fields (`fields`), small values before and after (`values`); never secrets or bodies. */
  changes: z.record(z.unknown()).nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditPageSchema = cursorPageSchema(auditEntrySchema).extend({
  /** `total` counts up to 10,000 matching entries; true when more match. */
  totalCapped: z.boolean(),
});
export type AuditPage = z.infer<typeof auditPageSchema>;
