import { z } from 'zod';
import { emailSchema, emailTypeSchema } from '../../domain/email.js';
import {
  cursorPageSchema,
  cursorQuery,
  dirQuery,
  limitQuery,
  offsetPageQuery,
  offsetPageSchema,
} from '../../platform/http/pagination.js';
import { usageListsSchema } from '../../platform/usage.js';
import { VERSION_EVENTS, VERSION_FIELDS } from './versions.js';

const NO_LINE_BREAKS = /^[^\r\n]*$/;

export const MAX_NAME = 255;
const name = z.string().trim().min(1).max(MAX_NAME);
const description = z.string().max(2000);
/** A header value: 998 characters, no line breaks (docs/api-rules.md#header-998). */
const subject = z.string().min(1).max(998).regex(NO_LINE_BREAKS, 'Must not contain line breaks');
const body = z.string().min(1);
const fromName = z.string().max(255).regex(NO_LINE_BREAKS, 'Must not contain line breaks');

/** The most a block document may take, as JSON: far above an email written in blocks, and leaving room for its HTML in a 1 MB request. */
export const MAX_BODY_SOURCE_CHARS = 512 * 1024;

/**
 * A visual editor's document of the body (the dashboard's block editor writes one), stored beside
 * the HTML as given and returned as stored; sending and previews use only `body`.
 */
const bodySourceSchema = z
  .record(z.string(), z.unknown())
  .superRefine((doc, ctx) => {
    if (JSON.stringify(doc).length > MAX_BODY_SOURCE_CHARS) {
      ctx.addIssue({
        code: 'too_big',
        type: 'string',
        maximum: MAX_BODY_SOURCE_CHARS,
        inclusive: true,
        message: `At most ${MAX_BODY_SOURCE_CHARS} characters as JSON`,
      });
    }
  })
  .describe('The block editor document the body was made from; stored unchanged, not used to send');

/** Whether emails made from it track opens or clicks; null or left out: the project's choice for its type. */
const trackFlag = z
  .boolean()
  .nullable()
  .describe("Overrides the project's tracking setting for this email's type; null follows it");

/** The content a template and a campaign share, as POST takes it. */
export const emailContentBody = z.object({
  name,
  description: description.nullable().optional(),
  subject,
  body,
  from: emailSchema,
  fromName: fromName.nullable().optional(),
  replyTo: emailSchema.nullable().optional(),
  type: emailTypeSchema.default('MARKETING'),
  bodySource: bodySourceSchema.nullable().optional(),
  trackOpens: trackFlag.optional(),
  trackClicks: trackFlag.optional(),
});
export type EmailContentBody = z.infer<typeof emailContentBody>;

/** A MARKETING template may name a topic: its sends reach only the topic's members, and leave only it. */
const topicIdField = z.string().uuid().nullable().optional();

export const createTemplateBody = emailContentBody.extend({ topicId: topicIdField });
export type CreateTemplateBody = z.infer<typeof createTemplateBody>;

/** A new name for a copy: "<name> (copy)", cut to fit. */
export function copyName(source: string): string {
  const suffix = ' (copy)';
  return `${source.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

export const patchTemplateBody = z.object({
  name: name.optional(),
  description: description.nullable().optional(),
  subject: subject.optional(),
  body: body.optional(),
  from: emailSchema.optional(),
  fromName: fromName.nullable().optional(),
  replyTo: emailSchema.nullable().optional(),
  type: emailTypeSchema.optional(),
  bodySource: bodySourceSchema.nullable().optional(),
  trackOpens: trackFlag.optional(),
  trackClicks: trackFlag.optional(),
  topicId: topicIdField,
});

export const listTemplatesQuery = offsetPageQuery.extend({
  type: emailTypeSchema.optional(),
  search: z.string().max(200).optional(),
  sort: z.enum(['name', 'createdAt', 'updatedAt']).catch('createdAt').default('createdAt'),
  dir: dirQuery,
});

export { idParams } from '../../platform/http/params.js';

/** The content a template and a campaign share, as answers show it. */
export const emailContentSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  description: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  type: emailTypeSchema,
  bodySource: z.record(z.string(), z.unknown()).nullable(),
  /** Null: the project's tracking setting for the type applies. */
  trackOpens: z.boolean().nullable(),
  trackClicks: z.boolean().nullable(),
});

export type EmailContent = z.infer<typeof emailContentSchema>;

export const templateSchema = emailContentSchema.extend({
  /** The topic its MARKETING sends are about (a send setting, not part of the versioned content). */
  topicId: z.string().uuid().nullable(),
  projectId: z.string().uuid(),
  version: z.number().int().describe('The number of its latest version (GET /templates/{id}/versions)'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Template = z.infer<typeof templateSchema>;

export const templatePageSchema = offsetPageSchema(templateSchema);

export const templateUsageResponse = usageListsSchema
  .omit({ segments: true })
  .extend({ templateId: z.string().uuid() });

/** Content not yet saved, rendered as one contact (or sample data) would receive it. */
export const previewBody = z.object({
  subject: z.string().max(998),
  body: z.string().max(1024 * 1024),
  type: emailTypeSchema.default('MARKETING'),
  contactId: z.string().uuid().optional(),
  data: z.record(z.unknown()).optional(),
});
export const previewSchema = z.object({ subject: z.string(), html: z.string(), text: z.string() });
export type Preview = z.infer<typeof previewSchema>;

/** `{id}` and `{n}` of one version of a template. */
export const versionParams = z.object({
  id: z.string().uuid(),
  n: z.coerce.number().int().min(1).max(2_147_483_647),
});

export const listVersionsQuery = z.object({ limit: limitQuery, cursor: cursorQuery });

export const versionAuthorSchema = z
  .object({
    kind: z.enum(['user', 'api_key']),
    userId: z.string().uuid().nullable().describe('The signed-in user; null for the API key or a deleted user'),
    email: z.string().nullable().describe("The user's email when they saved it"),
  })
  .nullable()
  .describe('Who saved it; null for a version recorded when history began');

/** A version as lists show it: who, when, what changed, without the body. */
export const versionSummarySchema = z.object({
  templateId: z.string().uuid(),
  n: z.number().int().describe('1 for the first version, counting up'),
  event: z.enum(VERSION_EVENTS).describe('created, edited, or restored from version `restoredFrom`'),
  restoredFrom: z.number().int().nullable(),
  changed: z.array(z.enum(VERSION_FIELDS)).describe('The fields this save changed; empty for the first version'),
  author: versionAuthorSchema,
  createdAt: z.string(),
  name: z.string(),
  subject: z.string(),
});
export type VersionSummary = z.infer<typeof versionSummarySchema>;

/** A version with the whole content the template had then. */
export const versionSchema = versionSummarySchema.extend({
  description: z.string().nullable(),
  body: z.string(),
  bodySource: z.record(z.string(), z.unknown()).nullable(),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  type: emailTypeSchema,
});
export type Version = z.infer<typeof versionSchema>;

export const versionPageSchema = cursorPageSchema(versionSummarySchema);
