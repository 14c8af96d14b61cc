import { isUuid } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/client.js';
import { countEngagement, countLinkClick } from '../campaigns/service.js';
import { countHit, type Engagement } from '../emails/service.js';
import { recordEvent } from '../events/record.js';

/**
 * Opens and clicks of sent email. The counters and the events change in one transaction, and the
 * UPDATE itself decides whether this is the first open (it reads `opened_at` under the row lock),
 * so concurrent requests for one email count every hit and emit `email.opened` exactly once.
 *
 * - `email.opened` { emailId, campaignId? }: on the first open only.
 * - `email.clicked` { emailId, url, campaignId? }: on every click.
 * - A click on an email with no recorded open counts as its open too (images are often blocked).
 */

/** Counts an open (`fromProxy`: by a mail provider's image proxy); false when the email does not exist. */
export async function recordOpen(ctx: AppContext, emailId: string, fromProxy = false): Promise<boolean> {
  if (!isUuid(emailId)) return false;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const hit = await countHit(tx, emailId, 'open', now, fromProxy);
    if (!hit) return false;
    await recordFirsts(tx, hit, now);
    return true;
  });
}

/** Counts a click on `url` (and the open it implies); false when the email does not exist. */
export async function recordClick(ctx: AppContext, emailId: string, url: string): Promise<boolean> {
  if (!isUuid(emailId)) return false;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const hit = await countHit(tx, emailId, 'click', now);
    if (!hit) return false;
    await recordFirsts(tx, hit, now);
    if (hit.campaign_id) await countLinkClick(tx, hit.campaign_id, emailId, url, now);
    if (hit.contact_id) {
      await recordEvent(tx, {
        projectId: hit.project_id,
        contactId: hit.contact_id,
        name: 'email.clicked',
        data: { emailId, url, ...(hit.campaign_id ? { campaignId: hit.campaign_id } : {}) },
        at: now,
      });
    }
    return true;
  });
}

/**
 * The campaign counters of a first open or click, and `email.opened` on the first open. Deleting a
 * contact leaves `contact_id` null on its emails: they still count, but emit no event.
 */
async function recordFirsts(tx: Tx, hit: Engagement, at: Date): Promise<void> {
  if (hit.campaign_id) await countEngagement(tx, hit.campaign_id, { open: hit.first_open, click: hit.first_click }, at);
  if (!hit.first_open || !hit.contact_id) return;
  await recordEvent(tx, {
    projectId: hit.project_id,
    contactId: hit.contact_id,
    name: 'email.opened',
    data: { emailId: hit.id, ...(hit.campaign_id ? { campaignId: hit.campaign_id } : {}) },
    at,
  });
}
