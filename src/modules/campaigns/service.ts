import { randomUUID } from 'node:crypto';
import { hasWinnerPhase, variantName } from '../../domain/ab-test.js';
import { newEmailId } from '../../domain/email-id.js';
import { iso } from '../../domain/formats.js';
import { TemplateError } from '../../domain/render.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError, notFound, validationError } from '../../platform/http/errors.js';
import { numberedPage, pageWindow } from '../../platform/http/pagination.js';
import type { UsageRegistry } from '../../platform/usage.js';
import * as audit from '../audit/service.js';
import { findContact, lookupEmails } from '../contacts/service.js';
import { assertVerifiedSender } from '../domains/service.js';
import { composeEmail } from '../emails/compose.js';
import { insertEmails, type NewEmail, skipQueuedCampaignEmails, unparkCampaignEmails } from '../emails/service.js';
import { checkAudience, filterContext, registerFilterUsage } from '../segments/audience.js';
import { findSegment } from '../segments/service.js';
import { copyName } from '../templates/schemas.js';
import { checkSyntax, contentOf, contentValues, toEmailContent } from '../templates/service.js';
import { checkTopicId } from '../topics/service.js';
import { trackingFor } from '../tracking-settings/service.js';
import { variantContents, variantOf } from './ab-test.js';
import { CANCELLED_REASON, completeCampaigns } from './counters.js';
import { announceCampaign } from './events.js';
import { excludeStateChanges } from './fan-out-repo.js';
import { markResumed } from './guardrail-repo.js';
import { pauseInTransaction } from './guardrails.js';
import { enqueueFanOut, enqueueSending, enqueueStart } from './jobs.js';
import type { CampaignRow, CampaignValues } from './repo.js';
import * as repo from './repo.js';
import { CAMPAIGN_STATUSES, type Campaign, type CampaignBody, type CampaignStatus } from './schemas.js';
import { campaignContent } from './sending.js';

/** Counters other modules move when what they count happens there. */
export { countBounce, countComplaint, countEngagement, countLinkClick, countUnsubscribe } from './counters.js';
export type { CampaignRow } from './repo.js';

