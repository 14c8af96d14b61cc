/**
 * Changes the send pipeline makes to an email's HTML: the open pixel, tracked links and the
 * subscriber footer. String surgery rather than a DOM, so the sender's markup (conditional
 * comments, odd whitespace, table layouts) leaves exactly as it came in, apart from the edits.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references an attribute value may hold (`&amp;`, `&#38;`, `&#x26;`). */
export function decodeEntities(text: string): string {
  return text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));?/g,
    (match, dec?: string, hex?: string, name?: string) => {
      if (name !== undefined) return NAMED_ENTITIES[name.toLowerCase()] ?? match;
      const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : match;
    },
  );
}

/** Puts `snippet` right before the last `</body>`, or at the end when there is none. */
function beforeBodyEnd(html: string, snippet: string): string {
  const at = html.toLowerCase().lastIndexOf('</body');
  return at === -1 ? html + snippet : html.slice(0, at) + snippet + html.slice(at);
}

/** Adds the 1×1 open-tracking image before `</body>`, or at the end of a fragment. */
export function addOpenPixel(html: string, pixelUrl: string): string {
  const img =
    `<img src="${escapeHtml(pixelUrl)}" width="1" height="1" alt="" ` +
    'style="display:block;width:1px;height:1px;border:0;margin:0;padding:0;overflow:hidden" />';
  return beforeBodyEnd(html, img);
}

/** Adds the subscriber footer before `</body>`, or at the end of a fragment. */
export function addFooter(html: string, footerHtml: string): string {
  return beforeBodyEnd(html, footerHtml);
}

// Where an <a> start tag or a comment begins; `<abbr>`, `<area>` and `<a-x>` do not match.
const NEXT_A_OR_COMMENT = /<!--|<a(?=[\s/>])/gi;
// One attribute of a start tag: its name and its value in one of the three syntaxes.
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const HTTP_URL = /^https?:\/\//i;

/**
 * The index of the `>` that ends the start tag whose attributes begin at `from` (quoted values may
 * hold `>`), or -1 when a quote or the tag stays open to the end of the document.
 */
function tagEnd(html: string, from: number): number {
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (c === 62 /* > */) return i;
    if (c === 34 /* " */ || c === 39 /* ' */) {
      i = html.indexOf(html[i]!, i + 1);
      if (i < 0) return -1;
    }
  }
  return -1;
}

/**
 * Rewrites the `href` of every `<a>` whose target is an http(s) URL to `track(url)`; `mailto:`,
 * `tel:`, fragment and relative links stay, and so does any URL for which `keep(url)` is true.
 * `track` and `keep` see the URL as the browser would (entities decoded, outer whitespace gone);
 * the replacement is escaped again. Comments are left alone, conditional ones
 * (`<!--[if mso]>…<![endif]-->`) included.
 *
 * One pass from left to right, linear in the length of the HTML whatever it holds: a comment, a
 * tag or a quoted value left open runs to the end of the document (as in a browser), so the scan
 * stops there and no later text is read again.
 */
export function rewriteLinks(html: string, track: (url: string) => string, keep: (url: string) => boolean): string {
  const next = new RegExp(NEXT_A_OR_COMMENT.source, 'gi');
  let out = '';
  let from = 0;
  for (let m = next.exec(html); m; m = next.exec(html)) {
    if (m[0] === '<!--') {
      const close = html.indexOf('-->', m.index + 4);
      if (close < 0) break;
      next.lastIndex = close + 3;
      continue;
    }
    const end = tagEnd(html, m.index + 2);
    if (end < 0) break;
    out += html.slice(from, m.index) + rewriteHref(html.slice(m.index, end + 1), track, keep);
    from = end + 1;
    next.lastIndex = from;
  }
  return from === 0 ? html : out + html.slice(from);
}

/** The `<a …>` start tag with its http(s) `href` tracked. */
function rewriteHref(tag: string, track: (url: string) => string, keep: (url: string) => boolean): string {
  const attribute = new RegExp(ATTRIBUTE.source, 'g');
  attribute.lastIndex = 2; // after "<a"
  for (let m = attribute.exec(tag); m; m = attribute.exec(tag)) {
    if (m[1]!.toLowerCase() !== 'href') continue;
    const raw = m[2] ?? m[3] ?? m[4];
    if (raw === undefined) return tag;
    const url = decodeEntities(raw).trim();
    if (!HTTP_URL.test(url) || keep(url)) return tag;
    return `${tag.slice(0, m.index)}href="${escapeHtml(track(url))}"${tag.slice(m.index + m[0].length)}`;
  }
  return tag;
}
