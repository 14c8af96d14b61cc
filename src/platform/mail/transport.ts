import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer/lib/mailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';

export interface SentInfo {
  /** The relay's answer, or where the message was written. */
  response: string;
}

/** Where outgoing mail goes: an SMTP relay, or files in the dev outbox. */
export interface MailTransport {
  send(message: SendMailOptions): Promise<SentInfo>;
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
  const transporter = nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: options.maxConnections,
    maxMessages: Infinity,
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  } as SMTPPool.Options);
  return {
    async send(message) {
      const info = await transporter.sendMail(message);
      return { response: String(info.response ?? '') };
    },
    close: () => transporter.close(),
  };
}

/** Where the outbox keeps the message with this Message-ID. */
export function outboxFile(dir: string, messageId: string): string {
  return path.join(dir, `${messageId.replace(/[^\w.@-]/g, '')}.eml`);
}

/** Without a relay, each message is written as an `.eml` file (signed, exactly as it would be sent). */
export function outboxTransport(dir: string): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async send(message) {
      const info = await transporter.sendMail(message);
      await fs.mkdir(dir, { recursive: true });
      const file = outboxFile(dir, String(info.messageId));
      // Written under a temporary name first, so a reader never sees half a message.
      await fs.writeFile(`${file}.tmp`, info.message as Buffer);
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