export function toCampaign(row: CampaignRow): Campaign {
  return {
    ...toEmailContent(row),
    status: row.status,
    audienceType: row.audience_type,
    audienceCondition: row.audience_condition,
    segmentId: row.segment_id,
    topicId: row.topic_id,
    scheduledFor: iso(row.scheduled_for),
    localTime: row.local_time,
    spread: row.spread_hours === null ? null : { hours: row.spread_hours },
    abTest: row.ab_test && {
      ...row.ab_test,
      winner: row.ab_winner && { ...row.ab_winner, variant: variantName(row.ab_winner.variant) },
    },
    totalRecipients: row.total_recipients,
    sentCount: row.sent_count,
    deliveredCount: row.delivered_count,
    openedCount: row.opened_count,
    clickedCount: row.clicked_count,
    bouncedCount: row.bounced_count,
    complainedCount: row.complained_count,
    pausedReason: row.paused_reason,
    pausedAt: iso(row.paused_at),
    projectId: row.project_id,
    sentAt: iso(row.sent_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

async function requireCampaign(ex: Executor, projectId: string, id: string, lock = false): Promise<CampaignRow> {
  const row = await repo.findCampaign(ex, projectId, id, lock);
  if (!row) throw notFound('Campaign');
  return row;
}

/** The stored values of a request: only the audience field its type uses is kept. */
function valuesOf(body: CampaignBody): CampaignValues {
  const missing = (field: string, type: string) =>
    new AppError(400, 'VALIDATION_ERROR', `${field} is required when audienceType is ${type}`, {
      errors: [
        { field, message: `Required when audienceType is ${type}`, code: 'invalid_type', received: 'undefined' },
      ],
    });
  if (body.audienceType === 'SEGMENT' && !body.segmentId) throw missing('segmentId', 'SEGMENT');
  if (body.audienceType === 'FILTERED' && !body.audienceCondition) throw missing('audienceCondition', 'FILTERED');
  if (hasWinnerPhase(body.abTest ?? null) && (body.localTime || body.spread)) {
    throw validationError([
      {
        field: 'abTest.testPercent',
        message:
          'A test with a winner phase sends the winner when the wait ends, so not at a local time or spread; set testPercent to null to split the whole audience',
        code: 'exclusive_with_timing',
        received: body.abTest!.testPercent,
      },
    ]);
  }
  if (body.topicId && (body.type ?? 'MARKETING') !== 'MARKETING') {
    throw validationError([
      {
        field: 'topicId',
        message:
          'Only a MARKETING campaign is about a topic; transactional mail reaches its recipients whatever they chose',
        code: 'topic_needs_marketing',
        received: body.topicId,
      },
    ]);
  }
  if (body.localTime && body.spread) {
    throw validationError([
      {
        field: 'spread',
        message: 'A campaign is sent either at a local time or spread over a window, not both; set the other to null',
        code: 'exclusive_with_local_time',
        received: body.spread,
      },
    ]);
  }
  return {
    ...contentOf(body),
    bodySource: body.bodySource ?? null,
    audienceType: body.audienceType,
    segmentId: body.audienceType === 'SEGMENT' ? body.segmentId!.toLowerCase() : null,
    audienceCondition: body.audienceType === 'FILTERED' ? body.audienceCondition! : null,
    topicId: body.topicId?.toLowerCase() ?? null,
    localTime: body.localTime ?? null,
    spreadHours: body.spread?.hours ?? null,
    abTest: body.abTest ?? null,
  };
}

/** Each variant's Liquid parses, and no two variants are the same email. */
async function checkVariants(ctx: AppContext, v: CampaignValues): Promise<void> {
  const variants = v.abTest?.variants ?? [];
  for (const [i, variant] of variants.entries()) await checkSyntax(ctx, variant, `abTest.variants.${i}.`);
  const seen = new Map<string, number>();
  for (const [i, variant] of variants.entries()) {
    const email = JSON.stringify([
      variant.subject ?? v.subject,
      variant.fromName === undefined ? v.fromName : variant.fromName,
      variant.body ?? v.body,
    ]);
    const same = seen.get(email);
    if (same !== undefined) {
      throw validationError([
        {
          field: `abTest.variants.${i}`,
          message: `Variant ${variantName(i)} is the same email as ${variantName(same)}; change its subject, sender name or content`,
          code: 'duplicate_variant',
        },
      ]);
    }
    seen.set(email, i);
  }
}

/** The audience names only segments of the project, and a filtered one compiles (no segment cycle). */
async function checkAudienceOf(
  ex: Executor,
  projectId: string,
  v: Pick<CampaignValues, 'audienceType' | 'segmentId' | 'audienceCondition'> & { topicId?: string | null },
  now: Date,
) {
  await checkTopicId(ex, projectId, v.topicId, 'topicId');
  if (v.audienceType === 'SEGMENT' && !(await findSegment(ex, projectId, v.segmentId!))) {
    throw validationError([
      {
        field: 'segmentId',
        message: 'No segment of this project has this id',
        code: 'unknown_segment',
        received: v.segmentId,
      },
    ]);
  }
  if (v.audienceType === 'FILTERED')
    checkAudience(v.audienceCondition!, await filterContext(ex, projectId, now), 'audienceCondition');
}

export async function createCampaign(ctx: AppContext, projectId: string, body: CampaignBody) {
  const v = valuesOf(body);
  await checkSyntax(ctx, v);
  await checkVariants(ctx, v);
  const now = ctx.clock.now();
  await checkAudienceOf(ctx.db, projectId, v, now);
  await assertVerifiedSender(ctx, ctx.db, projectId, v.from);
  return toCampaign(
    await ctx.db.transaction(async (tx) => {
      const row = await repo.insertCampaign(tx, projectId, v, now);
      await audit.record(tx, { projectId, action: 'campaign.created', target: { type: 'campaign', id: row.id } });
      return row;
    }),
  );
}

export async function getCampaign(ctx: AppContext, projectId: string, id: string): Promise<Campaign> {
  return toCampaign(await requireCampaign(ctx.db, projectId, id));
}

export async function listCampaigns(
  ctx: AppContext,
  q: {
    projectId: string;
    page: number;
    pageSize: number;
    status?: string;
    search?: string;
    sort: repo.CampaignListQuery['sort'];
    dir: 'asc' | 'desc';
    ids?: string[];
  },
) {
  if (q.status !== undefined && !(CAMPAIGN_STATUSES as readonly string[]).includes(q.status)) {
    throw new AppError(
      400,
      'INVALID_STATUS',
      `Unknown campaign status "${q.status}"; use one of ${CAMPAIGN_STATUSES.join(', ')}`,
      {
        errors: [
          {
            field: 'status',
            message: `Expected one of ${CAMPAIGN_STATUSES.join(', ')}`,
            code: 'invalid_enum_value',
            received: q.status,
          },
        ],
      },
    );
  }
  const query: repo.CampaignListQuery = {
    projectId: q.projectId,
    status: q.status as CampaignStatus | undefined,
    search: q.search,
    ids: q.ids,
    sort: q.sort,
    dir: q.dir,
    ...pageWindow(q),
  };
  const [rows, total] = await Promise.all([repo.listCampaigns(ctx.db, query), repo.countCampaigns(ctx.db, query)]);
  return numberedPage(rows.map(toCampaign), total, q);
}

const EDITABLE: ReadonlySet<CampaignStatus> = new Set(['DRAFT', 'SCHEDULED']);

/**
 * PUT: replaces every field. Only a DRAFT or SCHEDULED campaign can change (a scheduled one keeps
 * its schedule); the sender is checked again only when it changes, as for templates.
 */
export async function replaceCampaign(
  ctx: AppContext,
  projectId: string,
  id: string,
  body: CampaignBody,
): Promise<Campaign> {
  const v = valuesOf(body);
  await checkSyntax(ctx, v);
  await checkVariants(ctx, v);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const current = await requireCampaign(tx, projectId, id, true);
    if (!EDITABLE.has(current.status)) {
      throw new AppError(409, 'CAMPAIGN_NOT_EDITABLE', `A ${current.status} campaign cannot be changed`, {
        suggestion: 'Duplicate the campaign and edit the copy.',
      });
    }
    await checkAudienceOf(tx, projectId, v, now);
    if (v.from !== current.from_email) await assertVerifiedSender(ctx, tx, projectId, v.from);
    await audit.record(tx, {
      projectId,
      action: 'campaign.updated',
      target: { type: 'campaign', id: id },
      changes: audit.fieldsOf(body),
    });
    return toCampaign((await repo.replaceCampaign(tx, projectId, id, v, now))!);
  });
}

/** Refused (409) while the campaign is sending or paused; a scheduled campaign's start then finds nothing. */
export async function deleteCampaign(ctx: AppContext, projectId: string, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const current = await requireCampaign(tx, projectId, id, true);
    if (current.status === 'SENDING' || current.status === 'PAUSED') {
      throw new AppError(409, 'CAMPAIGN_SENDING', `The campaign is being sent (${current.status})`, {
        suggestion: 'Cancel the campaign first, then delete it.',
      });
    }
    await repo.deleteCampaign(tx, projectId, id);
    await audit.record(tx, { projectId, action: 'campaign.deleted', target: { type: 'campaign', id: id } });
  });
}

