import type { ConsentRecord } from '../../api/contacts.js';

/** What happened, as a marketer says it. */
const CHANGE_LABELS: Record<ConsentRecord['change'], string> = {
  subscribed: 'Subscribed',
  unsubscribed: 'Unsubscribed',
  snoozed: 'Paused (snoozed)',
  pending: 'Signed up, awaiting confirmation',
  confirmed: 'Confirmed the signup',
  complained: 'Marked an email as spam',
  bounced: 'Address bounced',
};

/**
 * What happened, with the topic when the change was to one topic only (`topicName` null: the topic
 * was deleted since; undefined: the topics are still loading).
 */
export function changeLabel(r: ConsentRecord, topicName: string | null | undefined): string {
  if (!r.topicId) return CHANGE_LABELS[r.change];
  const topic = topicName ? `“${topicName}”` : topicName === null ? 'a topic deleted since' : 'a topic';
  return r.change === 'subscribed' ? `Subscribed to ${topic}` : `Unsubscribed from ${topic}`;
}

const SOURCE_LABELS: Record<string, string> = {
  form: 'Signup form',
  import: 'CSV import',
  bulk: 'Bulk action on the contacts list',
  unsubscribe_page: 'Unsubscribe link',
  one_click: 'One-click unsubscribe in the mail app',
  manage_page: 'Preferences page',
  subscribe_page: 'Resubscribe link',
  complaint: 'Spam complaint from the mailbox provider',
  bounce: 'Bounce report',
  workflow: 'Workflow',
  snooze_ended: 'End of a snooze',
};

/** How the change was made: the path, and for the API who used it (the dashboard is the API too). */
export function howLabel(r: ConsentRecord): string {
  if (r.source !== 'api') return SOURCE_LABELS[r.source] ?? r.source;
  if (r.actor.kind === 'user') return 'In the dashboard';
  return 'Through the API';
}

/** Who made it: a user's address, a key's name, or who else it was. */
export function whoLabel(r: ConsentRecord): string {
  switch (r.actor.kind) {
    case 'user':
      return r.actor.label ?? 'A former team member';
    case 'key':
      return `API key “${r.actor.label ?? 'deleted'}”`;
    case 'secret-key':
      return 'The secret API key';
    case 'visitor':
      return 'The contact';
    default:
      return 'Postbox, automatically';
  }
}

/** Where the change points to in the dashboard: the email it came from, when it came from one. */
export function sourceLink(r: ConsentRecord): { to: string; label: string } | null {
  if (!r.sourceId) return null;
  if (['unsubscribe_page', 'one_click', 'manage_page', 'subscribe_page', 'complaint', 'bounce'].includes(r.source))
    return { to: `/emails/${encodeURIComponent(r.sourceId)}`, label: 'The email' };
  if (r.source === 'form') return { to: '/forms', label: 'Signup forms' };
  return null;
}
