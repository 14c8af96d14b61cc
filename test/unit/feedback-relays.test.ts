import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mailgunReport, mailgunSignatureValid } from '../../src/domain/feedback/mailgun.js';

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
