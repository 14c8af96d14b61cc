import { sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.js';
import { run, type Tx } from '../../platform/db/client.js';
import { countEngagement } from '../campaigns/counters.js';
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Hit {
  project_id: string;
  contact_id: string | null;
  campaign_id: string | null;
  first_open: boolean;
  first_click: boolean;
}

/** Counts an open; false when the email does not exist. */
export async function recordOpen(ctx: AppContext, emailId: string): Promise<boolean> {
  if (!UUID.test(emailId)) return false;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const r = await run<Hit>(tx, sql`
      with before as (select id, opened_at from emails where id = ${emailId} for update)
      update emails e set
        open_count = e.open_count + 1,
        opened_at = coalesce(e.opened_at, ${now})
      from before where e.id = before.id
      returning e.project_id, e.contact_id, e.campaign_id, (before.opened_at is null) as first_open, false as first_click`);
    const hit = r.rows[0];
    if (!hit) return false;
    await recordFirsts(tx, emailId, hit, now);
    return true;
  });
}

/** Counts a click on `url` (and the open it implies); false when the email does not exist. */
export async function recordClick(ctx: AppContext, emailId: string, url: string): Promise<boolean> {
  if (!UUID.test(emailId)) return false;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const r = await run<Hit>(tx, sql`
      with before as (select id, opened_at, clicked_at from emails where id = ${emailId} for update)
      update emails e set
        click_count = e.click_count + 1,
        clicked_at = coalesce(e.clicked_at, ${now}),
        open_count = e.open_count + (case when before.opened_at is null then 1 else 0 end),
        opened_at = coalesce(e.opened_at, ${now})
      from before where e.id = before.id
      returning e.project_id, e.contact_id, e.campaign_id, (before.opened_at is null) as first_open,
        (before.clicked_at is null) as first_click`);
    const hit = r.rows[0];
    if (!hit) return false;
    await recordFirsts(tx, emailId, hit, now);
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
async function recordFirsts(tx: Tx, emailId: string, hit: Hit, at: Date): Promise<void> {
  if (hit.campaign_id) await countEngagement(tx, hit.campaign_id, { open: hit.first_open, click: hit.first_click });
  if (!hit.first_open || !hit.contact_id) return;
  await recordEvent(tx, {
    projectId: hit.project_id,
    contactId: hit.contact_id,
    name: 'email.opened',
    data: { emailId, ...(hit.campaign_id ? { campaignId: hit.campaign_id } : {}) },
    at,
  });
}
