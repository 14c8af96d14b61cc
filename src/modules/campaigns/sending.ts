/**
 * How a campaign goes out. Sending starts (at once, or when the start job of its schedule fires)
 * by moving it to SENDING and enqueueing its fan-out job in the same transaction. The fan-out:
 *
 * 1. freezes the audience: one statement writes a recipient row for every contact matching at that
 *    moment, so later changes to a dynamic segment neither add nor drop anyone, with each one's send
 *    time when the campaign has a local time or a spread (`sendAtSql`), and draws an A/B test's
 *    test phase;
 * 2. walks the recipients without an email in pages (keyset by contact id, or for a timed campaign
 *    by send time, never the whole list in memory), renders each one's email and stores the page in
 *    one statement that also marks the recipients, so a crash or a second worker can never make two
 *    emails for one recipient; a timed campaign's emails are made only TIMED_WINDOW_MS ahead of their
 *    time, the job deferring itself until the next are;
 * 3. keeps at most BACKLOG of the campaign's emails due for delivery (explicit back-pressure: a
 *    cancel leaves little to skip; emails waiting for a pacing slot or a retry do not count);
 * 4. marks the campaign fanned out. The delivery engine moves it to SENT when its last email has
 *    left the queue (campaigns/counters `completeCampaigns`).
 *
 * It stops when the campaign leaves SENDING (paused, cancelled); resuming or resending enqueues it
 * again. MARKETING emails to a contact already at the project's marketing cap are skipped as `capped`.
 *
 * A rescue job restarts what a crash could leave behind: a SENDING campaign without a fan-out job,
 * a finished one not yet marked SENT, queued emails of a cancelled one (skipped) or of a paused one
 * (parked); and it judges the guardrails of every sending campaign, for bounces and complaints
 * reported after the last delivery outcome.
 */
import { type SQL, sql } from 'drizzle-orm';
import { cappedReason, capWindowStart, type MarketingCap, overCap } from '../../domain/campaign-guardrails.js';
import { type CampaignTiming, localSendTime } from '../../domain/campaign-timing.js';
import { newEmailId } from '../../domain/email-id.js';
import type { FilterCondition } from '../../domain/filters/index.js';
import { contactZone } from '../../domain/local-time.js';
import { TemplateError } from '../../domain/render.js';
import { type ProjectTracking, resolveTracking } from '../../domain/tracking.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { type Job, JobDeferred, JobInterrupted } from '../../platform/queue.js';
import { type Content, composeEmail, type Linking, type Render } from '../emails/compose.js';
import type { NewEmail } from '../emails/service.js';
import {
  campaignsWithIdleQueuedEmails,
  parkCampaignEmails,
  recentMarketingCounts,
  skipQueuedCampaignEmails,
} from '../emails/service.js';
import { projectTimeZone } from '../projects/service.js';
import { compileAudience, filterContext } from '../segments/audience.js';
import { topicAudienceSql } from '../topics/service.js';
import { trackingFor } from '../tracking-settings/service.js';
import { contentChooser, waitsForWinner } from './ab-test.js';
import { drawTestPhase, markTested } from './ab-test-repo.js';
import { CANCELLED_REASON, completeCampaigns } from './counters.js';
import type { PendingRecipient } from './fan-out-repo.js';
import * as fanOut from './fan-out-repo.js';
import { checkGuardrails } from './guardrails.js';
import { enqueueFanOut, enqueueSending } from './jobs.js';
import type { CampaignRow } from './repo.js';
import * as repo from './repo.js';
import type { RecipientReason } from './schemas.js';
import { marketingCapOf } from './settings.js';

const PAGE = 500;
/** Emails of a page rendered at once (see pageEmails). */
const RENDERING = 2;
const BACKLOG = 2_000;
const BACKLOG_WAIT_MS = 100;
/** The fan-out job's lease is renewed this often; see FANOUT_LEASE_MS in src/worker.ts. */
const HEARTBEAT_MS = 2_000;
/**
 * How far ahead of their time a timed campaign's emails are made: enough for a zone's share to be
 * ready when its hour comes, while the queue holds no more than that window's emails.
 */
const TIMED_WINDOW_MS = 10 * 60_000;
const HOUR_MS = 3_600_000;

/** The start job of a schedule: a schedule changed or cancelled since leaves the campaign alone. */
export async function startScheduledCampaign(ctx: AppContext, campaignId: string, scheduledFor: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const started = await repo.startScheduled(tx, campaignId, new Date(scheduledFor), now);
    if (started) await enqueueSending(ctx, tx, started, now);
  });
}

