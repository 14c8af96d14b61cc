import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { basicAuthMatches } from '../../src/domain/feedback/basic-auth.js';
import { brevoReports, isBrevoDelivery } from '../../src/domain/feedback/brevo.js';
import { mailgunReport, mailgunSignatureValid } from '../../src/domain/feedback/mailgun.js';
import { postmarkReport } from '../../src/domain/feedback/postmark.js';
import { withRelayMetadata } from '../../src/domain/feedback/relay-metadata.js';

const ID = '0b0e6a44-7c1e-4f5a-9a52-1d2b3c4d5e6f';

describe('Mailgun', () => {
  const key = 'mailgun-signing-key-0123456789';
  const sign = (timestamp: string, token: string, k = key) =>
    createHmac('sha256', k)
      .update(timestamp + token)
      .digest('hex');
  const token = 'a'.repeat(50);

  it('verifies the HMAC of timestamp and token, or the parent account’s, and nothing else', () => {
    const good = { timestamp: '1795560340', token, signature: sign('1795560340', token) };
    expect(mailgunSignatureValid(key, { signature: good })).toBe(true);
    expect(mailgunSignatureValid(key, { signature: { ...good, timestamp: 1795560340 } })).toBe(true);
    expect(mailgunSignatureValid(key, { signature: { ...good, timestamp: '1795560341' } })).toBe(false);
    expect(mailgunSignatureValid(key, { signature: { ...good, token: `${token}x` } })).toBe(false);
    expect(mailgunSignatureValid('another-key', { signature: good })).toBe(false);
    expect(
      mailgunSignatureValid(key, {
        signature: { ...good, signature: sign('1795560340', token, 'sub'), 'parent-signature': good.signature },
      }),
    ).toBe(true);
    expect(mailgunSignatureValid(key, { signature: { ...good, signature: 'zz' } })).toBe(false);
    expect(mailgunSignatureValid(key, { signature: { ...good, signature: good.signature.slice(2) } })).toBe(false);
    expect(mailgunSignatureValid(key, {})).toBe(false);
    expect(mailgunSignatureValid(key, null)).toBe(false);
    expect(mailgunSignatureValid(key, [])).toBe(false);
  });

  const failed = (fields: Record<string, unknown>) => ({
    event: 'failed',
    id: 'G9Bn5sl1TC6nu79C8C0bwg',
    recipient: 'Ada@Example.net',
    message: { headers: { 'message-id': `${ID}@shop.example`, subject: 'Hi' } },
    ...fields,
  });

  it('reads a permanent failure as a hard bounce with its code and message, named by our Message-ID', () => {
    expect(
      mailgunReport(
        failed({
          severity: 'permanent',
          reason: 'bounce',
          'delivery-status': { code: 550, 'enhanced-code': '5.1.1', message: 'No such user here', description: '' },
        }),
      ),
    ).toEqual({
      kind: 'bounce',
      recipients: [
        { recipient: 'ada@example.net', type: 'hard', status: '5.1.1', diagnostic: '550 No such user here' },
      ],
      originalMessageId: `${ID}@shop.example`,
    });
  });

  it('reads a permanent failure after a 4xx as a soft bounce, and ignores a temporary one (Mailgun retries)', () => {
    const report = mailgunReport(
      failed({ severity: 'permanent', reason: 'old', 'delivery-status': { code: 452, message: 'Mailbox full' } }),
    );
    expect(report).toMatchObject({ kind: 'bounce', recipients: [{ type: 'soft', status: '4.0.0' }] });
    expect(mailgunReport(failed({ severity: 'temporary', 'delivery-status': { code: 451 } }))).toBeNull();
  });

  it('falls back to 5.0.0 and the reason when the delivery status says nothing', () => {
    expect(mailgunReport(failed({ severity: 'permanent', reason: 'suppress-bounce' }))).toMatchObject({
      recipients: [{ type: 'hard', status: '5.0.0', diagnostic: 'suppress-bounce' }],
    });
  });

  it('reads a complaint, accepts a bracketed Message-ID, and ignores other events and junk', () => {
    expect(
      mailgunReport({
        event: 'complained',
        recipient: 'ada@example.net',
        message: { headers: { 'message-id': `<${ID}@shop.example>` } },
      }),
    ).toEqual({
      kind: 'complaint',
      feedbackType: 'abuse',
      recipient: 'ada@example.net',
      originalMessageId: `${ID}@shop.example`,
    });
    expect(mailgunReport({ event: 'delivered', message: { headers: {} } })).toBeNull();
    expect(mailgunReport({ event: 'complained' })).toMatchObject({ originalMessageId: null, recipient: null });
    expect(mailgunReport('failed')).toBeNull();
    expect(mailgunReport(null)).toBeNull();
  });
});

