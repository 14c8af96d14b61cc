import type { RelayReport, Report } from '../../domain/feedback/reports.js';
import { readReturnPath } from '../../domain/feedback/return-path.js';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/client.js';
import { countBounce, countComplaint } from '../campaigns/service.js';
import { setSubscription } from '../contacts/service.js';
import { emailByMessageId, emailSentTo, markBounced, markComplained, type TouchedEmail } from '../emails/service.js';
import { recordEvent } from '../events/record.js';
import { suppress } from '../suppressions/service.js';

/** Whether the report changed anything: not when its email was unknown, never sent, or already marked. */
export type ReportOutcome = { applied: boolean; kind: 'bounce' | 'complaint'; emailId: string };

const UUID_AT = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@/i;

/**
 * The email a report is about: named by the return path it was sent to (signed, so trusted), or
 * else by the Message-ID of the original message quoted in the report, which must be exactly the
 * one the service gave that email and be of the domain the report was sent to.
 */
export async function reportedEmailId(
  ctx: AppContext,
  recipients: string[],
  report: Exclude<Report, { kind: 'notice' }>,
  // A provider's signed notification is about mail it sent for us, whatever the domain.
  options: { anyDomain?: boolean } = {},
): Promise<string | null> {
  for (const rcpt of recipients) {
    const id = readReturnPath(ctx.links, rcpt);
    if (id) return id;
  }
  const original = report.originalMessageId;
  const id = original ? UUID_AT.exec(original)?.[1]?.toLowerCase() : undefined;
  const domain = original?.slice(original.lastIndexOf('@') + 1).toLowerCase();
  const sentToDomain =
    options.anyDomain ||
    recipients.some(
      (r) =>
        r
          .slice(r.lastIndexOf('@') + 1)
          .toLowerCase()
          .replace(/^bounces\./, '') === domain,
    );
  return id && sentToDomain ? emailByMessageId(ctx.db, id, `<${original}>`) : null;
}

/**
 * The reports of one verified delivery from a relay's webhook, each matched to its email and applied;
 * the number that changed an email. An email named by metadata must also have been sent to the
 * address the report is about, so a stray value cannot name another message; failing that, our
 * Message-ID in the report names it, as for every relay.
 */
export async function applyRelayReports(ctx: AppContext, relay: string, reports: RelayReport[]): Promise<number> {
  let applied = 0;
  for (const { report, emailId: named } of reports) {
    const address = report.kind === 'bounce' ? report.recipients[0]?.recipient : report.recipient;
    const byMetadata =
      named && address && UUID.test(named) ? await emailSentTo(ctx.db, named.toLowerCase(), address) : null;
    const emailId = byMetadata ?? (await reportedEmailId(ctx, [], report, { anyDomain: true }));
    if (!emailId) continue;
    const outcome = await applyReport(ctx, emailId, report);
    if (outcome.applied) applied++;
    ctx.log.info(outcome, `${relay}: report received`);
  }
  return applied;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Applies a bounce or a complaint, all in one transaction: the email record, its campaign's
 * counters, an `email.bounced` or `email.complained` event; a hard bounce or a complaint also
 * unsubscribes the contact and puts the address on the project's suppression list. A report about
 * an email already marked changes nothing, so a report delivered twice counts once.
 */
export async function applyReport(
  ctx: AppContext,
  emailId: string,
  report: Exclude<Report, { kind: 'notice' }>,
): Promise<ReportOutcome> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx): Promise<ReportOutcome> => {
    if (report.kind === 'bounce') {
      // One return path, one recipient; should a report list several, the worst failure counts.
      const bounce = report.recipients.find((r) => r.type === 'hard') ?? report.recipients[0]!;
      const reason = [bounce.status, bounce.diagnostic].filter(Boolean).join(' ');
      const email = await markBounced(tx, emailId, { type: bounce.type, reason }, now);
      if (!email) return { applied: false, kind: 'bounce', emailId };
      if (email.campaign_id) await countBounce(tx, email.campaign_id, email.id, bounce.type);
      await recordOnContact(tx, email, 'email.bounced', now, {
        bounceType: bounce.type,
        status: bounce.status,
        reason: bounce.diagnostic,
      });
      if (bounce.type === 'hard') await stopSending(ctx, tx, email, 'bounce', reason, now);
      return { applied: true, kind: 'bounce', emailId };
    }
    const email = await markComplained(tx, emailId, now);
    if (!email) return { applied: false, kind: 'complaint', emailId };
    if (email.campaign_id) await countComplaint(tx, email.campaign_id, email.id);
    await recordOnContact(tx, email, 'email.complained', now, { feedbackType: report.feedbackType });
    await stopSending(ctx, tx, email, 'complaint', report.feedbackType, now);
    return { applied: true, kind: 'complaint', emailId };
  });
}

/** The bounce or complaint as an event on the contact's timeline (workflows may start from it). */
async function recordOnContact(tx: Tx, email: TouchedEmail, name: string, now: Date, data: Record<string, unknown>) {
  if (!email.contact_id) return;
  const campaign = email.campaign_id ? { campaignId: email.campaign_id } : {};
  await recordEvent(tx, {
    projectId: email.project_id,
    contactId: email.contact_id,
    name,
    data: { emailId: email.id, ...campaign, ...data },
    at: now,
  });
}

async function stopSending(
  ctx: AppContext,
  tx: Tx,
  email: TouchedEmail,
  reason: 'bounce' | 'complaint',
  detail: string,
  now: Date,
): Promise<void> {
  await suppress(tx, { projectId: email.project_id, email: email.to_email, reason, emailId: email.id, detail }, now);
  if (email.contact_id)
    await setSubscription(ctx, tx, email.project_id, [email.contact_id], false, reason, { sourceId: email.id });
}
