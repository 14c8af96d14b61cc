import type { Report } from './reports.js';

/**
 * The bounces and complaints in a SendGrid Event Webhook delivery (a JSON array of events):
 * `bounce` events of type `bounce` are hard (SendGrid's permanent failures; `status` 5.x.x), of type
 * `blocked` soft (a temporary refusal it stopped retrying); `spamreport` is an abuse complaint. Each
 * names our message by `smtp-id`, the Message-ID the message was relayed with. Other events
 * (delivered, deferred, dropped, opens, clicks) are not reports and are left out.
 */
export function sendgridReports(events: unknown): Exclude<Report, { kind: 'notice' }>[] {
  if (!Array.isArray(events)) return [];
  const reports: Exclude<Report, { kind: 'notice' }>[] = [];
  for (const event of events) {
    if (!event || typeof event !== 'object') continue;
    const e = event as Record<string, unknown>;
    const email = typeof e.email === 'string' ? e.email.toLowerCase() : null;
    const rawId = e['smtp-id'];
    const originalMessageId = typeof rawId === 'string' ? (/<([^>\s]+)>/.exec(rawId)?.[1] ?? rawId.trim()) : null;
    if (e.event === 'bounce') {
      const hard = e.type !== 'blocked';
      const status =
        typeof e.status === 'string' && /^[45]\.\d+\.\d+$/.test(e.status) ? e.status : hard ? '5.0.0' : '4.0.0';
      const diagnostic = typeof e.reason === 'string' ? e.reason.slice(0, 2000) : null;
      reports.push({
        kind: 'bounce',
        recipients: [{ recipient: email, type: hard ? 'hard' : 'soft', status, diagnostic }],
        originalMessageId,
      });
    } else if (e.event === 'spamreport') {
      reports.push({ kind: 'complaint', feedbackType: 'abuse', recipient: email, originalMessageId });
    }
  }
  return reports;
}
