import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { FIELD_TYPES, formFieldsSchema, localizedText, originSchema } from '../../domain/signup-form.js';
import { cursorPageSchema, cursorQuery, limitQuery } from '../../platform/http/pagination.js';

export { idParams } from '../../platform/http/params.js';

const name = z.string().trim().min(1).max(100);
const redirectUrl = z
  .string()
  .trim()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'An http or https address')
  .nullable();
const ttlDays = z.number().int().min(1).max(30);

/** Everything a form says and does; `senderEmail` is required while double opt-in is on. */
const formSettings = {
  fields: formFieldsSchema,
  doubleOptIn: z.boolean(),
  senderEmail: emailSchema.nullable(),
  senderName: z.string().trim().max(100).nullable(),
  confirmationTtlDays: ttlDays,
  title: localizedText(200),
  consentText: localizedText(2000),
  successMessage: localizedText(1000),
  redirectUrl,
  allowedOrigins: z.array(originSchema).max(20),
};

export const createFormBody = z.object({
  name,
  fields: formSettings.fields.default([]),
  doubleOptIn: formSettings.doubleOptIn.default(true),
  senderEmail: formSettings.senderEmail.default(null),
  senderName: formSettings.senderName.default(null),
  confirmationTtlDays: ttlDays.default(7),
  title: formSettings.title.default({}),
  consentText: formSettings.consentText.default({}),
  successMessage: formSettings.successMessage.default({}),
  redirectUrl: redirectUrl.default(null),
  allowedOrigins: formSettings.allowedOrigins.default([]),
});
export type CreateFormBody = z.infer<typeof createFormBody>;

export const patchFormBody = z.object({ name, ...formSettings }).partial();
export type PatchFormBody = z.infer<typeof patchFormBody>;

const localized = z.record(z.string());

export const formSchema = z.object({
  id: z.string().uuid(),
  projectId: z.string().uuid(),
  name: z.string(),
  fields: z.array(z.object({ key: z.string(), type: z.enum(FIELD_TYPES), required: z.boolean(), label: localized })),
  /** Topics come later: always an empty list for now. */
  topics: z.array(z.unknown()),
  doubleOptIn: z.boolean(),
  senderEmail: z.string().nullable(),
  senderName: z.string().nullable(),
  confirmationTtlDays: z.number().int(),
  title: localized,
  consentText: localized,
  successMessage: localized,
  redirectUrl: z.string().nullable(),
  allowedOrigins: z.array(z.string()),
  /** The hosted page of the form. */
  url: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Form = z.infer<typeof formSchema>;

/** GET /forms/:id adds the HTML to paste into a website. */
export const formDetailSchema = formSchema.extend({ embedCode: z.string() });
export type FormDetail = z.infer<typeof formDetailSchema>;

export const listFormsQuery = z.object({ limit: limitQuery, cursor: cursorQuery });
export const formPageSchema = cursorPageSchema(formSchema);

/** The form of a public endpoint: any string, so that a malformed id gets the visitor's "not found". */
export const publicFormParams = z.object({ id: z.string().max(100) });

/** The public endpoints: what a visitor's browser or a static site sends. */
export const submissionBody = z
  .object({
    email: z.unknown(),
    data: z.unknown(),
    /** The solved ALTCHA challenge (base64 JSON), which also carries the signed issue time. */
    altcha: z.unknown(),
    /** The honeypot: a field people never see, so never fill. */
    website: z.unknown(),
  })
  .partial()
  .passthrough();

export const challengeSchema = z.object({
  success: z.literal(true),
  data: z.object({
    algorithm: z.string(),
    challenge: z.string(),
    maxnumber: z.number().int(),
    salt: z.string(),
    signature: z.string(),
  }),
});

export const submissionResult = z.object({
  success: z.literal(true),
  data: z.object({
    /** `pending` while the confirmation email waits for its click; `subscribed` without double opt-in. */
    status: z.enum(['pending', 'subscribed']),
    message: z.string(),
    redirectUrl: z.string().nullable(),
  }),
});
