/**
 * Reading delivery status notifications (RFC 3464) and abuse reports (ARF, RFC 5965). Both are a
 * `multipart/report` whose parts are a human-readable text, a machine-readable block of header-like
 * fields, and the original message or its headers. Only what the service acts on is read.
 */

export interface MimePart {
  contentType: string;
  /** The decoded body as text. */
  body: string;
}

export type Report =
  | { kind: 'bounce'; recipients: BouncedRecipient[]; originalMessageId: string | null }
  | { kind: 'complaint'; feedbackType: string; recipient: string | null; originalMessageId: string | null }
  /** A well-formed report that asks for nothing: a delay notice, a delivery receipt, a not-spam report. */
  | { kind: 'notice' };

/**
 * A report from a relay's webhook, and our email id when the relay names the message only by
 * metadata we gave it (Postmark's `Metadata`, Brevo's `X-Mailin-custom`); else our Message-ID in the
 * report names it.
 */
export interface RelayReport {
  report: Exclude<Report, { kind: 'notice' }>;
  emailId?: string | null;
}

export interface BouncedRecipient {
  recipient: string | null;
  /** `hard` for a permanent failure (status 5.x.x), `soft` for a transient one (4.x.x). */
  type: 'hard' | 'soft';
  status: string;
  diagnostic: string | null;
}

/** The report in a `multipart/report` message, or null when it is not one the service reads. */
export function readReport(reportType: string | undefined, parts: MimePart[]): Report | null {
  const type = reportType?.toLowerCase();
  const original = parts.find((p) => p.contentType === 'message/rfc822' || p.contentType === 'text/rfc822-headers');
  const originalMessageId = original ? messageIdIn(original.body) : null;
  if (type === 'delivery-status') {
    const status = parts.find(
      (p) => p.contentType === 'message/delivery-status' || p.contentType === 'message/global-delivery-status',
    );
    if (!status) return null;
    const recipients = fieldGroups(status.body).slice(1).flatMap(bouncedRecipient);
    return recipients.length > 0 ? { kind: 'bounce', recipients, originalMessageId } : { kind: 'notice' };
  }
  if (type === 'feedback-report') {
    const feedback = parts.find((p) => p.contentType === 'message/feedback-report');
    if (!feedback) return null;
    const fields = fieldGroups(feedback.body)[0] ?? new Map<string, string>();
    const feedbackType = (fields.get('feedback-type') ?? 'abuse').toLowerCase();
    // "not-spam" reports that a message was wrongly filtered: no complaint.
    if (feedbackType === 'not-spam') return { kind: 'notice' };
    return { kind: 'complaint', feedbackType, recipient: address(fields.get('original-rcpt-to')), originalMessageId };
  }
  return null;
}

/** Per-recipient fields: only a failed delivery is a bounce (delayed, delivered, relayed are not). */
function bouncedRecipient(fields: Map<string, string>): BouncedRecipient[] {
  if (fields.get('action')?.toLowerCase() !== 'failed') return [];
  const status = /\b([245])\.\d{1,3}\.\d{1,3}\b/.exec(fields.get('status') ?? '')?.[0] ?? '5.0.0';
  if (status.startsWith('2')) return [];
  return [
    {
      recipient: address(fields.get('final-recipient') ?? fields.get('original-recipient')),
      type: status.startsWith('5') ? 'hard' : 'soft',
      status,
      diagnostic:
        fields
          .get('diagnostic-code')
          ?.replace(/^[^;]*;\s*/, '')
          .slice(0, 2000) ?? null,
    },
  ];
}

/** `rfc822; ada@example.net` → `ada@example.net`. */
function address(value: string | undefined): string | null {
  if (!value) return null;
  const bare = value
    .replace(/^[^;]*;\s*/, '')
    .replace(/^<|>$/g, '')
    .trim()
    .toLowerCase();
  return bare.includes('@') ? bare : null;
}

/**
 * Blocks of `Name: value` fields separated by blank lines, names lowercased, folded lines
 * unfolded; a repeated name keeps its first value.
 */
export function fieldGroups(text: string): Map<string, string>[] {
  const groups: Map<string, string>[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n[ \t]*\n/)) {
    const fields = new Map<string, string>();
    for (const line of block.replace(/\n[ \t]+/g, ' ').split('\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
    }
    if (fields.size > 0) groups.push(fields);
  }
  return groups;
}

/** The Message-ID of a message, or of its header block, without its angle brackets. */
function messageIdIn(message: string): string | null {
  const head = message
    .replace(/\r\n/g, '\n')
    .split(/\n\n/, 1)[0]!
    .replace(/\n[ \t]+/g, ' ');
  const id = /^message-id:\s*<([^>\s]+)>/im.exec(head)?.[1];
  return id ?? null;
}

/**
 * The parts of a multipart body, one level deep (a report's parts are never nested in practice;
 * the original message inside one is kept whole). Base64 and quoted-printable bodies are decoded.
 */
export function splitMultipart(body: string, boundary: string): MimePart[] {
  const delimiter = `--${boundary}`;
  const parts: MimePart[] = [];
  const lines = body.replace(/\r\n/g, '\n').split('\n');
  let current: string[] | null = null;
  for (const line of lines) {
    if (line.startsWith(delimiter)) {
      if (current) parts.push(readPart(current.join('\n')));
      current = line.slice(delimiter.length).startsWith('--') ? null : [];
      if (current === null) break;
      continue;
    }
    current?.push(line);
  }
  return parts;
}

function readPart(entity: string): MimePart {
  const split = entity.indexOf('\n\n');
  const head = (split < 0 ? entity : entity.slice(0, split)).replace(/\n[ \t]+/g, ' ');
  const raw = split < 0 ? '' : entity.slice(split + 2);
  const header = (name: string) => new RegExp(`^${name}:\\s*([^\\n]*)`, 'im').exec(head)?.[1]?.trim() ?? '';
  const contentType = (header('content-type').split(';')[0] || 'text/plain').trim().toLowerCase();
  const encoding = header('content-transfer-encoding').toLowerCase();
  return { contentType, body: decode(raw, encoding) };
}

function decode(body: string, encoding: string): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** The report a whole message carries, or null when it is not a `multipart/report` the service reads. */
export function reportInMessage(raw: string): Report | null {
  const entity = raw.replace(/\r\n/g, '\n');
  const split = entity.indexOf('\n\n');
  if (split < 0) return null;
  const head = entity.slice(0, split).replace(/\n[ \t]+/g, ' ');
  const contentType = /^content-type:\s*([^\n]*)/im.exec(head)?.[1] ?? '';
  const [type, ...params] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'multipart/report') return null;
  const param = (name: string) => {
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq > 0 && p.slice(0, eq).trim().toLowerCase() === name)
        return p
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1');
    }
    return undefined;
  };
  const boundary = param('boundary');
  return boundary ? readReport(param('report-type'), splitMultipart(entity.slice(split + 2), boundary)) : null;
}
