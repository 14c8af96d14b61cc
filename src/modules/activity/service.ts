import type { z } from 'zod';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { validationError } from '../../platform/http/errors.js';
import { type CursorValue, cursorPage, invalidCursorError, isKeysetCursor } from '../../platform/http/pagination.js';
import { type CampaignCounters, campaignFigures, rate } from '../campaigns/service.js';
import * as repo from './repo.js';
import { ACTIVITY_TYPES, type activityQuery, type CAMPAIGN_METRICS } from './schemas.js';

const DAY = 86_400_000;
/** Ranges are whole UTC days, at most a year and a day. */
const MAX_DAYS = 366;
const EARLIEST = Date.parse('1970-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-30T23:59:59.999Z');

const day = (d: Date) => d.toISOString().slice(0, 10);

/** `since`/`until` (default: the 30 UTC days up to today) as whole UTC days. */
function dayRange(ctx: AppContext, range: { since?: Date; until?: Date }) {
  const until = range.until ?? ctx.clock.now();
  const since = range.since ?? new Date(until.getTime() - 29 * DAY);
  // Whole days are handed to the database with a day to spare on each side.
  for (const [field, at] of [
    ['since', since],
    ['until', until],
  ] as const) {
    if (at.getTime() < EARLIEST || at.getTime() > LATEST) {
      throw validationError([{ field, message: 'Expected a date between 1970-01-01 and 9999-12-30', code: 'custom' }]);
    }
  }
  if (since > until)
    throw validationError([{ field: 'since', message: 'since must not be after until', code: 'custom' }]);
  if (until.getTime() - since.getTime() > MAX_DAYS * DAY) {
    throw validationError([{ field: 'since', message: `A range covers at most ${MAX_DAYS} days`, code: 'custom' }]);
  }
  return { since: day(since), until: day(until) };
}

/** GET /activity: email events of the project, newest first, with the contact and the email's subject. */
export async function listActivity(ctx: AppContext, projectId: string, q: z.infer<typeof activityQuery>) {
  const after = q.cursor as CursorValue[] | undefined;
  if (after && !isKeysetCursor(after, 'timestamp')) throw invalidCursorError();
  const filter = {
    projectId,
    types: q.type ?? ACTIVITY_TYPES,
    contactId: q.contactId,
    campaignId: q.campaignId,
    since: q.since,
    until: q.until,
  };
  const narrowed = q.contactId || q.campaignId || q.since || q.until;
  const [rows, total] = await Promise.all([
    repo.listActivity(ctx.db, { ...filter, after: after as [string, string] | undefined, limit: q.limit + 1 }),
    // Counted on the first page only, as every list does: by type alone from the daily counts,
    // since counting millions of events takes longer than the page.
    after ? 0 : narrowed ? repo.countActivity(ctx.db, filter) : repo.totalByNames(ctx.db, projectId, filter.types),
  ]);
  const page = cursorPage(
    rows,
    q.limit,
    (r) => [iso(r.created_at), r.id],
    (r) => ({
      id: r.id,
      type: r.name,
      createdAt: iso(r.created_at),
      contact: { id: r.contact_id, email: r.email },
      emailId: r.email_id,
      campaignId: r.campaign_id,
      subject: r.subject,
      data: r.data,
    }),
  );
  return { ...page, total };
}

function figures(counts: Map<string, number>) {
  const n = (name: string) => counts.get(name) ?? 0;
  return {
    sent: n('email.sent'),
    failed: n('email.failed'),
    opened: n('email.opened'),
    clicked: n('email.clicked'),
    bounced: n('email.bounced'),
    complained: n('email.complained'),
    received: n('email.received'),
  };
}

/** GET /activity/stats: counts of each kind over whole UTC days, with rates. */
export async function activityStats(ctx: AppContext, projectId: string, range: { since?: Date; until?: Date }) {
  const { since, until } = dayRange(ctx, range);
  const f = figures(await repo.countsByName(ctx.db, projectId, ACTIVITY_TYPES, since, until));
  return {
    since,
    until,
    ...f,
    openRate: rate(f.opened, f.sent),
    clickRate: rate(f.clicked, f.sent),
    bounceRate: rate(f.bounced, f.sent),
  };
}

