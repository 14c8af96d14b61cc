import { z } from 'zod';
import { AB_LIMITS, AB_METRICS, CHOSEN_BY } from '../../domain/ab-test.js';
import { PAUSE_REASONS } from '../../domain/campaign-guardrails.js';
import { SPREAD_HOURS, WHEN_PASSED } from '../../domain/campaign-timing.js';
import { emailSchema } from '../../domain/email.js';
import { filterConditionSchema } from '../../domain/filters/index.js';
import { TIME_OF_DAY } from '../../domain/local-time.js';
import {
  cursorPageSchema,
  cursorQuery,
  dirQuery,
  idsQuery,
  limitQuery,
  offsetPageQuery,
  offsetPageSchema,
} from '../../platform/http/pagination.js';
import { emailContentBody, emailContentSchema } from '../templates/schemas.js';

/** `PAUSED`: stopped by a guardrail or by hand, its queued emails held until it is resumed (docs/decisions.md). */
export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'CANCELLED'] as const;
export const campaignStatusSchema = z.enum(CAMPAIGN_STATUSES);
export type CampaignStatus = z.infer<typeof campaignStatusSchema>;
export const audienceTypeSchema = z.enum(['ALL', 'SEGMENT', 'FILTERED']);
export const pauseReasonSchema = z.enum(PAUSE_REASONS);
export type AudienceType = z.infer<typeof audienceTypeSchema>;

/** Send at `time` in each recipient's time zone (docs/decisions.md#campaign-local-time). */
export const localTimeSchema = z
  .object({
    time: z.string().regex(TIME_OF_DAY, { message: 'A time of day from 00:00 to 23:59, as HH:MM' }),
    /** Where `time` has already passed on the send day: the next day's (default), or at once. */
    whenPassed: z.enum(WHEN_PASSED).default('nextDay'),
  })
  .strict();

/** Spread the emails evenly over `hours` from the send moment. */
export const spreadSchema = z.object({ hours: z.number().int().min(SPREAD_HOURS.min).max(SPREAD_HOURS.max) }).strict();

const content = emailContentBody.shape;

/** A variant of an A/B test: what it changes of the campaign's content (a field left out keeps the campaign's). */
export const variantSchema = z
  .object({ subject: content.subject.optional(), fromName: content.fromName, body: content.body.optional() })
  .strict();

/** An A/B test (docs/decisions.md#ab-tests). */
export const abTestSchema = z
  .object({
    variants: z.array(variantSchema).min(AB_LIMITS.variants.min).max(AB_LIMITS.variants.max),
    /** The share of the audience tested, in percent; null: every recipient gets a variant, split evenly, no winner. */
    testPercent: z.number().int().min(AB_LIMITS.testPercent.min).max(AB_LIMITS.testPercent.max).nullable().default(20),
    /** What makes a winner: opens per delivered email (proxy prefetches left out), clicks per open, or clicks per delivered email. */
    metric: z.enum(AB_METRICS).default('opens'),
    /** How long the test phase runs before the winner goes to the rest. */
    waitHours: z.number().int().min(AB_LIMITS.waitHours.min).max(AB_LIMITS.waitHours.max).default(4),
  })
  .strict();

export const abWinnerSchema = z.object({
  /** The variant's letter: A, B, … */
  variant: z.string(),
  chosenBy: z.enum(CHOSEN_BY),
  decidedAt: z.string(),
  /** Why it won, in words: its figure against the runner-up's and how sure the difference is. */
  reason: z.string(),
});

/** POST /campaigns and PUT /campaigns/{id} (a replace: the same fields, the same rules). */
export const campaignBody = emailContentBody.extend({
  /** Null or absent: no test. With a winner phase, not with `localTime` or `spread` (422). */
  abTest: abTestSchema.nullable().optional(),
  /** Null or absent: everyone at the send moment. Not with `spread` (422 on `spread`). */
  localTime: localTimeSchema.nullable().optional(),
  spread: spreadSchema.nullable().optional(),
  audienceType: audienceTypeSchema,
  /** Required when audienceType is SEGMENT (400 otherwise). */
  segmentId: z.string().uuid().nullable().optional(),
  /** Required when audienceType is FILTERED (400 otherwise). */
  audienceCondition: filterConditionSchema.nullable().optional(),
  /** A MARKETING campaign about this topic reaches only its members, and its unsubscribe link leaves only it. */
  topicId: z.string().uuid().nullable().optional(),
});
export type CampaignBody = z.infer<typeof campaignBody>;

