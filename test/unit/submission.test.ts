import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LoginThrottle } from '../../src/domain/login-throttle.js';
import { emailFromMessage, type ReadMessage } from '../../src/domain/submission.js';
import { refusalOf } from '../../src/modules/submission/replies.js';
import { AppError, validationError } from '../../src/platform/http/errors.js';
import { ContentLimitError, PoolBusyError } from '../../src/platform/untrusted/pool.js';

const message = (over: Partial<ReadMessage> = {}): ReadMessage => ({
  from: { address: 'app@example.com', name: 'App' },
  replyTo: null,
  names: {},
  subject: 'Hello',
  html: '<p>Hi</p>',
  text: null,
  headers: [],
  parts: [],
  ...over,
});
const envelope = { mailFrom: 'bounce@example.com', rcptTo: ['ada@example.org'] };

describe('emailFromMessage', () => {
  it('is TRANSACTIONAL unless X-Postbox-Type says otherwise (any case); an unknown type is refused', () => {
    const typed = (value?: string) =>
      emailFromMessage(message({ headers: value ? [{ name: 'X-Postbox-Type', value }] : [] }), envelope);
    expect(typed()).toMatchObject({ ok: true, email: { type: 'TRANSACTIONAL' } });
    expect(typed('marketing')).toMatchObject({ ok: true, email: { type: 'MARKETING' } });
    expect(typed(' HEADLESS ')).toMatchObject({ ok: true, email: { type: 'HEADLESS' } });
    const bad = typed('bulk');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.reason).toMatch(/X-Postbox-Type must be TRANSACTIONAL, MARKETING or HEADLESS, not "bulk"/);
  });

  it('takes what X-Postbox-Track asks for, null without it; an unknown value is refused', () => {
    const tracked = (value?: string) =>
      emailFromMessage(message({ headers: value ? [{ name: 'X-Postbox-Track', value }] : [] }), envelope);
    expect(tracked()).toMatchObject({ ok: true, email: { tracking: null } });
    expect(tracked('none')).toMatchObject({ ok: true, email: { tracking: { opens: false, clicks: false } } });
    expect(tracked('Opens')).toMatchObject({ ok: true, email: { tracking: { opens: true, clicks: false } } });
    expect(tracked('opens, clicks')).toMatchObject({ ok: true, email: { tracking: { opens: true, clicks: true } } });
    const bad = tracked('all');
    expect(!bad.ok && bad.reason).toMatch(/X-Postbox-Track must be "none" or "opens", "clicks" or both, not "all"/);
  });

  it('carries the sender’s own headers, first of each name, and drops those the service writes or that describe MIME', () => {
    const r = emailFromMessage(
      message({
        headers: [
          { name: 'From', value: 'App <app@example.com>' },
          { name: 'Message-ID', value: '<x@y>' },
          { name: 'Date', value: 'now' },
          { name: 'MIME-Version', value: '1.0' },
          { name: 'Content-Type', value: 'multipart/mixed' },
          { name: 'Content-Language', value: 'en' },
          { name: 'Received', value: 'from somewhere' },
          { name: 'DKIM-Signature', value: 'v=1' },
          { name: 'X-Postbox-Type', value: 'TRANSACTIONAL' },
          { name: 'X-Postbox-Anything', value: '1' },
          { name: 'In-Reply-To', value: '<a@b>' },
          { name: 'References', value: '<a@b> <c@d>' },
          { name: 'X-Order', value: '42' },
          { name: 'x-order', value: '43' },
        ],
      }),
      envelope,
    );
    expect(r.ok && r.email.headers).toEqual({ 'In-Reply-To': '<a@b>', References: '<a@b> <c@d>', 'X-Order': '42' });
  });

  it('sends from the From header, else the envelope sender; needs a subject; a body-less message is an empty text', () => {
    expect(emailFromMessage(message(), envelope)).toMatchObject({
      ok: true,
      email: { from: { email: 'app@example.com', name: 'App' } },
    });
    expect(emailFromMessage(message({ from: null }), envelope)).toMatchObject({
      ok: true,
      email: { from: { email: 'bounce@example.com', name: null } },
    });
    expect(emailFromMessage(message({ from: null }), { ...envelope, mailFrom: null })).toEqual({
      ok: false,
      reason: 'The message has no From header and no envelope sender',
    });
    expect(emailFromMessage(message({ subject: '  ' }), envelope)).toMatchObject({ ok: false });
    expect(emailFromMessage(message({ html: ' ', text: null }), envelope)).toMatchObject({
      ok: true,
      email: { html: null, text: '' },
    });
    expect(emailFromMessage(message({ html: null, text: 'Hi\n' }), envelope)).toMatchObject({
      ok: true,
      email: { html: null, text: 'Hi\n' },
    });
  });

  it('addresses every envelope recipient once, in order, with the name the To or Cc header gave', () => {
    const r = emailFromMessage(message({ names: { 'ada@example.org': 'Ada' } }), {
      mailFrom: null,
      rcptTo: ['Ada@example.org', 'bob@example.org', 'ada@example.org'],
    });
    expect(r.ok && r.email.to).toEqual([
      { email: 'Ada@example.org', name: 'Ada' },
      { email: 'bob@example.org', name: null },
    ]);
  });

  it('turns parts into /v1/send attachments: inline only with a usable content id, names cleaned or made up', () => {
    const r = emailFromMessage(
      message({
        parts: [
          { filename: 'logo.png', contentType: 'image/png', contentId: '<logo@app>', inline: true, content: 'AA==' },
          { filename: null, contentType: 'image/gif', contentId: null, inline: true, content: 'AA==' },
          {
            filename: 'a "quoted"\r\nname.txt',
            contentType: 'text/plain',
            contentId: null,
            inline: false,
            content: 'AA==',
          },
          { filename: 'odd', contentType: 'not a type', contentId: 'has space', inline: true, content: 'AA==' },
        ],
      }),
      envelope,
    );
    expect(r.ok && r.email.attachments).toEqual([
      { filename: 'logo.png', content: 'AA==', contentType: 'image/png', contentId: 'logo@app', disposition: 'inline' },
      { filename: 'attachment-2.gif', content: 'AA==', contentType: 'image/gif', disposition: 'attachment' },
      { filename: 'a _quoted___name.txt', content: 'AA==', contentType: 'text/plain', disposition: 'attachment' },
      { filename: 'odd', content: 'AA==', contentType: 'application/octet-stream', disposition: 'attachment' },
    ]);
  });
});