/** A new DRAFT with the same content and audience, named "<name> (copy)". */
export async function duplicateCampaign(ctx: AppContext, projectId: string, id: string) {
  const source = await requireCampaign(ctx.db, projectId, id);
  const row = await ctx.db.transaction(async (tx) => {
    const copy = await repo.insertCampaign(
      tx,
      projectId,
      {
        ...contentValues(source),
        bodySource: source.body_source,
        name: copyName(source.name),
        audienceType: source.audience_type,
        segmentId: source.segment_id,
        audienceCondition: source.audience_condition,
        topicId: source.topic_id,
        localTime: source.local_time,
        spreadHours: source.spread_hours,
        abTest: source.ab_test,
      },
      ctx.clock.now(),
    );
    await audit.record(tx, {
      projectId,
      action: 'campaign.created',
      target: { type: 'campaign', id: copy.id },
      changes: { duplicatedFrom: id },
    });
    return copy;
  });
  return toCampaign(row);
}

/** The instants the database and an ISO 8601 answer can both hold: years 0001 to 9999. */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * `scheduledFor` as clients may send it (docs/api-rules.md#scheduled-for): anything the standard date parser accepts;
 * null or absent
 * is now. A date outside years 0001–9999 cannot be stored, so it is refused like an unparseable one.
 */
function parseScheduledFor(value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  const at = typeof value === 'string' || typeof value === 'number' ? new Date(value) : new Date(NaN);
  if (Number.isNaN(at.getTime()) || at.getTime() < EARLIEST || at.getTime() > LATEST) {
    throw new AppError(400, 'INVALID_SCHEDULED_FOR', 'scheduledFor is not a date', {
      errors: [
        {
          field: 'scheduledFor',
          message: 'Expected a date, such as 2030-01-31T09:00:00Z',
          code: 'invalid_date',
          received: value,
        },
      ],
    });
  }
  return at;
}

const notSendable = (message: string, details: Record<string, unknown> = {}) =>
  new AppError(400, 'CAMPAIGN_NOT_SENDABLE', message, {
    details,
    suggestion: 'Only DRAFT and SCHEDULED campaigns can be sent; duplicate a sent or cancelled one.',
  });

/**
 * POST /campaigns/{id}/send: DRAFT or SCHEDULED → SENDING now, or → SCHEDULED for `scheduledFor`
 * (sending a scheduled campaign again sends it now or moves its schedule). The sender and the
 * audience are checked again, since a domain or a segment may have changed since the campaign was saved.
 */
export async function sendCampaign(ctx: AppContext, projectId: string, id: string, scheduledFor: unknown) {
  const at = parseScheduledFor(scheduledFor);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const c = await requireCampaign(tx, projectId, id, true);
    if (!EDITABLE.has(c.status)) throw notSendable(`A ${c.status} campaign cannot be sent`, { status: c.status });
    if (c.audience_type === 'SEGMENT' && !c.segment_id)
      throw notSendable('The segment of this campaign was deleted; choose another audience');
    try {
      await checkAudienceOf(
        tx,
        projectId,
        {
          audienceType: c.audience_type,
          segmentId: c.segment_id,
          audienceCondition: c.audience_condition,
          topicId: c.topic_id,
        },
        now,
      );
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 422)
        throw notSendable(`The audience cannot be used: ${err.options.errors?.[0]?.message ?? err.message}`);
      throw err;
    }
    await assertVerifiedSender(ctx, tx, projectId, c.from_email);
    if (at === null) {
      const row = (await repo.markSending(tx, projectId, id, now))!;
      await enqueueSending(ctx, tx, row, now);
      await audit.record(tx, { projectId, action: 'campaign.sent', target: { type: 'campaign', id: id } });
      return { campaign: toCampaign(row), message: 'The campaign is being sent' };
    }
    const row = (await repo.markScheduled(tx, projectId, id, at, now))!;
    await enqueueStart(tx, id, at);
    await audit.record(tx, {
      projectId,
      action: 'campaign.scheduled',
      target: { type: 'campaign', id: id },
      changes: { scheduledFor: at.toISOString() },
    });
    return { campaign: toCampaign(row), message: `The campaign is scheduled for ${at.toISOString()}` };
  });
}

