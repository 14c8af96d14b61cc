import { escapeHtml } from '../../domain/email-html.js';
import { fill, formatDate, type Locale, type SubscriberStrings, stringsFor } from '../../domain/subscriber-i18n.js';

/**
 * The subscriber pages: plain HTML, no scripts, no external assets, every value escaped. Forms
 * post back to the page's own URL and links between pages are relative, so the pages work behind
 * any PUBLIC_URL prefix.
 */

export const SNOOZE_DAYS = [7, 30, 90] as const;

const STYLE = `
*{box-sizing:border-box}
body{margin:0;padding:48px 16px;background:#f4f4f5;color:#18181b;
font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:480px;margin:0 auto;padding:32px;background:#fff;border:1px solid #e4e4e7;border-radius:8px}
h1{margin:0 0 16px;font-size:22px;line-height:1.3}
h2{margin:24px 0 8px;font-size:16px}
p{margin:0 0 16px}
dl{margin:0 0 24px;display:grid;grid-template-columns:auto 1fr;gap:4px 16px}
dt{color:#71717a}
dd{margin:0;word-break:break-all}
form{display:inline-block;margin:0 8px 8px 0}
button{font:inherit;padding:8px 16px;border:1px solid #18181b;border-radius:6px;background:#18181b;color:#fff;
cursor:pointer}
button.secondary{background:#fff;color:#18181b}
fieldset{margin:0 0 20px;padding:0;border:0}
legend{padding:0;margin:0 0 8px;font-weight:600}
.choice{display:flex;gap:10px;align-items:flex-start;margin:0 0 10px}
.choice input{margin-top:5px;width:18px;height:18px;flex:none}
.choice span{display:block}
.prefs form,.prefs{display:block}
.notice{padding:8px 12px;border-radius:6px;background:#ecfdf5;color:#065f46}
.muted{color:#71717a;font-size:14px}
a{color:#18181b}
`;

/** A page of the public pages (these and the signup forms'); `head` adds to what every page has. */
export function layout(locale: Locale, title: string, body: string, head = ''): string {
  return (
    `<!doctype html>\n<html lang="${locale}">\n<head>\n<meta charset="utf-8">\n` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<meta name="robots" content="noindex, nofollow">\n' +
    `<title>${escapeHtml(title)}</title>\n<style>${STYLE}</style>\n${head}</head>\n` +
    `<body>\n<main>\n<h1>${escapeHtml(title)}</h1>\n${body}</main>\n</body>\n</html>\n`
  );
}

const text = (template: string, values: Record<string, string | number> = {}) =>
  `<p>${escapeHtml(fill(template, values))}</p>\n`;

function button(label: string, fields: Record<string, string> = {}, secondary = false): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return (
    `<form method="post">${hidden}<button type="submit"${secondary ? ' class="secondary"' : ''}>` +
    `${escapeHtml(label)}</button></form>\n`
  );
}

const link = (href: string, label: string) => `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`;

/** Relative links from one subscriber page to another (all live at `<base>/<page>/<token>`). */
const pageUrl = (page: 'unsubscribe' | 'subscribe' | 'manage', token: string) =>
  `../${page}/${encodeURIComponent(token)}`;

export interface PageContact {
  email: string;
  subscribed: boolean;
  snoozedUntil: Date | null;
}

/** A public topic as the preference center shows it, with whether the contact receives it. */
export interface PageTopic {
  id: string;
  name: string;
  description: string;
  on: boolean;
}

/** GET /unsubscribe of an email about a topic: asks before leaving that topic only. */
export function unsubscribeTopicConfirmPage(locale: Locale, token: string, contact: PageContact, topic: PageTopic) {
  const s = stringsFor(locale);
  if (!topic.on || !contact.subscribed) return unsubscribedTopicPage(locale, token, contact, topic);
  return layout(
    locale,
    fill(s.unsubscribeTopicQuestion, { topic: topic.name }),
    text(s.unsubscribeTopicExplain, { email: contact.email, topic: topic.name }) +
      button(s.unsubscribe, { confirm: 'yes' }) +
      `<p class="muted">${link(pageUrl('manage', token), s.managePreferences)}</p>\n`,
  );
}

/**
 * After leaving a topic (from the page or a one-click POST). The way back rejoins that topic only,
 * so it is offered while the contact receives the rest; otherwise the preference center is the way.
 */
export function unsubscribedTopicPage(locale: Locale, token: string, contact: PageContact, topic: PageTopic) {
  const s = stringsFor(locale);
  const wayBack = contact.subscribed
    ? `<p class="muted">${escapeHtml(s.unsubscribedByMistake)} ${link(pageUrl('subscribe', token), s.resubscribe)}</p>\n`
    : '';
  return layout(
    locale,
    fill(s.unsubscribedTopicTitle, { topic: topic.name }),
    text(s.unsubscribedTopicText, { email: contact.email, topic: topic.name }) +
      wayBack +
      `<p class="muted">${link(pageUrl('manage', token), s.managePreferences)}</p>\n`,
  );
}

/** GET /subscribe of an email about a topic: asks before rejoining that topic only. */
export function subscribeTopicConfirmPage(locale: Locale, token: string, contact: PageContact, topic: PageTopic) {
  const s = stringsFor(locale);
  if (topic.on) return subscribedTopicPage(locale, token, contact, topic);
  return layout(
    locale,
    fill(s.resubscribeTopicQuestion, { topic: topic.name }),
    text(s.resubscribeTopicExplain, { email: contact.email, topic: topic.name }) +
      button(s.resubscribe, { confirm: 'yes' }),
  );
}

