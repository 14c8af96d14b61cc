import { expect } from 'vitest';
import { deliveredMessage, emailRecord, recordWhen, sendOk } from './sending.js';
import { type Client, eventually } from './server.js';
import type { SmtpSink } from './smtp-sink.js';

/** An email sent to `to` from `from`, delivered to the sink and recorded as sent: what a relay later reports on. */
export async function sentForFeedback(api: Client, sink: SmtpSink, from: string, to: string) {
  const data = await sendOk(api, { to, from, subject: 'Hello', body: '<p>Hi</p>', subscribed: true });
  const id = data.emails[0]!.email as string;
  const message = await deliveredMessage(sink, id);
  await recordWhen(api, id, (r) => r.status === 'sent');
  return { id, contactId: data.emails[0]!.contact.id as string, raw: message.raw };
}

/**
 * A hard bounce applied as every feedback source applies one: the email bounced with the status in
 * its error, the address suppressed, the contact unsubscribed, and one `email.bounced` event.
 */
export async function expectHardBounce(
  api: Client,
  sent: { id: string; contactId: string },
  to: string,
  status = '5.1.1',
): Promise<void> {
  expect(await emailRecord(api, sent.id)).toMatchObject({
    status: 'bounced',
    bounceType: 'hard',
    lastError: expect.stringContaining(status),
  });
  expect((await api.get(`/suppressions/${encodeURIComponent(to)}`)).body).toMatchObject({
    email: to,
    reason: 'bounce',
    emailId: sent.id,
  });
  expect((await api.get(`/contacts/${sent.contactId}`)).body.subscribed).toBe(false);
  const bounced = await eventually(async () => {
    const r = await api.get(`/events/contact/${sent.contactId}?name=email.bounced`);
    return r.body.data.length ? r.body : undefined;
  });
  expect(bounced.total).toBe(1);
  expect(bounced.data[0].data).toMatchObject({ emailId: sent.id, bounceType: 'hard', status });
}