/**
 * POST /campaigns/{id}/unschedule: SCHEDULED → DRAFT, to edit it or send it another time; unlike a
 * cancel, which is final, the campaign can be sent again.
 */
export async function unscheduleCampaign(ctx: AppContext, projectId: string, id: string) {
  const current = await requireCampaign(ctx.db, projectId, id);
  const row = await audit.audited(
    ctx,
    (tx) => repo.markUnscheduled(tx, projectId, id, ctx.clock.now()),
    (r) => r && { projectId, action: 'campaign.unscheduled', target: { type: 'campaign', id } },
  );
  if (!row) {
    throw new AppError(400, 'CAMPAIGN_NOT_SCHEDULED', `A ${current.status} campaign has no schedule to take back`, {
      details: { status: current.status },
      suggestion: 'Only a SCHEDULED campaign can be unscheduled; cancel stops one that is sending.',
    });
  }
  return { campaign: toCampaign(row), message: 'The campaign is a draft again' };
}

/**
 * SCHEDULED, SENDING or PAUSED → CANCELLED. Nothing more is handed to delivery: queued emails
 * (parked ones too) are skipped and the fan-out stops at its next page; only messages already in a
 * worker's hands finish.
 */
export async function cancelCampaign(ctx: AppContext, projectId: string, id: string) {
  const current = await requireCampaign(ctx.db, projectId, id);
  const now = ctx.clock.now();
  // Queued emails no worker holds are skipped (those in flight finish), once the fan-out pages
  // being stored have committed; a page started after the cancel stores nothing. Emails are locked
  // before the campaign, in the order delivery outcomes take them, so the two never deadlock.
  const row = await ctx.db.transaction(async (tx) => {
    await excludeStateChanges(tx, current.id, 'change');
    await skipQueuedCampaignEmails(tx, [id], CANCELLED_REASON, now);
    const cancelled = await repo.cancelCampaign(tx, projectId, id, now);
    if (!cancelled) {
      throw new AppError(400, 'CAMPAIGN_NOT_CANCELLABLE', `A ${current.status} campaign cannot be cancelled`, {
        details: { status: current.status },
        suggestion: 'Only SCHEDULED, SENDING and PAUSED campaigns can be cancelled.',
      });
    }
    await audit.record(tx, { projectId, action: 'campaign.cancelled', target: { type: 'campaign', id: id } });
    return cancelled;
  });
  return { campaign: toCampaign(row), message: 'The campaign is cancelled' };
}

