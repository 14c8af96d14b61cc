import type { KeyObject } from 'node:crypto';
import { Readable } from 'node:stream';
import { compile } from 'html-to-text';
import type { SendMailOptions } from 'nodemailer/lib/mailer';

export interface OutgoingAttachment {
  filename: string;
  content: string;
  contentType: string;
  contentId?: string;
  disposition: 'attachment' | 'inline';
}

export interface OutgoingEmail {
  messageId: string;
  from: { email: string; name: string | null };
  /** The envelope sender (return path) when it is not the From address. */
  returnPath?: string;
  to: { email: string; name: string | null };
  replyTo: string | null;
  subject: string;
  /** Empty: the message has no HTML part (a text-only message submitted over SMTP). */
  html: string;
  /** The plain-text alternative: the sender's own, or `textFromHtml` of the HTML (made in the worker pool: untrusted HTML). */
  text: string;
  headers: Record<string, string>;
  attachments: OutgoingAttachment[];
}

export interface DkimKey {
  domain: string;
  selector: string;
  /** A parsed key: parsing the PEM again for every message costs more than the signature. */
  privateKey: KeyObject;
  /** The domain's `bounces.` MX points at this service, so mail can carry a per-message return path. */
  returnPathVerified: boolean;
}

/**
 * The plain-text alternative of an HTML body: links kept as `text [url]`, images left out. Its time
 * grows with the nesting of the HTML and deep nesting overflows its stack, so it runs in the
 * worker pool (platform/untrusted), never on the event loop.
 */
export const textFromHtml: (html: string) => string = compile({
  wordwrap: 78,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
});

/** Attachments larger than this (as base64) reach nodemailer as a stream. */
const STREAM_ABOVE_CHARS = 256 * 1024;
/** Base64 characters decoded per step: a multiple of 4, so that each step decodes whole. */
const STEP_CHARS = 64 * 1024;

/**
 * Base64 content (without white space, as stored) decoded 48 KB at a time, one step per turn of
 * the event loop. Given whole, a 10 MB attachment went through nodemailer's base64 encoder and DKIM
 * body hash as one chunk: one block of the event loop of about 140 ms per message; in steps, each
 * stage handles 48 KB at a time and the loop runs in between.
 */
function decodedInSteps(content: string): Readable {
  let at = 0;
  return new Readable({
    read() {
      if (at >= content.length) return void this.push(null);
      const step = content.slice(at, at + STEP_CHARS);
      at += STEP_CHARS;
      setImmediate(() => this.push(Buffer.from(step, 'base64')));
    },
  });
}

/**
 * The message as nodemailer builds it: multipart/alternative (text and HTML), related parts for
 * inline images, encoded words for non-ASCII names and subjects, signed with the domain's key.
 */
export function mailOptions(email: OutgoingEmail, dkim: DkimKey | null): SendMailOptions {
  return {
    messageId: email.messageId,
    from: { name: email.from.name ?? '', address: email.from.email },
    to: { name: email.to.name ?? '', address: email.to.email },
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: email.subject,
    ...(email.html ? { html: email.html } : {}),
    text: email.text,
    headers: email.headers,
    attachments: email.attachments.map((a) => ({
      filename: a.filename,
      ...(a.content.length > STREAM_ABOVE_CHARS
        ? { content: decodedInSteps(a.content) }
        : { content: a.content, encoding: 'base64' }),
      contentType: a.contentType,
      contentDisposition: a.disposition,
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
    envelope: { from: email.returnPath ?? email.from.email, to: [email.to.email] },
    ...(dkim
      ? { dkim: { domainName: dkim.domain, keySelector: dkim.selector, privateKey: dkim.privateKey as never } }
      : {}),
  };
}