/** Who a campaign is for, as a filter tree (`ALL` has none). */
export function audienceOf(
  c: Pick<CampaignRow, 'audience_type' | 'segment_id' | 'audience_condition'>,
): FilterCondition | null {
  switch (c.audience_type) {
    case 'ALL':
      return null;
    case 'SEGMENT':
      return {
        logic: 'AND',
        groups: [{ filters: [{ field: 'segment', operator: 'memberOfSegment', value: c.segment_id }] }],
      };
    case 'FILTERED':
      return c.audience_condition;
  }
}

/**
 * The audience as SQL on contacts `c`; a MARKETING campaign about a topic adds the topic's members
 * (a probe of `contact_topics` per contact), a campaign without one is the same query as ever.
 */
export async function audienceSql(ex: Executor, c: CampaignRow, now: Date): Promise<SQL> {
  const condition = audienceOf(c);
  const base = condition
    ? compileAudience(condition, await filterContext(ex, c.project_id, now), 'audienceCondition')
    : sql`true`;
  if (!c.topic_id || c.type !== 'MARKETING') return base;
  return sql`(${base}) and ${await topicAudienceSql(ex, c.project_id, c.topic_id, sql.raw('c'))}`;
}

/** Writes the recipient list, once: a second run finds the campaign frozen and does nothing. */
async function freeze(ctx: AppContext, campaignId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const c = await repo.campaignById(tx, campaignId, true);
    if (c?.status !== 'SENDING' || c.frozen_at) return;
    const now = ctx.clock.now();
    const audience = await audienceSql(tx, c, now);
    const timing = await sendAtSql(tx, c, audience, new Date(c.sent_at ?? now));
    const frozen = await fanOut.freezeAudience(tx, c, audience, now, timing);
    if (frozen && c.ab_test) await drawTestPhase(tx, c.id, c.ab_test);
  });
}

/**
 * How the freezing statement reckons each recipient's send time (domain/campaign-timing) from the
 * moment the campaign started sending, so a slow or restarted fan-out gives everyone the same time:
 * for a local time, once per group of contacts whose zone comes from the same fields, joined back by
 * those fields; for a spread, from the recipient's place in contact id order. Null when not timed.
 * (One snapshot for the grouping and the slices would be exact for contacts joining meanwhile too,
 * but a repeatable-read freeze fails whenever the rescue touches the campaign row while it runs.)
 */
async function sendAtSql(tx: Executor, c: CampaignRow, audience: SQL, start: Date): Promise<fanOut.SendAtSql | null> {
  if (c.spread_hours) {
    const hours = c.spread_hours;
    return {
      join: sql``,
      byPlace: true,
      sendAt: (place, total) =>
        // A contact that joined after the count is placed last.
        sql`${start}::timestamptz + ((${hours}::bigint * ${HOUR_MS} * least(${place}, ${Math.max(total - 1, 0)}))
          / ${Math.max(total, 1)}) * interval '1 millisecond'`,
    };
  }
  const localTime = c.local_time;
  if (!localTime) return null;
  const projectZone = await projectTimeZone(tx, c.project_id);
  const times = (await fanOut.zoneGroups(tx, c, audience)).map((g) => ({
    key: g.key,
    at: localSendTime(start, contactZone({ ...g }, projectZone), localTime).toISOString(),
  }));
  return {
    join: sql`left join jsonb_to_recordset(${JSON.stringify(times)}::jsonb) as zone_time(key text, at timestamptz)
      on zone_time.key = ${fanOut.zoneFieldsKey}`,
    // A contact that joined between the grouping and its slice has no group: the project's zone's time.
    byPlace: false,
    sendAt: () => sql`coalesce(zone_time.at, ${localSendTime(start, projectZone, localTime)}::timestamptz)`,
  };
}

/** The campaign's content, its tracking chosen by the campaign or else the project (`trackingFor`). */
export function campaignContent(c: CampaignRow, project: ProjectTracking): Content {
  return {
    type: c.type,
    subject: c.subject,
    body: c.body,
    from: { email: c.from_email, name: c.from_name },
    replyTo: c.reply_to,
    headers: {},
    attachmentSetId: null,
    templateId: null,
    campaignId: c.id,
    topicId: c.type === 'MARKETING' ? c.topic_id : null,
    tracking: resolveTracking(c.type, project, { opens: c.track_opens, clicks: c.track_clicks }),
  };
}