/**
 * POST /campaigns/{id}/pause: SENDING → PAUSED (reason `manual`), as a guardrail would pause it:
 * its queued emails are held until it is resumed.
 */
export async function pauseCampaign(ctx: AppContext, projectId: string, id: string) {
  const current = await requireCampaign(ctx.db, projectId, id);
  const now = ctx.clock.now();
  const row = await ctx.db.transaction(async (tx) => {
    const paused = await pauseInTransaction(ctx, tx, current.id, 'manual', now);
    // Nothing it did may stay: it may have parked emails of a campaign that has just been cancelled.
    if (!paused) throw notPausable(current.status);
    return paused;
  });
  return { campaign: toCampaign(row), message: 'The campaign is paused' };
}

const notPausable = (status: CampaignStatus) =>
  new AppError(400, 'CAMPAIGN_NOT_PAUSABLE', `A ${status} campaign cannot be paused`, {
    details: { status },
    suggestion: 'Only a SENDING campaign can be paused.',
  });

/**
 * POST /campaigns/{id}/resume: PAUSED → SENDING. Its held emails become due at once, the fan-out
 * goes on where it stopped, and the guardrails judge what is sent from now on (a fresh sample), so
 * the figures that paused it do not pause it again. A campaign with nothing left completes.
 */
export async function resumeCampaign(ctx: AppContext, projectId: string, id: string) {
  const current = await requireCampaign(ctx.db, projectId, id);
  const now = ctx.clock.now();
  // Emails are taken before the campaign, as pausing and cancelling take them.
  const row = await ctx.db.transaction(async (tx) => {
    await unparkCampaignEmails(tx, id, now);
    const resumed = await markResumed(tx, projectId, id, now);
    if (!resumed) {
      throw new AppError(400, 'CAMPAIGN_NOT_PAUSED', `A ${current.status} campaign cannot be resumed`, {
        details: { status: current.status },
        suggestion: 'Only a PAUSED campaign can be resumed.',
      });
    }
    if (!resumed.fanned_out_at) await enqueueFanOut(tx, id);
    await audit.record(tx, { projectId, action: 'campaign.resumed', target: { type: 'campaign', id: id } });
    await announceCampaign(ctx, tx, 'campaign.resumed', [resumed], now);
    return resumed;
  });
  await completeCampaigns(ctx, [id], now);
  return { campaign: toCampaign(row), message: 'The campaign is being sent again' };
}

