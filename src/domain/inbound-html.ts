import sanitizeHtml from 'sanitize-html';

/**
 * Received HTML made safe to show in a dashboard: formatting, links, tables and images stay;
 * scripts, styles, forms, frames, event handlers and `javascript:` URLs go. Links open in a new
 * tab without telling the sender who opened them.
 */
export function sanitizeInboundHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img'],
    allowedAttributes: {
      a: ['href', 'title'],
      img: ['src', 'alt', 'width', 'height'],
      td: ['colspan', 'rowspan', 'align'],
      th: ['colspan', 'rowspan', 'align'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'cid'],
    transformTags: { a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer nofollow' }) },
  });
}
