import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline, type Readable, Transform } from 'node:stream';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer/lib/mailer';
import SMTPPool from 'nodemailer/lib/smtp-pool';

export interface SentInfo {
  /** The relay's answer, or where the message was written. */
  response: string;
}

export interface SendHooks {
  /**
   * Awaited before the message's last bytes go to the relay: until then the relay cannot have
   * accepted it, so what comes after this is all a kill can make the relay receive twice.
   */
  beforeEnd?(): Promise<void>;
}

/** Where outgoing mail goes: an SMTP relay, or files in the dev outbox. */
export interface MailTransport {
  send(message: SendMailOptions, hooks?: SendHooks): Promise<SentInfo>;
  close(): void;
}

export interface SmtpOptions {
  /** Connections kept open to the relay. */
  maxConnections: number;
}

/**
 * Pooled SMTP to `SMTP_URL`. Timeouts stay well below the delivery lease, so a stalled relay
 * fails a message (to be retried) before another worker could take it over.
 */
export function smtpTransport(url: string, options: SmtpOptions): MailTransport {
  const pool = new SMTPPool({
    url,
    maxConnections: options.maxConnections,
    maxMessages: Infinity,
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  });
  // The pool behind a transport of its own, which holds back each message's end until its
  // `beforeEnd`: the last step of the message's stream, after DKIM signing, so only the final bytes wait.
  const transporter = nodemailer.createTransport<SMTPPool.SentMessageInfo>({
    name: pool.name,
    version: pool.version,
    send(mail, callback) {
      const beforeEnd = (mail.data as { beforeEnd?: () => Promise<void> }).beforeEnd;
      if (beforeEnd) mail.message.processFunc((input: Readable) => holdingEnd(input, beforeEnd));
      pool.send(mail, callback);
    },
    close: () => pool.close(),
  });
  return {
    async send(message, hooks) {
      const info = await transporter.sendMail({
        ...message,
        ...(hooks?.beforeEnd ? { beforeEnd: hooks.beforeEnd } : {}),
      });
      return { response: String(info.response ?? '') };
    },
    close: () => transporter.close(),
  };
}

/** `input` with its last chunk held back until `beforeEnd` resolves; a rejection fails the message. */
function holdingEnd(input: Readable, beforeEnd: () => Promise<void>): Transform {
  let last: Buffer | undefined;
  const output = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const previous = last;
      last = chunk;
      done(null, previous);
    },
    flush(done) {
      beforeEnd().then(
        () => done(null, last),
        (err: Error) => done(err),
      );
    },
  });
  return pipeline(input, output, () => {});
}

/** Where the outbox keeps the message with this Message-ID. */
export function outboxFile(dir: string, messageId: string): string {
  return path.join(dir, `${messageId.replace(/[^\w.@-]/g, '')}.eml`);
}

/** Builds messages without sending them: the bytes a relay would receive. */
const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

/** The message as it would go out (signed when its options carry a key), CRLF lines. */
export async function messageBytes(message: SendMailOptions): Promise<{ messageId: string; bytes: Buffer }> {
  const info = await composer.sendMail(message);
  return { messageId: String(info.messageId), bytes: info.message as Buffer };
}

/** Without a relay, each message is written as an `.eml` file (signed, exactly as it would be sent). */
export function outboxTransport(dir: string): MailTransport {
  return {
    async send(message) {
      const { messageId, bytes } = await messageBytes(message);
      await fs.mkdir(dir, { recursive: true });
      const file = outboxFile(dir, messageId);
      // Written under a temporary name first, so a reader never sees half a message.
      await fs.writeFile(`${file}.tmp`, bytes);
      await fs.rename(`${file}.tmp`, file);
      return { response: `written to ${file}` };
    },
    close: () => {},
  };
}

export type DeliveryOutcome = 'permanent' | 'temporary';

/**
 * A 5xx answer about the message or its recipient is final; everything else (4xx, refused or
 * dropped connections, timeouts, authentication trouble the operator can fix) is worth retrying.
 */
export function classifyFailure(err: unknown): DeliveryOutcome {
  const e = err as { responseCode?: number; code?: string };
  const permanentCode = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
  return permanentCode && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE') ? 'permanent' : 'temporary';
}
