import { type EmailType, emailTypeSchema, isReservedHeader } from './email.js';
import { parseTrackHeader, type Tracking } from './tracking.js';

/**
 * A message submitted over SMTP, turned into what `/v1/send` takes: the rules, without I/O. The
 * parser (platform/untrusted/mail-tasks.ts `submission`) reads the MIME into a `ReadMessage`;
 * `emailFromMessage` maps it and the envelope onto one email per envelope recipient; the emails
 * service checks and stores it exactly as a `/v1/send` request.
 */

/** A submitted message as the MIME parser read it. */
export interface ReadMessage {
  /** The first address of From. */
  from: { address: string; name: string } | null;
  /** The first address of Reply-To. */
  replyTo: string | null;
  /** Display names of the To and Cc addresses, by lower-cased address. */
  names: Record<string, string>;
  subject: string | null;
  html: string | null;
  text: string | null;
  /** Every header field of the top level, in order, unfolded, its name as written. */
  headers: { name: string; value: string }[];
  /** Attachments and inline parts, their content as base64. */
  parts: ReadPart[];
}

export interface ReadPart {
  filename: string | null;
  /** Without parameters: `image/png`. */
  contentType: string;
  /** As in the message, with or without its angle brackets. */
  contentId: string | null;
  /** Shown in the body (a related part, or `Content-Disposition: inline`) rather than attached. */
  inline: boolean;
  content: string;
}

export interface SubmittedAttachment {
  filename: string;
  content: string;
  contentType: string;
  contentId?: string;
  disposition: 'attachment' | 'inline';
}

/** One message of the submission, for every envelope recipient. */
export interface SubmittedEmail {
  type: EmailType;
  from: { email: string; name: string | null };
  to: { email: string; name: string | null }[];
  replyTo: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: SubmittedAttachment[];
  /** What `X-Postbox-Track` asks for; null without it (the project's tracking for the type applies). */
  tracking: Tracking | null;
}

export interface Envelope {
  /** MAIL FROM; null for the null sender `<>`. */
  mailFrom: string | null;
  rcptTo: string[];
}

export type Reading = { ok: true; email: SubmittedEmail } | { ok: false; reason: string };

/**
 * The header that chooses the email's type: `TRANSACTIONAL` (the default, tracked), `MARKETING`
 * (subscribed contacts only, unsubscribe footer and headers, tracked) or `HEADLESS` (no tracking, no
 * footer). Headers starting with `X-Postbox-` are the service's own: none leaves with the message.
 */
export const TYPE_HEADER = 'x-postbox-type';
/**
 * The header that chooses what is tracked, over the project's setting for the type: `none`, or
 * `opens`, `clicks` or both comma-separated (what is not named is not tracked).
 */
export const TRACK_HEADER = 'x-postbox-track';
const CONTROL_PREFIX = 'x-postbox-';

/**
 * Header fields a client writes that the service writes again (the reserved ones of `/v1/send`) or
 * that describe the transport and the MIME structure the service rebuilds: dropped, not carried.
 */
function isReplaced(name: string): boolean {
  return (
    isReservedHeader(name) ||
    name.startsWith('content-') ||
    name.startsWith(CONTROL_PREFIX) ||
    name.startsWith('arc-') ||
    name === 'received' ||
    name === 'authentication-results' ||
    name === 'x-original-to' ||
    name === 'delivered-to'
  );
}

