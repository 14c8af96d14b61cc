import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Domain, EmailRecord, Suppression, TrackedEvent } from '../../src/api.js';
import { projectAndDomain, projectWithDomain, useMailServer } from '../support/mail-server.js';
import {
  deliveredMessage,
  emailRecord,
  messageIdOf,
  recordWhen,
  sendInbound,
  sendOk,
  sinkMessagesFor,
  sinkMessagesTo,
  UUID,
  uniqueAddresses,
} from '../support/sending.js';
import { type Client, eventually, expectBody, type TestProject } from '../support/server.js';
import type { ReceivedMessage } from '../support/smtp-sink.js';

// Bounces (RFC 3464 delivery status notifications) and complaints (RFC 5965 abuse reports) reach
// the service through its inbound SMTP listener, delivered with a real SMTP client; their effects
// are read back through the API.

const DOMAIN = 'mail.feedback.test';
const FROM = `hello@${DOMAIN}`;
const OTHER_DOMAIN = 'other.feedback.test';
const LISTS_DOMAIN = 'lists.feedback.test';
const SUPPRESSED = 'Not sent: the address is on the suppression list';

let main: TestProject;
let other: TestProject;
let domain: Domain;

const mail = useMailServer({ INBOUND_SMTP_PORT: '0', DELIVERY_RETRY_BASE_SECONDS: '0.2' });

beforeAll(async () => {
  [main, domain] = await projectAndDomain(mail, 'feedback-main', DOMAIN);
  other = await projectWithDomain(mail, 'feedback-other', OTHER_DOMAIN);
});

/** A recipient address no other test uses. */
const rcpt = uniqueAddresses('rcpt.feedback.test');

interface Sent {
  id: string;
  contactId: string;
  to: string;
  message: ReceivedMessage;
  /** The envelope sender the message went out with. */
  returnPath: string;
}

/** One transactional email through `/v1/send`, waited for at the sink. */
async function sendOne(to: string, api: Client = main.api, from = FROM): Promise<Sent> {
  const data = await sendOk(api, {
    to,
    from,
    subject: 'Your receipt',
    body: '<p>Thanks for your order.</p>',
    subscribed: true,
  });
  expect(data.emails).toHaveLength(1);
  const { email: id, contact } = data.emails[0]!;
  const message = await deliveredMessage(mail.sink, id);
  // A report is about a sent email: wait until the record says so.
  await recordWhen(api, id, (r) => r.status === 'sent');
  return { id, contactId: contact.id, to, message, returnPath: message.from };
}

function record(id: string, api: Client = main.api): Promise<EmailRecord> {
  return emailRecord(api, id);
}

async function eventsOf(contactId: string, name: string, api: Client = main.api): Promise<TrackedEvent[]> {
  const res = await api.get(`/events/contact/${contactId}?limit=100&name=${encodeURIComponent(name)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Waits for exactly one `name` event of the contact and returns it. */
async function oneEvent(contactId: string, name: string, api: Client = main.api): Promise<TrackedEvent> {
  const events = await eventually(async () => {
    const found = await eventsOf(contactId, name, api);
    return found.length > 0 ? found : undefined;
  });
  expect(events, JSON.stringify(events)).toHaveLength(1);
  return events[0]!;
}

async function contactOf(contactId: string, api: Client = main.api): Promise<{ subscribed: boolean }> {
  return expectBody(api.get(`/contacts/${contactId}`));
}

const suppressionOf = (email: string, api: Client = main.api) => api.get(`/suppressions/${encodeURIComponent(email)}`);

/** Delivers a raw message to the inbound listener over SMTP. */
function deliver(to: string[], raw: string, from = 'mailer-daemon@mx.example.net') {
  return sendInbound(mail.server, { from, to }, raw);
}

/** A delivery that must be accepted for every recipient. */
async function deliverOk(to: string[], raw: string, from?: string) {
  const info = await deliver(to, raw, from);
  expect(info.accepted).toEqual(to);
  expect(info.rejected).toEqual([]);
  expect(info.response).toMatch(/^250\b/);
}

/** The header block of a delivered message exactly as it went out (folding kept), for quoting. */
const originalHeaders = (m: ReceivedMessage) => m.raw.toString('utf8').split('\r\n\r\n')[0]!;

const crlf = (lines: string[]) => lines.join('\r\n');

/** The first headers of a report: its sender, recipient and subject, a date, a Message-ID at the sender's host. */
function reportHeaders(from: string, to: string, subject: string): string[] {
  const host = /@([^>\s]+)/.exec(from)![1];
  return [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${randomUUID()}@${host}>`,
  ];
}

