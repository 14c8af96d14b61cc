import { iso, isUuid } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { type CursorPage, type CursorValue, cursorPage, invalidCursorError } from '../../platform/http/pagination.js';
import * as audit from '../audit/service.js';
import { assertVerifiedSender } from '../domains/service.js';
import { enqueueFanOut } from './jobs.js';
import type { RecipientRow } from './recipient-repo.js';
import * as recipientRepo from './recipient-repo.js';
import * as repo from './repo.js';
import type { CampaignRecipient, RecipientEngagement, RecipientOutcome, RecipientReason } from './schemas.js';
import { toCampaign } from './service.js';

/**
 * Reconciliation: who of a campaign's frozen audience got what (each recipient's outcome is kept
 * with its recipient row as it changes; see counters.ts), and sending again to those whose email
 * never reached a receiving server.
 */

function toRecipient(row: RecipientRow): CampaignRecipient {
  return {
    contactId: row.contact_id,
    email: row.email,
    outcome: row.outcome,
    reason: row.reason,
    emailId: row.email_id,
    detail: row.detail,
    sendAt: iso(row.send_at),
    sentAt: iso(row.sent_at),
  };
}

/**
 * GET /campaigns/{id}/recipients: the recipients in contact id order, a cursor page at a time,
 * optionally of one outcome and reason, or those who opened or clicked; `total` (first page only)
 * counts the matching recipients.
 */
export async function listRecipients(
  ctx: AppContext,
  projectId: string,
  id: string,
  q: {
    outcome?: RecipientOutcome;
    reason?: RecipientReason;
    engagement?: RecipientEngagement;
    limit: number;
    cursor?: CursorValue[];
  },
): Promise<CursorPage<CampaignRecipient>> {
  const after = q.cursor?.[0];
  if (q.cursor && (q.cursor.length !== 1 || typeof after !== 'string' || !isUuid(after))) throw invalidCursorError();
  const campaign = await repo.findCampaign(ctx.db, projectId, id);
  if (!campaign) throw notFound('Campaign');
  const filter = { outcome: q.outcome, reason: q.reason, engagement: q.engagement };
  // Opened or clicked alone is counted by the campaign's counters, not by reading every recipient's email.
  const counted =
    q.engagement && !q.outcome && !q.reason
      ? q.engagement === 'opened'
        ? campaign.opened_count
        : campaign.clicked_count
      : null;
  const [rows, total] = await Promise.all([
    recipientRepo.listRecipients(ctx.db, id, { ...filter, after: after as string | undefined, limit: q.limit }),
    q.cursor ? Promise.resolve(0) : (counted ?? recipientRepo.countRecipients(ctx.db, id, filter)),
  ]);
  return { ...cursorPage(rows, q.limit, (r) => [r.contact_id], toRecipient), total };
}

/**
 * POST /campaigns/{id}/resend: a SENT campaign goes to SENDING again for its recipients whose email
 * failed (refused by the relay, or given up after the retries) or was skipped as `capped` or
 * `unrenderable`; each gets a new email, checked again like any (unsubscribed, suppressed, capped).
 * Delivered, bounced, complained, unsubscribed, suppressed, deleted and cancelled recipients are
 * never sent to again. While a send or resend is under way the campaign is not SENT, so a second
 * call is refused (409) and can never double it; once it is done, another resend reaches whoever
 * failed again. `campaign.completed` is announced again when it finishes.
 */
export async function resendCampaign(ctx: AppContext, projectId: string, id: string) {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const c = await repo.findCampaign(tx, projectId, id, true);
    if (!c) throw notFound('Campaign');
    if (c.status === 'SENDING' || c.status === 'PAUSED') {
      throw new AppError(409, 'CAMPAIGN_SENDING', `The campaign is being sent (${c.status})`, {
        details: { status: c.status },
        suggestion: 'Resend once the campaign is SENT; GET /campaigns/{id}/recipients shows who is still queued.',
      });
    }
    if (c.status !== 'SENT') {
      throw new AppError(400, 'CAMPAIGN_NOT_RESENDABLE', `A ${c.status} campaign cannot be resent`, {
        details: { status: c.status },
        suggestion: 'Only a SENT campaign can be resent; duplicate a cancelled one to send it again.',
      });
    }
    await assertVerifiedSender(ctx, tx, projectId, c.from_email);
    const reopened = await recipientRepo.reopenForResend(tx, id, now);
    if (!reopened) {
      return { campaign: toCampaign(c), resent: 0, message: 'Nobody to resend to: no recipient failed or was capped' };
    }
    await enqueueFanOut(tx, id);
    await audit.record(tx, {
      projectId,
      action: 'campaign.resent',
      target: { type: 'campaign', id },
      changes: { resent: reopened.resent },
    });
    return {
      campaign: toCampaign(reopened.campaign),
      resent: reopened.resent,
      message: `The campaign is being sent again to ${reopened.resent} recipient${reopened.resent === 1 ? '' : 's'}`,
    };
  });
}
