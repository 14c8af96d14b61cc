import { z } from 'zod';
import { emailSchema, emailTypeSchema, isReservedHeader } from '../../domain/email.js';

export { type EmailType, emailTypeSchema } from '../../domain/email.js';

import { cursorQuery, idsQuery, limitQuery } from '../../platform/http/pagination.js';
import { dataSchema } from '../contacts/schemas.js';

const NO_NEWLINE = /^[^\r\n]*$/;
/** RFC 5322 field names: printable ASCII except the colon. */
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]{1,76}$/;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/;

/** `bounced`: the relay accepted it, then a delivery status notification reported it failed. */
export const emailStatusSchema = z.enum(['queued', 'sent', 'failed', 'skipped', 'bounced']);
export type EmailStatus = z.infer<typeof emailStatusSchema>;
export const bounceTypeSchema = z.enum(['hard', 'soft']);
export type BounceType = z.infer<typeof bounceTypeSchema>;

export const MAX_RECIPIENTS = 50;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;

const nameSchema = z.string().max(256).regex(NO_NEWLINE, 'Must not contain line breaks');
const addressSchema = z.union([emailSchema, z.object({ name: nameSchema.optional(), email: emailSchema })]);

const attachmentSchema = z
  .object({
    filename: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^\r\n"']*$/, 'Must not contain line breaks or quotes'),
    content: z.string().min(1).regex(BASE64, 'Must be base64'),
    contentType: z.string().max(255).regex(MIME_TYPE, 'Must be a MIME type such as application/pdf'),
    contentId: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^\s<>"']+$/, 'Must not contain spaces, angle brackets or quotes')
      .optional(),
    disposition: z.enum(['attachment', 'inline']).default('attachment'),
  })
  .refine((a) => a.disposition !== 'inline' || a.contentId, {
    message: 'Required when disposition is inline',
    path: ['contentId'],
  });
/** An attachment as stored: `content` is base64, as the client sent it. */
export type StoredAttachment = z.infer<typeof attachmentSchema>;

const headersSchema = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  const entries = Object.entries(headers);
  if (entries.length > 50)
    ctx.addIssue({
      code: z.ZodIssueCode.too_big,
      maximum: 50,
      type: 'array',
      inclusive: true,
      message: 'At most 50 headers',
    });
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) {
      ctx.addIssue({
        code: z.ZodIssueCode.invalid_string,
        validation: 'regex',
        path: [name],
        message: 'Header names are printable ASCII without colon, spaces or line breaks',
      });
    } else if (isReservedHeader(name)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [name],
        message: `${name} is set by the service and cannot be overridden`,
        params: { code: 'reserved_header' },
      });
    }
    if (!NO_NEWLINE.test(value))
      ctx.addIssue({
        code: z.ZodIssueCode.invalid_string,
        validation: 'regex',
        path: [name],
        message: 'Header values must not contain line breaks',
      });
    if (value.length > 998)
      ctx.addIssue({
        code: z.ZodIssueCode.too_big,
        maximum: 998,
        type: 'string',
        inclusive: true,
        path: [name],
        message: 'At most 998 characters',
      });
  }
});

/** The fields of POST /v1/send, before the rule that content comes from a template or from `subject` and `body`. */
export const sendFields = z.object({
  to: z.union([addressSchema, z.array(addressSchema).min(1).max(MAX_RECIPIENTS)]),
  subject: z.string().min(1).max(998).regex(NO_NEWLINE, 'Must not contain line breaks').optional(),
  body: z.string().min(1).max(MAX_MESSAGE_BYTES).optional(),
  template: z.string().uuid().optional(),
  from: addressSchema.optional(),
  name: nameSchema.optional(),
  subscribed: z.boolean().optional(),
  data: dataSchema.optional(),
  headers: headersSchema.optional(),
  reply: emailSchema.optional(),
  attachments: z.array(attachmentSchema).max(10).optional(),
  trackOpens: z
    .boolean()
    .optional()
    .describe("Whether a pixel counts opens; left out: the template's choice, else the project's for the type"),
  trackClicks: z
    .boolean()
    .optional()
    .describe("Whether links go through the service to count clicks; left out: the template's, else the project's"),
});

