import { createHmac, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifiedDomain } from '../support/domains.js';
import { expectHardBounce, sentForFeedback } from '../support/feedback.js';
import { useMailServer } from '../support/mail-server.js';
import { emailRecord, headerBlock, messageIdOf } from '../support/sending.js';
import type { TestProject } from '../support/server.js';

// Mailgun's webhooks: the test holds the signing key and signs each event as Mailgun does, the
// HMAC-SHA256 of timestamp and token in the body's `signature` object.

const DOMAIN = 'mail.mailgun.test';
const KEY = randomBytes(16).toString('hex');

const mail = useMailServer({ MAILGUN_WEBHOOK_SIGNING_KEY: KEY });
let main: TestProject;
let seq = 0;

beforeAll(async () => {
  main = await mail.server.project('mailgun');
  await verifiedDomain(main.api, mail.dns, DOMAIN);
});

function signature(key = KEY) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const token = randomBytes(25).toString('hex');
  return {
    timestamp,
    token,
    signature: createHmac('sha256', key)
      .update(timestamp + token)
      .digest('hex'),
  };
}

async function post(body: unknown) {
  const res = await fetch(`${mail.server.url}/feedback/mailgun`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function sendOne(to: string) {
  const { raw, ...sent } = await sentForFeedback(main.api, mail.sink, `news@${DOMAIN}`, to);
  // Mailgun reports the Message-ID without its angle brackets.
  const messageId = messageIdOf(raw)!.slice(1, -1);
  // Metadata headers for other relays go out only when their webhooks are configured.
  expect(headerBlock(raw)).not.toMatch(/X-PM-Metadata|X-Mailin-custom/i);
  return { ...sent, messageId };
}

/** An event as Mailgun posts it, about the message with `messageId`. */
const event = (recipient: string, messageId: string, fields: Record<string, unknown>) => ({
  signature: signature(),
  'event-data': {
    id: `mg-event-${++seq}`,
    timestamp: Date.now() / 1000,
    'log-level': 'error',
    recipient,
    'recipient-domain': recipient.split('@')[1],
    envelope: { transport: 'smtp', sender: `news@${DOMAIN}`, targets: recipient },
    message: { headers: { to: recipient, 'message-id': messageId, from: `news@${DOMAIN}`, subject: 'Hello' } },
    'user-variables': {},
    ...fields,
  },
});

describe('POST /feedback/mailgun', () => {
  it('applies a signed permanent failure: bounced, unsubscribed, suppressed, one event; a repeat counts once', async () => {
    const to = `mg-bounce-${++seq}@rcpt.mailgun.test`;
    const sent = await sendOne(to);
    const failed = event(to, sent.messageId, {
      event: 'failed',
      severity: 'permanent',
      reason: 'bounce',
      'delivery-status': {
        code: 550,
        'enhanced-code': '5.1.1',
        message: '5.1.1 The email account that you tried to reach does not exist',
        description: '',
        'attempt-no': 1,
      },
    });
    expect(await post(failed)).toEqual({ status: 200, body: { received: true, applied: 1 } });
    expect(await post(failed)).toEqual({ status: 200, body: { received: true, applied: 0 } });
    await expectHardBounce(main.api, sent, to);
  });

  it('ignores a temporary failure, and applies a complaint', async () => {
    const deferred = `mg-deferred-${++seq}@rcpt.mailgun.test`;
    const first = await sendOne(deferred);
    const complainer = `mg-spam-${++seq}@rcpt.mailgun.test`;
    const second = await sendOne(complainer);
    const temporary = event(deferred, first.messageId, {
      event: 'failed',
      severity: 'temporary',
      reason: 'generic',
      'delivery-status': { code: 451, message: '4.7.1 Try again later', 'attempt-no': 1 },
    });
    expect(await post(temporary)).toEqual({ status: 200, body: { received: true, applied: 0 } });
    expect((await emailRecord(main.api, first.id)).status).toBe('sent');
    expect(await post(event(complainer, second.messageId, { event: 'complained' }))).toEqual({
      status: 200,
      body: { received: true, applied: 1 },
    });
    expect(await emailRecord(main.api, second.id)).toMatchObject({ complainedAt: expect.any(String) });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(complainer)}`)).body).toMatchObject({
      reason: 'complaint',
    });
    expect((await main.api.get(`/contacts/${second.contactId}`)).body.subscribed).toBe(false);
  });

  it('refuses a wrong or missing signature with 401 and changes nothing', async () => {
    const to = `mg-forged-${++seq}@rcpt.mailgun.test`;
    const sent = await sendOne(to);
    const honest = event(to, sent.messageId, { event: 'failed', severity: 'permanent', reason: 'bounce' });
    const stranger = { ...honest, signature: signature('not-the-key') };
    const missing = await post({ 'event-data': honest['event-data'] });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('INVALID_SIGNATURE');
    expect((await post(stranger)).status).toBe(401);
    expect((await post({ ...honest, signature: { ...honest.signature, token: 'x'.repeat(50) } })).status).toBe(401);
    expect((await emailRecord(main.api, sent.id)).status).toBe('sent');
    expect((await main.api.get(`/suppressions/${encodeURIComponent(to)}`)).status).toBe(404);
  });

  it('answers 400 to a body that is no signed event, and ignores mail it did not send', async () => {
    const notJson = await post('not json');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toBeDefined();
    const noEvent = await post({ signature: signature() });
    expect(noEvent.status).toBe(400);
    expect(noEvent.body.error.code).toBe('INVALID_NOTIFICATION');
    const unknown = event('x@rcpt.mailgun.test', `00000000-0000-4000-8000-000000000000@${DOMAIN}`, {
      event: 'failed',
      severity: 'permanent',
    });
    expect(await post(unknown)).toEqual({ status: 200, body: { received: true, applied: 0 } });
    const foreign = event('y@rcpt.mailgun.test', '20260203192638.000be97f99f8cea1@sample.mailgun.org', {
      event: 'complained',
    });
    expect(await post(foreign)).toEqual({ status: 200, body: { received: true, applied: 0 } });
  });

  it('has no endpoint for a relay whose credentials are not configured', async () => {
    for (const relay of ['postmark', 'brevo', 'sendgrid']) {
      const res = await fetch(`${mail.server.url}/feedback/${relay}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(404);
    }
  });
});