/**
 * A delivery status notification as Postfix writes one. `original` is quoted as
 * `text/rfc822-headers`; without it the report has only its first two parts.
 */
function dsn(o: {
  to: string;
  recipient: string;
  status: string;
  diagnostic: string;
  action?: string;
  original?: string;
}): string {
  const boundary = `dsn.${randomUUID()}/mx.example.net`;
  return crlf([
    'Return-Path: <>',
    ...reportHeaders(
      'MAILER-DAEMON@mx.example.net (Mail Delivery System)',
      o.to,
      'Undelivered Mail Returned to Sender',
    ),
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status;',
    `\tboundary="${boundary}"`,
    '',
    'This is a MIME-encapsulated message.',
    '',
    `--${boundary}`,
    'Content-Description: Notification',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.example.net.',
    '',
    "I'm sorry to have to inform you that your message could not",
    'be delivered to one or more recipients.',
    '',
    `<${o.recipient}>: host mx.rcpt.feedback.test[192.0.2.25] said: ${o.diagnostic}`,
    '',
    `--${boundary}`,
    'Content-Description: Delivery report',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    'X-Postfix-Queue-ID: 4Xk2pQ1m7Tz9sV',
    `Arrival-Date: ${new Date().toUTCString()}`,
    '',
    `Final-Recipient: rfc822; ${o.recipient}`,
    `Original-Recipient: rfc822;${o.recipient}`,
    `Action: ${o.action ?? 'failed'}`,
    `Status: ${o.status}`,
    'Remote-MTA: dns; mx.rcpt.feedback.test',
    `Diagnostic-Code: smtp; ${o.diagnostic}`,
    '',
    ...(o.original
      ? [
          `--${boundary}`,
          'Content-Description: Undelivered Message Headers',
          'Content-Type: text/rfc822-headers',
          '',
          o.original,
          '',
        ]
      : []),
    `--${boundary}--`,
    '',
  ]);
}

