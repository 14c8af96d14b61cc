import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { offsetPageQuery, offsetPageSchema } from '../../platform/http/pagination.js';

export const suppressionReasonSchema = z.enum(['bounce', 'complaint', 'manual']);
export type SuppressionReason = z.infer<typeof suppressionReasonSchema>;

export const suppressionSchema = z.object({
  email: z.string(),
  /** `bounce` (a hard bounce), `complaint` (an abuse report) or `manual` (added through the API). */
  reason: suppressionReasonSchema,
  /** The email whose bounce or complaint listed the address. */
  emailId: z.string().uuid().nullable(),
  /** The bounce's status and diagnostic, or the complaint's feedback type. */
  detail: z.string().nullable(),
  createdAt: z.string(),
});
export type Suppression = z.infer<typeof suppressionSchema>;

export const listSuppressionsQuery = offsetPageQuery.extend({ reason: suppressionReasonSchema.optional() });
export const suppressionPageSchema = offsetPageSchema(suppressionSchema);

export const addSuppressionBody = z.object({ email: emailSchema, detail: z.string().max(1000).nullable().optional() });
export const emailParams = z.object({ email: emailSchema });
