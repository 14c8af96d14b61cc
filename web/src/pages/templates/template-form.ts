import type { EmailContent, EmailRecord, EmailType } from '../../../../src/api.js';
import type { FieldError } from '../../api/errors.js';

/** A tracking flag as its select holds it: the project's setting for the type, or on or off here. */
export type TrackChoice = 'default' | 'on' | 'off';

export const TRACK_OPTIONS: { value: TrackChoice; label: string }[] = [
  { value: 'default', label: 'Project setting' },
  { value: 'on', label: 'On' },
  { value: 'off', label: 'Off' },
];

export const trackChoiceOf = (v: boolean | null): TrackChoice => (v === null ? 'default' : v ? 'on' : 'off');
export const trackValueOf = (c: TrackChoice): boolean | null => (c === 'default' ? null : c === 'on');

/** What the editor holds: every field as typed, optional ones empty when unset. */
export interface TemplateForm {
  name: string;
  subject: string;
  from: string;
  fromName: string;
  replyTo: string;
  type: EmailType;
  description: string;
  body: string;
  /** The block editor's document of the body, as `bodySource` stores it; null for a body written as code. */
  bodySource: Record<string, unknown> | null;
  trackOpens: TrackChoice;
  trackClicks: TrackChoice;
  /** The topic its MARKETING emails are about; empty: none. */
  topicId: string;
}

export const FORM_FIELDS = [
  'name',
  'subject',
  'from',
  'fromName',
  'replyTo',
  'type',
  'description',
  'body',
  'bodySource',
  'trackOpens',
  'trackClicks',
  'topicId',
] as const;

export const STARTER_BODY = `<h1>Hello {{ firstName ?? "there" }}</h1>
<p>Write your message here.</p>
`;

export const EMPTY_FORM: TemplateForm = {
  name: '',
  subject: '',
  from: '',
  fromName: '',
  replyTo: '',
  type: 'MARKETING',
  description: '',
  body: STARTER_BODY,
  bodySource: null,
  trackOpens: 'default',
  trackClicks: 'default',
  topicId: '',
};

/** The form of a template's (or a campaign's) content. */
export function formOf(t: EmailContent): TemplateForm {
  return {
    name: t.name,
    subject: t.subject,
    from: t.from,
    fromName: t.fromName ?? '',
    replyTo: t.replyTo ?? '',
    type: t.type,
    description: t.description ?? '',
    body: t.body,
    bodySource: t.bodySource,
    trackOpens: trackChoiceOf(t.trackOpens),
    trackClicks: trackChoiceOf(t.trackClicks),
    topicId: (t as { topicId?: string | null }).topicId ?? '',
  };
}

const orNull = (v: string) => (v.trim() === '' ? null : v.trim());

/** The body of POST /templates or PATCH /templates/{id}: an empty optional field is cleared (null). */
export function templatePayload(form: TemplateForm) {
  return {
    name: form.name.trim(),
    subject: form.subject,
    from: form.from.trim(),
    fromName: orNull(form.fromName),
    replyTo: orNull(form.replyTo),
    type: form.type,
    description: orNull(form.description),
    body: form.body,
    bodySource: form.bodySource,
    trackOpens: trackValueOf(form.trackOpens),
    trackClicks: trackValueOf(form.trackClicks),
    topicId: form.type === 'MARKETING' && form.topicId ? form.topicId : null,
  };
}

/** JSON with object keys in one order: the server's jsonb gives a document back with its keys reordered. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sameValue = (a: unknown, b: unknown) => a === b || stableJson(a) === stableJson(b);

export const isDirty = (form: TemplateForm, saved: TemplateForm) =>
  FORM_FIELDS.some((f) => !sameValue(form[f], saved[f]));

/** The line a render error points at (liquidjs writes `line:3, col:5`), or null. */
export function errorLine(message: string): number | null {
  const match = /\bline:?\s*(\d+)/i.exec(message);
  return match ? Number(match[1]) : null;
}