/** A recipient's email, and why it is skipped when the fan-out already knows (suppression is found as it is stored). */
interface Made {
  email: NewEmail;
  reason: RecipientReason | null;
}

/** What the fan-out knows of a page's recipients besides their contacts: the cap, and what each had under it. */
interface CapCheck {
  cap: MarketingCap;
  received: Map<string, number>;
}

/**
 * One recipient's email. A render that fails for this contact's data (a template that times out,
 * say) is stored as skipped with the reason, so one recipient never holds up the rest; so is one
 * to a contact at the marketing cap.
 */
async function recipientEmail(
  c: CampaignRow,
  content: Content,
  r: PendingRecipient,
  linking: Linking,
  render: Render,
  capCheck: CapCheck | null,
): Promise<Made> {
  const id = newEmailId();
  const contact = { id: r.contact_id, email: r.email!, subscribed: r.subscribed!, data: r.data ?? {} };
  let email: NewEmail;
  try {
    email = await composeEmail(id, c.project_id, content, { contact, name: null, transient: {} }, linking, render);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    const unrendered = await composeEmail(
      id,
      c.project_id,
      { ...content, subject: '(not rendered)', body: '-' },
      { contact, name: null, transient: {} },
      linking,
      render,
    );
    const lastError = `Not sent: the ${err.part} could not be rendered for this contact: ${err.message}`;
    return { email: { ...unrendered, status: 'skipped', lastError }, reason: 'unrenderable' };
  }
  // composeEmail skips marketing mail to an unsubscribed contact itself.
  if (email.status === 'skipped') return { email, reason: 'unsubscribed' };
  const received = capCheck?.received.get(r.contact_id) ?? 0;
  if (capCheck && overCap(capCheck.cap, received))
    return {
      email: { ...email, status: 'skipped', lastError: cappedReason(capCheck.cap, received) },
      reason: 'capped',
    };
  return { email, reason: null };
}

/**
 * A page's emails in order, at most `RENDERING` at once: a template rendered on the event loop
 * goes one after the other at full speed; one rendered in the worker pool keeps its threads busy
 * without filling its queue.
 */