/** An ARF abuse report as a mailbox provider's feedback loop sends one, quoting the whole message. */
function arf(o: { to: string; recipient: string; original: Buffer; feedbackType?: string }): string {
  const boundary = `----=_arf_${randomUUID()}`;
  return crlf([
    ...reportHeaders('Feedback Loop <fbl@isp.example.net>', o.to, 'FW: Your receipt'),
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset="US-ASCII"',
    'Content-Transfer-Encoding: 7bit',
    '',
    'This is an email abuse report for an email message received from IP 192.0.2.1.',
    '',
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${o.feedbackType ?? 'abuse'}`,
    'User-Agent: ExampleFBL/2.1',
    'Version: 1',
    `Original-Rcpt-To: <${o.recipient}>`,
    `Arrival-Date: ${new Date().toUTCString()}`,
    `Reported-Domain: ${DOMAIN}`,
    'Source-IP: 192.0.2.1',
    '',
    `--${boundary}`,
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    o.original.toString('utf8').replace(/\r\n$/, ''),
    `--${boundary}--`,
    '',
  ]);
}

const hardBounce = (s: Sent, extra: { to?: string; original?: string } = {}) =>
  dsn({
    to: extra.to ?? s.returnPath,
    recipient: s.to,
    status: '5.1.1',
    diagnostic: `550 5.1.1 <${s.to}>: Recipient address rejected: User unknown`,
    original: extra.original,
  });

/** The email is still as delivered: no bounce, no complaint, no event, not listed, still subscribed. */
async function expectUntouched(s: Sent, api: Client = main.api): Promise<void> {
  expect(await record(s.id, api)).toMatchObject({
    status: 'sent',
    bouncedAt: null,
    bounceType: null,
    complainedAt: null,
    lastError: null,
  });
  expect(await eventsOf(s.contactId, 'email.bounced', api)).toEqual([]);
  expect(await eventsOf(s.contactId, 'email.complained', api)).toEqual([]);
  expect(await eventsOf(s.contactId, 'contact.unsubscribed', api)).toEqual([]);
  expect((await suppressionOf(s.to, api)).status).toBe(404);
  expect((await contactOf(s.contactId, api)).subscribed).toBe(true);
}

describe('return path', () => {
  it('offers the bounces MX record and sends verified mail with a signed per-message envelope sender', async () => {
    const mx = domain.records.find((r) => r.purpose === 'return-path');
    expect(mx).toMatchObject({ type: 'MX', name: `bounces.${DOMAIN}`, status: 'verified' });

    const sent = await sendOne(rcpt('verp'));
    const hex = sent.id.replace(/-/g, '');
    expect(sent.returnPath).toMatch(
      new RegExp(`^bounces\\+${hex}[0-9a-f]{16}@bounces\\.${DOMAIN.replace(/\./g, '\\.')}$`),
    );
    // The From header keeps the sender's own address.
    expect(sent.message.raw.toString('utf8')).toMatch(new RegExp(`^From: .*${FROM}`, 'm'));

    // Each message has its own return path.
    const second = await sendOne(rcpt('verp'));
    expect(second.returnPath).toMatch(/^bounces\+[0-9a-f]{48}@bounces\./);
    expect(second.returnPath).not.toBe(sent.returnPath);
  });
});

describe('bounces', () => {
  it('a hard bounce to the return path marks the email, unsubscribes the contact and suppresses the address', async () => {
    const sent = await sendOne(rcpt('hard'));
    await deliverOk([sent.returnPath], hardBounce(sent));

    const r = await record(sent.id);
    expect(r).toMatchObject({
      status: 'bounced',
      bounceType: 'hard',
      bouncedAt: expect.any(String),
      complainedAt: null,
    });
    expect(r.lastError).toContain('5.1.1');
    expect(r.lastError).toContain('User unknown');

    const bounced = await oneEvent(sent.contactId, 'email.bounced');
    expect(bounced.data).toEqual({
      emailId: sent.id,
      bounceType: 'hard',
      status: '5.1.1',
      reason: `550 5.1.1 <${sent.to}>: Recipient address rejected: User unknown`,
    });
    expect((await oneEvent(sent.contactId, 'contact.unsubscribed')).data).toMatchObject({ source: 'bounce' });
    expect((await contactOf(sent.contactId)).subscribed).toBe(false);

    const listed = await suppressionOf(sent.to);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toEqual({
      email: sent.to,
      reason: 'bounce',
      emailId: sent.id,
      detail: expect.stringContaining('5.1.1'),
      createdAt: expect.any(String),
    });

    // A later send to the address is stored as skipped and never leaves; the other recipient's does.
    const fresh = rcpt('hard-neighbour');
    const data = await sendOk(main.api, { to: [sent.to, fresh], from: FROM, subject: 'Again', body: '<p>Again</p>' });
    const skippedId = data.emails.find((e) => e.contact.email === sent.to)!.email;
    const freshId = data.emails.find((e) => e.contact.email === fresh)!.email;
    expect(await record(skippedId)).toMatchObject({ status: 'skipped', lastError: SUPPRESSED, sentAt: null });
    await deliveredMessage(mail.sink, freshId);
    expect(sinkMessagesFor(mail.sink, skippedId)).toEqual([]);
    expect(sinkMessagesTo(mail.sink, sent.to)).toHaveLength(1);

    // The list is the project's own: another project still sends to the address.
    expect((await suppressionOf(sent.to, other.api)).status).toBe(404);
    const elsewhere = await sendOne(sent.to, other.api, `hi@${OTHER_DOMAIN}`);
    expect((await record(elsewhere.id, other.api)).status).toBe('sent');
  });

  it('a soft bounce marks the email bounced but neither suppresses nor unsubscribes', async () => {
    const sent = await sendOne(rcpt('soft'));
    const diagnostic = `452 4.2.2 <${sent.to}>: Mailbox full`;
    await deliverOk([sent.returnPath], dsn({ to: sent.returnPath, recipient: sent.to, status: '4.2.2', diagnostic }));

    const r = await record(sent.id);
    expect(r).toMatchObject({ status: 'bounced', bounceType: 'soft', bouncedAt: expect.any(String) });
    expect(r.lastError).toContain('4.2.2');
    expect(r.lastError).toContain('Mailbox full');
    expect((await oneEvent(sent.contactId, 'email.bounced')).data).toEqual({
      emailId: sent.id,
      bounceType: 'soft',
      status: '4.2.2',
      reason: diagnostic,
    });

    expect((await suppressionOf(sent.to)).status).toBe(404);
    expect(await eventsOf(sent.contactId, 'contact.unsubscribed')).toEqual([]);
    expect((await contactOf(sent.contactId)).subscribed).toBe(true);
    const next = await sendOne(sent.to);
    expect((await record(next.id)).status).toBe('sent');
  });

  it('a bounce to another address is matched by the Message-ID of the quoted original headers', async () => {
    const sent = await sendOne(rcpt('by-message-id'));
    expect(messageIdOf(sent.message.raw)).toMatch(new RegExp(`^<${sent.id}@`));
    const postmaster = `postmaster@${DOMAIN}`;
    await deliverOk([postmaster], hardBounce(sent, { to: postmaster, original: originalHeaders(sent.message) }));

    expect(await record(sent.id)).toMatchObject({ status: 'bounced', bounceType: 'hard' });
    expect((await oneEvent(sent.contactId, 'email.bounced')).data).toMatchObject({
      emailId: sent.id,
      bounceType: 'hard',
    });
    expect((await suppressionOf(sent.to)).body).toMatchObject({ reason: 'bounce', emailId: sent.id });
  });

  it('a forged return path or an unknown Message-ID is accepted and changes nothing', async () => {
    const sent = await sendOne(rcpt('forged'));
    // The same id with a wrong signature.
    const forged = sent.returnPath.replace(/([0-9a-f])@/, (_, c: string) => `${c === '0' ? '1' : '0'}@`);
    expect(forged).not.toBe(sent.returnPath);
    await deliverOk([forged], hardBounce(sent, { to: forged }));
    await expectUntouched(sent);

    // A Message-ID of this form that the service never gave.
    const headers = originalHeaders(sent.message).replace(
      /^Message-ID:.*$/im,
      `Message-ID: <${randomUUID()}@${DOMAIN}>`,
    );
    await deliverOk([`postmaster@${DOMAIN}`], hardBounce(sent, { to: `postmaster@${DOMAIN}`, original: headers }));
    await expectUntouched(sent);

    // A delay notice (Action: delayed) is no bounce.
    await deliverOk(
      [sent.returnPath],
      dsn({
        to: sent.returnPath,
        recipient: sent.to,
        action: 'delayed',
        status: '4.4.1',
        diagnostic: '421 4.4.1 Connection timed out',
      }),
    );
    await expectUntouched(sent);
  });

  it('a report delivered twice counts once, also in the campaign counters', async () => {
    const batch = `batch-${randomUUID()}`;
    const contacts: { id: string; email: string }[] = [];
    for (const name of ['bounces', 'stays', 'listed']) {
      const res = await main.api.post('/contacts', {
        email: rcpt(`campaign-${name}`),
        data: { batch },
        subscribed: true,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      contacts.push(res.body);
    }
    const [bouncing, staying, listed] = contacts as [(typeof contacts)[0], (typeof contacts)[0], (typeof contacts)[0]];
    // Listed by hand before the campaign: its email is skipped.
    expect((await main.api.post('/suppressions', { email: listed.email })).status).toBe(201);

    const created = await main.api.post('/campaigns', {
      name: `Feedback ${batch}`,
      subject: 'News',
      body: '<p>News</p>',
      from: FROM,
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.batch', operator: 'equals', value: batch }] }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const campaignId: string = created.body.data.id;
    expect((await main.api.post(`/campaigns/${campaignId}/send`)).status).toBe(200);
    const done = await eventually(async () => {
      const c = (await main.api.get(`/campaigns/${campaignId}`)).body;
      return c.status === 'SENT' ? c : undefined;
    }, 30_000);
    expect(done).toMatchObject({ totalRecipients: 3, sentCount: 2, deliveredCount: 2, bouncedCount: 0 });
    expect(sinkMessagesTo(mail.sink, listed.email)).toEqual([]);

    const emailId = (await oneEvent(bouncing.id, 'email.sent')).data.emailId as string;
    expect(emailId).toMatch(UUID);
    const message = await deliveredMessage(mail.sink, emailId);
    const sent: Sent = { id: emailId, contactId: bouncing.id, to: bouncing.email, message, returnPath: message.from };
    const report = hardBounce(sent);
    await deliverOk([sent.returnPath], report);

    const first = await record(emailId);
    expect(first).toMatchObject({ status: 'bounced', bounceType: 'hard', campaignId });
    expect((await oneEvent(bouncing.id, 'email.bounced')).data).toEqual(
      expect.objectContaining({ emailId, campaignId, bounceType: 'hard' }),
    );
    const after = (await main.api.get(`/campaigns/${campaignId}`)).body;
    expect(after).toMatchObject({ sentCount: 2, deliveredCount: 1, bouncedCount: 1 });
    expect((await main.api.get(`/campaigns/${campaignId}/stats`)).body).toMatchObject({
      delivered: 1,
      bounced: 1,
      skipped: 1,
      pending: 0,
      bounceRate: 0.5,
    });

    // The same report again, and once more by Message-ID: nothing moves.
    await deliverOk([sent.returnPath], report);
    await deliverOk(
      [`postmaster@${DOMAIN}`],
      hardBounce(sent, { to: `postmaster@${DOMAIN}`, original: originalHeaders(message) }),
    );
    expect(await record(emailId)).toEqual(first);
    expect(await eventsOf(bouncing.id, 'email.bounced')).toHaveLength(1);
    expect(await eventsOf(bouncing.id, 'contact.unsubscribed')).toHaveLength(1);
    expect((await main.api.get(`/campaigns/${campaignId}`)).body).toMatchObject({
      sentCount: 2,
      deliveredCount: 1,
      bouncedCount: 1,
    });
    expect(await eventsOf(staying.id, 'email.bounced')).toEqual([]);
    expect((await contactOf(staying.id)).subscribed).toBe(true);

    // Each recipient's outcome follows: the bounce with its type, the suppressed address skipped.
    const outcomes = async () => {
      const list = (await main.api.get(`/campaigns/${campaignId}/recipients`)).body.data as {
        contactId: string;
        outcome: string;
        reason: string | null;
      }[];
      return Object.fromEntries(list.map((r) => [r.contactId, [r.outcome, r.reason]]));
    };
    expect(await outcomes()).toEqual({
      [bouncing.id]: ['bounced', 'hard'],
      [staying.id]: ['delivered', null],
      [listed.id]: ['skipped', 'suppressed'],
    });
    // A spam report makes a delivered recipient complained; it still counts as delivered.
    const stayingEmail = (await oneEvent(staying.id, 'email.sent')).data.emailId as string;
    const stayingMessage = await deliveredMessage(mail.sink, stayingEmail);
    await deliverOk(
      [`abuse@${DOMAIN}`],
      arf({ to: `abuse@${DOMAIN}`, recipient: staying.email, original: stayingMessage.raw }),
    );
    await eventually(async () => ((await outcomes())[staying.id]?.[0] === 'complained' ? true : undefined));
    expect((await main.api.get(`/campaigns/${campaignId}/stats`)).body).toMatchObject({
      delivered: 1,
      bounced: 1,
      complained: 1,
      skipped: 1,
      pending: 0,
    });
  });
});

describe('complaints', () => {
  it('an abuse report marks the email, unsubscribes the contact and suppresses the address, once', async () => {
    const sent = await sendOne(rcpt('complaint'));
    const abuse = `abuse@${DOMAIN}`;
    const report = arf({ to: abuse, recipient: sent.to, original: sent.message.raw });
    await deliverOk([abuse], report);

    const r = await record(sent.id);
    expect(r).toMatchObject({ status: 'sent', complainedAt: expect.any(String), bouncedAt: null, bounceType: null });
    expect((await oneEvent(sent.contactId, 'email.complained')).data).toEqual({
      emailId: sent.id,
      feedbackType: 'abuse',
    });
    expect((await oneEvent(sent.contactId, 'contact.unsubscribed')).data).toMatchObject({ source: 'complaint' });
    expect((await contactOf(sent.contactId)).subscribed).toBe(false);
    // The consent history says why the mail stopped, which report and who: the system, no visitor's address.
    const consent = await main.api.get(`/contacts/${sent.contactId}/consent`);
    expect(consent.body.data[0]).toMatchObject({
      change: 'complained',
      source: 'complaint',
      sourceId: sent.id,
      actor: { kind: 'system' },
      ip: null,
    });
    expect((await suppressionOf(sent.to)).body).toEqual({
      email: sent.to,
      reason: 'complaint',
      emailId: sent.id,
      detail: 'abuse',
      createdAt: expect.any(String),
    });

    // Again, and through the return path: counted once.
    await deliverOk([abuse], report);
    await deliverOk([sent.returnPath], arf({ to: sent.returnPath, recipient: sent.to, original: sent.message.raw }));
    expect(await record(sent.id)).toEqual(r);
    expect(await eventsOf(sent.contactId, 'email.complained')).toHaveLength(1);
    expect((await main.api.get(`/contacts/${sent.contactId}/consent`)).body.total).toBe(consent.body.total);

    const next = await sendOk(main.api, { to: sent.to, from: FROM, subject: 'Again', body: '<p>Again</p>' });
    expect(await record(next.emails[0]!.email)).toMatchObject({ status: 'skipped', lastError: SUPPRESSED });
  });

  it('a not-spam report to the return path is accepted and changes nothing', async () => {
    const sent = await sendOne(rcpt('not-spam'));
    await deliverOk(
      [sent.returnPath],
      arf({ to: sent.returnPath, recipient: sent.to, original: sent.message.raw, feedbackType: 'not-spam' }),
    );
    await expectUntouched(sent);
  });
});

describe('inbound listener', () => {
  const plain = (to: string) =>
    crlf([
      'From: Someone <someone@elsewhere.example>',
      `To: ${to}`,
      'Subject: Hello',
      `Message-ID: <${randomUUID()}@elsewhere.example>`,
      '',
      'Just saying hello.',
      '',
    ]);

  it('refuses mail for unregistered domains, and mail that is no report for domains not yet verified', async () => {
    const sent = await sendOne(rcpt('refused'));
    const pending = await main.api.post('/domains', { domain: 'pending.feedback.test' });
    expect(pending.status, JSON.stringify(pending.body)).toBe(201);
    await expect(deliver(['someone@unregistered.test'], plain('someone@unregistered.test'))).rejects.toMatchObject({
      responseCode: 550,
    });
    await expect(deliver(['info@pending.feedback.test'], plain('info@pending.feedback.test'))).rejects.toMatchObject({
      responseCode: 550,
    });
    expect((await main.api.get('/inbound')).body.total).toBe(0);
    // A bounce for an unregistered domain is refused too, even when it names a real email.
    await expect(
      deliver(
        ['postmaster@unregistered.test'],
        hardBounce(sent, { to: 'postmaster@unregistered.test', original: originalHeaders(sent.message) }),
      ),
    ).rejects.toMatchObject({
      responseCode: 550,
    });
    await expectUntouched(sent);
  });

  it('accepts and ignores a message to a return path that is no report (an auto-reply)', async () => {
    const sent = await sendOne(rcpt('auto-reply'));
    await deliverOk([sent.returnPath], plain(sent.returnPath));
    await expectUntouched(sent);
  });
});

describe('inbound mail', () => {
  interface Inbound {
    id: string;
    contactId: string | null;
    from: string;
    fromName: string | null;
    to: string[];
    subject: string;
    text: string | null;
    html: string | null;
    messageId: string | null;
    inReplyToEmailId: string | null;
    attachments: { filename: string | null; contentType: string; size: number }[];
    receivedAt: string;
  }

  const reply = (o: { from: string; to: string; inReplyTo?: string; html: string }) =>
    crlf([
      `From: Ada Reader <${o.from}>`,
      `To: ${o.to}`,
      'Subject: Re: Your receipt',
      `Message-ID: <${randomUUID()}@reader.example>`,
      ...(o.inReplyTo ? [`In-Reply-To: ${o.inReplyTo}`, `References: ${o.inReplyTo}`] : []),
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="mix"',
      '',
      '--mix',
      'Content-Type: multipart/alternative; boundary="alt"',
      '',
      '--alt',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Thanks, it arrived.',
      '--alt',
      'Content-Type: text/html; charset=utf-8',
      '',
      o.html,
      '--alt--',
      '--mix',
      'Content-Type: text/csv; name="order.csv"',
      'Content-Disposition: attachment; filename="order.csv"',
      '',
      'a,b',
      '--mix--',
      '',
    ]);

  it('stores a reply from a contact, sanitized and linked to the email it answers, and emits email.received', async () => {
    const sent = await sendOne(rcpt('replier'));
    const messageId = messageIdOf(sent.message.raw)!;
    const html =
      '<p onclick="steal()">Thanks, <b>it arrived</b>.</p><script>alert(1)</script><a href="javascript:evil()">x</a><a href="https://shop.example/o/1">order</a>';
    await deliverOk(
      [`support@${DOMAIN}`],
      reply({ from: sent.to, to: `support@${DOMAIN}`, inReplyTo: messageId, html }),
      sent.to,
    );

    const list = await main.api.get('/inbound');
    expect(list.status).toBe(200);
    const stored: Inbound = list.body.data.find((m: Inbound) => m.from === sent.to);
    expect(stored).toMatchObject({
      contactId: sent.contactId,
      fromName: 'Ada Reader',
      to: [`support@${DOMAIN}`],
      subject: 'Re: Your receipt',
      text: expect.stringContaining('Thanks, it arrived.'),
      inReplyToEmailId: sent.id,
      attachments: [{ filename: 'order.csv', contentType: 'text/csv', size: expect.any(Number) }],
    });
    expect(stored.html).toContain('<b>it arrived</b>');
    expect(stored.html).not.toMatch(/script|onclick|javascript:/i);
    expect(stored.html).toContain('href="https://shop.example/o/1"');
    expect((await main.api.get(`/inbound/${stored.id}`)).body).toEqual(stored);

    const event = await oneEvent(sent.contactId, 'email.received');
    expect(event.data).toEqual({ inboundId: stored.id, emailId: sent.id, from: sent.to, subject: 'Re: Your receipt' });
    // Another project sees nothing of it.
    expect((await other.api.get(`/inbound/${stored.id}`)).status).toBe(404);
    expect((await other.api.get('/inbound')).body.data.some((m: Inbound) => m.id === stored.id)).toBe(false);
  });

  it('stores mail from a stranger without making a contact or an event', async () => {
    const stranger = `stranger-${randomUUID()}@elsewhere.example`;
    await deliverOk([`hello@${DOMAIN}`], reply({ from: stranger, to: `hello@${DOMAIN}`, html: '<p>Hi</p>' }), stranger);
    const stored = (await main.api.get('/inbound')).body.data.find((m: Inbound) => m.from === stranger);
    expect(stored).toMatchObject({ contactId: null, inReplyToEmailId: null, subject: 'Re: Your receipt' });
    expect((await main.api.get(`/contacts?search=${encodeURIComponent(stranger)}`)).body.data).toEqual([]);
  });
});

describe('suppression list API', () => {
  let lists: TestProject;
  beforeAll(async () => {
    lists = await projectWithDomain(mail, 'feedback-lists', LISTS_DOMAIN);
  });

  const expectError = (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({
      success: false,
      error: { code, statusCode: status, message: expect.any(String) },
    });
  };

  it('adds, reads, lists, filters and removes entries', async () => {
    const api = lists.api;
    const manual1 = rcpt('manual');
    const added = await api.post('/suppressions', { email: manual1.toUpperCase(), detail: 'asked by phone' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toEqual({
      email: manual1,
      reason: 'manual',
      emailId: null,
      detail: 'asked by phone',
      createdAt: expect.any(String),
    });
    // Adding it again changes nothing.
    const again = await api.post('/suppressions', { email: manual1, detail: 'other' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(added.body);
    expect((await api.get(`/suppressions/${encodeURIComponent(manual1.toUpperCase())}`)).body).toEqual(added.body);

    // A hard bounce and a complaint in this project.
    const bounced = await sendOne(rcpt('lists-bounce'), api, `hi@${LISTS_DOMAIN}`);
    await deliverOk([bounced.returnPath], hardBounce(bounced));
    const complained = await sendOne(rcpt('lists-complaint'), api, `hi@${LISTS_DOMAIN}`);
    await deliverOk(
      [`abuse@${LISTS_DOMAIN}`],
      arf({ to: `abuse@${LISTS_DOMAIN}`, recipient: complained.to, original: complained.message.raw }),
    );
    const manual2 = rcpt('manual');
    expect((await api.post('/suppressions', { email: manual2 })).status).toBe(201);

    const all = await api.get('/suppressions');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 4, page: 1, pageSize: 20, totalPages: 1 });
    expect(all.body.data.map((s: Suppression) => [s.email, s.reason])).toEqual([
      [manual2, 'manual'],
      [complained.to, 'complaint'],
      [bounced.to, 'bounce'],
      [manual1, 'manual'],
    ]);
    expect(all.body.data[2]).toMatchObject({ emailId: bounced.id, detail: expect.stringContaining('5.1.1') });

    const page2 = await api.get('/suppressions?page=2&pageSize=3');
    expect(page2.body).toMatchObject({ total: 4, page: 2, pageSize: 3, totalPages: 2 });
    expect(page2.body.data.map((s: Suppression) => s.email)).toEqual([manual1]);
    for (const reason of ['bounce', 'complaint', 'manual'] as const) {
      const filtered = await api.get(`/suppressions?reason=${reason}`);
      expect(filtered.status).toBe(200);
      const expected = { bounce: [bounced.to], complaint: [complained.to], manual: [manual2, manual1] }[reason];
      expect(filtered.body.data.map((s: Suppression) => s.email)).toEqual(expected);
      expect(filtered.body.total).toBe(expected.length);
    }
    expectError(await api.get('/suppressions?reason=spam'), 422, 'VALIDATION_ERROR');

    expect((await api.delete(`/suppressions/${encodeURIComponent(manual2)}`)).status).toBe(204);
    expectError(await api.get(`/suppressions/${encodeURIComponent(manual2)}`), 404, 'NOT_FOUND');
    expectError(await api.delete(`/suppressions/${encodeURIComponent(manual2)}`), 404, 'NOT_FOUND');
    expect((await api.get('/suppressions')).body.total).toBe(3);
    // Other projects see none of it.
    expect((await main.api.get(`/suppressions/${encodeURIComponent(manual1)}`)).status).toBe(404);
  });

  it('refuses invalid addresses and requests without the secret key', async () => {
    const api = lists.api;
    const invalid = await api.post('/suppressions', { email: 'not-an-address' });
    expectError(invalid, 422, 'VALIDATION_ERROR');
    expect(invalid.body.error.errors).toEqual([expect.objectContaining({ field: 'email' })]);
    expectError(await api.post('/suppressions', {}), 422, 'VALIDATION_ERROR');
    expectError(await api.get('/suppressions/not-an-address'), 422, 'VALIDATION_ERROR');
    expectError(await api.delete('/suppressions/not-an-address'), 422, 'VALIDATION_ERROR');
    expectError(await api.get(`/suppressions/${encodeURIComponent(rcpt('never'))}`), 404, 'NOT_FOUND');
    expect((await api.get('/suppressions', null)).status).toBe(401);
    expect((await api.get('/suppressions', lists.publicKey)).status).toBe(401);
  });

  it('a suppressed address is skipped until it is removed from the list', async () => {
    const api = lists.api;
    const to = rcpt('removed');
    expect((await api.post('/suppressions', { email: to })).status).toBe(201);
    const skipped = await sendOk(api, { to, from: `hi@${LISTS_DOMAIN}`, subject: 'Hi', body: '<p>Hi</p>' });
    const skippedId = skipped.emails[0]!.email;
    expect(await record(skippedId, api)).toMatchObject({ status: 'skipped', lastError: SUPPRESSED, attempts: 0 });

    expect((await api.delete(`/suppressions/${encodeURIComponent(to)}`)).status).toBe(204);
    const sent = await sendOne(to, api, `hi@${LISTS_DOMAIN}`);
    expect((await record(sent.id, api)).status).toBe('sent');
    expect(sinkMessagesTo(mail.sink, to)).toHaveLength(1);
    expect(sinkMessagesFor(mail.sink, skippedId)).toEqual([]);
  });
});
