import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { IMPORT_PRESETS } from '../../domain/import-presets.js';
import { booleanQuery, cursorPageSchema, cursorQuery, dirQuery, limitQuery } from '../../platform/http/pagination.js';
import { usageListsSchema } from '../../platform/usage.js';
import { eventNameSchema } from '../events/schemas.js';
import { contactTopicsSchema } from '../topics/schemas.js';

const MAX_DATA_BYTES = 64 * 1024;

/** A `data` object as the API accepts it (contacts, track, send); the rules live in domain/contact-data. */
export const dataSchema = z
  .record(z.string().min(1).max(256), z.unknown())
  .refine((d) => Object.keys(d).length <= 500, { message: 'At most 500 keys' })
  .refine((d) => JSON.stringify(d).length <= MAX_DATA_BYTES, { message: `At most ${MAX_DATA_BYTES} bytes of JSON` });

export { idParams } from '../../platform/http/params.js';
export const jobIdParams = z.object({ jobId: z.string().uuid() });
export const fieldParams = z.object({ field: z.string().min(1).max(262) });

export const contactSchema = z.object({
  id: z.string().uuid(),
  email: z.string(),
  subscribed: z.boolean(),
  snoozedUntil: z.string().nullable(),
  data: z.record(z.unknown()),
  /** Topic id → whether the contact receives it: every topic of the project (GET /topics). */
  topics: contactTopicsSchema.optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Contact = z.infer<typeof contactSchema>;

export const upsertedContactSchema = contactSchema.extend({
  _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }),
});
export type UpsertedContact = z.infer<typeof upsertedContactSchema>;

export const createContactBody = z.object({
  email: emailSchema,
  subscribed: z.boolean().optional(),
  data: dataSchema.optional(),
  /** Topic id → receives it; topics not named keep their state (a new contact: the topic's default). */
  topics: contactTopicsSchema.optional(),
});
export type CreateContactBody = z.infer<typeof createContactBody>;

export const patchContactBody = z.object({
  email: emailSchema.optional(),
  subscribed: z.boolean().optional(),
  snoozedUntil: z.string().datetime({ offset: true }).nullable().optional(),
  data: dataSchema.optional(),
  topics: contactTopicsSchema.optional(),
});

export const listContactsQuery = z.object({
  limit: limitQuery,
  cursor: cursorQuery,
  search: z.string().max(320).optional(),
  subscribed: booleanQuery.optional(),
  sort: z.enum(['email', 'createdAt']).catch('createdAt').default('createdAt'),
  dir: dirQuery,
});

export const contactPageSchema = cursorPageSchema(contactSchema);

export const lookupBody = z.object({ emails: z.array(emailSchema).min(1).max(500) });
export const lookupResponse = z.object({
  data: z.array(z.object({ email: z.string(), exists: z.boolean(), contactId: z.string().nullable() })),
});

/** POST /contacts/import?preset=: the product whose export the CSV is; absent, a Postbox CSV. */
export const importQuery = z.object({
  preset: z
    .enum(IMPORT_PRESETS)
    .optional()
    .describe(
      'mailchimp: an audience export file (subscribed, unsubscribed or cleaned members); listmonk: a subscribers export; plunk: a contacts export. Absent: a Postbox CSV.',
    ),
});

export const bulkBody = z.object({ contactIds: z.array(z.string().uuid()).min(1).max(1000) });

export const jobSchema = z.object({
  id: z.string().uuid(),
  kind: z.enum(['import', 'subscribe', 'unsubscribe', 'delete']),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  total: z.number().int(),
  processed: z.number().int(),
  progress: z.number(),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  errors: z.array(
    z.object({
      row: z.number().optional(),
      id: z.string().optional(),
      email: z.string().optional(),
      message: z.string(),
    }),
  ),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type ContactJob = z.infer<typeof jobSchema>;
export const jobAccepted = jobSchema.extend({ jobId: z.string().uuid() });

export const fieldsResponse = z.object({
  fields: z.array(z.object({ field: z.string(), type: z.string(), isCustom: z.boolean(), coverage: z.number() })),
});
export const fieldValuesQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .transform((n) => Math.min(n, 500)),
});
export const fieldValuesResponse = z.object({
  field: z.string(),
  values: z.array(z.object({ value: z.unknown(), count: z.number().int() })),
});
export const fieldUsageResponse = usageListsSchema.extend({ field: z.string() });

/** POST /v1/track and /events/track: the event of a contact, created or updated on the way. */
export const trackBody = z.object({
  email: emailSchema,
  event: eventNameSchema,
  subscribed: z.boolean().optional(),
  data: dataSchema.optional(),
});
export type TrackBody = z.infer<typeof trackBody>;

export const trackResponse = z.object({
  success: z.literal(true),
  data: z.object({ contact: z.string().uuid(), event: z.string().uuid(), timestamp: z.string() }),
});
