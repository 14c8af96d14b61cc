import { beforeAll, describe, expect, it } from 'vitest';
import { verifiedDomain } from '../support/domains.js';
import { expectHardBounce, sentForFeedback } from '../support/feedback.js';
import { useMailServer } from '../support/mail-server.js';
import { emailRecord, headerBlock, verifyDkim } from '../support/sending.js';
import type { TestProject } from '../support/server.js';

// Postmark's Bounce and Spam Complaint webhooks, set up with basic-auth credentials. Postmark reports
// its own MessageID; our email id comes back in the Metadata it read from the X-PM-Metadata-* header
// the message reached it with, which the test takes from the message the relay (the sink) received.

const DOMAIN = 'mail.postmark.test';
const CREDENTIALS = 'postmark:webhook-password-0123456789';

const mail = useMailServer({ POSTMARK_WEBHOOK_CREDENTIALS: CREDENTIALS });
let main: TestProject;
let seq = 0;

beforeAll(async () => {
  main = await mail.server.project('postmark');
  await verifiedDomain(main.api, mail.dns, DOMAIN);
});

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

async function post(record: unknown, authorization: string | null = basic(CREDENTIALS)) {
  const res = await fetch(`${mail.server.url}/feedback/postmark`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: typeof record === 'string' ? record : JSON.stringify(record),
  });
  return { status: res.status, body: await res.json() };
}

async function sendOne(to: string) {
  const sent = await sentForFeedback(main.api, mail.sink, `news@${DOMAIN}`, to);
  return { ...sent, metadata: /^X-PM-Metadata-postbox-email-id:\s*(\S+)/im.exec(headerBlock(sent.raw))?.[1] };
}

/** A record as Postmark posts it, with the metadata the message carried. */
const bounce = (email: string, metadata: string | undefined, fields: Record<string, unknown> = {}) => ({
  RecordType: 'Bounce',
  ID: 4_000_000_000 + ++seq,
  Type: 'HardBounce',
  TypeCode: 1,
  Name: 'Hard bounce',
  Tag: '',
  MessageID: `5d2c7f0e-0000-4000-8000-${String(seq).padStart(12, '0')}`,
  ServerID: 23,
  MessageStream: 'outbound',
  Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
  Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
  Email: email,
  From: `news@${DOMAIN}`,
  BouncedAt: new Date().toISOString(),
  DumpAvailable: false,
  Inactive: true,
  CanActivate: true,
  Subject: 'Hello',
  Metadata: metadata ? { 'postbox-email-id': metadata } : {},
  ...fields,
});