describe('Postmark', () => {
  const bounce = (fields: Record<string, unknown>) => ({
    RecordType: 'Bounce',
    ID: 4323372036,
    Type: 'HardBounce',
    TypeCode: 1,
    Name: 'Hard bounce',
    MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
    MessageStream: 'outbound',
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
    Email: 'Ada@Example.net',
    From: 'news@shop.example',
    BouncedAt: '2026-11-27T10:00:00Z',
    Inactive: true,
    CanActivate: true,
    Subject: 'Hi',
    Metadata: { 'postbox-email-id': ID },
    ...fields,
  });

  it('reads a hard bounce with the status in its details, named by our email id in the metadata', () => {
    expect(postmarkReport(bounce({}))).toEqual({
      report: {
        kind: 'bounce',
        recipients: [
          {
            recipient: 'ada@example.net',
            type: 'hard',
            status: '5.1.1',
            diagnostic: '550 5.1.1 The email account that you tried to reach does not exist.',
          },
        ],
        originalMessageId: null,
      },
      emailId: ID,
    });
  });

  it('reads refusals that are not about the address as soft, ignores delays and auto-replies', () => {
    expect(postmarkReport(bounce({ Type: 'SoftBounce', TypeCode: 4096, Details: 'mailbox full' }))).toMatchObject({
      report: { recipients: [{ type: 'soft', status: '4.0.0', diagnostic: 'mailbox full' }] },
    });
    expect(postmarkReport(bounce({ Type: 'Blocked', Details: '' }))).toMatchObject({
      report: { recipients: [{ type: 'soft', diagnostic: expect.stringContaining('unable to deliver') }] },
    });
    for (const Type of ['Transient', 'AutoResponder', 'AddressChange', 'Subscribe', 'ChallengeVerification'])
      expect(postmarkReport(bounce({ Type }))).toBeNull();
  });

  it('reads a spam complaint record, and metadata field names in any case', () => {
    expect(
      postmarkReport({
        RecordType: 'SpamComplaint',
        Type: 'SpamComplaint',
        TypeCode: 100001,
        Email: 'ada@example.net',
        Metadata: { 'Postbox-Email-Id': ID },
      }),
    ).toEqual({
      report: { kind: 'complaint', feedbackType: 'abuse', recipient: 'ada@example.net', originalMessageId: null },
      emailId: ID,
    });
  });

  it('has no email id without the metadata, and nothing for other records', () => {
    expect(postmarkReport(bounce({ Metadata: { user_id: 43 } }))?.emailId).toBeNull();
    expect(postmarkReport(bounce({ Metadata: undefined }))?.emailId).toBeNull();
    expect(postmarkReport({ RecordType: 'Delivery', MessageID: 'x' })).toBeNull();
    expect(postmarkReport([])).toBeNull();
  });
});

