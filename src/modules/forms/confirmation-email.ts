import { escapeHtml } from '../../domain/email-html.js';
import { formStringsFor } from '../../domain/form-i18n.js';
import type { Locale } from '../../domain/subscriber-i18n.js';

/**
 * The confirmation email of a double opt-in: the built-in one in the visitor's language (one
 * button, one link), or a template of the project that the form names. Both are Liquid sources
 * rendered with the same variables, so the built-in source is the same for every visitor of a
 * language and renders on the event loop once parsed (a source of its own per visitor would be
 * parsed anew, in the worker pool, for every submission):
 *
 *   {{ confirmationUrl }}    the link that confirms (required in a template of one's own)
 *   {{ confirmationDays }}   how many days the link works
 *   {{ email }}              the address that signed up
 *   {{ firstName }} …        what the form collected, and {{ locale }}
 */

export const CONFIRMATION_URL_VARIABLE = 'confirmationUrl';

/** Whether a template body uses the confirmation link (`{{ confirmationUrl }}`, with or without filters). */
export const usesConfirmationUrl = (body: string) => /\{\{-?\s*confirmationUrl\b/.test(body);

const builtIn = new Map<Locale, { subject: string; html: string }>();

export function builtInConfirmationEmail(locale: Locale): { subject: string; html: string } {
  let found = builtIn.get(locale);
  if (found) return found;
  const s = formStringsFor(locale);
  // The translations are plain text: escaped, and kept out of Liquid's reach.
  const t = (text: string) => escapeHtml(text).replace(/\{/g, '&#123;').replace(/\}/g, '&#125;');
  const p = (html: string) => `<p style="margin:0 0 16px">${html}</p>`;
  const html =
    `<!doctype html><html lang="${locale}"><body style="margin:0;padding:24px;background:#f4f4f5">` +
    '<div style="max-width:480px;margin:0 auto;padding:32px;background:#ffffff;border-radius:8px;' +
    'font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:24px;color:#18181b">' +
    `<h1 style="margin:0 0 16px;font-size:22px;line-height:28px">${t(s.confirmTitle)}</h1>` +
    p(t(s.emailIntro).replace('&#123;email&#125;', '{{ email }}')) +
    `<p style="margin:0 0 24px"><a href="{{ confirmationUrl }}" style="display:inline-block;padding:12px 20px;background:#18181b;` +
    `color:#ffffff;text-decoration:none;border-radius:6px">${t(s.emailButton)}</a></p>` +
    '<p style="margin:0 0 16px;font-size:14px;color:#52525b;word-break:break-all"><a href="{{ confirmationUrl }}" ' +
    'style="color:#52525b">{{ confirmationUrl }}</a></p>' +
    p(t(s.emailValidity).replace('&#123;days&#125;', '{{ confirmationDays }}')) +
    `<p style="margin:0;font-size:14px;color:#52525b">${t(s.emailIgnore)}</p>` +
    '</div></body></html>';
  found = { subject: s.emailSubject.replace(/[{}]/g, ''), html };
  builtIn.set(locale, found);
  return found;
}
