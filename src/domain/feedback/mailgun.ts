import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Report } from './reports.js';

/**
 * Mailgun's webhooks (the current ones: one JSON object per event, `{signature, event-data}`).
 * The signature is in the body: HMAC-SHA256, keyed with the webhook signing key, of the timestamp
 * followed by the token, in hex. A subaccount's event also carries `parent-signature`, the same
 * over the primary account's key; either verifies.
 */
export function mailgunSignatureValid(signingKey: string, body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const signature = (body as Record<string, unknown>).signature;
  if (!signature || typeof signature !== 'object') return false;
  const s = signature as Record<string, unknown>;
  const timestamp = typeof s.timestamp === 'number' ? String(s.timestamp) : s.timestamp;
  if (typeof timestamp !== 'string' || typeof s.token !== 'string') return false;
  const expected = createHmac('sha256', signingKey)
    .update(timestamp + s.token)
    .digest();
  return [s.signature, s['parent-signature']].some(
    (given) =>
      typeof given === 'string' &&
      /^[0-9a-f]{64}$/i.test(given) &&
      timingSafeEqual(Buffer.from(given, 'hex'), expected),
  );
}

/**
 * The report in a Mailgun event: `failed` with severity `permanent` is a bounce (hard, unless the
 * answer it gave up on was a 4xx: then soft, as a temporary refusal the relay stopped retrying);
 * `complained` is an abuse complaint. A `failed` event of severity `temporary` is a deferral that
 * Mailgun retries, like an `Action: delayed` notice, and is no report; nor are the other events.
 * The message is named by `message.headers.message-id`, the Message-ID it was relayed with (no
 * angle brackets). Null when the event is none of these.
 */
export function mailgunReport(eventData: unknown): Exclude<Report, { kind: 'notice' }> | null {
  if (!eventData || typeof eventData !== 'object') return null;
  // biome-ignore lint/suspicious/noExplicitAny: untyped JSON from Mailgun, read with optional chaining
  const e = eventData as Record<string, any>;
  const rawId: unknown = e.message?.headers?.['message-id'];
  const originalMessageId = typeof rawId === 'string' ? (/<([^>\s]+)>/.exec(rawId)?.[1] ?? rawId.trim()) : null;
  const recipient = typeof e.recipient === 'string' ? e.recipient.toLowerCase() : null;
  if (e.event === 'failed' && e.severity === 'permanent') {
    const delivery: Record<string, unknown> =
      e['delivery-status'] && typeof e['delivery-status'] === 'object' ? e['delivery-status'] : {};
    const code = typeof delivery.code === 'number' ? delivery.code : Number(delivery.code);
    const enhanced = delivery['enhanced-code'];
    const hard = !(code >= 400 && code < 500);
    const status =
      typeof enhanced === 'string' && /^[45]\.\d+\.\d+$/.test(enhanced) && enhanced.startsWith(hard ? '5' : '4')
        ? enhanced
        : hard
          ? '5.0.0'
          : '4.0.0';
    const text = [delivery.message, delivery.description].find((t) => typeof t === 'string' && t.trim() !== '');
    const diagnostic =
      typeof text === 'string'
        ? `${Number.isFinite(code) && !text.startsWith(String(code)) ? `${code} ` : ''}${text}`.slice(0, 2000)
        : typeof e.reason === 'string'
          ? e.reason.slice(0, 2000)
          : null;
    return {
      kind: 'bounce',
      recipients: [{ recipient, type: hard ? 'hard' : 'soft', status, diagnostic }],
      originalMessageId,
    };
  }
  if (e.event === 'complained') return { kind: 'complaint', feedbackType: 'abuse', recipient, originalMessageId };
  return null;
}