describe('basic auth of relay webhooks', () => {
  const header = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
  it('takes exactly the configured user and password', () => {
    expect(basicAuthMatches(header('postbox:a-long-password-123'), 'postbox:a-long-password-123')).toBe(true);
    expect(basicAuthMatches(header('postbox:a-long-password-12'), 'postbox:a-long-password-123')).toBe(false);
    expect(basicAuthMatches(header('other:a-long-password-123'), 'postbox:a-long-password-123')).toBe(false);
    expect(basicAuthMatches('Bearer postbox:a-long-password-123', 'postbox:a-long-password-123')).toBe(false);
    expect(basicAuthMatches(undefined, 'postbox:a-long-password-123')).toBe(false);
  });
});

describe('relay metadata on outgoing mail', () => {
  it('adds our email id for the relays feedback is taken from, never over the sender’s own header', () => {
    expect(withRelayMetadata({ A: '1' }, ID, { postmark: false, brevo: false })).toEqual({ A: '1' });
    expect(withRelayMetadata({}, ID, { postmark: true, brevo: false })).toEqual({
      'X-PM-Metadata-postbox-email-id': ID,
    });
    expect(withRelayMetadata({}, ID, { postmark: false, brevo: true })).toEqual({ 'X-Mailin-custom': ID });
    expect(withRelayMetadata({ 'x-mailin-custom': 'theirs' }, ID, { postmark: false, brevo: true })).toEqual({
      'x-mailin-custom': 'theirs',
    });
  });
});

describe('Brevo', () => {
  const event = (fields: Record<string, unknown>) => ({
    event: 'hard_bounce',
    email: 'Ada@Example.net',
    id: 412345,
    date: '2026-11-27 11:00:00',
    ts: 1795560340,
    'message-id': `<${ID}@shop.example>`,
    ts_event: 1795560340,
    subject: 'Hi',
    'X-Mailin-custom': ID,
    sending_ip: '185.41.28.109',
    ts_epoch: 1795560340000,
    reason: '550 5.1.1 <ada@example.net>: Recipient address rejected: User unknown',
    tags: [],
    ...fields,
  });

  it('reads a hard bounce with its reason, named by our id in X-Mailin-custom and our Message-ID', () => {
    expect(brevoReports(event({}))).toEqual([
      {
        report: {
          kind: 'bounce',
          recipients: [
            {
              recipient: 'ada@example.net',
              type: 'hard',
              status: '5.1.1',
              diagnostic: '550 5.1.1 <ada@example.net>: Recipient address rejected: User unknown',
            },
          ],
          originalMessageId: `${ID}@shop.example`,
        },
        emailId: ID,
      },
    ]);
  });

  it('reads a batch: soft bounces soft, spam as a complaint, and leaves out what Brevo retries or blocked itself', () => {
    const reports = brevoReports([
      event({ event: 'soft_bounce', reason: 'Mailbox full', 'X-Mailin-custom': undefined }),
      event({ event: 'spam', reason: undefined }),
      event({ event: 'deferred' }),
      event({ event: 'blocked' }),
      event({ event: 'invalid_email' }),
      event({ event: 'delivered' }),
      'junk',
    ]);
    expect(reports).toEqual([
      {
        report: expect.objectContaining({ recipients: [expect.objectContaining({ type: 'soft', status: '4.0.0' })] }),
        emailId: null,
      },
      {
        report: {
          kind: 'complaint',
          feedbackType: 'abuse',
          recipient: 'ada@example.net',
          originalMessageId: `${ID}@shop.example`,
        },
        emailId: ID,
      },
    ]);
  });

  it('knows a Brevo delivery by its shape', () => {
    expect(isBrevoDelivery(event({}))).toBe(true);
    expect(isBrevoDelivery([event({}), event({ event: 'spam' })])).toBe(true);
    expect(isBrevoDelivery([])).toBe(false);
    expect(isBrevoDelivery([event({}), 'junk'])).toBe(false);
    expect(isBrevoDelivery({ email: 'ada@example.net' })).toBe(false);
    expect(isBrevoDelivery('hard_bounce')).toBe(false);
  });
});
