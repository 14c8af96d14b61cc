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
  /** The topics a visitor may choose on the form (topic ids of the project, shown in this order). */
  topics: z.array(z.string().uuid()).max(20),
  /** A template of the project for the confirmation email, using {{ confirmationUrl }}; null: the built-in one. */
  confirmationTemplateId: z.string().uuid().nullable(),
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
  topics: formSettings.topics.default([]),
  confirmationTemplateId: formSettings.confirmationTemplateId.default(null),
});
export type CreateFormBody = z.infer<typeof createFormBody>;

/** POST /forms/preview: a form as the builder has it, saved or not (the name may still be empty). */
export const previewFormBody = createFormBody.extend({
  name: z.string().max(100).default(''),
  /** The form's id once saved, so that its code is the code to paste. */
  id: z.string().uuid().optional(),
});
export type PreviewFormBody = z.infer<typeof previewFormBody>;

export const formPreviewSchema = z.object({
  /** The hosted page as /f/<id> would serve it, in English, without its script (for a sandboxed frame). */
  html: z.string(),
  /** The code to paste into a site, as GET /forms/:id gives it. */
  embedCode: z.string(),
});
export type FormPreview = z.infer<typeof formPreviewSchema>;

export const patchFormBody = z.object({ name, ...formSettings }).partial();
export type PatchFormBody = z.infer<typeof patchFormBody>;

const localized = z.record(z.string());

export const formSchema = z.object({
  id: z.string().uuid(),
  projectId: z.string().uuid(),
  name: z.string(),
  fields: z.array(z.object({ key: z.string(), type: z.enum(FIELD_TYPES), required: z.boolean(), label: localized })),
  /** The topics offered (topic ids): each a checkbox, unticked until the visitor ticks it. */
  topics: z.array(z.string()),
  doubleOptIn: z.boolean(),
  senderEmail: z.string().nullable(),
  senderName: z.string().nullable(),
  confirmationTtlDays: z.number().int(),
  title: localized,
  consentText: localized,
  successMessage: localized,
  redirectUrl: z.string().nullable(),
  allowedOrigins: z.array(z.string()),
  confirmationTemplateId: z.string().nullable(),
  /** The hosted page of the form. */
  url: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Form = z.infer<typeof formSchema>;

/** GET /forms/:id adds the HTML to paste into a website. */
export const formDetailSchema = formSchema.extend({ embedCode: z.string() });
export type FormDetail = z.infer<typeof formDetailSchema>;

export const formStatsQuery = z.object({
  /** How many days back from today (UTC), today included. */
  days: z.coerce.number().int().min(1).max(365).default(30),
});

const counts = { views: z.number().int(), submissions: z.number().int(), confirmations: z.number().int() };

/** GET /forms/:id/stats: the form's counts per UTC day, and their sums over those days. */
export const formStatsSchema = z.object({
  formId: z.string().uuid(),
  from: z.string(),
  to: z.string(),
  totals: z.object({
    ...counts,
    /** Submissions per view; null without views. */
    submissionRate: z.number().nullable(),
    /** Confirmations per submission; null without submissions or without double opt-in. */
    confirmationRate: z.number().nullable(),
  }),
  days: z.array(z.object({ day: z.string(), ...counts })),
});
export type FormStats = z.infer<typeof formStatsSchema>;

export const pendingSignupsQuery = z.object({
  /** Comma-separated contact ids (up to 100), such as a page of the contacts list. */
  contactIds: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().uuid()).max(100)),
});

/** GET /forms/pending-signups: which of these contacts signed up with double opt-in and have not confirmed. */
export const pendingSignupsSchema = z.object({
  data: z.array(
    z.object({
      contactId: z.string().uuid(),
      formId: z.string().uuid(),
      formName: z.string().nullable(),
      confirmationSentAt: z.string().nullable(),
      expiresAt: z.string(),
    }),
  ),
});
export type PendingSignups = z.infer<typeof pendingSignupsSchema>;

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
    /** The ids of the offered topics the visitor ticked; offered topics not named are declined. */
    topics: z.unknown(),
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
