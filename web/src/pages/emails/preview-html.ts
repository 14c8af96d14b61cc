/**
 * The stored HTML of an email carries its own open pixel and tracked links (`/t/open/{id}/…`,
 * `/t/click/{id}/…?url=…`). Shown as it is, the dashboard would count an open each time someone
 * looks at the email, and a click for each link followed in it. This takes out the pixel of this
 * email and points its tracked links back at their targets; everything else stays as stored.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));/g, (match, dec, hex, name) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
    return ENTITIES[String(name).toLowerCase()] ?? match;
  });
}

const escapeAttribute = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function withoutTracking(html: string, emailId: string): string {
  const id = escapeRegExp(emailId);
  const pixel = new RegExp(`<img\\s[^>]*?src\\s*=\\s*(["'])[^"']*/t/open/${id}/[^"']*\\1[^>]*>`, 'gi');
  const trackedHref = new RegExp(`href\\s*=\\s*(["'])([^"']*/t/click/${id}/[^"']*)\\1`, 'gi');
  return html.replace(pixel, '').replace(trackedHref, (whole, _quote, value: string) => {
    const url = decodeEntities(value);
    const target = new URL(url, 'http://placeholder.invalid').searchParams.get('url');
    return target && /^https?:\/\//i.test(target) ? `href="${escapeAttribute(target)}"` : whole;
  });
}
