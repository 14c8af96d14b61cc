import { addFooter, addOpenPixel, rewriteLinks } from '../../domain/email-html.js';
import { type TemplatePart, templateScope } from '../../domain/render.js';
import { clickUrl, type LinkSigner, openPixelUrl, subscriberUrls } from '../../domain/signed-links.js';
import { footerHtml, localeOf } from '../../domain/subscriber-i18n.js';
import type { NewEmail } from './repo.js';
import type { EmailType } from './schemas.js';

/** What a send says before it meets its recipients: already merged from the template and the request. */
export interface Content {
  type: EmailType;
  subject: string;
  body: string;
  from: { email: string; name: string | null };
  replyTo: string | null;
  headers: Record<string, string>;
  /** The request's attachments, stored once for all of its emails. */
  attachmentSetId: string | null;
  templateId: string | null;
  campaignId: string | null;
}

export interface Recipient {
  contact: { id: string; email: string; subscribed: boolean; data: Record<string, unknown> };
  name: string | null;
  /** Values given for this send only (`persistent: false`). */
  transient: Record<string, unknown>;
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
 * already links to the unsubscribe page) and the RFC 8058 headers; marketing and transactional
 * mail have their links and opens tracked; headless mail goes out exactly as written.
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
  const urls = subscriberUrls(linking.publicUrl, linking.signer, { projectId, contactId: contact.id, emailId: id });
  const scope = templateScope(contact, recipient.transient, urls);
  const subject = (await render('subject', content.subject, scope)).replace(/[\r\n]+/g, ' ').trim();
  let html = await render('body', content.body, scope);
  const headers = { ...content.headers };

  if (content.type === 'MARKETING') {
    if (!html.includes(urls.unsubscribeUrl)) {
      html = addFooter(html, footerHtml(localeOf({ ...contact.data, ...recipient.transient }), urls));
    }
    headers['List-Unsubscribe'] = `<${urls.unsubscribeUrl}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  if (content.type !== 'HEADLESS') {
    const own = `${linking.publicUrl}/`;
    html = rewriteLinks(
      html,
      (url) => clickUrl(linking.publicUrl, linking.signer, id, url),
      (url) => url.startsWith(own),
    );
    html = addOpenPixel(html, openPixelUrl(linking.publicUrl, linking.signer, id));
  }

  const skipped = content.type === 'MARKETING' && !contact.subscribed;
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
    headers,
    attachmentSetId: content.attachmentSetId,
    messageId: `<${id}@${content.from.email.slice(content.from.email.lastIndexOf('@') + 1)}>`,
    lastError: skipped ? 'Not sent: marketing email to an unsubscribed contact' : null,
  };
}
