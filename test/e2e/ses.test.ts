import { createSign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { startMailServer, stopMailServer } from '../support/mail-server.js';
import { deliveredMessage, emailRecord, messageIdOf, recordWhen, sendOk } from '../support/sending.js';
import { eventually, type TestProject, type TestServer } from '../support/server.js';
import type { SmtpSink } from '../support/smtp-sink.js';

// Amazon SES reports bounces and complaints through an SNS HTTP subscription. A loopback server plays
// SNS's part: it serves the signing certificate and the subscription confirmation URL, and the test
// signs each message with the certificate's key exactly as SNS does.

const DOMAIN = 'mail.ses.test';
let dns: DnsServer;
let sink: SmtpSink;
let sns: http.Server;
let snsOrigin: string;
let server: TestServer;
let main: TestProject;
let signingKey: string;
const confirmations: string[] = [];

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'sns.test' }], { keySize: 2048, algorithm: 'sha256' });
  signingKey = pems.private;
  sns = http.createServer((req, res) => {
    if (req.url === '/cert.pem') return res.end(pems.cert);
    if (req.url?.startsWith('/confirm')) {
      confirmations.push(req.url);
      return res.end('<ConfirmSubscriptionResponse/>');
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => sns.listen(0, '127.0.0.1', resolve));
  snsOrigin = `http://127.0.0.1:${(sns.address() as AddressInfo).port}`;
  ({ dns, sink, server } = await startMailServer({ SNS_TRUSTED_ORIGIN: snsOrigin }));
  main = await server.project('ses');
  await verifiedDomain(main.api, dns, DOMAIN);
});
afterAll(async () => {
  await stopMailServer({ server, sink, dns });
  await new Promise((r) => sns?.close(r));
});

let seq = 0;