describe('LoginThrottle', () => {
  const options = { freeFailures: 2, baseDelayMs: 1000, maxDelayMs: 4000, lockAfter: 6, windowMs: 60_000 };

  it('answers the first failures at once, then later and later, up to the cap', () => {
    const t = new LoginThrottle(options);
    expect([1, 2, 3, 4, 5].map(() => t.failed('10.0.0.1', 0))).toEqual([0, 0, 1000, 2000, 4000]);
    expect(t.failed('10.0.0.2', 0)).toBe(0);
  });

  it('locks an address out for the rest of its window after too many failures; a success forgets them', () => {
    const t = new LoginThrottle(options);
    for (let i = 0; i < 6; i++) t.failed('a', 1000);
    expect(t.lockedFor('a', 1000)).toBe(60_000);
    expect(t.lockedFor('a', 31_000)).toBe(30_000);
    expect(t.lockedFor('a', 61_000)).toBe(0);
    expect(t.failed('a', 61_000)).toBe(0);

    for (let i = 0; i < 5; i++) t.failed('b', 0);
    t.succeeded('b');
    expect(t.failed('b', 0)).toBe(0);
  });

  it('remembers a bounded number of addresses, forgetting the oldest', () => {
    const t = new LoginThrottle({ ...options, maxAddresses: 2 });
    for (const a of ['a', 'a', 'a', 'a', 'a', 'a', 'b', 'c']) t.failed(a, 0);
    expect(t.lockedFor('a', 0)).toBe(0);
  });
});

describe('refusalOf', () => {
  it('maps the send pipeline’s refusals onto SMTP replies, and leaves faults to a 451', () => {
    const sender = new AppError(403, 'INTERNAL_SERVER_ERROR', 'The sender domain x.test is not registered');
    expect(refusalOf(sender)).toMatchObject({
      responseCode: 550,
      message: '5.7.1 The sender domain x.test is not registered',
    });
    const big = validationError([
      { field: 'attachments', message: 'Attachments total 11 bytes; at most 10', code: 'too_big' },
    ]);
    expect(refusalOf(big)).toMatchObject({ responseCode: 552 });
    const header = validationError([{ field: 'headers.X-Long', message: 'At most 998 characters', code: 'too_big' }]);
    expect(refusalOf(header)).toMatchObject({
      responseCode: 550,
      message: '5.6.0 Message refused: headers.X-Long: At most 998 characters',
    });
    expect(refusalOf(new PoolBusyError('submission'))).toMatchObject({ responseCode: 451 });
    expect(refusalOf(new ContentLimitError('time', 'took longer than 15 s'))).toMatchObject({ responseCode: 554 });
    expect(refusalOf(new ContentLimitError('invalid', 'too long', 'EMAXLEN'))).toMatchObject({ responseCode: 552 });
    expect(refusalOf(new Error('boom'))).toBeNull();
  });
});

describe('submission settings', () => {
  it('are off without a port; AUTH needs TLS or the explicit insecure setting; implicit TLS needs a certificate', () => {
    expect(loadConfig({}).submission).toBeUndefined();
    expect(() => loadConfig({ SUBMISSION_SMTP_PORT: '587' })).toThrow(/SUBMISSION_ALLOW_INSECURE_AUTH/);
    expect(() => loadConfig({ SUBMISSION_SMTPS_PORT: '465', SUBMISSION_ALLOW_INSECURE_AUTH: 'true' })).toThrow(
      /SUBMISSION_SMTPS_PORT: needs SUBMISSION_TLS_CERT/,
    );
    expect(() => loadConfig({ SUBMISSION_SMTP_PORT: '587', SUBMISSION_TLS_CERT: '/c.pem' })).toThrow(/set both/);
    expect(loadConfig({ SUBMISSION_SMTP_PORT: '2587', SUBMISSION_ALLOW_INSECURE_AUTH: 'true' }).submission).toEqual({
      port: 2587,
      smtpsPort: undefined,
      host: '127.0.0.1',
      tls: undefined,
      allowInsecureAuth: true,
    });
    expect(
      loadConfig({
        HOST: '0.0.0.0',
        SUBMISSION_SMTP_PORT: '587',
        SUBMISSION_SMTPS_PORT: '465',
        SUBMISSION_TLS_CERT: '/c.pem',
        SUBMISSION_TLS_KEY: '/k.pem',
      }).submission,
    ).toEqual({
      port: 587,
      smtpsPort: 465,
      host: '0.0.0.0',
      tls: { certFile: '/c.pem', keyFile: '/k.pem' },
      allowInsecureAuth: false,
    });
  });
});