export { idParams } from '../../platform/http/params.js';

export const campaignSchema = emailContentSchema.extend({
  status: campaignStatusSchema,
  audienceType: audienceTypeSchema,
  audienceCondition: z.unknown().nullable(),
  segmentId: z.string().uuid().nullable(),
  /** The topic it is about (MARKETING only); null: every subscribed contact of the audience. */
  topicId: z.string().uuid().nullable(),
  scheduledFor: z.string().nullable(),
  /** Each recipient's email at this time of day in its zone; null: not by local time. */
  localTime: z.object({ time: z.string(), whenPassed: z.enum(WHEN_PASSED) }).nullable(),
  /** The emails spread evenly over this window from the send moment; null: not spread. */
  spread: z.object({ hours: z.number().int() }).nullable(),
  abTest: abTestSchema.extend({ winner: abWinnerSchema.nullable() }).nullable(),
  totalRecipients: z.number().int(),
  sentCount: z.number().int(),
  deliveredCount: z.number().int(),
  openedCount: z.number().int(),
  clickedCount: z.number().int(),
  bouncedCount: z.number().int(),
  /** Emails reported as spam by their recipient (abuse reports). */
  complainedCount: z.number().int(),
  /** Why a PAUSED campaign stopped (a guardrail's rate, or `manual`); null in every other state. */
  pausedReason: pauseReasonSchema.nullable(),
  pausedAt: z.string().nullable(),
  projectId: z.string().uuid(),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Campaign = z.infer<typeof campaignSchema>;

export const wrappedCampaign = z.object({ success: z.literal(true), data: campaignSchema });
export const campaignAction = wrappedCampaign.extend({ message: z.string() });
/** POST /campaigns/{id}/resend: the action's answer and how many recipients are sent to again. */
export const resendAction = campaignAction.extend({ resent: z.number().int() });

export const listCampaignsQuery = offsetPageQuery.extend({
  /** Checked by the service: an unknown status is a 400, not a 422 (docs/api-rules.md#campaign-status-400). */
  status: z.string().max(100).optional(),
  search: z.string().max(200).optional(),
  sort: z.enum(['name', 'createdAt', 'updatedAt']).catch('createdAt').default('createdAt'),
  dir: dirQuery,
  ids: idsQuery,
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

/** `variant`: an A/B test's variant (its letter) to send instead of the campaign's own content. */
export const testBody = z.object({ email: emailSchema, variant: z.string().min(1).max(1).optional() });

/** POST /campaigns/{id}/ab-test/winner. */
export const winnerBody = z.object({ variant: z.string().min(1).max(1) }).strict();

const variantFiguresSchema = z.object({
  recipients: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  /** Opens less those a mail provider's proxy made moments after sending (and no click followed). */
  humanOpened: z.number().int(),
  clicked: z.number().int(),
});

/** GET /campaigns/{id}/ab-test: the variants side by side, and the winner with why. */
export const abTestReportSchema = z.object({
  campaignId: z.string().uuid(),
  metric: z.enum(AB_METRICS),
  metricName: z.string(),
  testPercent: z.number().int().nullable(),
  waitHours: z.number().int(),
  /** When the winner is decided by the metric, once sending started; null without a winner phase. */
  decidesAt: z.string().nullable(),
  /** When every recipient of the test phase had an email. */
  testedAt: z.string().nullable(),
  winner: abWinnerSchema.nullable(),
  /** Opens left out of the figures as proxy prefetches. */
  machineOpens: z.number().int(),
  variants: z.array(
    z.object({
      variant: z.string(),
      subject: z.string(),
      fromName: z.string().nullable(),
      changesBody: z.boolean(),
      /** Null before sending starts. */
      figures: variantFiguresSchema.nullable(),
      /** The metric, as a share (0–1). */
      rate: z.number().nullable(),
      /** The rate minus the best other variant's. */
      difference: z.number().nullable(),
      /** How sure the difference is real (two-proportion z-test, 0–1); null: not enough data yet. */
      confidence: z.number().nullable(),
    }),
  ),
  /** The recipients sent the winner after the test. */
  rest: variantFiguresSchema.nullable(),
});
export type CampaignAbTestReport = z.infer<typeof abTestReportSchema>;
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
  /** Recipients who unsubscribed through the campaign's email. */
  unsubscribed: z.number().int(),
  /** Recipients whose email has no outcome yet. */
  pending: z.number().int(),
});
export type CampaignStats = z.infer<typeof statsSchema>;

/** GET /campaigns/{id}/progress: how far sending is, how fast it goes and when it should end. */
export const progressSchema = z.object({
  campaignId: z.string().uuid(),
  status: campaignStatusSchema,
  totalRecipients: z.number().int(),
  /** Recipients with an outcome (delivered, bounced, failed or skipped): `done / totalRecipients` is the progress. */
  done: z.number().int(),
  /** Messages the relay accepted. */
  sent: z.number().int(),
  /** Recipients without an outcome yet. */
  pending: z.number().int(),
  /** Messages accepted in the last minute. */
  sentLastMinute: z.number().int(),
  /** Messages accepted per minute over the last five minutes (or since sending started, if later). */
  ratePerMinute: z.number(),
  /** Queued messages whose recipient domain's pacing holds them for a later slot. */
  deferred: z.number().int(),
  /** The latest slot pacing holds for this campaign; null when none is held. */
  deferredUntil: z.string().nullable(),
  /**
   * When the pending messages should have gone at the current rate, not before the last held slot
   * nor the last time an email waits for (local time, spread); null when not sending or nothing to go by.
   */
  estimatedCompletionAt: z.string().nullable(),
  /** Seconds until `estimatedCompletionAt`. */
  etaSeconds: z.number().int().nullable(),
});
export type CampaignProgress = z.infer<typeof progressSchema>;

/** GET /campaigns/{id}/local-time: the audience's time zones and when each one's emails go. */
export const sendTimesSchema = z.object({
  campaignId: z.string().uuid(),
  /** The send moment the times are reckoned from: when sending started, else the schedule, else now. */
  from: z.string(),
  /** Contacts in the audience (its recipients, once sending has started). */
  total: z.number().int(),
  /** Each zone (from the contact's timezone, country or locale; else UTC), earliest send first. */
  zones: z.array(
    z.object({
      zone: z.string(),
      contacts: z.number().int(),
      /** When this zone's emails go; null for a spread campaign, where each recipient has its own time. */
      sendAt: z.string().nullable(),
    }),
  ),
  /** When the first and the last email go (before pacing); null for an empty audience. */
  firstSendAt: z.string().nullable(),
  lastSendAt: z.string().nullable(),
});
export type CampaignSendTimes = z.infer<typeof sendTimesSchema>;

export const ENGAGEMENT_INTERVALS = ['minute', 'hour', 'day'] as const;
export const engagementQuery = z.object({
  /** The width of each point; by default the widest that gives the campaign's span at least a few points. */
  interval: z.enum(ENGAGEMENT_INTERVALS).optional(),
});

/** GET /campaigns/{id}/engagement: first opens and first clicks per interval (intervals without any are left out). */
export const engagementSchema = z.object({
  campaignId: z.string().uuid(),
  interval: z.enum(ENGAGEMENT_INTERVALS),
  data: z.array(z.object({ at: z.string(), opens: z.number().int(), clicks: z.number().int() })),
});
export type CampaignEngagement = z.infer<typeof engagementSchema>;

/** One link of GET /campaigns/{id}/links. */
export const campaignLinkSchema = z.object({
  url: z.string(),
  /** Every tracked click on the link. */
  clicks: z.number().int(),
  /** Emails that clicked it at least once. */
  uniqueClicks: z.number().int(),
  lastClickedAt: z.string(),
});
export type CampaignLink = z.infer<typeof campaignLinkSchema>;
export const linksQuery = offsetPageQuery;
export const linkPageSchema = offsetPageSchema(campaignLinkSchema);

// ---------------------------------------------------------------------------------------------
// Recipients: each one's outcome (GET /campaigns/{id}/recipients).

/**
 * Where each recipient of the frozen audience stands; every recipient is in exactly one:
 *   queued      no outcome yet: its email is not made yet, waits for delivery, or is held by a pause
 *   delivered   the relay accepted its email and no bounce or complaint followed
 *   complained  delivered, then reported as spam
 *   bounced     accepted, then reported as not delivered (reason `hard` or `soft`)
 *   failed      refused by the relay (`rejected`) or given up after the retries (`undeliverable`)
 *   skipped     never sent: `unsubscribed`, `suppressed`, `capped`, `unrenderable`, `deleted` or `cancelled`
 */
export const RECIPIENT_OUTCOMES = ['queued', 'delivered', 'complained', 'bounced', 'failed', 'skipped'] as const;
export const recipientOutcomeSchema = z.enum(RECIPIENT_OUTCOMES);
export type RecipientOutcome = z.infer<typeof recipientOutcomeSchema>;

export const RECIPIENT_REASONS = [
  'hard',
  'soft',
  'rejected',
  'undeliverable',
  'unsubscribed',
  'suppressed',
  'capped',
  'unrenderable',
  'deleted',
  'cancelled',
] as const;
export const recipientReasonSchema = z.enum(RECIPIENT_REASONS);
export type RecipientReason = z.infer<typeof recipientReasonSchema>;

export const recipientSchema = z.object({
  contactId: z.string().uuid(),
  /** The address the email went to; the contact's, when no email was made (null once the contact is deleted). */
  email: z.string().nullable(),
  outcome: recipientOutcomeSchema,
  reason: recipientReasonSchema.nullable(),
  /** The recipient's current email (after a resend, the new one); null when none was made. */
  emailId: z.string().uuid().nullable(),
  /** The relay's refusal, the bounce report or why it was skipped, in words. */
  detail: z.string().nullable(),
  /** When its email is due, for a campaign at a local time or spread; null for one sent all at once. */
  sendAt: z.string().nullable(),
  sentAt: z.string().nullable(),
});
export type CampaignRecipient = z.infer<typeof recipientSchema>;

export const RECIPIENT_ENGAGEMENTS = ['opened', 'clicked'] as const;
export type RecipientEngagement = (typeof RECIPIENT_ENGAGEMENTS)[number];

export const recipientsQuery = z.object({
  outcome: recipientOutcomeSchema.optional(),
  reason: recipientReasonSchema.optional(),
  /** Only recipients whose email was opened (or clicked) at least once. */
  engagement: z.enum(RECIPIENT_ENGAGEMENTS).optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const recipientPageSchema = cursorPageSchema(recipientSchema);

// ---------------------------------------------------------------------------------------------
// The project's campaign settings (GET and PATCH /campaign-settings).

const rate = z.number().min(0).max(1);

export const campaignSettingsSchema = z.object({
  guardrails: z.object({
    /** Complaints per accepted message above which a sending campaign pauses. */
    maxComplaintRate: rate,
    /** Hard bounces (refused with a 5xx, or bounced later as permanent) per message answered. */
    maxBounceRate: rate,
    /** Messages answered since sending (re)started before the rates are judged. */
    minSample: z.number().int(),
  }),
  /** At most `count` marketing emails per contact in `days` days; null: no cap. */
  marketingCap: z.object({ count: z.number().int(), days: z.number().int() }).nullable(),
});
export type CampaignSettings = z.infer<typeof campaignSettingsSchema>;

/** A change: absent fields stay as they are; a guardrail set to null goes back to the instance's default. */
export const campaignSettingsPatch = z
  .object({
    guardrails: z
      .object({
        maxComplaintRate: rate.nullable().optional(),
        maxBounceRate: rate.nullable().optional(),
        minSample: z.number().int().min(0).max(1_000_000).nullable().optional(),
      })
      .strict()
      .optional(),
    marketingCap: z
      .object({ count: z.number().int().min(1).max(1000), days: z.number().int().min(1).max(365) })
      .strict()
      .nullable()
      .optional(),
  })
  .strict();
export type CampaignSettingsPatch = z.infer<typeof campaignSettingsPatch>;
