import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpamdError } from '../../src/domain/spamd-answer.js';
import { MAX_MESSAGE_BYTES, spamReport } from '../../src/platform/spamd.js';
import { hasSpamd, type Spamd, startSpamd } from '../support/spamd.js';

/** The spamd client's bounds, against servers on loopback that answer too much, and against spamd. */

const MESSAGE = Buffer.from(
  'From: a@example.com\r\nTo: b@example.org\r\nSubject: Hello\r\n\r\nHello there, see you on Monday.\r\n',
);

/** A server that reads each request whole (the client half-closes after it), then answers `answer` and closes. */
async function answering(answer: Buffer): Promise<{ port: number; close(): void }> {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.on('end', () => socket.end(answer));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

describe('the spamd client', () => {
  it('stops reading an answer past 256 KB', async () => {
    const server = await answering(Buffer.alloc(300 * 1024, 'x'));
    try {
      await expect(spamReport({ host: '127.0.0.1', port: server.port }, MESSAGE, { timeoutMs: 5_000 })).rejects.toThrow(
        new SpamdError(`spamd at 127.0.0.1:${server.port} answered more than 256 KB`),
      );
    } finally {
      server.close();
    }
  });

  it('says what it got when the answer is not spamd’s', async () => {
    const server = await answering(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
    try {
      await expect(spamReport({ host: '127.0.0.1', port: server.port }, MESSAGE, { timeoutMs: 5_000 })).rejects.toThrow(
        /something else than its protocol: HTTP\/1\.1 400 Bad Request/,
      );
    } finally {
      server.close();
    }
  });

  it('does not send a message larger than spamc would', async () => {
    const large = Buffer.alloc(MAX_MESSAGE_BYTES + 1, 'a');
    // Port 9 (discard) is never asked: the size is checked first.
    await expect(spamReport({ host: '127.0.0.1', port: 9 }, large, { timeoutMs: 1_000 })).rejects.toThrow(
      /the spam check takes up to 500 KB/,
    );
  });
});

describe.skipIf(!hasSpamd)('the spamd client against Debian’s spamd', () => {
  let spamd: Spamd;
  beforeAll(async () => {
    spamd = await startSpamd();
  }, 60_000);
  afterAll(() => spamd?.stop());

  it('reads the score, the threshold and the rules of a plain message', async () => {
    const port = Number(new URL(spamd.url).port);
    const report = await spamReport({ host: '127.0.0.1', port }, MESSAGE, { timeoutMs: 10_000 });
    expect(report.threshold).toBe(5);
    expect(report.score).toBeLessThan(5);
    expect(report.rules.length).toBeGreaterThan(0);
    for (const rule of report.rules) expect(rule.name).toMatch(/^[A-Z0-9_]+$/);
  });
});
