import { addFooter, addOpenPixel, rewriteLinks } from '../../domain/email-html.js';
import { type TemplatePart, templateScope } from '../../domain/render.js';
import { clickUrl, type LinkSigner, openPixelUrl, subscriberUrls } from '../../domain/signed-links.js';
import { footerHtml, localeOf } from '../../domain/subscriber-i18n.js';
import type { Tracking } from '../../domain/tracking.js';
import { textFromHtml } from '../../platform/mail/message.js';
import type { NewEmail } from './repo.js';
import type { EmailType } from './schemas.js';

/** What a send says before it meets its recipients: already merged from the template and the request. */
export interface Content {
  type: EmailType;
  subject: string;
  /** The HTML; null for a message submitted with a text part only, which then has no HTML part. */
  body: string | null;
  /** The plain-text part as the sender wrote it (SMTP submission); without one, it is made from the HTML at delivery. */
  text?: string | null;
  from: { email: string; name: string | null };
  replyTo: string | null;
  headers: Record<string, string>;
  /** The request's attachments, stored once for all of its emails. */
  attachmentSetId: string | null;
  templateId: string | null;
  campaignId: string | null;
  /**
   * The topic a MARKETING email is about: its unsubscribe link and one-click header leave only this
   * topic (the signed link carries it). Null or absent: the links are about all marketing.
   */
  topicId?: string | null;
  /** Resolved by the sender from the send's, the template's or campaign's and the project's choices (domain/tracking.ts). */
  tracking: Tracking;
}

export interface Recipient {
  contact: { id: string; email: string; subscribed: boolean; data: Record<string, unknown> };
  name: string | null;
  /** Values given for this send only (`persistent: false`). */
  transient: Record<string, unknown>;
  /** False when the email is about a topic the contact does not receive: a marketing email is then skipped. */
  inTopic?: boolean;
}

export interface Linking {
  publicUrl: string;
  signer: LinkSigner;
}

/** Renders one part of a template for a scope (the process's TemplateRenderer); throws TemplateError. */
export type Render = (part: TemplatePart, source: string, scope: Record<string, unknown>) => Promise<string>;

/**
 * One recipient's email, rendered and ready to store. Marketing mail to an unsubscribed contact
 * is kept as `skipped`, never sent. Marketing mail carries the unsubscribe footer (unless the body
 * already links to the unsubscribe page), the RFC 8058 headers and `Precedence: bulk` with
 * `Auto-Submitted: auto-generated`. Links are rewritten to count clicks and a pixel counts opens
 * as `content.tracking` says (by default in marketing and transactional mail, never in headless).
 * The edits after rendering are linear in the length of the HTML, whatever it holds.
 */
export async function composeEmail(
  id: string,
  projectId: string,
  content: Content,
  recipient: Recipient,
  linking: Linking,
  render: Render,
): Promise<NewEmail> {
  const { contact } = recipient;
  const urls = subscriberUrls(linking.publicUrl, linking.signer, {
    projectId,
    contactId: contact.id,
    emailId: id,
    ...(content.type === 'MARKETING' && content.topicId ? { topicId: content.topicId } : {}),
  });
  const scope = templateScope(contact, recipient.transient, urls);
  const subject = (await render('subject', content.subject, scope)).replace(/[\r\n]+/g, ' ').trim();
  const hasHtml = content.body !== null;
  let html = hasHtml ? await render('body', content.body!, scope) : '';
  let text = content.text ?? null;
  const headers = { ...content.headers };

  if (content.type === 'MARKETING') {
    const footer = footerHtml(localeOf({ ...contact.data, ...recipient.transient }), urls);
    if (hasHtml && !html.includes(urls.unsubscribeUrl)) html = addFooter(html, footer);
    // The sender's own text part gets the same links, as text (the footer is ours: small and trusted).
    if (text !== null && !text.includes(urls.unsubscribeUrl)) text = `${text.trimEnd()}\n\n${textFromHtml(footer)}\n`;
    headers['List-Unsubscribe'] = `<${urls.unsubscribeUrl}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    // Bulk mail says so, which keeps vacation responders and other auto-replies (RFC 3834) from answering
    // it; a sender's own value of either header stands.
    const given = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    if (!given.has('precedence')) headers.Precedence = 'bulk';
    if (!given.has('auto-submitted')) headers['Auto-Submitted'] = 'auto-generated';
  }
  // Opens and clicks are tracked in the HTML part only.
  if (content.tracking.clicks && hasHtml) {
    const own = `${linking.publicUrl}/`;
    html = rewriteLinks(
      html,
      (url) => clickUrl(linking.publicUrl, linking.signer, id, url),
      (url) => url.startsWith(own),
    );
  }
  if (content.tracking.opens && hasHtml) html = addOpenPixel(html, openPixelUrl(linking.publicUrl, linking.signer, id));

  const unsubscribed = content.type === 'MARKETING' && !contact.subscribed;
  const skipped = unsubscribed || (content.type === 'MARKETING' && recipient.inTopic === false);
  return {
    id,
    projectId,
    contactId: contact.id,
    templateId: content.templateId,
    campaignId: content.campaignId,
    type: content.type,
    status: skipped ? 'skipped' : 'queued',
    fromEmail: content.from.email,
    fromName: content.from.name,
    toEmail: contact.email,
    toName: recipient.name,
    replyTo: content.replyTo,
    subject,
    html,
    text,
    headers,
    attachmentSetId: content.attachmentSetId,
    messageId: `<${id}@${content.from.email.slice(content.from.email.lastIndexOf('@') + 1)}>`,
    lastError: unsubscribed
      ? 'Not sent: marketing email to an unsubscribed contact'
      : skipped
        ? 'Not sent: the contact does not receive the topic of this email'
        : null,
  };
}
