import type { CampaignEvent } from '../../domain/webhook-events.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { announce } from '../webhooks/service.js';
import type { CampaignRow } from './repo.js';

/**
 * The campaign events (domain/webhook-events.ts `CAMPAIGN_EVENTS`), sent to the project's webhooks
 * in the transaction that changes the campaign, so the change and its announcement go together.
 * Every payload names the campaign; `campaign.completed` carries its figures at that moment.
 */

type Counted = Pick<
  CampaignRow,
  | 'total_recipients'
  | 'sent_count'
  | 'delivered_count'
  | 'bounced_count'
  | 'complained_count'
  | 'skipped_count'
  | 'opened_count'
  | 'clicked_count'
>;

/** The counters as `campaign.completed` reports them: they add up to `totalRecipients` with `pending` 0. */
export function finalCounts(c: Counted) {
  return {
    totalRecipients: c.total_recipients,
    sent: c.sent_count,
    delivered: c.delivered_count,
    bounced: c.bounced_count,
    complained: c.complained_count,
    skipped: c.skipped_count,
    opened: c.opened_count,
    clicked: c.clicked_count,
  };
}

export function announceCampaign<C extends Pick<CampaignRow, 'id' | 'project_id' | 'name'>>(
  ctx: AppContext,
  ex: Executor,
  name: CampaignEvent,
  campaigns: C[],
  at: Date,
  dataOf: (c: C) => Record<string, unknown> = () => ({}),
): Promise<void> {
  return announce(
    ctx,
    ex,
    campaigns.map((c) => ({
      projectId: c.project_id,
      name,
      data: { campaignId: c.id, name: c.name, ...dataOf(c) },
      at,
    })),
  );
}
