/**
 * The inbound pages' rules: the list's place in the URL (`?cursor=…`, the cursors of the pages
 * before riding along in the history entry's state), and how a received message is shown.
 */
import type { InboundEmail } from '../../../../src/api.js';
import { pageNumber, type Trail } from '../../components/cursor-trail.js';

export { readTrail, type Trail } from '../../components/cursor-trail.js';

export interface InboundPosition {
  cursor: string | null;
  trail: Trail;
}

export function parseInboundCursor(queryString: string): string | null {
  return new URLSearchParams(queryString).get('cursor') || null;
}

export function inboundQuery(cursor: string | null): string {
  return cursor ? new URLSearchParams({ cursor }).toString() : '';
}

export const nextInboundPage = (at: InboundPosition, next: string): InboundPosition => ({
  cursor: next,
  trail: [...at.trail, at.cursor],
});

/** Without a trail (a pasted link), "previous" goes back to the first page. */
export const previousInboundPage = (at: InboundPosition): InboundPosition => ({
  cursor: at.trail.length > 0 ? (at.trail[at.trail.length - 1] ?? null) : null,
  trail: at.trail.slice(0, -1),
});

export const inboundPageNumber = (at: InboundPosition) => pageNumber(at.cursor, at.trail);

/** "Ada Lovelace <ada@example.com>", or the address alone. */
export const sender = (m: Pick<InboundEmail, 'from' | 'fromName'>) =>
  m.fromName ? `${m.fromName} <${m.from}>` : m.from;

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A line of the text part for the list, when the subject says little. */
export function snippet(text: string | null, length = 120): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

/**
 * The sanitized HTML as the frame's document. The server has taken out scripts, styles and
 * handlers; the frame is sandboxed besides. What is left that reaches out is images: a sender's
 * remote images tell them the message was looked at, so they load only when asked for. The policy
 * comes first in <head>, before anything of the sender's.
 */
export function inboundDocument(html: string, remoteImages: boolean): string {
  const images = remoteImages ? 'data: cid: http: https:' : 'data: cid:';
  const policy = `default-src 'none'; img-src ${images}; style-src 'unsafe-inline'; font-src data:`;
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${policy}"><base target="_blank"><style>body{margin:0;padding:16px;font:15px/1.5 system-ui,sans-serif;color:#1b1f24;background:#fff;overflow-wrap:anywhere}img{max-width:100%;height:auto}</style></head><body>${html}</body></html>`;
}

/** Whether the HTML has images that load from elsewhere (so offering to load them makes sense). */
export const hasRemoteImages = (html: string) => /<img\b[^>]*\bsrc\s*=\s*["']?\s*(?:https?:)?\/\//i.test(html);
