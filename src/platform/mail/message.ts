import type { KeyObject } from 'node:crypto';
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
  html: string;
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

/** The plain-text alternative of an HTML body: links kept as `text [url]`, images left out. */
export const textFromHtml: (html: string) => string = compile({
  wordwrap: 78,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
});

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
    html: email.html,
    text: textFromHtml(email.html),
    headers: email.headers,
    attachments: email.attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      encoding: 'base64',
      contentType: a.contentType,
      contentDisposition: a.disposition,
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
    envelope: { from: email.returnPath ?? email.from.email, to: [email.to.email] },
    ...(dkim ? { dkim: { domainName: dkim.domain, keySelector: dkim.selector, privateKey: dkim.privateKey as never } } : {}),
  };
}
