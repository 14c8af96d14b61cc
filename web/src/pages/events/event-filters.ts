import { valueText } from '../contacts/data-editor.js';

/** The events page's state in the URL: `?name=signup&cursor=…`; no name shows every event. */

export interface EventFilters {
  name: string | null;
  cursor: string | null;
}

export const ALL_EVENTS: EventFilters = { name: null, cursor: null };

export function parseEventFilters(queryString: string): EventFilters {
  const params = new URLSearchParams(queryString);
  const name = params.get('name')?.trim();
  return { name: name ? name.slice(0, 255) : null, cursor: params.get('cursor') || null };
}

export function eventFiltersToQuery(f: EventFilters): string {
  const params = new URLSearchParams();
  if (f.name) params.set('name', f.name);
  if (f.cursor) params.set('cursor', f.cursor);
  return params.toString();
}

export function eventsApiQuery(f: EventFilters, limit: number): Record<string, string | number> {
  return { limit, ...(f.name ? { name: f.name } : {}), ...(f.cursor ? { cursor: f.cursor } : {}) };
}

/** Names the service records itself; clients cannot track them. */
export const isBuiltInEvent = (name: string) =>
  name.startsWith('email.') ||
  name === 'contact.subscribed' ||
  name === 'contact.unsubscribed' ||
  name === 'contact.confirmed' ||
  name === 'contact.topics_changed' ||
  /^segment\..+\.(entry|exit)$/.test(name);

interface TopicState {
  name: string;
  subscribed: boolean;
}

const isTopicStates = (v: unknown): v is TopicState[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every((t) => typeof t?.name === 'string' && typeof (t as TopicState).subscribed === 'boolean');

/** One value of an event's data in words: the topics of `contact.topics_changed` read `Digest: off, Launches: on`. */
export function eventValueText(v: unknown): string {
  if (isTopicStates(v)) return v.map((t) => `${t.name}: ${t.subscribed ? 'on' : 'off'}`).join(', ');
  return valueText(v);
}

/** One value of an event's data, shortened to 40 characters. */
export function datumText(v: unknown): string {
  const text = eventValueText(v);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** A short line of an event's data: `plan: pro, seats: 3`, the rest counted. */
export function dataSummary(data: Record<string, unknown>, most = 3): string {
  const entries = Object.entries(data);
  const shown = entries.slice(0, most).map(([k, v]) => `${k}: ${datumText(v)}`);
  if (entries.length > most) shown.push(`${entries.length - most} more`);
  return shown.join(', ');
}
