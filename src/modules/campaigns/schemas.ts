import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { filterConditionSchema } from '../../domain/filters/index.js';
import { dirQuery, offsetPageQuery, offsetPageSchema } from '../../platform/http/pagination.js';
import { emailContentBody, emailContentSchema } from '../templates/schemas.js';

export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const;
export const campaignStatusSchema = z.enum(CAMPAIGN_STATUSES);
export type CampaignStatus = z.infer<typeof campaignStatusSchema>;
export const audienceTypeSchema = z.enum(['ALL', 'SEGMENT', 'FILTERED']);
export type AudienceType = z.infer<typeof audienceTypeSchema>;

/** POST /campaigns and PUT /campaigns/{id} (a replace: the same fields, the same rules). */
export const campaignBody = emailContentBody.extend({
  audienceType: audienceTypeSchema,
  /** Required when audienceType is SEGMENT (400 otherwise). */
  segmentId: z.string().uuid().nullable().optional(),
  /** Required when audienceType is FILTERED (400 otherwise). */
  audienceCondition: filterConditionSchema.nullable().optional(),
});
export type CampaignBody = z.infer<typeof campaignBody>;

export { idParams } from '../../platform/http/params.js';

export const campaignSchema = emailContentSchema.extend({
  status: campaignStatusSchema,
  audienceType: audienceTypeSchema,
  audienceCondition: z.unknown().nullable(),
  segmentId: z.string().uuid().nullable(),
  scheduledFor: z.string().nullable(),
  totalRecipients: z.number().int(),
  sentCount: z.number().int(),
  deliveredCount: z.number().int(),
  openedCount: z.number().int(),
  clickedCount: z.number().int(),
  bouncedCount: z.number().int(),
  /** Emails reported as spam by their recipient (abuse reports). */
  complainedCount: z.number().int(),
  projectId: z.string().uuid(),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Campaign = z.infer<typeof campaignSchema>;

export const wrappedCampaign = z.object({ success: z.literal(true), data: campaignSchema });
export const campaignAction = wrappedCampaign.extend({ message: z.string() });

export const listCampaignsQuery = offsetPageQuery.extend({
  /** Checked by the service: an unknown status is a 400, not a 422 (docs/api-rules.md#campaign-status-400). */
  status: z.string().max(100).optional(),
  search: z.string().max(200).optional(),
  sort: z.enum(['name', 'createdAt', 'updatedAt']).catch('createdAt').default('createdAt'),
  dir: dirQuery,
});

export const campaignPageSchema = offsetPageSchema(campaignSchema);

/**
 * `scheduledFor`: anything `Date` parses (an ISO string, an RFC 2822 date, epoch milliseconds); unparseable is a 400.
 */
export const sendBody = z
  .object({
    scheduledFor: z.unknown().describe('When to send (any date the standard parser accepts); omit or null to send now'),
  })
  .passthrough()
  .nullish();

export const testBody = z.object({ email: emailSchema });
export const testResponse = z.object({
  success: z.literal(true),
  data: z.object({ emailId: z.string().uuid(), to: z.string() }),
  message: z.string(),
});

/** A campaign's counters and rates (campaigns/service `campaignFigures`). */
export const campaignFiguresSchema = z.object({
  totalRecipients: z.number().int(),
  sent: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  /** opened / delivered, clicked / delivered, bounced / (delivered + bounced); 0 when the divisor is 0. */
  openRate: z.number(),
  clickRate: z.number(),
  bounceRate: z.number(),
});

export const statsSchema = campaignFiguresSchema.extend({
  campaignId: z.string().uuid(),
  status: campaignStatusSchema,
  skipped: z.number().int(),
  /** Recipients whose email has no outcome yet. */
  pending: z.number().int(),
});
export type CampaignStats = z.infer<typeof statsSchema>;
