import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact, Domain, EmailRecord, TrackedEvent } from '../../src/api.js';
import { NO_FAILURE_OR_FEEDBACK } from '../support/email-records.js';
import { projectAndDomain, projectWithDomain, useMailServer } from '../support/mail-server.js';
import {
  deliveredMessage,
  emailRecord,
  headerBlock,
  recordWhen,
  selectorOf,
  sendOk,
  sentRecord,
  sinkMessagesTo,
  UUID,
  uniqueAddresses,
  verifyDkim,
} from '../support/sending.js';
import { type Client, eventually, startTestServer, type TestProject, type TestServer } from '../support/server.js';
import type { ReceivedMessage } from '../support/smtp-sink.js';

const DOMAIN = 'mail.send.test';
const OTHER_DOMAIN = 'other.send.test';
const FROM = `hello@${DOMAIN}`;

let main: TestProject;
let other: TestProject;
let domain: Domain;

const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });

beforeAll(async () => {
  [main, domain] = await projectAndDomain(mail, 'send-main', DOMAIN);
  other = await projectWithDomain(mail, 'send-other', OTHER_DOMAIN);
});

let seq = 0;
/** A recipient address no other test uses. */
const rcpt = uniqueAddresses('rcpt.send.test');

/** Recipients of refused or skipped sends: checked at the end to have received nothing. */
const neverDelivered: string[] = [];

const send = (body: unknown, headers?: Record<string, string>, api: Client = main.api) =>
  api.request('POST', '/v1/send', { body, headers });

async function parse(message: ReceivedMessage): Promise<ParsedMail> {
  return simpleParser(message.raw, { keepCidLinks: true });
}

/** Sends, waits for the one message at the sink, and returns it raw and parsed with its record id. */
async function sendAndReceive(body: Record<string, unknown>, api: Client = main.api) {
  const data = await sendOk(api, body);
  expect(data.emails).toHaveLength(1);
  const id = data.emails[0]!.email;
  const message = await deliveredMessage(mail.sink, id);
  return { id, data, message, parsed: await parse(message) };
}

/** A header exactly as written in the raw message (unfolded), or undefined. */
function rawHeader(raw: Buffer, name: string): string | undefined {
  const re = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im');
  return re.exec(headerBlock(raw))?.[1];
}

