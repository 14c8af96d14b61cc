/**
 * What a webhook subscribes to, as the form shows it: every event (`*`), a few of the events the
 * service emits itself, and any other names or prefixes (`signed_up`, `segment.*`) typed in.
 * The server's rule (src/domain/webhook-events.ts) is the one that counts; this says the same
 * beside the field before asking it.
 */

/** The events the service emits, in the order the form lists them. */
export const SERVICE_EVENTS = [
  { name: 'email.sent', label: 'Email sent' },
  { name: 'email.failed', label: 'Email failed' },
  { name: 'email.bounced', label: 'Email bounced' },
  { name: 'email.complained', label: 'Marked as spam' },
  { name: 'email.opened', label: 'Email opened' },
  { name: 'email.clicked', label: 'Link clicked' },
  { name: 'email.received', label: 'Email received (inbound)' },
  { name: 'contact.subscribed', label: 'Contact subscribed' },
  { name: 'contact.unsubscribed', label: 'Contact unsubscribed' },
  { name: 'contact.confirmed', label: 'Signup confirmed (double opt-in)' },
  { name: 'contact.topics_changed', label: 'Contact’s topics changed' },
  { name: 'campaign.paused', label: 'Campaign paused' },
  { name: 'campaign.resumed', label: 'Campaign resumed' },
  { name: 'campaign.completed', label: 'Campaign completed' },
] as const;

const SERVICE_NAMES: readonly string[] = SERVICE_EVENTS.map((e) => e.name);

export const MAX_EVENTS = 50;

export interface EventChoice {
  /** `*`: every event, tracked ones included. */
  all: boolean;
  /** Names from SERVICE_EVENTS. */
  chosen: string[];
  /** Anything else, as typed: names or prefixes separated by commas, spaces or new lines. */
  other: string;
}

export const NO_EVENTS: EventChoice = { all: false, chosen: [], other: '' };

/** An event name, a prefix ending in `.*`, or `*` (the server's pattern). */
export const isEventPattern = (value: string) => value.length <= 255 && /^(\*|[^*\s]+(\.\*)?)$/.test(value);

export const splitEventList = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The form's choice as the API's `events` list, without repeats; `*` alone when every event is chosen. */
export function eventsFromChoice(choice: EventChoice): string[] {
  if (choice.all) return ['*'];
  const chosen = SERVICE_NAMES.filter((n) => choice.chosen.includes(n));
  return [...new Set([...chosen, ...splitEventList(choice.other)])];
}

/** A webhook's `events` as the form shows them: service events ticked, the rest typed out. */
export function choiceFromEvents(events: readonly string[]): EventChoice {
  if (events.includes('*')) return { all: true, chosen: [], other: '' };
  return {
    all: false,
    chosen: events.filter((e) => SERVICE_NAMES.includes(e)),
    other: events.filter((e) => !SERVICE_NAMES.includes(e)).join(', '),
  };
}

/** What is wrong with the choice, said beside the events, or null. */
export function eventsProblem(choice: EventChoice): string | null {
  const events = eventsFromChoice(choice);
  if (events.length === 0) return 'Choose at least one event.';
  const wrong = splitEventList(choice.all ? '' : choice.other).filter((e) => !isEventPattern(e));
  if (wrong.length > 0) {
    return `Not an event name: ${wrong.join(', ')}. Use a name such as signed_up, a prefix such as segment.*, or every event.`;
  }
  if (events.length > MAX_EVENTS) return `At most ${MAX_EVENTS} events; use a prefix such as email.* instead.`;
  return null;
}

/** How a webhook's subscription reads in a list. */
export function describeEvents(events: readonly string[]): string {
  if (events.includes('*')) return 'Every event';
  return events.length <= 3 ? events.join(', ') : `${events.slice(0, 3).join(', ')} and ${events.length - 3} more`;
}

/** What is wrong with a webhook URL, or null: the server takes http and https URLs only. */
export function urlProblem(value: string): string | null {
  const url = value.trim();
  if (!url) return 'Enter the URL that receives the events.';
  if (!URL.canParse(url)) return 'Enter a whole URL, such as https://example.com/hooks/postbox.';
  const { protocol } = new URL(url);
  if (protocol !== 'http:' && protocol !== 'https:') return 'Use an http or https URL.';
  if (url.length > 2048) return 'At most 2,048 characters.';
  return null;
}