/**
 * POST /campaigns/{id}/test: one email to an address (of an A/B test's `variant`, when named), whatever the campaign's state, rendered with
 * the data of the contact that has the address (if any) and sent whatever its subscription. It is
 * not part of the campaign: it counts in no campaign figure, and creates no contact.
 */
export async function sendTest(ctx: AppContext, projectId: string, id: string, email: string, variant?: string) {
  const c = await requireCampaign(ctx.db, projectId, id);
  const chosen = variant === undefined ? null : variantOf(c, variant);
  await assertVerifiedSender(ctx, ctx.db, projectId, c.from_email);
  const [known] = await lookupEmails(ctx.db, projectId, [email]);
  const row = known ? await findContact(ctx.db, projectId, known.id) : null;
  const contact = { id: row?.id ?? randomUUID(), email, subscribed: true, data: row?.data ?? {} };
  const emailId = newEmailId();
  const own = campaignContent(c, await trackingFor(ctx, projectId));
  const sent = chosen === null ? own : variantContents(own, c.ab_test)[chosen]!;
  const content = { ...sent, subject: `[Test] ${sent.subject}`, campaignId: null };
  let message: NewEmail;
  try {
    message = await composeEmail(
      emailId,
      projectId,
      content,
      { contact, name: null, transient: {} },
      { publicUrl: ctx.config.publicUrl, signer: ctx.links },
      ctx.templates.render.bind(ctx.templates),
    );
  } catch (err) {
    if (err instanceof TemplateError)
      throw validationError([{ field: err.part, message: err.message, code: 'invalid_template' }]);
    throw err;
  }
  await insertEmails(ctx.db, [{ ...message, contactId: row?.id ?? null }], ctx.clock.now(), true);
  return { emailId, to: email };
}

/** A share rounded to 4 decimals; 0 when there is nothing to divide by. */
export const rate = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 10_000) / 10_000);

/**
 * A campaign's counters with its rates: opens and clicks per delivered message, bounces per delivered or bounced one.
 */
export type CampaignCounters = Pick<
  CampaignRow,
  | 'total_recipients'
  | 'sent_count'
  | 'delivered_count'
  | 'opened_count'
  | 'clicked_count'
  | 'bounced_count'
  | 'complained_count'
>;

export function campaignFigures(c: CampaignCounters) {
  return {
    totalRecipients: c.total_recipients,
    sent: c.sent_count,
    delivered: c.delivered_count,
    opened: c.opened_count,
    clicked: c.clicked_count,
    bounced: c.bounced_count,
    complained: c.complained_count,
    openRate: rate(c.opened_count, c.delivered_count),
    clickRate: rate(c.clicked_count, c.delivered_count),
    bounceRate: rate(c.bounced_count, c.delivered_count + c.bounced_count),
  };
}

/** GET /campaigns/{id}/stats: the counters, what is still pending, and rates. */
export async function campaignStats(ctx: AppContext, projectId: string, id: string) {
  const c = await requireCampaign(ctx.db, projectId, id);
  return {
    campaignId: c.id,
    status: c.status,
    ...campaignFigures(c),
    skipped: c.skipped_count,
    unsubscribed: c.unsubscribed_count,
    // Each email ends delivered, bounced (refused, or reported later) or skipped.
    pending: Math.max(0, c.total_recipients - c.delivered_count - c.bounced_count - c.skipped_count),
  };
}

/** Campaigns whose filtered audience names a field or an event, and active campaigns whose audience is a segment. */
export function registerCampaignUsage(usage: UsageRegistry): void {
  registerFilterUsage(usage, 'campaigns', repo.campaignConditions);
  usage.register('active-segment', 'campaigns', repo.activeCampaignsUsingSegment);
}