/** An SNS message signed as SNS signs it (SignatureVersion 2: SHA256withRSA over the canonical fields). */
function snsMessage(
  type: 'Notification' | 'SubscriptionConfirmation',
  message: string,
  extra: Record<string, string> = {},
) {
  const m: Record<string, string> = {
    Type: type,
    MessageId: `msg-${++seq}`,
    TopicArn: 'arn:aws:sns:eu-west-1:123456789012:ses-feedback',
    Message: message,
    Timestamp: new Date().toISOString(),
    SignatureVersion: '2',
    SigningCertURL: `${snsOrigin}/cert.pem`,
    ...extra,
  };
  const fields =
    type === 'Notification'
      ? ['Message', 'MessageId', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const signer = createSign('RSA-SHA256');
  signer.update(fields.map((f) => `${f}\n${m[f]}\n`).join(''));
  return { ...m, Signature: signer.sign(signingKey, 'base64') };
}

async function post(body: unknown) {
  const res = await fetch(`${server.url}/feedback/ses`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function sendOne(to: string) {
  const data = await sendOk(main.api, {
    to,
    from: `news@${DOMAIN}`,
    subject: 'Hello',
    body: '<p>Hi</p>',
    subscribed: true,
  });
  const id = data.emails[0]!.email;
  const message = await deliveredMessage(sink, id);
  await recordWhen(main.api, id, (r) => r.status === 'sent');
  return { id, contactId: data.emails[0]!.contact.id as string, messageId: messageIdOf(message.raw)! };
}

const bounce = (to: string, messageId: string, bounceType = 'Permanent') =>
  JSON.stringify({
    notificationType: 'Bounce',
    bounce: {
      bounceType,
      bounceSubType: 'General',
      bouncedRecipients: [
        {
          emailAddress: to,
          action: 'failed',
          status: bounceType === 'Permanent' ? '5.1.1' : '4.4.7',
          diagnosticCode: 'smtp; 550 5.1.1 user unknown',
        },
      ],
      timestamp: new Date().toISOString(),
    },
    mail: { messageId: '0100018c-ses-id', source: `news@${DOMAIN}`, destination: [to], commonHeaders: { messageId } },
  });

describe('POST /feedback/ses', () => {
  it('applies a signed SES bounce: the email bounces, the contact is unsubscribed and the address suppressed', async () => {
    const to = `ses-bounce-${++seq}@rcpt.ses.test`;
    const sent = await sendOne(to);
    const res = await post(snsMessage('Notification', bounce(to, sent.messageId)));
    expect(res).toEqual({ status: 200, body: { received: true } });
    expect(await emailRecord(main.api, sent.id)).toMatchObject({
      status: 'bounced',
      bounceType: 'hard',
      lastError: expect.stringContaining('5.1.1'),
    });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(to)}`)).body).toMatchObject({
      email: to,
      reason: 'bounce',
      emailId: sent.id,
    });
    expect((await main.api.get(`/contacts/${sent.contactId}`)).body.subscribed).toBe(false);
    const events = await eventually(async () => {
      const r = await main.api.get(`/events/contact/${sent.contactId}?name=email.bounced`);
      return r.body.data.length ? r.body.data : undefined;
    });
    expect(events[0].data).toMatchObject({ emailId: sent.id, bounceType: 'hard', status: '5.1.1' });
  });

  it('applies a transient bounce as soft and a complaint, each once', async () => {
    const to = `ses-soft-${++seq}@rcpt.ses.test`;
    const sent = await sendOne(to);
    expect((await post(snsMessage('Notification', bounce(to, sent.messageId, 'Transient')))).status).toBe(200);
    expect(await emailRecord(main.api, sent.id)).toMatchObject({ status: 'bounced', bounceType: 'soft' });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(to)}`)).status).toBe(404);

    const complainer = `ses-complaint-${++seq}@rcpt.ses.test`;
    const other = await sendOne(complainer);
    const complaint = JSON.stringify({
      notificationType: 'Complaint',
      complaint: {
        complainedRecipients: [{ emailAddress: complainer }],
        complaintFeedbackType: 'abuse',
        timestamp: new Date().toISOString(),
      },
      mail: { messageId: 'ses-2', headers: [{ name: 'Message-ID', value: other.messageId }], commonHeaders: {} },
    });
    expect((await post(snsMessage('Notification', complaint))).status).toBe(200);
    expect((await post(snsMessage('Notification', complaint))).status).toBe(200);
    const record = await emailRecord(main.api, other.id);
    expect(record).toMatchObject({ status: 'sent', complainedAt: expect.any(String) });
    expect((await main.api.get(`/suppressions/${encodeURIComponent(complainer)}`)).body).toMatchObject({
      reason: 'complaint',
    });
    await eventually(async () =>
      (await main.api.get(`/events/contact/${other.contactId}?name=email.complained`)).body.total === 1
        ? true
        : undefined,
    );
  });

  it('refuses a message whose signature does not verify, or whose certificate is not from SNS, and changes nothing', async () => {
    const to = `ses-forged-${++seq}@rcpt.ses.test`;
    const sent = await sendOne(to);
    const signed = snsMessage('Notification', bounce(to, sent.messageId));
    expect((await post({ ...signed, Message: bounce(to, sent.messageId, 'Transient') })).status).toBe(403);
    const elsewhere = snsMessage('Notification', bounce(to, sent.messageId), {
      SigningCertURL: 'https://evil.example/cert.pem',
    });
    expect((await post(elsewhere)).status).toBe(403);
    const plainHttpSns = snsMessage('Notification', bounce(to, sent.messageId), {
      SigningCertURL: 'http://sns.eu-west-1.amazonaws.com/cert.pem',
    });
    expect((await post(plainHttpSns)).status).toBe(403);
    expect((await emailRecord(main.api, sent.id)).status).toBe('sent');
    expect((await main.api.get(`/suppressions/${encodeURIComponent(to)}`)).status).toBe(404);
  });

  it('answers 400 to what is no SNS message, and ignores notifications about mail it did not send', async () => {
    expect((await post('not json')).status).toBe(400);
    expect((await post({ Type: 'Notification' })).status).toBe(400);
    const unknown = snsMessage(
      'Notification',
      bounce('x@rcpt.ses.test', '<00000000-0000-4000-8000-000000000000@mail.ses.test>'),
    );
    expect(await post(unknown)).toEqual({ status: 200, body: { received: true } });
    expect((await post(snsMessage('Notification', 'a test message from the console'))).status).toBe(200);
  });

  it('confirms a subscription by visiting its SubscribeURL', async () => {
    const before = confirmations.length;
    const res = await post(
      snsMessage('SubscriptionConfirmation', 'You have chosen to subscribe', {
        Token: 'tok-1',
        SubscribeURL: `${snsOrigin}/confirm?Token=tok-1`,
      }),
    );
    expect(res.status).toBe(200);
    expect(confirmations.slice(before)).toEqual(['/confirm?Token=tok-1']);
    const untrusted = snsMessage('SubscriptionConfirmation', 'x', {
      Token: 'tok-2',
      SubscribeURL: 'https://evil.example/confirm',
    });
    expect((await post(untrusted)).status).toBe(400);
    expect(confirmations.length).toBe(before + 1);
  });
});