/** What `/v1/send` accepts as an attachment's MIME type and content id. */
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;
const CONTENT_ID = /^[^\s<>"']{1,255}$/;

/** A file name as `/v1/send` accepts it: no line breaks or quotes, at most 255 characters. */
function cleanFilename(name: string | null, index: number, contentType: string): string {
  const cleaned = (name ?? '')
    .replace(/[\r\n"']/g, '_')
    .trim()
    .slice(0, 255);
  if (cleaned) return cleaned;
  const subtype = /^[\w.+-]+\/([a-z0-9]{1,10})$/i.exec(contentType)?.[1]?.toLowerCase();
  return `attachment-${index + 1}.${subtype ?? 'bin'}`;
}

function attachmentOf(part: ReadPart, index: number): SubmittedAttachment {
  const contentType = MIME_TYPE.test(part.contentType) ? part.contentType.toLowerCase() : 'application/octet-stream';
  const cid = part.contentId?.trim().replace(/^<(.*)>$/, '$1');
  const contentId = cid && CONTENT_ID.test(cid) ? cid : undefined;
  return {
    filename: cleanFilename(part.filename, index, contentType),
    content: part.content,
    contentType,
    ...(contentId ? { contentId } : {}),
    // An inline part is referenced by its content id: without a usable one it can only be attached.
    disposition: part.inline && contentId ? 'inline' : 'attachment',
  };
}

/**
 * The headers that go with the message: every field not replaced by the service, under its name as
 * written; of a field given more than once, the first.
 */
function carriedHeaders(headers: ReadMessage['headers']): Record<string, string> {
  const carried: Record<string, string> = {};
  const seen = new Set<string>();
  for (const { name, value } of headers) {
    const key = name.toLowerCase();
    if (isReplaced(key) || seen.has(key)) continue;
    seen.add(key);
    carried[name] = value;
  }
  return carried;
}

function trackingOf(headers: ReadMessage['headers']): Tracking | null | { invalid: string } {
  const given = headers.find((h) => h.name.toLowerCase() === TRACK_HEADER)?.value.trim();
  if (given === undefined) return null;
  return parseTrackHeader(given) ?? { invalid: given };
}

function typeOf(headers: ReadMessage['headers']): EmailType | { invalid: string } {
  const given = headers.find((h) => h.name.toLowerCase() === TYPE_HEADER)?.value.trim();
  if (!given) return 'TRANSACTIONAL';
  const parsed = emailTypeSchema.safeParse(given.toUpperCase());
  return parsed.success ? parsed.data : { invalid: given };
}

/**
 * The email a submitted message asks for. The sender is the From header (the address recipients see
 * and DKIM signs), or the envelope sender when the message has none. The recipients are the
 * envelope's, each once, in order (so Bcc recipients get their copy and nobody sees the others), with
 * the display name the To or Cc header gave them.
 */
export function emailFromMessage(message: ReadMessage, envelope: Envelope): Reading {
  const type = typeOf(message.headers);
  if (typeof type === 'object')
    return {
      ok: false,
      reason: `X-Postbox-Type must be TRANSACTIONAL, MARKETING or HEADLESS, not "${type.invalid.slice(0, 40)}"`,
    };
  const tracking = trackingOf(message.headers);
  if (tracking && 'invalid' in tracking)
    return {
      ok: false,
      reason: `X-Postbox-Track must be "none" or "opens", "clicks" or both, not "${tracking.invalid.slice(0, 40)}"`,
    };
  const fromAddress = message.from?.address || envelope.mailFrom;
  if (!fromAddress) return { ok: false, reason: 'The message has no From header and no envelope sender' };
  if (!message.subject?.trim()) return { ok: false, reason: 'The message has no Subject: one is required' };
  // An empty HTML part is none; a message with no body at all (a subject-only alert) is an empty text.
  const html = message.html?.trim() ? message.html : null;
  const text = message.text ?? (html === null ? '' : null);

  const seen = new Set<string>();
  const to: SubmittedEmail['to'] = [];
  for (const address of envelope.rcptTo) {
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    to.push({ email: address, name: message.names[key] || null });
  }
  return {
    ok: true,
    email: {
      type,
      from: { email: fromAddress, name: message.from?.name || null },
      to,
      replyTo: message.replyTo,
      subject: message.subject.trim(),
      html,
      text,
      headers: carriedHeaders(message.headers),
      attachments: message.parts.map(attachmentOf),
      tracking,
    },
  };
}
