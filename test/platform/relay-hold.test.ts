import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MailTransport, smtpTransport } from '../../src/platform/mail/transport.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.js';

/**
 * The SMTP transport holds back the end of each message until its `beforeEnd` resolves: until then
 * the relay has not received the whole message, so it cannot have accepted it (what bounds the
 * messages a kill can send twice). The rest of the message, signed, is on its way meanwhile.
 */

let sink: SmtpSink;
let transport: MailTransport;

beforeAll(async () => {
  sink = await startSmtpSink();
  transport = smtpTransport(sink.url, { maxConnections: 2 });
});
afterAll(async () => {
  transport?.close();
  await sink?.stop();
});

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

function message(n: number) {
  return {
    from: 'sender@hold.test',
    to: `reader${n}@hold.test`,
    subject: `Held ${n}`,
    html: `<p>${'A long enough body to take several chunks. '.repeat(2000)}</p>`,
    messageId: `<held-${n}@hold.test>`,
    dkim: {
      domainName: 'hold.test',
      keySelector: 'pbx',
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    },
  };
}

describe('the SMTP transport', () => {
  it('sends no message whole before its beforeEnd resolves, then sends it signed and complete', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let asked = 0;
    const sending = transport.send(message(1), {
      beforeEnd: () => {
        asked++;
        return held;
      },
    });
    // Another message without a hold goes through meanwhile, on the other connection.
    await transport.send(message(2));
    await sink.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(asked).toBe(1);
    expect(sink.messages.map((m) => m.to)).toEqual([['reader2@hold.test']]);

    release();
    const info = await sending;
    expect(info.response).toMatch(/^250/);
    const [received] = (await sink.waitFor(2)).filter((m) => m.to[0] === 'reader1@hold.test');
    const raw = received!.raw.toString('latin1');
    expect(raw).toMatch(/^DKIM-Signature: .*d=hold\.test/m);
    expect(raw).toContain('<held-1@hold.test>');
    expect(received!.raw.length).toBeGreaterThan(80_000);
  });

  it('fails a message whose beforeEnd fails, and the relay never receives it', async () => {
    const before = sink.messages.length;
    await expect(
      transport.send(message(3), { beforeEnd: () => Promise.reject(new Error('the session is gone')) }),
    ).rejects.toThrow();
    await transport.send(message(4));
    await sink.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(sink.messages.slice(before).map((m) => m.to)).toEqual([['reader4@hold.test']]);
  });
});
