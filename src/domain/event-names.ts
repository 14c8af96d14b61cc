import { CAMPAIGN_EVENTS } from './webhook-events.js';

/** Names the service emits itself; clients cannot track them. */
export function isReservedEventName(name: string): boolean {
  return (
    name.startsWith('email.') ||
    name === 'contact.subscribed' ||
    name === 'contact.unsubscribed' ||
    name === 'contact.confirmed' ||
    (CAMPAIGN_EVENTS as readonly string[]).includes(name) ||
    /^segment\..+\.(entry|exit)$/.test(name)
  );
}
