import type { Report } from './reports.js';

/**
 * Amazon SNS messages (HTTP subscriptions) carrying Amazon SES bounce and complaint notifications.
 * The signature covers a canonical text of the message's fields; the signing certificate must come
 * from an SNS host over https (or an origin the operator trusts, for SNS-compatible services).
 */
export interface SnsMessage {
  Type: 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  Token?: string;
  SubscribeURL?: string;
}

export function parseSnsMessage(body: unknown): SnsMessage | null {
  if (!body || typeof body !== 'object') return null;
  const m = body as Record<string, unknown>;
  const text = (k: string) => typeof m[k] === 'string';
  if (!['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'].includes(m.Type as string)) return null;
  if (!['MessageId', 'TopicArn', 'Message', 'Timestamp', 'Signature', 'SigningCertURL'].every(text)) return null;
  if (m.SignatureVersion !== '1' && m.SignatureVersion !== '2') return null;
  if (m.Type !== 'Notification' && !(text('Token') && text('SubscribeURL'))) return null;
  return m as unknown as SnsMessage;
}

/** The text SNS signs: the message's fields, by name, in this order, each followed by a newline. */
export function snsStringToSign(m: SnsMessage): string {
  const keys =
    m.Type === 'Notification'
      ? ['Message', 'MessageId', ...(m.Subject !== undefined ? ['Subject'] : []), 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return keys.map((k) => `${k}\n${(m as unknown as Record<string, string>)[k]}\n`).join('');
}

export const snsDigest = (m: SnsMessage) => (m.SignatureVersion === '1' ? 'sha1' : 'sha256');

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/** Whether a certificate or subscription URL may be fetched: an SNS host over https, or a trusted origin. */
export function isSnsUrl(raw: string, trustedOrigin?: string): boolean {
  if (!URL.canParse(raw)) return false;
  const url = new URL(raw);
  if (trustedOrigin && url.origin === trustedOrigin) return true;
  return url.protocol === 'https:' && SNS_HOST.test(url.hostname) && !url.username && !url.password;
}

/**
 * The report in an SES notification (`notificationType`, or `eventType` from event publishing), with
 * the original Message-ID from the mail's headers; null for deliveries and anything else.
 */
export function sesReport(message: unknown): Exclude<Report, { kind: 'notice' }> | null {
  if (!message || typeof message !== 'object') return null;
  // biome-ignore lint/suspicious/noExplicitAny: untyped JSON from SES, read with optional chaining
  const n = message as Record<string, any>;
  const type = n.notificationType ?? n.eventType;
  const headerId = (n.mail?.headers as { name: string; value: string }[] | undefined)?.find(
    (h) => h?.name?.toLowerCase() === 'message-id',
  )?.value;
  const rawId: unknown = n.mail?.commonHeaders?.messageId ?? headerId;
  const originalMessageId = typeof rawId === 'string' ? (/<([^>\s]+)>/.exec(rawId)?.[1] ?? rawId.trim()) : null;
  if (type === 'Bounce' && n.bounce) {
    const hard = n.bounce.bounceType === 'Permanent';
    const recipients = (Array.isArray(n.bounce.bouncedRecipients) ? n.bounce.bouncedRecipients : []).map(
      (r: Record<string, unknown>) => ({
        recipient: typeof r.emailAddress === 'string' ? r.emailAddress.toLowerCase() : null,
        type: hard ? ('hard' as const) : ('soft' as const),
        status:
          typeof r.status === 'string' && /^[245]\.\d+\.\d+$/.test(r.status) ? r.status : hard ? '5.0.0' : '4.0.0',
        diagnostic:
          typeof r.diagnosticCode === 'string' ? r.diagnosticCode.replace(/^[^;]*;\s*/, '').slice(0, 2000) : null,
      }),
    );
    if (recipients.length === 0)
      recipients.push({
        recipient: null,
        type: hard ? 'hard' : 'soft',
        status: hard ? '5.0.0' : '4.0.0',
        diagnostic: null,
      });
    return { kind: 'bounce', recipients, originalMessageId };
  }
  if (type === 'Complaint' && n.complaint) {
    const feedbackType =
      typeof n.complaint.complaintFeedbackType === 'string' ? n.complaint.complaintFeedbackType.toLowerCase() : 'abuse';
    if (feedbackType === 'not-spam') return null;
    const recipient = n.complaint.complainedRecipients?.[0]?.emailAddress;
    return {
      kind: 'complaint',
      feedbackType,
      recipient: typeof recipient === 'string' ? recipient.toLowerCase() : null,
      originalMessageId,
    };
  }
  return null;
}
