import { z } from 'zod';

/**
 * The event kinds a webhook subscribes to: an event name (`email.bounced`, `signed_up`), a prefix
 * ending in `.*` (`email.*`, `segment.*`, `contact.*`), or `*` for every event.
 */
export const eventPatternSchema = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^(\*|[^*\s]+(\.\*)?)$/, 'Use an event name, a prefix ending in .* such as email.*, or *');

export function eventMatches(patterns: string[], name: string): boolean {
  return patterns.some((p) => p === '*' || p === name || (p.endsWith('.*') && name.startsWith(p.slice(0, -1))));
}

/**
 * Events about a campaign rather than a contact. They reach webhooks only (no contact's timeline,
 * no workflow trigger), written in the transaction that changes the campaign; clients cannot track them.
 *   campaign.paused     a guardrail or a person paused it: `reason`, and for a guardrail the `rate`,
 *                       its `threshold` and the `sample` it was judged on
 *   campaign.resumed    sending goes on
 *   campaign.completed  its last email left the queue (SENT): the figures at that moment
 */
export const CAMPAIGN_EVENTS = ['campaign.paused', 'campaign.resumed', 'campaign.completed'] as const;
export type CampaignEvent = (typeof CAMPAIGN_EVENTS)[number];
