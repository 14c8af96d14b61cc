import { beforeAll, describe, expect, it } from 'vitest';
import { verifiedDomain } from '../support/domains.js';
import { expectHardBounce, sentForFeedback } from '../support/feedback.js';
import { useMailServer } from '../support/mail-server.js';
import { emailRecord, headerBlock, messageIdOf } from '../support/sending.js';
import type { TestProject } from '../support/server.js';

// Brevo's transactional webhooks, with basic-auth credentials in the URL (sent as an Authorization
// header). Brevo reports the X-Mailin-custom value the message reached it with, which the test takes
// from the message the relay (the sink) received.

const DOMAIN = 'mail.brevo.test';
const CREDENTIALS = 'brevo:webhook-password-0123456789';

const mail = useMailServer({ BREVO_WEBHOOK_CREDENTIALS: CREDENTIALS });
let main: TestProject;
let seq = 0;

beforeAll(async () => {
  main = await mail.server.project('brevo');
  await verifiedDomain(main.api, mail.dns, DOMAIN);
});

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

async function post(body: unknown, authorization: string | null = basic(CREDENTIALS)) {
  const res = await fetch(`${mail.server.url}/feedback/brevo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function sendOne(to: string) {
  const { raw, ...sent } = await sentForFeedback(main.api, mail.sink, `news@${DOMAIN}`, to);
  const custom = /^X-Mailin-custom:\s*(\S+)/im.exec(headerBlock(raw))?.[1];
  expect(headerBlock(raw)).not.toMatch(/X-PM-Metadata/i);
  return { ...sent, custom, messageId: messageIdOf(raw)! };
}

/** An event as Brevo posts it; its `message-id` is Brevo's own unless given. */
const event = (email: string, custom: string | undefined, fields: Record<string, unknown>) => ({
  id: 812345,
  email,
  date: '2026-11-27 18:00:00',
  ts: Math.floor(Date.now() / 1000),
  'message-id': `<202611271800.${++seq}@smtp-relay.mailin.fr>`,
  ts_event: Math.floor(Date.now() / 1000),
  subject: 'Hello',
  ...(custom ? { 'X-Mailin-custom': custom } : {}),
  sending_ip: '185.41.28.109',
  ts_epoch: Date.now(),
  tags: [],
  ...fields,
});

describe('POST /feedback/brevo', () => {
  it('applies a hard bounce named by X-Mailin-custom: bounced, unsubscribed, suppressed, one event; a repeat counts once', async () => {
    const to = `br-bounce-${++seq}@rcpt.brevo.test`;
    const sent = await sendOne(to);
    expect(sent.custom).toBe(sent.id);
    const hard = event(to, sent.custom, {
      event: 'hard_bounce',
      reason: '550 5.1.1 <recipient>: Recipient address rejected: User unknown in virtual mailbox table',
    });
    expect(await post(hard)).toEqual({ status: 200, body: { received: true, applied: 1 } });
    expect(await post(hard)).toEqual({ status: 200, body: { received: true, applied: 0 } });
    await expectHardBounce(main.api, sent, to);
  });

  it('applies a batch: a soft bounce unsuppressed, a spam complaint, a deferral ignored; our Message-ID names one too', async () => {
    const full = `br-soft-${++seq}@rcpt.brevo.test`;
    const first = await sendOne(full);
    const complainer = `br-spam-${++seq}@rcpt.brevo.test`;
    const second = await sendOne(complainer);
    const slow = `br-deferred-${++seq}@rcpt.brevo.test`;
    const third = await sendOne(slow);
    const batch = [
      event(full, first.custom, { event: 'soft_bounce', reason: '452 4.2.2 Mailbox full' }),
      // No X-Mailin-custom (a sender's own value stood, say), but the Message-ID Brevo kept is ours.
      event(complainer, undefined, { event: 'spam', 'message-id': second.messageId }),
      event(slow, third.custom, { event: 'deferred', reason: '421 Try again later' }),
    ];
    expect(await post(batch)).toEqual({ status: 200, body: { received: true, applied: 2 } });
    expect(await emailRecord(main.api, first.id)).toMatchObject({ status: 'bounced', bounceType: 'soft' });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(full)}`)).status).toBe(404);
    expect(await emailRecord(main.api, second.id)).toMatchObject({ complainedAt: expect.any(String) });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(complainer)}`)).body).toMatchObject({
      reason: 'complaint',
    });
    expect((await main.api.get(`/contacts/${second.contactId}`)).body.subscribed).toBe(false);
    expect((await emailRecord(main.api, third.id)).status).toBe('sent');
  });

  it('refuses wrong or missing credentials with 401 before reading the body, and changes nothing', async () => {
    const to = `br-forged-${++seq}@rcpt.brevo.test`;
    const sent = await sendOne(to);
    const hard = event(to, sent.custom, { event: 'hard_bounce', reason: '550 5.1.1 User unknown' });
    const missing = await post(hard, null);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('INVALID_CREDENTIALS');
    expect((await post(hard, basic('brevo:webhook-password-012345678X'))).status).toBe(401);
    expect((await post('not json', null)).status).toBe(401);
    expect((await emailRecord(main.api, sent.id)).status).toBe('sent');
    expect((await main.api.get(`/suppressions/${encodeURIComponent(to)}`)).status).toBe(404);
  });

  it('answers 400 to what is no Brevo event, and applies nothing about mail it did not send', async () => {
    expect((await post('not json')).status).toBe(400);
    const empty = await post([]);
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('INVALID_NOTIFICATION');
    expect((await post({ email: 'x@rcpt.brevo.test' })).status).toBe(400);
    const to = `br-other-${++seq}@rcpt.brevo.test`;
    const sent = await sendOne(to);
    expect(
      await post([
        event('someone-else@rcpt.brevo.test', sent.custom, { event: 'hard_bounce' }),
        event(to, '00000000-0000-4000-8000-000000000000', { event: 'hard_bounce' }),
        event(to, undefined, { event: 'spam' }),
      ]),
    ).toEqual({ status: 200, body: { received: true, applied: 0 } });
    expect((await emailRecord(main.api, sent.id)).status).toBe('sent');
  });
});
