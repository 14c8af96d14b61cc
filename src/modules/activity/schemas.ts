import { z } from 'zod';
import { commaListQuery, cursorPageSchema, cursorQuery, limitQuery } from '../../platform/http/pagination.js';
import { campaignFiguresSchema } from '../campaigns/schemas.js';
import { dateTimeQuery } from '../events/schemas.js';

/** The events the activity feed and its statistics are about. */
export const ACTIVITY_TYPES = [
  'email.sent',
  'email.failed',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.received',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];
const activityType = z.enum(ACTIVITY_TYPES);

/** `?type=email.opened,email.clicked` (comma-separated, or repeated). */
const typesQuery = commaListQuery.pipe(z.array(activityType).min(1));

export const activityQuery = z.object({
  limit: limitQuery,
  cursor: cursorQuery,
  type: typesQuery.optional(),
  contactId: z.string().uuid().optional(),
  campaignId: z.string().uuid().optional(),
  since: dateTimeQuery.optional(),
  until: dateTimeQuery.optional(),
});

export const activityItemSchema = z.object({
  id: z.string().uuid(),
  type: z.string(),
  createdAt: z.string(),
  contact: z.object({ id: z.string().uuid(), email: z.string() }),
  emailId: z.string().uuid().nullable(),
  campaignId: z.string().uuid().nullable(),
  subject: z.string().nullable(),
  data: z.record(z.unknown()),
});
export type ActivityItem = z.infer<typeof activityItemSchema>;
export const activityPageSchema = cursorPageSchema(activityItemSchema);

/** A range of UTC days; the default is the last 30 days up to now. */
export const rangeQuery = z.object({ since: dateTimeQuery.optional(), until: dateTimeQuery.optional() });

const counts = {
  sent: z.number().int(),
  failed: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  received: z.number().int(),
};

export const activityStatsSchema = z.object({
  since: z.string(),
  until: z.string(),
  ...counts,
  /** opened / sent, clicked / sent, bounced / sent; 0 when nothing was sent. */
  openRate: z.number(),
  clickRate: z.number(),
  bounceRate: z.number(),
});
export type ActivityStats = z.infer<typeof activityStatsSchema>;

export const recentCountQuery = z.object({
  /** The window, in minutes back from now (default 60, at most 7 days). */
  minutes: z.coerce.number().int().min(1).max(10_080).default(60),
  type: typesQuery.optional(),
});
export const recentCountSchema = z.object({ since: z.string(), minutes: z.number().int(), count: z.number().int() });

export const typesSchema = z.object({ types: z.array(z.string()) });

export const upcomingSchema = z.object({
  campaigns: z.array(z.object({ id: z.string().uuid(), name: z.string(), scheduledFor: z.string() })),
  workflows: z.array(
    z.object({
      workflowId: z.string().uuid(),
      name: z.string(),
      running: z.number().int(),
      waiting: z.number().int(),
      nextRunAt: z.string().nullable(),
    }),
  ),
});

export const timeseriesSchema = z.object({
  since: z.string(),
  until: z.string(),
  interval: z.literal('day'),
  data: z.array(z.object({ date: z.string(), ...counts })),
});
export type Timeseries = z.infer<typeof timeseriesSchema>;

export const CAMPAIGN_METRICS = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'openRate', 'clickRate'] as const;
export const topCampaignsQuery = z.object({
  metric: z.enum(CAMPAIGN_METRICS).default('opened'),
  limit: z.coerce.number().int().min(1).max(50).default(5),
});

export const campaignSummarySchema = campaignFiguresSchema.extend({
  id: z.string().uuid(),
  name: z.string(),
  status: z.string(),
  sentAt: z.string().nullable(),
});

export const campaignStatsSchema = z.object({
  since: z.string(),
  until: z.string(),
  totals: campaignFiguresSchema,
  campaigns: z.array(campaignSummarySchema),
});

export const topEventsQuery = rangeQuery.extend({ limit: z.coerce.number().int().min(1).max(100).default(10) });
export const topEventsSchema = z.object({
  since: z.string(),
  until: z.string(),
  events: z.array(z.object({ name: z.string(), count: z.number().int() })),
});