async function pageEmails(
  c: CampaignRow,
  contentFor: (variant: number | null) => Content,
  page: PendingRecipient[],
  linking: Linking,
  render: Render,
  capCheck: CapCheck | null,
): Promise<Made[]> {
  const emails: Made[] = new Array(page.length);
  let next = 0;
  const lane = async () => {
    while (next < page.length) {
      const i = next++;
      const r = page[i]!;
      emails[i] = await recipientEmail(c, contentFor(r.variant), r, linking, render, capCheck);
    }
  };
  await Promise.all(Array.from({ length: Math.min(RENDERING, page.length) }, lane));
  return emails;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fan-out job of one campaign (see the top of this file); resumable at any point. */
export async function fanOutCampaign(
  ctx: AppContext,
  campaignId: string,
  job: Pick<Job, 'heartbeat' | 'signal'>,
): Promise<void> {
  await freeze(ctx, campaignId);
  const c = await repo.campaignById(ctx.db, campaignId);
  if (c?.status !== 'SENDING' || !c.frozen_at) return;
  // An A/B test's rest waits for the winner, whose decision wakes the fan-out again.
  const testPhase = waitsForWinner(c);
  if (testPhase && c.ab_tested_at) return;
  // The project's tracking is read once per run too.
  const contentFor = contentChooser(c, campaignContent(c, await trackingFor(ctx, c.project_id)));
  // Read once per run: a cap changed meanwhile applies from the next run (a resume, a resend, a restart).
  const cap = c.type === 'MARKETING' ? await marketingCapOf(ctx.db, c.project_id) : null;
  const linking: Linking = { publicUrl: ctx.config.publicUrl, signer: ctx.links };
  const render: Render = ctx.templates.render.bind(ctx.templates);
  // A timed campaign's recipients are walked in the order they are due, a window ahead of their time.
  const timed = c.local_time !== null || c.spread_hours !== null;
  let after: fanOut.PendingCursor | null = null;
  let beat = Date.now();
  for (;;) {
    if (job.signal.aborted) throw new JobInterrupted();
    if (Date.now() - beat >= HEARTBEAT_MS) {
      await job.heartbeat();
      beat = Date.now();
    }
    if ((await repo.campaignStatus(ctx.db, campaignId)) !== 'SENDING') return;
    if ((await fanOut.queuedBacklog(ctx.db, campaignId, BACKLOG, ctx.clock.now())) >= BACKLOG) {
      await sleep(BACKLOG_WAIT_MS);
      continue;
    }
    const dueBy = timed ? new Date(ctx.clock.now().getTime() + TIMED_WINDOW_MS) : undefined;
    const page = await fanOut.pendingRecipients(ctx.db, campaignId, after, PAGE, { testPhase, dueBy });
    if (page.length === 0) {
      // One more pass from the start picks up anything a racing worker left behind.
      if (after === null) break;
      after = null;
      continue;
    }
    const last = page[page.length - 1]!;
    after = { contactId: last.contact_id, sendAt: last.send_at };
    const present = page.filter((r) => r.email !== null);
    const gone = page.filter((r) => r.email === null).map((r) => r.contact_id);
    const capCheck = cap
      ? {
          cap,
          received: await recentMarketingCounts(
            ctx.db,
            c.project_id,
            present.map((r) => r.contact_id),
            capWindowStart(cap, ctx.clock.now()),
          ),
        }
      : null;
    const made = await pageEmails(c, contentFor, present, linking, render, capCheck);
    await storePage(ctx, campaignId, withSendTimes(present, made), gone);
  }
  if (timed) {
    // The rest is due later: this job comes back a window before the next of them.
    const next = await fanOut.nextSendAt(ctx.db, campaignId);
    if (next) throw new JobDeferred(new Date(new Date(next).getTime() - TIMED_WINDOW_MS));
  }
  const now = ctx.clock.now();
  if (testPhase) {
    await markTested(ctx.db, campaignId, now);
    // A winner picked by hand while this run made the test phase found it busy: the rest goes now.
    const after = await repo.campaignById(ctx.db, campaignId);
    if (after?.ab_winner) await fanOutCampaign(ctx, campaignId, job);
    return;
  }
  await fanOut.markFannedOut(ctx.db, campaignId, now);
  await completeCampaigns(ctx, [campaignId], now);
}

/** How the campaign's emails are timed (domain/campaign-timing). */
export const timingOf = (c: Pick<CampaignRow, 'local_time' | 'spread_hours'>): CampaignTiming => ({
  localTime: c.local_time,
  spreadHours: c.spread_hours,
});

/** The page's emails, each due at its recipient's send time (a timed campaign's). */
function withSendTimes(page: PendingRecipient[], made: Made[]): Made[] {
  return made.map((m, i) => {
    const at = page[i]!.send_at;
    return at ? { ...m, email: { ...m.email, notBefore: new Date(at).toISOString() } } : m;
  });
}

/** A page's emails and, in the same transaction, the reasons of its recipients that are skipped. */
async function storePage(ctx: AppContext, campaignId: string, made: Made[], gone: string[]): Promise<void> {
  const emails = made.map((m) => m.email);
  const reasons = made.flatMap((m) => (m.reason ? [{ id: m.email.id, reason: m.reason }] : []));
  await ctx.db.transaction(async (tx) => {
    await fanOut.excludeStateChanges(tx, campaignId, 'page');
    const stored = await fanOut.storeCampaignEmails(tx, campaignId, emails, gone, ctx.clock.now(), true);
    if (stored.skipped === 0) return;
    await fanOut.markSkippedRecipients(
      tx,
      campaignId,
      emails.map((e) => e.id),
      reasons,
    );
  });
}

/** The recurring rescue: nothing a crash interrupts stays stuck. */
export async function rescueCampaigns(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now();
  const idle = await campaignsWithIdleQueuedEmails(ctx.db, now);
  // Queued emails of cancelled campaigns whose worker let them go since the cancel.
  await ctx.db.transaction(async (tx) => {
    const cancelled = await repo.campaignsInStatus(tx, idle, 'CANCELLED');
    await skipQueuedCampaignEmails(tx, cancelled, CANCELLED_REASON, now);
    await repo.markCancelledRecipients(tx, cancelled);
  });
  // A safety net: queued emails of paused campaigns still due, should any have escaped parking.
  await parkCampaignEmails(ctx.db, await repo.campaignsInStatus(ctx.db, idle, 'PAUSED'));
  const sending = await fanOut.sendingCampaigns(ctx.db);
  // Bounces and complaints reported after a campaign's last outcome batch count too.
  await checkGuardrails(
    ctx,
    ctx.db,
    sending.map((c) => c.id),
    now,
  );
  for (const c of sending.filter((c) => !c.fanned_out_at)) await enqueueFanOut(ctx.db, c.id);
  await completeCampaigns(
    ctx,
    sending.filter((c) => c.fanned_out_at).map((c) => c.id),
    now,
  );
}
