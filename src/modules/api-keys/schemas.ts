import { z } from 'zod';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../domain/api-keys.js';

export { idParams } from '../../platform/http/params.js';

const scopes = z
  .array(z.enum(SCOPES))
  .min(1, 'Give the key at least one scope')
  .max(SCOPES.length)
  .refine((list) => new Set(list).size === list.length, 'Each scope once');
const name = z.string().trim().min(1, 'Name the key').max(100);
const expiresAt = z.string().datetime({ offset: true }).nullable().describe('When the key stops working; null: never');

export const createKeyBody = z.object({ name, scopes, expiresAt: expiresAt.optional() });
export const patchKeyBody = z.object({
  name: name.optional(),
  scopes: scopes.optional(),
  expiresAt: expiresAt.optional(),
});

/** Seven days: long enough to roll a new secret out to every machine that holds the old one. */
export const MAX_OVERLAP_MINUTES = 7 * 24 * 60;
export const rotateKeyBody = z
  .object({
    overlapMinutes: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_MINUTES)
      .default(60)
      .describe('How long the replaced secret keeps working; 0 stops it at once'),
  })
  .default({});

export const apiKeySchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  /** The key's prefix and last four characters. */
  hint: z.string(),
  status: z.enum(['active', 'expired', 'revoked']),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.object({
    kind: z.enum(['user', 'key', 'secret-key']),
    id: z.string().nullable(),
    /** The user's address or the key's name. */
    label: z.string().nullable(),
  }),
  lastUsedAt: z.string().nullable(),
  lastUsedIp: z.string().nullable(),
  rotatedAt: z.string().nullable(),
  /** Until when the secret replaced by the last rotation still works. */
  previousValidUntil: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

/** A key as created or rotated: with its secret, shown this once. */
export const keyWithSecretSchema = apiKeySchema.extend({ key: z.string() });

export const scopeListSchema = z.array(z.object({ scope: z.enum(SCOPES), description: z.string() }));
export const SCOPE_LIST = SCOPES.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] }));
