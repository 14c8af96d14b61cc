import type { RelayReport } from './reports.js';

/**
 * The reports in a Brevo transactional webhook delivery: one event object, or an array of them when
 * the webhook is batched. `hard_bounce` is a hard bounce, `soft_bounce` a soft one (a refusal Brevo
 * stopped at), `spam` (and `complaint`) an abuse complaint, each with `reason` as its diagnostic.
 * Events Brevo reports about itself or still retries (`deferred`, `blocked`, `invalid_email`,
 * `error`) are no bounce, nor are deliveries, opens and clicks. The message is named by the
 * `X-Mailin-custom` value it carried (our email id), or else by `message-id` when that is ours.
 */
export function brevoReports(body: unknown): RelayReport[] {
  const events = Array.isArray(body) ? body : [body];
  const reports: RelayReport[] = [];
  for (const event of events) {
    if (!event || typeof event !== 'object') continue;
    const e = event as Record<string, unknown>;
    const recipient = typeof e.email === 'string' ? e.email.trim().toLowerCase() : null;
    const custom = e['X-Mailin-custom'];
    const emailId = typeof custom === 'string' && custom.trim() !== '' ? custom.trim() : null;
    const rawId = e['message-id'];
    const originalMessageId = typeof rawId === 'string' ? (/<([^>\s]+)>/.exec(rawId)?.[1] ?? rawId.trim()) : null;
    if (e.event === 'hard_bounce' || e.event === 'soft_bounce') {
      const hard = e.event === 'hard_bounce';
      const reason = typeof e.reason === 'string' ? e.reason.trim() : '';
      const code = /\b([45])\.\d{1,3}\.\d{1,3}\b/.exec(reason)?.[0];
      const status = code?.startsWith(hard ? '5' : '4') ? code : hard ? '5.0.0' : '4.0.0';
      reports.push({
        report: {
          kind: 'bounce',
          recipients: [{ recipient, type: hard ? 'hard' : 'soft', status, diagnostic: reason.slice(0, 2000) || null }],
          originalMessageId,
        },
        emailId,
      });
    } else if (e.event === 'spam' || e.event === 'complaint') {
      reports.push({ report: { kind: 'complaint', feedbackType: 'abuse', recipient, originalMessageId }, emailId });
    }
  }
  return reports;
}

/** Whether a body is shaped as Brevo's events are: an event object, or a non-empty array of them. */
export function isBrevoDelivery(body: unknown): boolean {
  const isEvent = (e: unknown) =>
    !!e && typeof e === 'object' && !Array.isArray(e) && typeof (e as { event?: unknown }).event === 'string';
  return Array.isArray(body) ? body.length > 0 && body.every(isEvent) : isEvent(body);
}
