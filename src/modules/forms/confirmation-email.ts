import { escapeHtml } from '../../domain/email-html.js';
import { formStringsFor } from '../../domain/form-i18n.js';
import { fill, type Locale } from '../../domain/subscriber-i18n.js';

/** The confirmation email of a double opt-in, in the visitor's language: one button, one link. */
export function confirmationEmail(
  locale: Locale,
  v: { email: string; url: string; days: number },
): { subject: string; html: string } {
  const s = formStringsFor(locale);
  const p = (text: string) => `<p style="margin:0 0 16px">${escapeHtml(text)}</p>`;
  const url = escapeHtml(v.url);
  const html =
    `<!doctype html><html lang="${locale}"><body style="margin:0;padding:24px;background:#f4f4f5">` +
    '<div style="max-width:480px;margin:0 auto;padding:32px;background:#ffffff;border-radius:8px;' +
    'font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:24px;color:#18181b">' +
    `<h1 style="margin:0 0 16px;font-size:22px;line-height:28px">${escapeHtml(s.confirmTitle)}</h1>` +
    p(fill(s.emailIntro, { email: v.email })) +
    `<p style="margin:0 0 24px"><a href="${url}" style="display:inline-block;padding:12px 20px;background:#18181b;` +
    `color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(s.emailButton)}</a></p>` +
    `<p style="margin:0 0 16px;font-size:14px;color:#52525b;word-break:break-all"><a href="${url}" ` +
    `style="color:#52525b">${url}</a></p>` +
    p(fill(s.emailValidity, { days: v.days })) +
    `<p style="margin:0;font-size:14px;color:#52525b">${escapeHtml(s.emailIgnore)}</p>` +
    '</div></body></html>';
  return { subject: s.emailSubject, html };
}
