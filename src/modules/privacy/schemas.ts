import { z } from 'zod';

export const contactIdParams = z.object({ id: z.string().uuid() });
export const eraseJobParams = z.object({ jobId: z.string().uuid() });

export const eraseJobSchema = z.object({
  id: z.string().uuid(),
  contactId: z.string().uuid(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  /** The rows of the contact's history to remove (events, emails, inbound mail, executions) when it was asked. */
  total: z.number().int(),
  processed: z.number().int(),
  progress: z.number(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type EraseJob = z.infer<typeof eraseJobSchema>;

export const eraseAnswer = z.object({
  success: z.literal(true),
  data: eraseJobSchema.extend({
    jobId: z.string().uuid(),
    /** What the erase keeps of the address, and why. */
    addressHash: z.object({ kept: z.boolean(), purpose: z.string() }),
  }),
  message: z.string(),
});

export const privacySettingsSchema = z.object({
  /** Days events are kept; null: the instance's default (`instanceEventRetentionDays`). */
  eventRetentionDays: z.number().int().nullable(),
  /** The instance's default for events (EVENT_RETENTION_DAYS); null: kept for ever. */
  instanceEventRetentionDays: z.number().int().nullable(),
  /** Days the content of sent emails is kept (the emails and their statuses stay); null: for ever. */
  emailBodyRetentionDays: z.number().int().nullable(),
  /** Days inbound mail is kept; null: for ever. */
  inboundRetentionDays: z.number().int().nullable(),
  /** Whether an erase keeps the salted hash of the address, so that it is not stored again. */
  keepErasedAddresses: z.boolean(),
  /** How many erased addresses are kept out now. */
  erasedAddresses: z.number().int(),
});
export type PrivacySettings = z.infer<typeof privacySettingsSchema>;

const days = z.number().int().min(1).max(36_500).nullable();
export const patchPrivacySettingsBody = z
  .object({
    eventRetentionDays: days,
    emailBodyRetentionDays: days,
    inboundRetentionDays: days,
    keepErasedAddresses: z.boolean(),
  })
  .partial()
  .strict();
export type PrivacySettingsPatch = z.infer<typeof patchPrivacySettingsBody>;
