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
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));?/g, (match, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES[name.toLowerCase()] ?? match;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : match;
  });
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

// An <a> start tag: quoted attribute values may hold '>'. `<abbr>`, `<area>` and `<a-x>` do not match.
const A_TAG = /<a(?=[\s/>])(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
// Comments are left alone, conditional ones (`<!--[if mso]>…<![endif]-->`) included.
const COMMENT_OR_A_TAG = new RegExp(`<!--[\\s\\S]*?(?:-->|$)|${A_TAG.source}`, 'gi');
// One attribute of a start tag: its name and its value in one of the three syntaxes.
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const HTTP_URL = /^https?:\/\//i;

/**
 * Rewrites the `href` of every `<a>` whose target is an http(s) URL to `track(url)`; `mailto:`,
 * `tel:`, fragment and relative links stay, and so does any URL for which `keep(url)` is true.
 * `track` and `keep` see the URL as the browser would (entities decoded, outer whitespace gone);
 * the replacement is escaped again.
 */
export function rewriteLinks(html: string, track: (url: string) => string, keep: (url: string) => boolean): string {
  return html.replace(COMMENT_OR_A_TAG, (tag) => {
    if (tag.startsWith('<!--')) return tag;
    ATTRIBUTE.lastIndex = 2; // after "<a"
    for (let m = ATTRIBUTE.exec(tag); m; m = ATTRIBUTE.exec(tag)) {
      if (m[1]!.toLowerCase() !== 'href') continue;
      const raw = m[2] ?? m[3] ?? m[4];
      if (raw === undefined) return tag;
      const url = decodeEntities(raw).trim();
      if (!HTTP_URL.test(url) || keep(url)) return tag;
      return `${tag.slice(0, m.index)}href="${escapeHtml(track(url))}"${tag.slice(m.index + m[0].length)}`;
    }
    return tag;
  });
}
