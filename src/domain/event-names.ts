import { CAMPAIGN_EVENTS } from './webhook-events.js';

/**
 * A contact's topics changed: `email`, `source` and `topics`, the topics that flipped, each
 * `{ id, name, subscribed }` with its new state (docs/decisions.md, "Topic changes on webhooks").
 */
export const TOPICS_CHANGED_EVENT = 'contact.topics_changed';

/** Names the service emits itself; clients cannot track them. */
export function isReservedEventName(name: string): boolean {
  return (
    name.startsWith('email.') ||
    name === 'contact.subscribed' ||
    name === 'contact.unsubscribed' ||
    name === 'contact.confirmed' ||
    name === TOPICS_CHANGED_EVENT ||
    (CAMPAIGN_EVENTS as readonly string[]).includes(name) ||
    /^segment\..+\.(entry|exit)$/.test(name)
  );
}
