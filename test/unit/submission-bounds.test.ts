import { beforeAll, describe, expect, it } from 'vitest';
import { submission } from '../../src/platform/untrusted/mail-tasks.js';
import { INLINE_SUBMISSION_BYTES, INLINE_SUBMISSION_PARTS, isSmallMessage } from '../../src/platform/untrusted/pool.js';

// A small submitted message is read on the event loop (pool.ts `isSmallMessage`): the work must be
// bounded by its size whatever it holds. Each hostile message below fills the inline bound; the time
// asserted is generous (a second for 32 KiB: the worst of these took about 10 ms here, an
// ordinary message about 1 ms); the point is that nothing grows faster than the input.

const LIMIT = INLINE_SUBMISSION_BYTES;
const head = 'From: a@example.com\r\nTo: b@example.com\r\nSubject: s\r\n';

/** `unit` repeated to fill the inline bound once wrapped by `before` and `after`. */
function filled(before: string, unit: string, after = ''): Buffer {
  const room = LIMIT - before.length - after.length;
  return Buffer.from(before + unit.repeat(Math.floor(room / unit.length)) + after, 'latin1');
}

async function timed(raw: Buffer): Promise<number> {
  expect(isSmallMessage(raw)).toBe(true);
  const started = performance.now();
  await submission(raw);
  return performance.now() - started;
}

describe('reading a small submitted message inline', () => {
  // The parser's code is compiled on its first messages: that time is not the input's.
  beforeAll(async () => {
    for (let i = 0; i < 20; i++) await submission(Buffer.from(`${head}\r\nhello\r\n`));
  });

  it.each([
    ['thousands of header fields', filled('', 'X-A: b\r\n', `${head}\r\nbody\r\n`)],
    ['a subject of encoded words', filled('From: a@example.com\r\nSubject: ', '=?UTF-8?B?w6k=?= ', '\r\n\r\nb\r\n')],
    [
      'a To header of thousands of addresses',
      filled('From: a@example.com\r\nSubject: s\r\nTo: ', 'x@y.z, ', '\r\n\r\nb\r\n'),
    ],
    ['unbalanced quotes and comments in From', filled('Subject: s\r\nFrom: ', '"(<', '\r\n\r\nb\r\n')],
    ['one header folded every two characters', filled(`${head}X-Folded: `, 'a\r\n ', '\r\n\r\nb\r\n')],
    [
      'a quoted-printable body of soft breaks',
      filled(`${head}Content-Transfer-Encoding: quoted-printable\r\n\r\n`, '=\r\n'),
    ],
    ['a base64 body of garbage', filled(`${head}Content-Transfer-Encoding: base64\r\n\r\n`, '*=!\r\n')],
    ['an HTML body of unclosed tags', filled(`${head}Content-Type: text/html\r\n\r\n`, '<a <b ')],
    [
      'multiparts nested as deep as the part bound allows',
      Buffer.from(
        `${head}${Array.from(
          { length: INLINE_SUBMISSION_PARTS - 1 },
          (_, i) => `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`,
        ).join('')}Content-Type: text/plain\r\n\r\n${'x'.repeat(20_000)}\r\n`,
      ),
    ],
    ['bare carriage returns', filled(head, '\r')],
  ])('%s (32 KiB) is read in bounded time', async (_name, raw) => {
    expect(await timed(raw)).toBeLessThan(1_000);
  });

  it('leaves larger messages, and messages of more parts, to the pool', () => {
    expect(isSmallMessage(Buffer.alloc(LIMIT, 'a'))).toBe(true);
    expect(isSmallMessage(Buffer.alloc(LIMIT + 1, 'a'))).toBe(false);
    const parts = (n: number) => Buffer.from(`${head}${'Content-Type: text/plain\r\n'.repeat(n)}\r\nb`);
    expect(isSmallMessage(parts(INLINE_SUBMISSION_PARTS))).toBe(true);
    expect(isSmallMessage(parts(INLINE_SUBMISSION_PARTS + 1))).toBe(false);
  });
});
