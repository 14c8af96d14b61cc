/**
 * Inbound mail in the untrusted-content worker threads (see pool.ts, tasks.ts): a thread loads this
 * module (mailparser, sanitize-html) only when it first reads a message, so that processes and
 * threads that never receive mail do not carry it.
 */
import { htmlToText as plainText } from 'html-to-text';
import { type ParsedMail as ParsedMessage, simpleParser } from 'mailparser';
import { type Report, reportInMessage } from '../../domain/feedback/reports.js';
import { sanitizeInboundHtml } from '../../domain/inbound-html.js';
import type { Failure } from './tasks.js';

/** HTML beyond this is not sanitized (the stored HTML is cut at 1 MB anyway). */
export const MAX_INBOUND_HTML = 2 * 1024 * 1024;
const MAX_TEXT = 1024 * 1024;

export interface ParsedMail {
  ok: true;
  from: { address: string; name: string } | null;
  subject: string;
  text: string | null;
  html: string | null;
  messageId: string | null;
  /** In-Reply-To and References, as one string. */
  replyTo: string;
  attachments: { filename: string | null; contentType: string; size: number }[];
}

/**
 * A received message, parsed (mailparser), its HTML sanitized and its text cut to 1 MB. Without a
 * text part the text is made from the HTML here, so that an HTML too deep to convert leaves the
 * text empty instead of failing the message.
 */
export async function mail(raw: Uint8Array): Promise<ParsedMail | Failure> {
  let parsed: ParsedMessage;
  try {
    parsed = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), {
      skipImageLinks: true,
      skipHtmlToText: true,
    });
  } catch (err) {
    const e = err as { message?: string; code?: string };
    return { ok: false, message: e.message ?? String(err), code: e.code };
  }
  const html = typeof parsed.html === 'string' ? parsed.html.slice(0, MAX_INBOUND_HTML) : null;
  let text = parsed.text || null;
  if (!text && html) {
    try {
      text = plainText(html);
    } catch {
      text = null; // nested too deep for html-to-text: the HTML is still kept
    }
  }
  const sender = parsed.from?.value[0];
  return {
    ok: true,
    from: sender ? { address: sender.address ?? '', name: sender.name ?? '' } : null,
    subject: parsed.subject ?? '',
    text: text?.slice(0, MAX_TEXT) ?? null,
    html: html === null ? null : sanitizeInboundHtml(html).slice(0, MAX_TEXT),
    messageId: parsed.messageId ?? null,
    replyTo: [parsed.inReplyTo ?? '', ...[parsed.references ?? []].flat()].join(' '),
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename ?? null,
      contentType: a.contentType,
      size: a.size,
    })),
  };
}

/** The delivery report or abuse report a message carries, or null. */
export function report(raw: Uint8Array): Report | null {
  return reportInMessage(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
}