export const sendBody = sendFields.superRefine((body, ctx) => {
  if (body.template) return;
  if (body.subject === undefined)
    ctx.addIssue({
      code: z.ZodIssueCode.invalid_type,
      expected: 'string',
      received: 'undefined',
      path: ['subject'],
      message: 'Required without a template',
    });
  if (body.body === undefined)
    ctx.addIssue({
      code: z.ZodIssueCode.invalid_type,
      expected: 'string',
      received: 'undefined',
      path: ['body'],
      message: 'Required without a template',
    });
});
export type SendBody = z.infer<typeof sendBody>;

/**
 * A message submitted over SMTP (modules/submission), as `domain/submission.ts` read it from its MIME:
 * checked by the rules of `/v1/send` (sizes, headers, attachments, recipients), its content literal.
 */
export const submissionSchema = z.object({
  type: emailTypeSchema,
  from: z.object({ email: emailSchema, name: nameSchema.nullable() }),
  to: z
    .array(z.object({ email: emailSchema, name: nameSchema.nullable() }))
    .min(1)
    .max(MAX_RECIPIENTS),
  replyTo: emailSchema.nullable(),
  subject: z.string().min(1).max(998).regex(NO_NEWLINE, 'Must not contain line breaks'),
  html: z.string().max(MAX_MESSAGE_BYTES).nullable(),
  text: z.string().max(MAX_MESSAGE_BYTES).nullable(),
  headers: headersSchema,
  attachments: z.array(attachmentSchema).max(10),
  /** From `X-Postbox-Track`; null: the project's tracking for the type. */
  tracking: z.object({ opens: z.boolean(), clicks: z.boolean() }).nullable(),
});
export type Submission = z.input<typeof submissionSchema>;

export const sendResponse = z.object({
  success: z.literal(true),
  data: z.object({
    emails: z.array(
      z.object({ contact: z.object({ id: z.string().uuid(), email: z.string() }), email: z.string().uuid() }),
    ),
    timestamp: z.string(),
  }),
});

export const emailIdParams = z.object({ id: z.string().uuid() });

export const emailRecordSchema = z.object({
  id: z.string().uuid(),
  projectId: z.string().uuid(),
  contactId: z.string().uuid().nullable(),
  templateId: z.string().uuid().nullable(),
  campaignId: z.string().uuid().nullable(),
  type: emailTypeSchema,
  status: emailStatusSchema,
  from: z.string(),
  fromName: z.string().nullable(),
  to: z.string(),
  toName: z.string().nullable(),
  replyTo: z.string().nullable(),
  subject: z.string(),
  messageId: z.string(),
  attempts: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  lastError: z.string().nullable(),
  smtpResponse: z.string().nullable(),
  sentAt: z.string().nullable(),
  failedAt: z.string().nullable(),
  openedAt: z.string().nullable(),
  clickedAt: z.string().nullable(),
  bouncedAt: z.string().nullable(),
  bounceType: bounceTypeSchema.nullable(),
  complainedAt: z.string().nullable(),
  openCount: z.number().int(),
  clickCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type EmailRecord = z.infer<typeof emailRecordSchema>;

/** `GET /emails`: newest first, narrowed by status, campaign or recipient. */
export const listEmailsQuery = z.object({
  limit: limitQuery,
  cursor: cursorQuery,
  status: emailStatusSchema.optional(),
  campaignId: z.string().uuid().optional(),
  to: emailSchema.optional(),
  ids: idsQuery,
});
/** Without a total: counting a project's mail would cost more than the page itself at millions of emails. */
export const emailPageSchema = z.object({
  data: z.array(emailRecordSchema),
  cursor: z.string().nullable(),
  hasMore: z.boolean(),
});
/**
 * What an email said as stored: the HTML after rendering and tracking (empty for a text-only message
 * submitted over SMTP), its own text part (only a message submitted over SMTP has one; null: made
 * from the HTML at delivery), and its extra headers.
 */
export const emailContentSchema = z.object({
  html: z.string(),
  text: z.string().nullable(),
  headers: z.record(z.string()),
});