/** The preview's render errors by part: what the 422 of POST /templates/preview lists. */
export function renderErrors(errors: readonly FieldError[]): { subject?: string; body?: string } {
  const out: { subject?: string; body?: string } = {};
  for (const e of errors) if ((e.field === 'subject' || e.field === 'body') && !out[e.field]) out[e.field] = e.message;
  return out;
}

interface Usage {
  campaigns: { id: string; name: string }[];
  workflows: { id: string; name: string }[];
}

const joinWords = (words: string[]) =>
  words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;

function counted(items: { name: string }[], one: string, many: string, limit: number): string {
  const names = items.slice(0, limit).map((i) => `“${i.name}”`);
  const more = items.length - names.length;
  const list = more > 0 ? `${names.join(', ')} and ${more} more` : joinWords(names);
  return `${items.length} ${items.length === 1 ? one : many} (${list})`;
}

/** What uses a template, in a sentence. */
export function usageSentence(usage: Usage, limit = 3): string {
  const parts = [
    ...(usage.campaigns.length ? [counted(usage.campaigns, 'campaign', 'campaigns', limit)] : []),
    ...(usage.workflows.length ? [counted(usage.workflows, 'workflow step', 'workflow steps', limit)] : []),
  ];
  return parts.length === 0 ? 'Not used by any campaign or workflow.' : `Used by ${parts.join(' and ')}.`;
}

/** Where a test email went, in words, from its record. */
export function deliveryWords(email: Pick<EmailRecord, 'status' | 'to' | 'smtpResponse' | 'lastError'>): {
  done: boolean;
  tone: 'ok' | 'waiting' | 'problem';
  text: string;
} {
  switch (email.status) {
    case 'queued':
      return { done: false, tone: 'waiting', text: `Queued for ${email.to}…` };
    case 'sent': {
      const response = email.smtpResponse ?? '';
      // Without SMTP_URL the service writes mail to its local outbox instead of a relay.
      if (response.startsWith('written to ')) {
        return {
          done: true,
          tone: 'ok',
          text: `Captured locally for ${email.to}: no SMTP relay is configured, so the message was ${response}.`,
        };
      }
      return { done: true, tone: 'ok', text: `Sent to ${email.to}; the relay answered “${response || 'OK'}”.` };
    }
    case 'failed':
      return { done: true, tone: 'problem', text: `Not sent to ${email.to}: ${email.lastError ?? 'delivery failed'}.` };
    case 'skipped':
      return {
        done: true,
        tone: 'problem',
        text: `Not sent to ${email.to}: ${email.lastError ?? 'the address is suppressed or unsubscribed'}.`,
      };
    case 'bounced':
      return {
        done: true,
        tone: 'problem',
        text: `Sent to ${email.to}, but it bounced: ${email.lastError ?? ''}`.trim(),
      };
  }
}

/** Names a template can use for a recipient besides their data fields. */
export const SERVICE_VARIABLES = [
  { name: 'email', detail: 'recipient' },
  { name: 'unsubscribeUrl', detail: 'link' },
  { name: 'manageUrl', detail: 'link' },
  { name: 'subscribeUrl', detail: 'link' },
] as const;

const IDENTIFIER = /^[A-Za-z_][\w-]*$/;

/**
 * The contact's data fields as template variables, from GET /contacts/fields: custom fields (`data.plan`)
 * are `plan` at the top level; a key that is no Liquid identifier is reached through `data["…"]` only.
 */
export interface DataFieldName {
  key: string;
  type: string;
  identifier: boolean;
}

export function dataFieldNames(fields: readonly { field: string; isCustom: boolean; type: string }[]): DataFieldName[] {
  return fields
    .filter((f) => f.isCustom && f.field.startsWith('data.'))
    .map((f) => ({ key: f.field.slice('data.'.length), type: f.type }))
    .filter((f) => f.key !== '')
    .map((f) => ({ ...f, identifier: IDENTIFIER.test(f.key) }));
}
