import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { dirQuery } from '../../platform/http/pagination.js';
import { usageListsSchema } from '../../platform/usage.js';

export const emailTypeSchema = z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']);

const NO_LINE_BREAKS = /^[^\r\n]*$/;

export const MAX_NAME = 255;
const name = z.string().trim().min(1).max(MAX_NAME);
const description = z.string().max(2000);
/** A header value: the spec's 998 characters, no line breaks. */
const subject = z.string().min(1).max(998).regex(NO_LINE_BREAKS, 'Must not contain line breaks');
const body = z.string().min(1);
const fromName = z.string().max(255).regex(NO_LINE_BREAKS, 'Must not contain line breaks');

export const createTemplateBody = z.object({
  name,
  description: description.nullable().optional(),
  subject,
  body,
  from: emailSchema,
  fromName: fromName.nullable().optional(),
  replyTo: emailSchema.nullable().optional(),
  type: emailTypeSchema.default('MARKETING'),
});

export const patchTemplateBody = z.object({
  name: name.optional(),
  description: description.nullable().optional(),
  subject: subject.optional(),
  body: body.optional(),
  from: emailSchema.optional(),
  fromName: fromName.nullable().optional(),
  replyTo: emailSchema.nullable().optional(),
  type: emailTypeSchema.optional(),
});

export const MAX_PAGE_SIZE = 100;

export const listTemplatesQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, MAX_PAGE_SIZE)),
  type: emailTypeSchema.optional(),
  search: z.string().max(200).optional(),
  sort: z.enum(['name', 'createdAt', 'updatedAt']).catch('createdAt').default('createdAt'),
  dir: dirQuery,
});

export const idParams = z.object({ id: z.string().uuid() });

export const templateSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  description: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  type: emailTypeSchema,
  projectId: z.string().uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const templatePageSchema = z.object({
  data: z.array(templateSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  totalPages: z.number().int(),
});

export const templateUsageResponse = usageListsSchema.omit({ segments: true }).extend({ templateId: z.string().uuid() });
