import { escapeHtml } from '../../domain/email-html.js';
import { formStringsFor } from '../../domain/form-i18n.js';
import { textIn } from '../../domain/signup-form.js';
import { fill, type Locale } from '../../domain/subscriber-i18n.js';
import { layout } from '../subscriptions/pages.js';
import { FORM_STYLE, formHtml, type OfferedTopic } from './embed.js';
import type { Form } from './schemas.js';

/**
 * The public pages of signup forms, in the look of the subscriber pages: the hosted form at
 * /f/<id> and the pages behind the link of a confirmation email. Links are relative, so the pages
 * work behind any PUBLIC_URL prefix.
 */

const text = (value: string) => `<p>${escapeHtml(value)}</p>\n`;
const script = (src: string) => `<script src="${escapeHtml(src)}" defer></script>\n`;

/** GET /f/<id>: the form, its script solving the proof of work in the background. */
export function hostedFormPage(publicUrl: string, form: Form, locale: Locale, topics: OfferedTopic[] = []): string {
  const s = formStringsFor(locale);
  const title = textIn(form.title, locale) ?? s.defaultTitle;
  return layout(
    locale,
    title,
    formHtml(publicUrl, form, locale, topics),
    `<style>${FORM_STYLE}</style>\n${script('script.js')}`,
  );
}

/** GET /f/confirm/<token>: confirms by the POST its script makes; the button does it without script. */
export function confirmPage(locale: Locale, email: string): string {
  const s = formStringsFor(locale);
  return layout(
    locale,
    s.confirmTitle,
    text(email) +
      `<form method="post" data-postbox-confirm data-confirming="${escapeHtml(s.confirming)}">` +
      `<button type="submit">${escapeHtml(s.confirmButton)}</button></form>\n`,
    script('../script.js'),
  );
}

export function confirmedPage(locale: Locale, email: string): string {
  const s = formStringsFor(locale);
  return layout(locale, s.confirmedTitle, text(fill(s.confirmedText, { email })));
}

/** The link expired: one button asks for a new one. */
export function expiredPage(locale: Locale, token: string, days: number): string {
  const s = formStringsFor(locale);
  return layout(
    locale,
    s.expiredTitle,
    text(fill(s.expiredText, { days })) +
      `<form method="post" action="${escapeHtml(encodeURIComponent(token))}/resend">` +
      `<button type="submit">${escapeHtml(s.resend)}</button></form>\n`,
  );
}

export function resentPage(locale: Locale, email: string): string {
  const s = formStringsFor(locale);
  return layout(locale, s.confirmTitle, text(fill(s.resentText, { email })));
}
