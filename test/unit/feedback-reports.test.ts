import { describe, expect, it } from 'vitest';
import { fieldGroups, reportInMessage } from '../../src/domain/feedback/reports.js';
import { readReturnPath, returnPath } from '../../src/domain/feedback/return-path.js';
import { LinkSigner } from '../../src/domain/signed-links.js';

const crlf = (lines: string[]) => lines.join('\r\n');

function dsn(
  fields: string[],
  original = 'Message-ID: <0b0e6a44-7c1e-4f5a-9a52-1d2b3c4d5e6f@shop.example>\r\nSubject: Hi\r\n',
) {
  return crlf([
    'From: MAILER-DAEMON@mx.example.net',
    'Subject: Undelivered Mail Returned to Sender',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type="delivery-status";',
    '\tboundary="=_b1"',
    '',
    '--=_b1',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'Your message could not be delivered.',
    '',
    '--=_b1',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    'Arrival-Date: Mon, 23 Nov 2026 10:00:00 +0000',
    '',
    ...fields,
    '',
    '--=_b1',
    'Content-Type: text/rfc822-headers',
    '',
    original,
    '--=_b1--',
    '',
  ]);
}

describe('delivery status notifications', () => {
  it('reads a permanent failure as a hard bounce, with the original Message-ID', () => {
    const report = reportInMessage(
      dsn([
        'Final-Recipient: rfc822; Ada@Example.net',
        'Action: failed',
        'Status: 5.1.1',
        'Diagnostic-Code: smtp; 550 5.1.1 <ada@example.net>:',
        ' Recipient address rejected',
      ]),
    );
    expect(report).toEqual({
      kind: 'bounce',
      recipients: [
        {
          recipient: 'ada@example.net',
          type: 'hard',
          status: '5.1.1',
          diagnostic: '550 5.1.1 <ada@example.net>: Recipient address rejected',
        },
      ],
      originalMessageId: '0b0e6a44-7c1e-4f5a-9a52-1d2b3c4d5e6f@shop.example',
    });
  });

  it('reads a transient failure as a soft bounce and ignores delays and deliveries', () => {
    const report = reportInMessage(
      dsn([
        'Final-Recipient: rfc822; a@example.net',
        'Action: delayed',
        'Status: 4.4.1',
        '',
        'Final-Recipient: rfc822; b@example.net',
        'Action: delivered',
        'Status: 2.0.0',
        '',
        'Final-Recipient: rfc822; c@example.net',
        'Action: failed',
        'Status: 4.2.2 (mailbox full)',
      ]),
    );
    expect(report).toMatchObject({
      kind: 'bounce',
      recipients: [{ recipient: 'c@example.net', type: 'soft', status: '4.2.2', diagnostic: null }],
    });
  });

  it('is a notice when no recipient failed, and no report when the message is no multipart/report', () => {
    expect(
      reportInMessage(dsn(['Final-Recipient: rfc822; a@example.net', 'Action: delayed', 'Status: 4.4.1'])),
    ).toEqual({ kind: 'notice' });
    expect(reportInMessage(crlf(['Subject: Out of office', 'Content-Type: text/plain', '', 'I am away.']))).toBeNull();
    expect(reportInMessage('no headers at all')).toBeNull();
  });

  it('decodes a base64 status part', () => {
    const fields = Buffer.from(
      'Reporting-MTA: dns; mx\r\n\r\nFinal-Recipient: rfc822; x@example.net\r\nAction: failed\r\nStatus: 5.2.1\r\n',
    ).toString('base64');
    const raw = crlf([
      'Content-Type: multipart/report; report-type=delivery-status; boundary=XX',
      '',
      '--XX',
      'Content-Type: message/delivery-status',
      'Content-Transfer-Encoding: base64',
      '',
      fields,
      '--XX--',
    ]);
    expect(reportInMessage(raw)).toMatchObject({
      kind: 'bounce',
      recipients: [{ recipient: 'x@example.net', type: 'hard', status: '5.2.1' }],
      originalMessageId: null,
    });
  });
});

describe('abuse reports (ARF)', () => {
  const arf = (type: string) =>
    crlf([
      'Content-Type: multipart/report; report-type=feedback-report; boundary="part"',
      '',
      '--part',
      'Content-Type: text/plain',
      '',
      'This is an email abuse report.',
      '',
      '--part',
      'Content-Type: message/feedback-report',
      '',
      `Feedback-Type: ${type}`,
      'User-Agent: SomeISP-FBL/1.0',
      'Version: 1',
      'Original-Rcpt-To: <ada@example.net>',
      '',
      '--part',
      'Content-Type: message/rfc822',
      '',
      'From: news@shop.example',
      'Message-ID: <0b0e6a44-7c1e-4f5a-9a52-1d2b3c4d5e6f@shop.example>',
      '',
      'Hello',
      '--part--',
    ]);

  it('reads a complaint with its feedback type, recipient and original Message-ID', () => {
    expect(reportInMessage(arf('abuse'))).toEqual({
      kind: 'complaint',
      feedbackType: 'abuse',
      recipient: 'ada@example.net',
      originalMessageId: '0b0e6a44-7c1e-4f5a-9a52-1d2b3c4d5e6f@shop.example',
    });
  });

  it('does not count a not-spam report as a complaint', () => {
    expect(reportInMessage(arf('not-spam'))).toEqual({ kind: 'notice' });
  });
});

describe('fieldGroups', () => {
  it('splits blocks, unfolds lines and keeps the first of a repeated field', () => {
    expect(fieldGroups('A: 1\nB: two\n  lines\nA: 3\n\n\nC: x')).toEqual([
      new Map([
        ['a', '1'],
        ['b', 'two lines'],
      ]),
      new Map([['c', 'x']]),
    ]);
  });
});

describe('return paths', () => {
  const signer = new LinkSigner(Buffer.alloc(32, 7));
  const id = '0b0e6a44-7c1e-4f5a-9a52-1d2b3c4d5e6f';

  it('names the email on the bounces subdomain, within 64 characters of local part, whatever the case', () => {
    const address = returnPath(signer, id, 'news@Shop.example');
    expect(address).toMatch(/^bounces\+[0-9a-f]{48}@bounces\.Shop\.example$/);
    expect(address.split('@')[0]!.length).toBeLessThanOrEqual(64);
    expect(readReturnPath(signer, address)).toBe(id);
    expect(readReturnPath(signer, address.toUpperCase())).toBe(id);
  });

  it('refuses a return path with a wrong signature or another shape', () => {
    const address = returnPath(signer, id, 'news@shop.example');
    const forged = address.replace(/[0-9a-f](?=@)/, (c) => (c === '0' ? '1' : '0'));
    expect(readReturnPath(signer, forged)).toBeNull();
    expect(readReturnPath(new LinkSigner(Buffer.alloc(32, 8)), address)).toBeNull();
    expect(readReturnPath(signer, 'postmaster@shop.example')).toBeNull();
  });
});