/** After rejoining a topic. */
export function subscribedTopicPage(locale: Locale, token: string, contact: PageContact, topic: PageTopic) {
  const s = stringsFor(locale);
  return layout(
    locale,
    fill(s.resubscribedTopicTitle, { topic: topic.name }),
    text(s.resubscribedTopicText, { email: contact.email, topic: topic.name }) +
      `<p class="muted">${link(pageUrl('manage', token), s.managePreferences)}</p>\n`,
  );
}

/** GET /unsubscribe: asks before doing anything (mail scanners open links). */
export function unsubscribeConfirmPage(locale: Locale, token: string, contact: PageContact): string {
  const s = stringsFor(locale);
  if (!contact.subscribed && !contact.snoozedUntil) return unsubscribedPage(locale, token, contact);
  return layout(
    locale,
    s.unsubscribeQuestion,
    text(s.unsubscribeExplain, { email: contact.email }) +
      button(s.unsubscribe, { confirm: 'yes' }) +
      `<p class="muted">${link(pageUrl('manage', token), s.managePreferences)}</p>\n`,
  );
}

/** After an unsubscribe (from the page or a one-click POST). */
export function unsubscribedPage(locale: Locale, token: string, contact: PageContact): string {
  const s = stringsFor(locale);
  return layout(
    locale,
    s.unsubscribedTitle,
    text(s.unsubscribedText, { email: contact.email }) +
      `<p class="muted">${escapeHtml(s.unsubscribedByMistake)} ` +
      `${link(pageUrl('subscribe', token), s.resubscribe)}</p>\n`,
  );
}

/** GET /subscribe: asks before resubscribing. */
export function subscribeConfirmPage(locale: Locale, token: string, contact: PageContact): string {
  const s = stringsFor(locale);
  if (contact.subscribed) return subscribedPage(locale, token, contact);
  return layout(
    locale,
    s.resubscribeQuestion,
    text(s.resubscribeExplain, { email: contact.email }) + button(s.resubscribe, { confirm: 'yes' }),
  );
}

export function subscribedPage(locale: Locale, token: string, contact: PageContact): string {
  const s = stringsFor(locale);
  return layout(
    locale,
    s.subscribedTitle,
    text(s.subscribedText, { email: contact.email }) +
      `<p class="muted">${link(pageUrl('manage', token), s.managePreferences)}</p>\n`,
  );
}

function statusOf(s: SubscriberStrings, locale: Locale, contact: PageContact): string {
  if (contact.snoozedUntil) return fill(s.statusSnoozed, { date: formatDate(locale, contact.snoozedUntil) });
  return contact.subscribed ? s.statusSubscribed : s.statusUnsubscribed;
}

/**
 * GET/POST /manage: the preference center. The address and its state; while mail is received, one
 * form with each public topic's switch, a break and "unsubscribe from everything", saved by one
 * submit (`action=save`); otherwise the way back in.
 */
export function managePage(
  locale: Locale,
  contact: PageContact,
  options: { saved?: boolean; topics?: PageTopic[] } = {},
): string {
  const s = stringsFor(locale);
  const topics = options.topics ?? [];
  const receiving = contact.subscribed || contact.snoozedUntil !== null;
  let body = options.saved ? `<p class="notice" role="status">${escapeHtml(s.saved)}</p>\n` : '';
  body +=
    `<dl><dt>${escapeHtml(s.emailAddress)}</dt><dd>${escapeHtml(contact.email)}</dd>` +
    `<dt>${escapeHtml(s.status)}</dt><dd>${escapeHtml(statusOf(s, locale, contact))}</dd></dl>\n`;
  if (!contact.subscribed) body += button(s.resubscribe, { action: 'subscribe' });
  if (receiving) {
    const choice = (input: string, label: string, hint = '') =>
      `<label class="choice">${input}<span>${escapeHtml(label)}${
        hint ? `<span class="muted">${escapeHtml(hint)}</span>` : ''
      }</span></label>\n`;
    let form = '<form method="post" class="prefs"><input type="hidden" name="action" value="save">\n';
    if (topics.length > 0) {
      form += `<fieldset><legend>${escapeHtml(s.topicsHeading)}</legend>\n<p class="muted">${escapeHtml(s.topicsExplain)}</p>\n`;
      for (const t of topics) {
        form += choice(
          `<input type="checkbox" name="topic.${escapeHtml(t.id)}" value="on"${t.on ? ' checked' : ''}>`,
          t.name,
          t.description,
        );
      }
      form += '</fieldset>\n';
    }
    form += `<fieldset><legend>${escapeHtml(s.snoozeHeading)}</legend>\n<p class="muted">${escapeHtml(s.snoozeExplain)}</p>\n`;
    form += choice('<input type="radio" name="days" value="" checked>', s.noSnooze);
    for (const n of SNOOZE_DAYS)
      form += choice(`<input type="radio" name="days" value="${n}">`, fill(s.snoozeDays, { n }));
    form += '</fieldset>\n';
    form += `<fieldset><legend>${escapeHtml(s.unsubscribe)}</legend>\n`;
    form += choice('<input type="checkbox" name="all" value="off">', s.unsubscribeAll, s.unsubscribeAllExplain);
    form += `</fieldset>\n<button type="submit">${escapeHtml(s.savePreferences)}</button></form>\n`;
    body += form;
  }
  return layout(locale, s.preferencesTitle, body);
}

export type MessageKind = 'notFound' | 'badRequest' | 'error';

/** Invalid link (404), unknown action (400) or failure (500). */
export function messagePage(locale: Locale, kind: MessageKind): string {
  const s = stringsFor(locale);
  const [title, body] =
    kind === 'notFound'
      ? [s.notFoundTitle, s.notFoundText]
      : kind === 'badRequest'
        ? [s.badRequestTitle, s.badRequestText]
        : [s.errorTitle, s.errorText];
  return layout(locale, title, text(body));
}
