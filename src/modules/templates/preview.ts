import { randomUUID } from 'node:crypto';
import { addFooter } from '../../domain/email-html.js';
import { TemplateError, templateScope } from '../../domain/render.js';
import { subscriberUrls } from '../../domain/signed-links.js';
import { footerHtml, localeOf } from '../../domain/subscriber-i18n.js';
import type { AppContext } from '../../platform/context.js';
import { validationError } from '../../platform/http/errors.js';
import { getContact } from '../contacts/service.js';
import type { Preview } from './schemas.js';

const SAMPLE_EMAIL = 'preview@example.com';

/**
 * What the content renders to, by the same renderer and scope as a send, for a contact of the
 * project or sample data: the subject, the HTML (with the unsubscribe footer marketing mail gets)
 * and the plain text. Links are not rewritten for tracking: nothing is sent. A render error is a
 * 422 naming the part and, in its message, the line.
 */
export async function previewContent(
  ctx: AppContext,
  projectId: string,
  input: { subject: string; body: string; type: string; contactId?: string; data?: Record<string, unknown> },
): Promise<Preview> {
  const contact = input.contactId
    ? await getContact(ctx, projectId, input.contactId)
    : { id: randomUUID(), email: SAMPLE_EMAIL, data: input.data ?? {} };
  const urls = subscriberUrls(ctx.config.publicUrl, ctx.links, {
    projectId,
    contactId: contact.id,
    emailId: randomUUID(),
  });
  const scope = templateScope(contact, {}, urls);
  try {
    const subject = (await ctx.templates.render('subject', input.subject, scope)).replace(/[\r\n]+/g, ' ').trim();
    let html = await ctx.templates.render('body', input.body, scope);
    if (input.type === 'MARKETING' && !html.includes(urls.unsubscribeUrl)) {
      html = addFooter(html, footerHtml(localeOf(contact.data), urls));
    }
    return { subject, html, text: await ctx.untrusted.text(html) };
  } catch (err) {
    if (err instanceof TemplateError) {
      throw validationError([{ field: err.part, message: err.message, code: 'invalid_template' }]);
    }
    throw err;
  }
}
