import { z } from 'zod';
import { emailSchema, emailTypeSchema } from '../../domain/email.js';

/** Above this many points a message gets a warning (never a block): SpamAssassin's own threshold is 5. */
export const WARN_ABOVE_POINTS = 3;

const NO_LINE_BREAKS = /^[^\r\n]*$/;

/** Whom the message is rendered for: a contact of the project, or sample data. */
const recipientFields = {
  contactId: z.string().uuid().optional().describe('Render as this contact; without it, as a sample contact'),
  data: z.record(z.unknown()).optional().describe('The sample contact’s data, when no contactId is given'),
};

/** A saved template or campaign, checked as one contact (or a sample one) would receive it; the body is optional. */
export const savedSpamCheckBody = z.object(recipientFields).nullish();

/** Content not yet saved (the editor's), checked as it would be sent. */
export const contentSpamCheckBody = z.object({
  subject: z.string().max(998),
  body: z.string().max(1024 * 1024),
  type: emailTypeSchema.default('MARKETING'),
  from: emailSchema,
  fromName: z.string().max(255).regex(NO_LINE_BREAKS, 'Must not contain line breaks').nullish(),
  replyTo: emailSchema.nullish(),
  ...recipientFields,
});
export type ContentSpamCheckBody = z.infer<typeof contentSpamCheckBody>;

export const spamRuleSchema = z.object({
  name: z.string().describe('The SpamAssassin rule, e.g. HTML_IMAGE_ONLY_04'),
  score: z.number().describe('Points it adds (negative: it counts for the message)'),
  description: z.string(),
});

export const spamCheckSchema = z.object({
  configured: z.boolean().describe('Whether SPAMD_URL names a spamd; without it nothing is scored'),
  score: z.number().nullable().describe('SpamAssassin’s points for the message as it would be sent'),
  threshold: z.number().nullable().describe('The points from which that spamd itself calls mail spam'),
  warnAbove: z.number().describe(`A score above this gets a warning (${WARN_ABOVE_POINTS})`),
  warning: z.boolean().describe('score > warnAbove: worth a look before sending; nothing is blocked'),
  rules: z.array(spamRuleSchema).describe('The rules the message hits, most points first'),
  message: z.string().describe('The outcome in a sentence, or how to turn the check on'),
});
export type SpamCheck = z.infer<typeof spamCheckSchema>;

/** Whether the check is on, asked without checking anything (the dashboard says how to turn it on at once). */
export const spamCheckStatusSchema = spamCheckSchema.pick({ configured: true, warnAbove: true, message: true });
export type SpamCheckStatus = z.infer<typeof spamCheckStatusSchema>;