/** GET /activity/recent-count: events of the activity kinds in the last `minutes`. */
export async function recentCount(ctx: AppContext, projectId: string, q: { minutes: number; type?: string[] }) {
  const since = new Date(ctx.clock.now().getTime() - q.minutes * 60_000);
  const count = await repo.countSince(ctx.db, projectId, q.type ?? ACTIVITY_TYPES, since);
  return { since: since.toISOString(), minutes: q.minutes, count };
}

export async function activityTypes(ctx: AppContext, projectId: string) {
  return { types: await repo.presentNames(ctx.db, projectId, ACTIVITY_TYPES) };
}

/** GET /activity/upcoming: scheduled campaigns, soonest first, and the workflows with executions under way. */
export async function upcoming(ctx: AppContext, projectId: string) {
  const [campaigns, workflows] = await Promise.all([
    repo.scheduledCampaigns(ctx.db, projectId, 50),
    repo.activeExecutions(ctx.db, projectId),
  ]);
  return {
    campaigns: campaigns.map((c) => ({ id: c.id, name: c.name, scheduledFor: iso(c.scheduled_for) })),
    workflows: workflows.map((w) => ({
      workflowId: w.workflow_id,
      name: w.name,
      running: w.running,
      waiting: w.waiting,
      nextRunAt: iso(w.next_run_at),
    })),
  };
}

/** GET /analytics/timeseries: per UTC day, every day of the range, zeros included. */
export async function timeseries(ctx: AppContext, projectId: string, range: { since?: Date; until?: Date }) {
  const { since, until } = dayRange(ctx, range);
  const rows = await repo.dailyCounts(ctx.db, projectId, ACTIVITY_TYPES, since, until);
  const byDay = new Map<string, Map<string, number>>();
  for (const r of rows) {
    if (!byDay.has(r.day)) byDay.set(r.day, new Map());
    byDay.get(r.day)!.set(r.name, r.count);
  }
  const data = [];
  for (let t = Date.parse(since); t <= Date.parse(until); t += DAY) {
    const date = day(new Date(t));
    data.push({ date, ...figures(byDay.get(date) ?? new Map()) });
  }
  return { since, until, interval: 'day' as const, data };
}

function toFigures(c: repo.CampaignSummaryRow) {
  return { id: c.id, name: c.name, status: c.status, sentAt: iso(c.sent_at), ...campaignFigures(c) };
}

export async function topCampaigns(
  ctx: AppContext,
  projectId: string,
  q: { metric: (typeof CAMPAIGN_METRICS)[number]; limit: number },
) {
  return (await repo.topCampaigns(ctx.db, projectId, q.metric, q.limit)).map(toFigures);
}

/** GET /analytics/campaign-stats: the campaigns that started sending in the range, and their totals. */
export async function campaignStats(ctx: AppContext, projectId: string, range: { since?: Date; until?: Date }) {
  const { since, until } = dayRange(ctx, range);
  const rows = await repo.campaignsSentBetween(
    ctx.db,
    projectId,
    new Date(`${since}T00:00:00Z`),
    new Date(Date.parse(`${until}T00:00:00Z`) + DAY),
  );
  const sum = (k: keyof CampaignCounters) => rows.reduce((n, c) => n + c[k], 0);
  const totals = campaignFigures({
    total_recipients: sum('total_recipients'),
    sent_count: sum('sent_count'),
    delivered_count: sum('delivered_count'),
    opened_count: sum('opened_count'),
    clicked_count: sum('clicked_count'),
    bounced_count: sum('bounced_count'),
    complained_count: sum('complained_count'),
  });
  return {
    since,
    until,
    totals,
    campaigns: rows.map(toFigures),
  };
}

export async function topEvents(ctx: AppContext, projectId: string, q: { since?: Date; until?: Date; limit: number }) {
  const { since, until } = dayRange(ctx, q);
  return { since, until, events: await repo.topEventNames(ctx.db, projectId, since, until, q.limit) };
}
