import net from 'node:net';
import { parseReportAnswer, SpamdError, type SpamdTarget, type SpamReport } from '../domain/spamd-answer.js';

/**
 * A client of SpamAssassin's `spamd` speaking its text protocol (SPAMC/1.5): one `REPORT` per
 * connection, whose answer holds the score, the threshold and the rules the message hits with their
 * points and descriptions. Each call has one deadline for the whole exchange and caps what it sends
 * and what it reads; every failure is a `SpamdError`.
 */

export interface SpamdLimits {
  /** For connecting, sending and reading the whole answer. */
  timeoutMs: number;
}

/** spamc's own default (`-s`): larger messages are not worth scanning, and are not sent. */
export const MAX_MESSAGE_BYTES = 500 * 1024;
/** A report is a few kilobytes; an answer past this is not spamd's. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** Asks spamd for the report of `message` (the bytes of an RFC 5322 message, CRLF lines). */
export async function spamReport(target: SpamdTarget, message: Buffer, limits: SpamdLimits): Promise<SpamReport> {
  if (message.length > MAX_MESSAGE_BYTES)
    throw new SpamdError(
      `The message is ${Math.ceil(message.length / 1024)} KB; the spam check takes up to ${MAX_MESSAGE_BYTES / 1024} KB`,
    );
  const head = Buffer.from(`REPORT SPAMC/1.5\r\nContent-length: ${message.length}\r\n\r\n`, 'latin1');
  return parseReportAnswer(await exchange(target, Buffer.concat([head, message]), limits));
}

/** Sends `request` on a new connection and reads until spamd closes it, within the deadline and the cap. */
function exchange(target: SpamdTarget, request: Buffer, limits: SpamdLimits): Promise<string> {
  const where = `spamd at ${target.host}:${target.port}`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = net.connect({ host: target.host, port: target.port });
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const fail = (message: string) => settle(() => reject(new SpamdError(message)));
    const timer = setTimeout(
      () => fail(`${where} did not answer within ${limits.timeoutMs / 1000} s`),
      limits.timeoutMs,
    );
    socket.on('error', (err: NodeJS.ErrnoException) =>
      fail(`${where} could not be reached (${err.code ?? err.message})`),
    );
    socket.on('connect', () => socket.end(request));
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) return fail(`${where} answered more than ${MAX_ANSWER_BYTES / 1024} KB`);
      chunks.push(chunk);
    });
    socket.on('end', () => settle(() => resolve(Buffer.concat(chunks).toString('utf8'))));
  });
}
