/**
 * An activity item told in words: "ada@example.com opened “Welcome”". The sentence is a list of
 * parts, so the page can make the contact and the email links while tests and screen readers get
 * the same words as plain text.
 */
import type { ActivityItem, ActivityType } from '../../../../src/api.js';

export type Part =
  | { kind: 'text'; text: string }
  | { kind: 'contact'; id: string; text: string }
  /** `id` is null when the event names no email (a reply to nothing we sent). */
  | { kind: 'email'; id: string | null; text: string };

export type Tone = 'ok' | 'neutral' | 'problem';

/** What the type filter calls each kind, in the order it offers them. */
export const TYPE_LABELS: Record<ActivityType, string> = {
  'email.sent': 'Sent',
  'email.failed': 'Failed',
  'email.opened': 'Opened',
  'email.clicked': 'Clicked',
  'email.bounced': 'Bounced',
  'email.complained': 'Marked as spam',
  'email.received': 'Replies',
};

const isActivityType = (type: string): type is ActivityType => Object.hasOwn(TYPE_LABELS, type);

export const typeLabel = (type: string): string => (isActivityType(type) ? TYPE_LABELS[type] : type);

export function typeTone(type: string): Tone {
  switch (type) {
    case 'email.failed':
    case 'email.bounced':
    case 'email.complained':
      return 'problem';
    case 'email.sent':
    case 'email.opened':
    case 'email.clicked':
      return 'ok';
    default:
      return 'neutral';
  }
}

const text = (t: string): Part => ({ kind: 'text', text: t });
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

function emailPart(item: ActivityItem): Part {
  const subject = str(item.subject);
  return { kind: 'email', id: item.emailId, text: subject ? `“${subject}”` : 'an email without a subject' };
}

/** The sentence of an item. */
export function activityParts(item: ActivityItem): Part[] {
  const contact: Part = { kind: 'contact', id: item.contact.id, text: item.contact.email };
  const email = emailPart(item);
  switch (item.type) {
    case 'email.sent':
      return [email, text(' was sent to '), contact];
    case 'email.failed':
      return [email, text(' could not be sent to '), contact];
    case 'email.opened':
      return [contact, text(' opened '), email];
    case 'email.clicked':
      return [contact, text(' clicked a link in '), email];
    case 'email.bounced':
      return [email, text(' bounced at '), contact];
    case 'email.complained':
      return [contact, text(' marked '), email, text(' as spam')];
    case 'email.received': {
      if (item.emailId) return [contact, text(' replied to '), email];
      const subject = str(item.data.subject);
      return [contact, text(subject ? ` wrote “${subject}”` : ' wrote in')];
    }
    default:
      return [contact, text(` — ${item.type}`)];
  }
}

/** A detail worth a second line: the link clicked, why a send failed, the kind of bounce. */
export function activityDetail(item: ActivityItem): string | null {
  const d = item.data;
  switch (item.type) {
    case 'email.clicked':
      return str(d.url);
    case 'email.failed':
      return str(d.reason);
    case 'email.bounced': {
      const kind = d.bounceType === 'hard' ? 'Hard bounce' : d.bounceType === 'soft' ? 'Soft bounce' : 'Bounce';
      const why = [str(d.status), str(d.reason)].filter(Boolean).join(' ');
      return why ? `${kind}: ${why}` : kind;
    }
    case 'email.complained':
      return str(d.feedbackType) ? `Report type: ${str(d.feedbackType)}` : null;
    case 'email.received':
      return item.emailId ? str(d.subject) : null;
    default:
      return null;
  }
}

/** The whole sentence as plain text. */
export const activitySentence = (item: ActivityItem): string =>
  activityParts(item)
    .map((p) => p.text)
    .join('');