describe('POST /feedback/postmark', () => {
  it('hands our email id to Postmark as metadata, in a header the DKIM signature does not cover', async () => {
    const sent = await sendOne(`pm-header-${++seq}@rcpt.postmark.test`);
    expect(sent.metadata).toBe(sent.id);
    const dkim = await verifyDkim(sent.raw, mail.dns);
    expect(dkim.results.map((r) => r.status.result)).toEqual(['pass']);
    // Postmark strips its X-PM-* headers before delivery: a signature over one would break.
    const signedFields = /^DKIM-Signature:.*?\bh=([^;]+)/im.exec(headerBlock(sent.raw))?.[1];
    expect(signedFields?.toLowerCase()).toContain('message-id');
    expect(signedFields?.toLowerCase()).not.toContain('x-pm-metadata');
  });

  it('applies a hard bounce named by the metadata: bounced, unsubscribed, suppressed, one event; a repeat counts once', async () => {
    const to = `pm-bounce-${++seq}@rcpt.postmark.test`;
    const sent = await sendOne(to);
    const record = bounce(to, sent.metadata);
    expect(await post(record)).toEqual({ status: 200, body: { received: true, applied: 1 } });
    expect(await post(record)).toEqual({ status: 200, body: { received: true, applied: 0 } });
    await expectHardBounce(main.api, sent, to);
  });

  it('applies a soft bounce without suppressing, a spam complaint as a complaint, and ignores a delay', async () => {
    const full = `pm-soft-${++seq}@rcpt.postmark.test`;
    const first = await sendOne(full);
    const complainer = `pm-spam-${++seq}@rcpt.postmark.test`;
    const second = await sendOne(complainer);
    const delayed = `pm-delay-${++seq}@rcpt.postmark.test`;
    const third = await sendOne(delayed);
    expect(await post(bounce(delayed, third.metadata, { Type: 'Transient', TypeCode: 2 }))).toEqual({
      status: 200,
      body: { received: true, applied: 0 },
    });
    expect((await emailRecord(main.api, third.id)).status).toBe('sent');
    const soft = bounce(full, first.metadata, {
      Type: 'SoftBounce',
      TypeCode: 4096,
      Details: '452 4.2.2 Mailbox full',
    });
    expect(await post(soft)).toEqual({ status: 200, body: { received: true, applied: 1 } });
    expect(await emailRecord(main.api, first.id)).toMatchObject({ status: 'bounced', bounceType: 'soft' });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(full)}`)).status).toBe(404);
    const complaint = {
      RecordType: 'SpamComplaint',
      ID: 4_100_000_000 + seq,
      Type: 'SpamComplaint',
      TypeCode: 100001,
      MessageID: '5d2c7f0e-0000-4000-8000-ffffffffffff',
      Email: complainer,
      From: `news@${DOMAIN}`,
      BouncedAt: new Date().toISOString(),
      Subject: 'Hello',
      MessageStream: 'outbound',
      Metadata: { 'postbox-email-id': second.metadata },
    };
    expect(await post(complaint)).toEqual({ status: 200, body: { received: true, applied: 1 } });
    expect(await emailRecord(main.api, second.id)).toMatchObject({ complainedAt: expect.any(String) });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(complainer)}`)).body).toMatchObject({
      reason: 'complaint',
    });
    expect((await main.api.get(`/contacts/${second.contactId}`)).body.subscribed).toBe(false);
  });

  it('refuses wrong or missing credentials with 401 before reading the body, and changes nothing', async () => {
    const to = `pm-forged-${++seq}@rcpt.postmark.test`;
    const sent = await sendOne(to);
    const record = bounce(to, sent.metadata);
    const missing = await post(record, null);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('INVALID_CREDENTIALS');
    expect((await post(record, basic('postmark:webhook-password-012345678'))).status).toBe(401);
    expect((await post(record, `Bearer ${CREDENTIALS}`)).status).toBe(401);
    expect((await post('not json', null)).status).toBe(401);
    expect((await emailRecord(main.api, sent.id)).status).toBe('sent');
    expect((await main.api.get(`/suppressions/${encodeURIComponent(to)}`)).status).toBe(404);
  });

  it('answers 400 to what is no Postmark record, and applies nothing the metadata does not truly name', async () => {
    expect((await post('not json')).status).toBe(400);
    const array = await post([bounce('x@rcpt.postmark.test', undefined)]);
    expect(array.status).toBe(400);
    expect(array.body.error.code).toBe('INVALID_NOTIFICATION');
    const to = `pm-other-${++seq}@rcpt.postmark.test`;
    const sent = await sendOne(to);
    // Another address than the email was sent to, an id that is no email, no metadata at all.
    expect(await post(bounce('someone-else@rcpt.postmark.test', sent.metadata))).toEqual({
      status: 200,
      body: { received: true, applied: 0 },
    });
    expect(await post(bounce(to, '00000000-0000-4000-8000-000000000000'))).toEqual({
      status: 200,
      body: { received: true, applied: 0 },
    });
    expect(await post(bounce(to, 'not-an-id'))).toEqual({ status: 200, body: { received: true, applied: 0 } });
    expect(await post(bounce(to, undefined))).toEqual({ status: 200, body: { received: true, applied: 0 } });
    expect((await emailRecord(main.api, sent.id)).status).toBe('sent');
  });
});
