/**
 * Inbound mail in the untrusted-content worker threads (see pool.ts, tasks.ts): a thread loads this
 * module (mailparser, sanitize-html) only when it first reads a message, so that processes and
 * threads that never receive mail do not carry it.
 */
import { htmlToText as plainText } from 'html-to-text';
import {
  type AddressObject,
  type EmailAddress,
  type ParsedMail as ParsedMessage,
  type SimpleParserOptions as ParserOptions,
  simpleParser,
} from 'mailparser';
import { type AggregateReport, readAggregateReport } from '../../domain/dmarc-aggregate.js';
import { expandReportFile, ReportRefused } from '../../domain/dmarc-archive.js';
import { type Report, reportInMessage } from '../../domain/feedback/reports.js';
import { sanitizeInboundHtml } from '../../domain/inbound-html.js';
import type { ReadMessage } from '../../domain/submission.js';
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
  const parsed = await parse(raw, { skipHtmlToText: true });
  if ('ok' in parsed) return parsed;
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

/** The types and names that mark the part of a message holding a DMARC aggregate report. */
const REPORT_TYPES = /^(application\/(gzip|x-gzip|zip|x-zip|x-zip-compressed|xml)|text\/xml)$/i;
const REPORT_NAMES = /\.(xml|gz|zip)$/i;

/**
 * The DMARC aggregate report a message carries (RFC 7489 §7.2.1.1: one file, attached, as XML, gzip
 * or zip), read under the bounds of domain/dmarc-archive.ts and domain/dmarc-aggregate.ts.
 */
export async function dmarcReport(raw: Uint8Array): Promise<({ ok: true } & AggregateReport) | Failure> {
  const parsed = await parse(raw, { skipHtmlToText: true, skipTextToHtml: true });
  if ('ok' in parsed) return parsed;
  const file =
    parsed.attachments.find((a) => REPORT_TYPES.test(a.contentType)) ??
    parsed.attachments.find((a) => REPORT_NAMES.test(a.filename ?? ''));
  const inline = !file && parsed.text && /^\s*<(\?xml|feedback)/.test(parsed.text) ? parsed.text : null;
  if (!file && !inline) return { ok: false, message: 'the message carries no report file' };
  try {
    const xml = file ? expandReportFile(file.content) : inline!;
    return { ok: true, ...readAggregateReport(xml) };
  } catch (err) {
    if (err instanceof ReportRefused) return { ok: false, message: err.message };
    throw err;
  }
}

/**
 * A message submitted over SMTP, read for sending (domain/submission.ts): its HTML and text as
 * written (not sanitized: it is the sender's own mail, going out under their domain), its header
 * fields as written, and its attachments and inline parts as base64, `cid:` references left in place.
 */
export async function submission(raw: Uint8Array): Promise<({ ok: true } & ReadMessage) | Failure> {
  const parsed = await parse(raw, { skipHtmlToText: true, skipTextToHtml: true, keepCidLinks: true });
  if ('ok' in parsed) return parsed;
  const from = addresses(parsed.from).find((a) => a.address);
  const names: Record<string, string> = {};
  for (const a of [...addresses(parsed.to), ...addresses(parsed.cc)])
    if (a.address && a.name) names[a.address.toLowerCase()] = a.name;
  return {
    ok: true,
    from: from ? { address: from.address!, name: from.name ?? '' } : null,
    replyTo: addresses(parsed.replyTo).find((a) => a.address)?.address ?? null,
    names,
    subject: parsed.subject ?? null,
    html: typeof parsed.html === 'string' ? parsed.html : null,
    // Without a text part the parser gives '': the text is then made from the HTML, as for /v1/send.
    text: parsed.text?.trim() ? parsed.text : null,
    headers: parsed.headerLines.map(({ line }) => headerField(line)),
    parts: parsed.attachments.map((a) => ({
      filename: a.filename ?? null,
      contentType: a.contentType,
      contentId: a.contentId ?? a.cid ?? null,
      inline: a.related === true || a.contentDisposition === 'inline',
      content: a.content.toString('base64'),
    })),
  };
}

/** Every address of an address header, the members of groups included. */
/** The message parsed by mailparser (image links never fetched), or why it could not be. */
async function parse(raw: Uint8Array, options: ParserOptions): Promise<ParsedMessage | Failure> {
  try {
    return await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), {
      ...options,
      skipImageLinks: true,
    });
  } catch (err) {
    const e = err as { message?: string; code?: string };
    return { ok: false, message: e.message ?? String(err), code: e.code };
  }
}

function addresses(header: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const objects = Array.isArray(header) ? header : header ? [header] : [];
  return objects.flatMap((o) => o.value).flatMap((a) => (a.group ? a.group : [a]));
}

/** A header line as the parser keeps it (bytes as latin1, folded): its name, and its value unfolded, in UTF-8. */
function headerField(line: string): { name: string; value: string } {
  const text = isEightBit(line) ? Buffer.from(line, 'latin1').toString('utf8') : line;
  const colon = text.indexOf(':');
  return {
    name: text.slice(0, colon).trim(),
    value: text
      .slice(colon + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim(),
  };
}

/** Bytes read as latin1 (no character above 0xff) with some above 7-bit: raw UTF-8 in a header (RFC 6532). */
function isEightBit(line: string): boolean {
  let high = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c > 0xff) return false;
    if (c > 0x7f) high = true;
  }
  return high;
}