async function contactsMatching(email: string): Promise<{ data: any[]; total: number }> {
  const res = await main.api.get(`/contacts?search=${encodeURIComponent(email)}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function contactByEmail(email: string) {
  const page = await contactsMatching(email);
  const found = page.data.filter((c) => c.email === email);
  expect(found).toHaveLength(1);
  return found[0] as Contact;
}

async function eventsNamed(api: Client, name: string) {
  const res = await api.get(`/events?limit=100&name=${encodeURIComponent(name)}`);
  expect(res.status).toBe(200);
  return res.body.data as TrackedEvent[];
}

async function createTemplate(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/templates', { name: `t-${++seq}`, from: FROM, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; type: string };
}

/** A refused request: exact status and code; nothing stored for the recipient. */
async function expectRefused(res: { status: number; body: any }, status: number, code: string, recipient?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status } });
  expect(typeof res.body.error.requestId).toBe('string');
  if (recipient) {
    expect((await contactsMatching(recipient)).total).toBe(0);
    neverDelivered.push(recipient);
  }
}

/** A 422 whose field errors include `{ field, code }`. */
async function expectInvalid(body: Record<string, unknown>, field: string, code: string) {
  const res = await send(body);
  await expectRefused(res, 422, 'VALIDATION_ERROR', typeof body.to === 'string' ? body.to : undefined);
  expect(res.body.error.errors, JSON.stringify(res.body.error.errors)).toContainEqual(
    expect.objectContaining({ field, code }),
  );
  return res.body.error.errors as { field: string; code: string; message: string }[];
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) in a header value. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([BQ])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describe('POST /v1/send: the answer and the contact', () => {
  it('answers { success, data: { emails: [{ contact: { id, email }, email }], timestamp } } and stores a record', async () => {
    const to = rcpt('shape');
    const before = Date.now();
    const res = await send({ to, from: FROM, subject: 'Shape', body: '<p>Shape</p>' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        emails: [{ contact: { id: expect.stringMatching(UUID), email: to }, email: expect.stringMatching(UUID) }],
        timestamp: expect.any(String),
      },
    });
    const at = Date.parse(res.body.data.timestamp);
    expect(new Date(at).toISOString()).toBe(res.body.data.timestamp);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    const contact = await contactByEmail(to);
    expect(contact.id).toBe(res.body.data.emails[0].contact.id);
  });

  it('gives each email an id that carries the time it was made (UUIDv7), so later emails have greater ids', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const res = await send({ to: rcpt(`ids-${n}`), from: FROM, subject: 'Ids', body: '<p>Ids</p>' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body.data.emails[0].email);
      await new Promise((r) => setTimeout(r, 5));
    }
    for (const id of ids) {
      expect(id[14], id).toBe('7');
      const record = await main.api.get(`/emails/${id}`);
      expect(record.status).toBe(200);
      const madeAt = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
      expect(Math.abs(madeAt - Date.parse(record.body.createdAt))).toBeLessThan(1000);
    }
    expect([...ids].sort()).toEqual(ids);
  });

  it('creates a new contact unsubscribed, and keeps an existing contact’s state when subscribed is omitted', async () => {
    const fresh = rcpt('fresh');
    await sendOk(main.api, { to: fresh, from: FROM, subject: 'Hi', body: '<p>Hi</p>' });
    expect(await contactByEmail(fresh)).toMatchObject({ email: fresh, subscribed: false, data: {} });

    const existing = rcpt('existing');
    const created = await main.api.post('/contacts', { email: existing, subscribed: true, data: { plan: 'free' } });
    expect(created.status).toBe(201);
    const sent = await sendOk(main.api, { to: existing, from: FROM, subject: 'Hi', body: '<p>Hi</p>' });
    expect(sent.emails[0]!.contact).toEqual({ id: created.body.id, email: existing });
    expect(await contactByEmail(existing)).toMatchObject({
      id: created.body.id,
      subscribed: true,
      data: { plan: 'free' },
    });
  });

  it('an explicit subscribed flips the contact and emits contact.subscribed once; the same value emits nothing', async () => {
    const to = rcpt('flip');
    const first = await sendOk(main.api, { to, from: FROM, subject: 'Hi', body: '<p>Hi</p>' });
    const contactId = first.emails[0]!.contact.id;
    expect((await eventsNamed(main.api, 'contact.subscribed')).filter((e) => e.contactId === contactId)).toEqual([]);

    await sendOk(main.api, { to, from: FROM, subject: 'Hi', body: '<p>Hi</p>', subscribed: true });
    expect(await contactByEmail(to)).toMatchObject({ id: contactId, subscribed: true });
    await sendOk(main.api, { to, from: FROM, subject: 'Hi', body: '<p>Hi</p>', subscribed: true });
    const events = (await eventsNamed(main.api, 'contact.subscribed')).filter((e) => e.contactId === contactId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ name: 'contact.subscribed', contactId, email: to });

    await sendOk(main.api, { to, from: FROM, subject: 'Hi', body: '<p>Hi</p>', subscribed: false });
    expect(await contactByEmail(to)).toMatchObject({ subscribed: false });
    expect((await eventsNamed(main.api, 'contact.unsubscribed')).filter((e) => e.contactId === contactId)).toHaveLength(
      1,
    );
  });

  it('applies the data rules: patch, null deletes, empty string ignored, persistent:false for this send only, reserved keys dropped', async () => {
    const to = rcpt('data');
    const created = await main.api.post('/contacts', {
      email: to,
      subscribed: true,
      data: { plan: 'free', city: 'Oslo', old: 'x', keep: 1 },
    });
    expect(created.status).toBe(201);
    const { id, parsed } = await sendAndReceive({
      to,
      from: FROM,
      subject: 'Plan {{ plan }} {{ coupon }}',
      body:
        '<p>plan={{ plan }};city={{ city }};coupon={{ coupon }};old={{ old ?? "gone" }};keep={{ keep }};' +
        'email={{ email }};id={{ id }};svc={{ svc_id }};unsub={{ unsubscribeUrl }}</p>',
      data: {
        plan: 'pro',
        old: null,
        city: '',
        coupon: { value: 'SAVE10', persistent: false },
        email: 'evil@evil.test',
        id: 'forged-id',
        svc_id: 'forged-svc',
        svc_email: 'forged@evil.test',
        unsubscribeUrl: 'https://evil.test/u',
        subscribeUrl: 'https://evil.test/s',
        manageUrl: 'https://evil.test/m',
      },
    });
    const contact = await contactByEmail(to);
    expect(contact.subscribed).toBe(true);
    expect(contact.data).toEqual({ plan: 'pro', city: 'Oslo', keep: 1 });
    expect(parsed.subject).toBe('Plan pro SAVE10');
    const html = parsed.html as string;
    expect(html).toContain(
      `plan=pro;city=Oslo;coupon=SAVE10;old=gone;keep=1;email=${to};id=${contact.id};svc=${contact.id};unsub=${mail.server.url}/unsubscribe/`,
    );
    expect(html).not.toContain('evil.test');
    expect(html).not.toContain('forged');
    expect((await emailRecord(main.api, id)).subject).toBe('Plan pro SAVE10');
  });
});

describe('POST /v1/send: recipients', () => {
  it('sends one message per recipient of a mixed array, each rendered with its own contact’s data and with its own record', async () => {
    const [ann, bob, cid] = [rcpt('ann'), rcpt('bob'), rcpt('cid')];
    expect((await main.api.post('/contacts', { email: ann, data: { first_name: 'Ann' } })).status).toBe(201);
    expect((await main.api.post('/contacts', { email: bob, data: { first_name: 'Bob' } })).status).toBe(201);
    const data = await sendOk(main.api, {
      to: [ann, { name: 'Bob Builder', email: bob }, { email: cid }],
      from: FROM,
      subject: 'Hi {{ first_name ?? "friend" }}',
      body: '<p>Dear {{ first_name ?? "friend" }} &lt;{{ email }}&gt;</p>',
    });
    expect(data.emails.map((e) => e.contact.email)).toEqual([ann, bob, cid]);
    const ids = data.emails.map((e) => e.email);
    expect(new Set(ids).size).toBe(3);
    expect(new Set(data.emails.map((e) => e.contact.id)).size).toBe(3);

    const expected = [
      { address: ann, name: '', first: 'Ann' },
      { address: bob, name: 'Bob Builder', first: 'Bob' },
      { address: cid, name: '', first: 'friend' },
    ];
    for (const [i, want] of expected.entries()) {
      const message = await deliveredMessage(mail.sink, ids[i]!);
      expect(message.to).toEqual([want.address]);
      const parsed = await parse(message);
      expect(parsed.subject).toBe(`Hi ${want.first}`);
      expect(parsed.html).toContain(`<p>Dear ${want.first} &lt;${want.address}&gt;</p>`);
      expect((parsed.to as any).value).toEqual([{ address: want.address, name: want.name }]);
      expect(sinkMessagesTo(mail.sink, want.address)).toHaveLength(1);
      const record = await emailRecord(main.api, ids[i]!);
      expect(record).toMatchObject({
        to: want.address,
        toName: want.name || null,
        contactId: data.emails[i]!.contact.id,
      });
    }
  });
});

describe('POST /v1/send: templates', () => {
  let template: { id: string };
  beforeAll(async () => {
    template = await createTemplate(main.api, {
      subject: 'Welcome {{ name ?? "friend" }}',
      body: '<p>Hello {{ name ?? "friend" }}, your plan is {{ plan ?? "free" }}.</p>',
      from: `team@${DOMAIN}`,
      fromName: 'The Team',
      replyTo: `support@${DOMAIN}`,
      type: 'TRANSACTIONAL',
    });
  });

  it('takes subject, body, from and reply-to from the template; variables from data, ?? defaults for missing ones', async () => {
    const to = rcpt('tpl');
    const { id, parsed, message } = await sendAndReceive({ to, template: template.id, data: { plan: 'pro' } });
    expect(parsed.subject).toBe('Welcome friend');
    expect(parsed.html).toContain('<p>Hello friend, your plan is pro.</p>');
    expect((parsed.from as any).value).toEqual([{ address: `team@${DOMAIN}`, name: 'The Team' }]);
    expect((parsed.replyTo as any).value).toEqual([{ address: `support@${DOMAIN}`, name: '' }]);
    expect(message.from).toBe(`team@${DOMAIN}`);
    expect(await emailRecord(main.api, id)).toMatchObject({
      templateId: template.id,
      type: 'TRANSACTIONAL',
      from: `team@${DOMAIN}`,
      fromName: 'The Team',
      replyTo: `support@${DOMAIN}`,
      subject: 'Welcome friend',
    });

    const named = await sendAndReceive({ to: rcpt('tpl-named'), template: template.id, data: { name: 'Ada' } });
    expect(named.parsed.subject).toBe('Welcome Ada');
    expect(named.parsed.html).toContain('<p>Hello Ada, your plan is free.</p>');
  });

  it('escapes data in the HTML body, and a line break in data cannot add a header through the subject', async () => {
    const { parsed, message } = await sendAndReceive({
      to: rcpt('tpl-inject'),
      template: template.id,
      data: { name: 'Eve\r\nBcc: victim@evil.test', plan: '<script>alert(1)</script>' },
    });
    expect(parsed.subject).toBe('Welcome Eve Bcc: victim@evil.test');
    expect(rawHeader(message.raw, 'Bcc')).toBeUndefined();
    expect(parsed.headers.has('bcc')).toBe(false);
    expect(message.to).toHaveLength(1);
    expect(parsed.html).toContain('your plan is &lt;script&gt;alert(1)&lt;/script&gt;.');
    expect(parsed.html).not.toContain('<script>');
  });

  it('explicit request fields override the template’s', async () => {
    const { parsed, message } = await sendAndReceive({
      to: rcpt('tpl-override'),
      template: template.id,
      subject: 'Custom {{ name ?? "subject" }}',
      from: { name: 'Override Sender', email: `override@${DOMAIN}` },
      reply: 'replies@elsewhere.test',
      data: { name: 'Bo' },
    });
    expect(parsed.subject).toBe('Custom Bo');
    expect(parsed.html).toContain('<p>Hello Bo, your plan is free.</p>');
    expect((parsed.from as any).value).toEqual([{ address: `override@${DOMAIN}`, name: 'Override Sender' }]);
    expect((parsed.replyTo as any).value).toEqual([{ address: 'replies@elsewhere.test', name: '' }]);
    expect(message.from).toBe(`override@${DOMAIN}`);

    const body = await sendAndReceive({
      to: rcpt('tpl-body'),
      template: template.id,
      body: '<p>Only the body, {{ name ?? "you" }}</p>',
    });
    expect(body.parsed.subject).toBe('Welcome friend');
    expect(body.parsed.html).toContain('<p>Only the body, you</p>');
  });

  it('404 for a template of another project or an unknown id; nothing stored', async () => {
    const foreign = await createTemplate(other.api, {
      subject: 'Other',
      body: '<p>Other</p>',
      from: `x@${OTHER_DOMAIN}`,
    });
    const a = rcpt('tpl-foreign');
    await expectRefused(await send({ to: a, template: foreign.id }), 404, 'NOT_FOUND', a);
    const b = rcpt('tpl-unknown');
    await expectRefused(await send({ to: b, template: randomUUID(), from: FROM }), 404, 'NOT_FOUND', b);
  });

  it('a MARKETING template that uses {{ unsubscribeUrl }} renders the real link and gets no second footer', async () => {
    const marketing = await createTemplate(main.api, {
      subject: 'News',
      body: '<p>News for {{ name ?? "you" }}</p><p><a href="{{ unsubscribeUrl }}">Leave this list</a></p>',
      type: 'MARKETING',
    });
    const to = rcpt('tpl-unsub');
    const { parsed, message } = await sendAndReceive({ to, template: marketing.id, subscribed: true });
    const header = rawHeader(message.raw, 'List-Unsubscribe')!;
    const url = /^<(.+)>$/.exec(header)![1]!;
    expect(url).toMatch(new RegExp(`^${mail.server.url}/unsubscribe/[^/]+$`));
    const html = parsed.html as string;
    expect(html).toContain(`<a href="${url}">Leave this list</a>`);
    expect(html.split('/unsubscribe/').length - 1).toBe(1);
    const page = await fetch(url);
    expect(page.status).toBe(200);
  });
});

describe('POST /v1/send: the sender', () => {
  const fromOf = (parsed: ParsedMail) => (parsed.from as any).value as { address: string; name: string }[];

  it('from as a string, as { name, email }, and the deprecated name only with a string from', async () => {
    const plain = await sendAndReceive({ to: rcpt('from-plain'), from: FROM, subject: 's', body: '<p>b</p>' });
    expect(fromOf(plain.parsed)).toEqual([{ address: FROM, name: '' }]);
    expect(plain.message.from).toBe(FROM);

    const object = await sendAndReceive({
      to: rcpt('from-object'),
      from: { name: 'Object Name', email: FROM },
      subject: 's',
      body: '<p>b</p>',
    });
    expect(fromOf(object.parsed)).toEqual([{ address: FROM, name: 'Object Name' }]);

    const legacy = await sendAndReceive({
      to: rcpt('from-legacy'),
      from: FROM,
      name: 'Legacy Name',
      subject: 's',
      body: '<p>b</p>',
    });
    expect(fromOf(legacy.parsed)).toEqual([{ address: FROM, name: 'Legacy Name' }]);
    expect((await emailRecord(main.api, legacy.id)).fromName).toBe('Legacy Name');

    const both = await sendAndReceive({
      to: rcpt('from-both'),
      from: { name: 'Object Wins', email: FROM },
      name: 'Legacy Name',
      subject: 's',
      body: '<p>b</p>',
    });
    expect(fromOf(both.parsed)).toEqual([{ address: FROM, name: 'Object Wins' }]);
  });

  // Spec: `name` is "used only as fallback when `from` is a string with no name". An object `from`
  // without a name is not a string, so the deprecated `name` must not be used for it.
  it('the deprecated name is not used when from is an object without a name', async () => {
    const nameless = await sendAndReceive({
      to: rcpt('from-nameless'),
      from: { email: FROM },
      name: 'Legacy Name',
      subject: 's',
      body: '<p>b</p>',
    });
    expect(fromOf(nameless.parsed)).toEqual([{ address: FROM, name: '' }]);
  });

  // Same rule with no `from` at all: the template's sender and its fromName apply, not `name`.
  it('the deprecated name does not replace a template’s fromName when from is omitted', async () => {
    const template = await createTemplate(main.api, {
      subject: 's',
      body: '<p>b</p>',
      fromName: 'Template Sender',
      type: 'TRANSACTIONAL',
    });
    const sent = await sendAndReceive({ to: rcpt('from-template'), template: template.id, name: 'Legacy Name' });
    expect(fromOf(sent.parsed)).toEqual([{ address: FROM, name: 'Template Sender' }]);
  });

  it('403 INTERNAL_SERVER_ERROR for an unregistered or an unverified sender domain; nothing stored, key not spent', async () => {
    const a = rcpt('unregistered');
    const key = `unregistered-${randomUUID()}`;
    const unregistered = await send(
      { to: a, from: 'x@unregistered.send.test', subject: 's', body: '<p>b</p>' },
      { 'Idempotency-Key': key },
    );
    await expectRefused(unregistered, 403, 'INTERNAL_SERVER_ERROR', a);
    expect(unregistered.body.error.details).toMatchObject({
      domain: 'unregistered.send.test',
      registered: false,
      verified: false,
    });

    const pending = await main.api.post('/domains', { domain: 'pending.send.test' });
    expect(pending.status).toBe(201);
    const b = rcpt('unverified');
    const unverified = await send({
      to: [b, rcpt('unverified-2')],
      from: { name: 'P', email: 'x@pending.send.test' },
      subject: 's',
      body: '<p>b</p>',
    });
    await expectRefused(unverified, 403, 'INTERNAL_SERVER_ERROR', b);
    expect(unverified.body.error.details).toMatchObject({
      domain: 'pending.send.test',
      registered: true,
      verified: false,
    });

    // The refused request rolled back its claim of the key.
    const c = rcpt('after-refusal');
    await sendOk(main.api, { to: c, from: FROM, subject: 's', body: '<p>b</p>' }, { 'Idempotency-Key': key });
  });
});

describe('POST /v1/send: refused requests', () => {
  const base = (tag: string, extra: Record<string, unknown> = {}) => ({
    to: rcpt(tag),
    from: FROM,
    subject: 'Subject',
    body: '<p>Body</p>',
    ...extra,
  });
  const attachment = (extra: Record<string, unknown> = {}) => ({
    filename: 'a.txt',
    content: b64('hello'),
    contentType: 'text/plain',
    ...extra,
  });

  it('422 without subject and body and no template, with both field paths', async () => {
    const errors = await expectInvalid({ to: rcpt('nosubject'), from: FROM }, 'subject', 'invalid_type');
    expect(errors).toContainEqual(expect.objectContaining({ field: 'body', code: 'invalid_type' }));
  });

  it('422 for a subject with a newline and for a 999-character subject; 998 characters are accepted whole', async () => {
    await expectInvalid(base('subject-nl', { subject: 'Line one\nLine two' }), 'subject', 'invalid_string');
    await expectInvalid(base('subject-cr', { subject: 'Line one\rLine two' }), 'subject', 'invalid_string');
    await expectInvalid(base('subject-long', { subject: 'x'.repeat(999) }), 'subject', 'too_big');
    const subject = `${'word '.repeat(199)}end`; // 998 characters
    expect(subject).toHaveLength(998);
    const { parsed } = await sendAndReceive(base('subject-998', { subject }));
    expect(parsed.subject).toBe(subject);
  });

  it('422 for header values with CR or LF or over 998 characters, and for reserved headers (code reserved_header)', async () => {
    await expectInvalid(base('hdr-lf', { headers: { 'X-Test': 'a\nb' } }), 'headers.X-Test', 'invalid_string');
    await expectInvalid(
      base('hdr-cr', { headers: { 'X-Test': 'a\rInjected: yes' } }),
      'headers.X-Test',
      'invalid_string',
    );
    await expectInvalid(base('hdr-long', { headers: { 'X-Test': 'v'.repeat(999) } }), 'headers.X-Test', 'too_big');
    await expectInvalid(base('hdr-from', { headers: { From: 'boss@evil.test' } }), 'headers.From', 'reserved_header');
    await expectInvalid(
      base('hdr-lu', { headers: { 'list-unsubscribe': '<https://evil.test>' } }),
      'headers.list-unsubscribe',
      'reserved_header',
    );
  });

  it('422 for 11 attachments, a filename with a quote, non-base64 content, inline without contentId', async () => {
    const cases: [tag: string, attachments: unknown[], field: string, code: string][] = [
      ['att-11', Array.from({ length: 11 }, () => attachment()), 'attachments', 'too_big'],
      ['att-quote', [attachment({ filename: 'a"b.txt' })], 'attachments.0.filename', 'invalid_string'],
      ['att-squote', [attachment(), attachment({ filename: "it's.txt" })], 'attachments.1.filename', 'invalid_string'],
      ['att-b64', [attachment({ content: 'not base64!' })], 'attachments.0.content', 'invalid_string'],
      ['att-inline', [attachment({ disposition: 'inline' })], 'attachments.0.contentId', 'custom'],
    ];
    for (const [tag, attachments, field, code] of cases) {
      await expectInvalid(base(tag, { attachments }), field, code);
    }
  });

  it('422 for more than 10 MB of attachments', async () => {
    const half = b64(Buffer.alloc(5 * 1024 * 1024 + 1, 7));
    const errors = await expectInvalid(
      base('att-big', {
        attachments: [attachment({ content: half }), attachment({ content: half, filename: 'b.txt' })],
      }),
      'attachments',
      'too_big',
    );
    expect(errors).toHaveLength(1);
  });

  it('400 for malformed JSON and for an invalid Idempotency-Key; 401 with the public key', async () => {
    const a = rcpt('badjson');
    const malformed = await main.api.request('POST', '/v1/send', {
      raw: `{"to":"${a}","from":"${FROM}","subject":"s","body":"<p>b</p>"`,
      headers: { 'content-type': 'application/json' },
    });
    await expectRefused(malformed, 400, 'INVALID_JSON', a);

    const b = rcpt('badkey');
    await expectRefused(
      await send({ to: b, from: FROM, subject: 's', body: '<p>b</p>' }, { 'Idempotency-Key': 'k'.repeat(256) }),
      400,
      'INVALID_IDEMPOTENCY_KEY',
      b,
    );
    const c = rcpt('badkey-ctl');
    await expectRefused(
      await send({ to: c, from: FROM, subject: 's', body: '<p>b</p>' }, { 'Idempotency-Key': 'tab\there' }),
      400,
      'INVALID_IDEMPOTENCY_KEY',
      c,
    );

    const d = rcpt('publickey');
    const pub = await main.api.request('POST', '/v1/send', {
      body: { to: d, from: FROM, subject: 's', body: '<p>b</p>' },
      key: main.publicKey,
    });
    await expectRefused(pub, 401, 'INVALID_API_KEY', d);
    const none = await main.api.request('POST', '/v1/send', {
      body: { to: d, from: FROM, subject: 's', body: '<p>b</p>' },
      key: null,
    });
    await expectRefused(none, 401, 'INVALID_API_KEY', d);
  });

  it('409 IDEMPOTENCY_KEY_REUSED for a reused key, and only one message at the sink', async () => {
    const to = rcpt('idem');
    const key = `send-${randomUUID()}`;
    const body = { to, from: FROM, subject: 'Once', body: '<p>Once</p>' };
    const first = await sendOk(main.api, body, { 'Idempotency-Key': key });
    const again = await send(body, { 'Idempotency-Key': key });
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect(again.body).toMatchObject({
      success: false,
      error: {
        code: 'IDEMPOTENCY_KEY_REUSED',
        statusCode: 409,
        details: { key, originalRequest: { method: 'POST', path: '/v1/send' }, originalStatusCode: 200, data: first },
      },
    });
    expect(typeof again.body.error.suggestion).toBe('string');
    await deliveredMessage(mail.sink, first.emails[0]!.email);
    // Another body under the same key is refused as well, and stores nothing.
    const otherTo = rcpt('idem-other');
    await expectRefused(
      await send({ ...body, to: otherTo }, { 'Idempotency-Key': key }),
      409,
      'IDEMPOTENCY_KEY_REUSED',
      otherTo,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(sinkMessagesTo(mail.sink, to)).toHaveLength(1);
  });
});

describe('the message at the SMTP sink', () => {
  const report = Buffer.from('Quarterly figures: 42\n');
  const binary = randomBytes(3000);
  let id: string;
  let to: string;
  let message: ReceivedMessage;
  let parsed: ParsedMail;

  beforeAll(async () => {
    to = rcpt('mime');
    const result = await sendAndReceive({
      to: { name: '张伟 Zhang', email: to },
      from: { name: 'Jürgen Müller', email: FROM },
      subject: 'Grüße — 你好',
      reply: 'reply-here@rcpt.send.test',
      headers: { 'X-Campaign': 'spring-2024', 'X-Entity-Ref-ID': 'abc-123', 'X-Note': 'Grüße aus Köln' },
      body:
        '<html><body><p>Hello there</p><p>Your report is attached.</p><p>Grüße — 你好</p>' +
        '<p><img src="cid:logo@pbx" alt="logo"></p><p><a href="https://example.com/docs">Docs</a></p></body></html>',
      attachments: [
        { filename: 'report.txt', content: b64(report), contentType: 'text/plain' },
        // Base64 wrapped at 76 columns, as many encoders write it.
        {
          filename: 'data.bin',
          content: binary.toString('base64').replace(/.{76}/g, '$&\r\n'),
          contentType: 'application/octet-stream',
          disposition: 'attachment',
        },
        { filename: 'Grüße – 报告.txt', content: b64('Unicode name'), contentType: 'text/plain; charset=utf-8' },
        {
          filename: 'logo.png',
          content: PNG.toString('base64'),
          contentType: 'image/png',
          contentId: 'logo@pbx',
          disposition: 'inline',
        },
      ],
    });
    ({ id, message, parsed } = result);
  });

  it('carries the envelope, the Message-ID of the record at the sender’s domain, and decoded names and subject', async () => {
    expect(message.from).toBe(FROM);
    expect(message.to).toEqual([to]);
    const record = await emailRecord(main.api, id);
    expect(record.messageId).toBe(`<${id}@${DOMAIN}>`);
    expect(parsed.messageId).toBe(record.messageId);
    expect(parsed.messageId!.endsWith(`@${DOMAIN}>`)).toBe(true);
    expect(parsed.subject).toBe('Grüße — 你好');
    expect((parsed.from as any).value).toEqual([{ address: FROM, name: 'Jürgen Müller' }]);
    expect((parsed.to as any).value).toEqual([{ address: to, name: '张伟 Zhang' }]);
    expect((parsed.replyTo as any).value).toEqual([{ address: 'reply-here@rcpt.send.test', name: '' }]);
    expect(parsed.headers.get('x-campaign')).toBe('spring-2024');
    expect(parsed.headers.get('x-entity-ref-id')).toBe('abc-123');
    // mailparser leaves unknown headers' encoded words as they are; decode them here.
    expect(decodeWords(parsed.headers.get('x-note') as string)).toBe('Grüße aus Köln');
  });

  it('encodes every non-ASCII header: no raw 8-bit byte in the header lines', () => {
    const headers = headerBlock(message.raw);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the class is every 7-bit byte, control characters included
    expect(/^[\x00-\x7f]*$/.test(headers)).toBe(true);
    expect(rawHeader(message.raw, 'Subject')).toMatch(/=\?UTF-8\?[BQ]\?/i);
    expect(rawHeader(message.raw, 'From')).toMatch(/=\?UTF-8\?[BQ]\?/i);
    expect(rawHeader(message.raw, 'To')).toMatch(/=\?UTF-8\?[BQ]\?/i);
    expect(rawHeader(message.raw, 'X-Campaign')).toBe('spring-2024');
    expect(rawHeader(message.raw, 'X-Note')).toMatch(/=\?UTF-8\?[BQ]\?/i);
  });

  it('is multipart with a text alternative generated from the HTML', () => {
    const raw = message.raw.toString('latin1');
    expect(raw).toMatch(/Content-Type: multipart\/mixed/i);
    expect(raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(raw).toMatch(/Content-Type: multipart\/related/i);
    expect(parsed.text).toContain('Hello there');
    expect(parsed.text).toContain('Your report is attached.');
    expect(parsed.text).not.toContain('<p>');
    expect(parsed.html).toContain('<p>Hello there</p>');
    expect(parsed.html).toContain('<p>Grüße — 你好</p>');
    expect(parsed.text).toContain('Grüße — 你好');
    // Every part is encoded: the whole message is 7-bit, as a relay without 8BITMIME needs.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the class is every 7-bit byte, control characters included
    expect(/^[\x00-\x7f]*$/.test(message.raw.toString('latin1'))).toBe(true);
  });

  it('carries the attachments byte for byte and the inline image as a related part referenced by cid:', () => {
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    expect([...byName.keys()].sort()).toEqual(['Grüße – 报告.txt', 'data.bin', 'logo.png', 'report.txt'].sort());
    expect(byName.get('Grüße – 报告.txt')!.content.toString()).toBe('Unicode name');
    expect(byName.get('report.txt')!.content.equals(report)).toBe(true);
    expect(byName.get('report.txt')!.contentType).toBe('text/plain');
    expect(byName.get('report.txt')!.contentDisposition).toBe('attachment');
    expect(byName.get('data.bin')!.content.equals(binary)).toBe(true);
    expect(byName.get('data.bin')!.contentType).toBe('application/octet-stream');
    const logo = byName.get('logo.png')!;
    expect(logo.content.equals(PNG)).toBe(true);
    expect(logo.contentType).toBe('image/png');
    expect(logo.contentId).toBe('<logo@pbx>');
    expect(logo.related).toBe(true);
    expect(logo.contentDisposition).toBe('inline');
    expect(parsed.html).toContain('src="cid:logo@pbx"');
  });

  it('is DKIM-signed with the domain’s key (mailauth, keys from DNS); a changed body byte fails', async () => {
    const result = await verifyDkim(message.raw, mail.dns);
    expect(result.results).toHaveLength(1);
    const [sig] = result.results;
    expect(sig!.status.result).toBe('pass');
    expect(sig!.signingDomain).toBe(DOMAIN);
    expect(sig!.selector).toBe(selectorOf(domain));

    const tampered = Buffer.from(message.raw);
    const bodyStart = tampered.indexOf('\r\n\r\n') + 4;
    const at = tampered.indexOf('Hello there', bodyStart);
    expect(at).toBeGreaterThan(bodyStart);
    tampered[at] = 'J'.charCodeAt(0);
    const bad = await verifyDkim(tampered, mail.dns);
    expect(bad.results).toHaveLength(1);
    expect(bad.results[0]!.status.result).not.toBe('pass');
  });
});

describe('email types', () => {
  const BODY =
    '<html><body><p>Hi {{ first_name ?? "there" }}</p><p><a href="https://example.com/docs">Docs</a></p></body></html>';
  const templates: Record<string, string> = {};
  beforeAll(async () => {
    for (const type of ['MARKETING', 'TRANSACTIONAL', 'HEADLESS']) {
      templates[type] = (await createTemplate(main.api, { subject: `${type} news`, body: BODY, type })).id;
    }
  });

  const tracked = (html: string, id: string) => {
    expect(html).toContain(`href="${mail.server.url}/t/click/${id}/`);
    expect(html).toContain(`url=${encodeURIComponent('https://example.com/docs')}`);
    expect(html).not.toContain('href="https://example.com/docs"');
    expect(html).toContain(`src="${mail.server.url}/t/open/${id}/`);
  };

  it('MARKETING: List-Unsubscribe one-click headers, footer with the same link, tracked links and an open pixel', async () => {
    const to = rcpt('marketing');
    const { id, parsed, message } = await sendAndReceive({
      to,
      template: templates.MARKETING,
      subscribed: true,
      data: { first_name: 'Mara' },
    });
    const header = rawHeader(message.raw, 'List-Unsubscribe')!;
    expect(header).toMatch(/^<https?:\/\/[^>]+\/unsubscribe\/[^>]+>$/);
    expect(rawHeader(message.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const url = header.slice(1, -1);
    expect(url.startsWith(`${mail.server.url}/unsubscribe/`)).toBe(true);
    const html = parsed.html as string;
    expect(html).toContain('<p>Hi Mara</p>');
    expect(html).toContain(`href="${url}"`); // the footer, not rewritten for tracking
    expect(html.indexOf(`href="${url}"`)).toBeLessThan(html.indexOf('</body>'));
    tracked(html, id);
    expect((await emailRecord(main.api, id)).type).toBe('MARKETING');

    // The header's link is a working RFC 8058 one-click unsubscribe.
    const click = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(click.status).toBe(200);
    expect((await contactByEmail(to)).subscribed).toBe(false);
  });

  it('MARKETING to an unsubscribed contact is stored as skipped and never sent', async () => {
    const to = rcpt('marketing-unsub');
    const data = await sendOk(main.api, { to, template: templates.MARKETING });
    const record = await emailRecord(main.api, data.emails[0]!.email);
    expect(record).toMatchObject({ status: 'skipped', type: 'MARKETING', sentAt: null, smtpResponse: null });
    expect(record.lastError).toEqual(expect.any(String));
    neverDelivered.push(to);
  });

  it('TRANSACTIONAL to an unsubscribed contact is delivered, tracked, without List-Unsubscribe or footer', async () => {
    const to = rcpt('transactional-unsub');
    const { id, parsed, message } = await sendAndReceive({
      to,
      template: templates.TRANSACTIONAL,
      subscribed: false,
      data: { first_name: 'Tom' },
    });
    expect(rawHeader(message.raw, 'List-Unsubscribe')).toBeUndefined();
    expect(rawHeader(message.raw, 'List-Unsubscribe-Post')).toBeUndefined();
    const html = parsed.html as string;
    expect(html).toContain('<p>Hi Tom</p>');
    expect(html).not.toContain('/unsubscribe/');
    tracked(html, id);
  });

  it('HEADLESS: the body exactly as rendered (no pixel, no rewritten links, no footer), sent to an unsubscribed contact', async () => {
    const to = rcpt('headless-unsub');
    const { id, parsed, message } = await sendAndReceive({
      to,
      template: templates.HEADLESS,
      data: { first_name: 'Hedda' },
    });
    expect((await contactByEmail(to)).subscribed).toBe(false);
    expect(rawHeader(message.raw, 'List-Unsubscribe')).toBeUndefined();
    expect(parsed.html).toBe(
      '<html><body><p>Hi Hedda</p><p><a href="https://example.com/docs">Docs</a></p></body></html>',
    );
    // The sink has the message; the outcome is written a moment later.
    await recordWhen(main.api, id, (r) => r.status === 'sent');
  });
});

describe('the email record', () => {
  it('moves from queued to sent with sentAt and smtpResponse, and an email.sent event with emailId exists', async () => {
    const to = rcpt('record');
    const before = Date.now();
    const data = await sendOk(main.api, { to, from: FROM, subject: 'Record', body: '<p>Record</p>' });
    const id = data.emails[0]!.email;
    const first = await emailRecord(main.api, id);
    expect(['queued', 'sent']).toContain(first.status);
    if (first.status === 'queued') expect(first.sentAt).toBeNull();

    const sent = await recordWhen(main.api, id, (r) => r.status === 'sent');
    expect(sent).toEqual<EmailRecord>({
      id,
      projectId: main.id,
      contactId: data.emails[0]!.contact.id,
      templateId: null,
      campaignId: null,
      type: 'TRANSACTIONAL',
      status: 'sent',
      from: FROM,
      fromName: null,
      to,
      toName: null,
      replyTo: null,
      subject: 'Record',
      messageId: `<${id}@${DOMAIN}>`,
      attempts: 1,
      nextAttemptAt: null,
      lastError: null,
      smtpResponse: expect.stringMatching(/^250\b/),
      sentAt: expect.any(String),
      ...NO_FAILURE_OR_FEEDBACK,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(Date.parse(sent.sentAt!)).toBeGreaterThanOrEqual(Date.parse(sent.createdAt));
    expect(Date.parse(sent.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(sinkMessagesTo(mail.sink, to)).toHaveLength(1);

    const events = (await eventsNamed(main.api, 'email.sent')).filter((e) => e.data.emailId === id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      name: 'email.sent',
      contactId: data.emails[0]!.contact.id,
      email: to,
      data: { emailId: id },
    });
  });

  it('404 for the record of another project; 422 for an id that is not a uuid', async () => {
    const data = await sendOk(main.api, { to: rcpt('record-tenancy'), from: FROM, subject: 's', body: '<p>b</p>' });
    const res = await other.api.get(`/emails/${data.emails[0]!.email}`);
    expect(res.status).toBe(404);
    expect((await main.api.get('/emails/not-a-uuid')).status).toBe(422);
  });
});

describe('without SMTP_URL', () => {
  let outboxServer: TestServer;
  let project: TestProject;
  let view: Domain;
  beforeAll(async () => {
    outboxServer = await startTestServer({ DNS_SERVERS: mail.dns.address, DELIVERY_RETRY_BASE_SECONDS: '0.2' });
    [project, view] = await projectAndDomain({ server: outboxServer, dns: mail.dns }, 'outbox', 'outbox.send.test');
  });
  afterAll(async () => {
    await outboxServer?.stop();
  });

  it('writes each message as a signed .eml file under DATA_DIR/outbox', async () => {
    const to = rcpt('outbox');
    const record = await sentRecord(project.api, {
      to,
      from: 'dev@outbox.send.test',
      subject: 'Outbox Grüße',
      body: '<p>Captured</p>',
    });
    const id = record.id;
    const dir = path.join(outboxServer.service.ctx.config.dataDir, 'outbox');
    const file = await eventually(async () => fs.readdirSync(dir).find((f) => f.endsWith('.eml') && f.includes(id)));
    expect(record.smtpResponse).toContain(file);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const raw = fs.readFileSync(path.join(dir, file));
    const parsed = await simpleParser(raw);
    expect(parsed.messageId).toBe(`<${id}@outbox.send.test>`);
    expect(parsed.subject).toBe('Outbox Grüße');
    expect((parsed.to as any).value).toEqual([{ address: to, name: '' }]);
    expect(parsed.html).toContain('<p>Captured</p>');
    expect(parsed.text).toContain('Captured');
    const dkim = await verifyDkim(raw, mail.dns);
    expect(dkim.results).toHaveLength(1);
    expect(dkim.results[0]).toMatchObject({
      signingDomain: 'outbox.send.test',
      selector: selectorOf(view),
      status: { result: 'pass' },
    });
    expect(sinkMessagesTo(mail.sink, to)).toEqual([]);
  });
});

describe('afterwards', () => {
  it('no refused or skipped send reached the sink', async () => {
    // A message sent now arrives after anything that could still be on its way.
    const { id } = await sendAndReceive({ to: rcpt('sentinel'), from: FROM, subject: 'Last', body: '<p>Last</p>' });
    await recordWhen(main.api, id, (r) => r.status === 'sent');
    await new Promise((r) => setTimeout(r, 300));
    const leaked = mail.sink.messages.filter((m) => m.to.some((a) => neverDelivered.includes(a)));
    expect(leaked.map((m) => m.to)).toEqual([]);
    expect(neverDelivered.length).toBeGreaterThan(20);
  });
});
