import { createSign, generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifiedDomain } from '../support/domains.js';
import { expectHardBounce, sentForFeedback } from '../support/feedback.js';
import { useMailServer } from '../support/mail-server.js';
import { emailRecord, messageIdOf } from '../support/sending.js';
import type { TestProject } from '../support/server.js';

// SendGrid's Signed Event Webhook: the test holds the key pair, gives the service the public key as
// SendGrid's settings page shows it (base64 DER), and signs each delivery as SendGrid does: ECDSA
// P-256, SHA-256 over the timestamp header followed by the raw body, the DER signature in base64.

const DOMAIN = 'mail.sendgrid.test';
const keys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const publicKey = keys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

const mail = useMailServer({ SENDGRID_WEBHOOK_PUBLIC_KEY: publicKey });
let main: TestProject;
let seq = 0;

beforeAll(async () => {
  main = await mail.server.project('sendgrid');
  await verifiedDomain(main.api, mail.dns, DOMAIN);
});

function signed(body: string, timestamp = String(Math.floor(Date.now() / 1000))) {
  const signer = createSign('SHA256');
  signer.update(timestamp + body);
  return {
    'x-twilio-email-event-webhook-signature': signer.sign(keys.privateKey, 'base64'),
    'x-twilio-email-event-webhook-timestamp': timestamp,
  };
}

async function post(events: unknown, headers?: Record<string, string>) {
  const body = typeof events === 'string' ? events : JSON.stringify(events);
  const res = await fetch(`${mail.server.url}/feedback/sendgrid`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(headers ?? signed(body)) },
    body,
  });
  return { status: res.status, body: await res.json() };
}

async function sendOne(to: string) {
  const { raw, ...sent } = await sentForFeedback(main.api, mail.sink, `news@${DOMAIN}`, to);
  return { ...sent, messageId: messageIdOf(raw)! };
}

/** An event as SendGrid's documentation shows it, about the message with `smtpId`. */
const event = (email: string, smtpId: string, fields: Record<string, unknown>) => ({
  email,
  timestamp: Math.floor(Date.now() / 1000),
  'smtp-id': smtpId,
  sg_event_id: `sg-event-${++seq}`,
  sg_message_id: `sg-message-${seq}.filter0001.16648.5515E0B88.0`,
  category: ['newsletter'],
  ...fields,
});

describe('POST /feedback/sendgrid', () => {
  it('applies a signed hard bounce as SES’s: bounced, unsubscribed, suppressed, one event; a repeat counts once', async () => {
    const to = `sg-bounce-${++seq}@rcpt.sendgrid.test`;
    const sent = await sendOne(to);
    const events = [
      event(to, sent.messageId, { event: 'processed' }),
      event(to, sent.messageId, {
        event: 'bounce',
        type: 'bounce',
        status: '5.1.1',
        reason: '550 5.1.1 The email account that you tried to reach does not exist',
        bounce_classification: 'Invalid Address',
      }),
    ];
    expect(await post(events)).toEqual({ status: 200, body: { received: true, applied: 1 } });
    expect(await post(events)).toEqual({ status: 200, body: { received: true, applied: 0 } });
    await expectHardBounce(main.api, sent, to);
  });

  it('applies a block as a soft bounce and a spam report as a complaint', async () => {
    const blocked = `sg-blocked-${++seq}@rcpt.sendgrid.test`;
    const first = await sendOne(blocked);
    const complainer = `sg-spam-${++seq}@rcpt.sendgrid.test`;
    const second = await sendOne(complainer);
    const res = await post([
      event(blocked, first.messageId, { event: 'bounce', type: 'blocked', status: '4.0.0', reason: 'Mailbox full' }),
      event(complainer, second.messageId, { event: 'spamreport' }),
    ]);
    expect(res).toEqual({ status: 200, body: { received: true, applied: 2 } });
    expect(await emailRecord(main.api, first.id)).toMatchObject({ status: 'bounced', bounceType: 'soft' });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(blocked)}`)).status).toBe(404);
    expect(await emailRecord(main.api, second.id)).toMatchObject({ complainedAt: expect.any(String) });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(complainer)}`)).body).toMatchObject({
      reason: 'complaint',
    });
  });

  it('refuses a wrong or missing signature with 401 and changes nothing', async () => {
    const to = `sg-forged-${++seq}@rcpt.sendgrid.test`;
    const sent = await sendOne(to);
    const body = JSON.stringify([event(to, sent.messageId, { event: 'bounce', type: 'bounce', status: '5.1.1' })]);
    const honest = signed(body);
    const tampered = body.replace('5.1.1', '5.1.2');
    expect((await post(tampered, honest)).status).toBe(401);
    expect((await post(body, { ...honest, 'x-twilio-email-event-webhook-timestamp': '1' })).status).toBe(401);
    const missing = await post(body, {});
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('INVALID_SIGNATURE');
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const stranger = createSign('SHA256').update(`${honest['x-twilio-email-event-webhook-timestamp']}${body}`);
    expect(
      (await post(body, { ...honest, 'x-twilio-email-event-webhook-signature': stranger.sign(otherKey, 'base64') }))
        .status,
    ).toBe(401);
    expect((await emailRecord(main.api, sent.id)).status).toBe('sent');
    expect((await main.api.get(`/suppressions/${encodeURIComponent(to)}`)).status).toBe(404);
  });

  it('answers 400 to a signed body that is no event array, and ignores mail it did not send', async () => {
    expect((await post('{"not":"an array"}')).status).toBe(400);
    expect((await post('not json')).status).toBe(400);
    const unknown = [
      event('x@rcpt.sendgrid.test', '<00000000-0000-4000-8000-000000000000@mail.sendgrid.test>', {
        event: 'bounce',
        type: 'bounce',
        status: '5.1.1',
      }),
      event('y@rcpt.sendgrid.test', '<14c5d75ce93.dfd.64b469@ismtpd-555>', { event: 'spamreport' }),
    ];
    expect(await post(unknown)).toEqual({ status: 200, body: { received: true, applied: 0 } });
  });
});
