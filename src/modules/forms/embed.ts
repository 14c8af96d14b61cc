import { escapeHtml } from '../../domain/email-html.js';
import { formStringsFor } from '../../domain/form-i18n.js';
import { type FormField, type LocalizedText, textIn } from '../../domain/signup-form.js';
import { baseLocale, type Locale, stringsFor } from '../../domain/subscriber-i18n.js';
import type { Form } from './schemas.js';

/**
 * The HTML of a signup form: a plain `<form>` and the small script that solves its proof of work
 * in the background and sends it (`script.ts`). The hosted page shows it; pasted into any site it
 * is the embed code. Every value is escaped; the URLs are absolute so the snippet works anywhere.
 */

/** Styles of the form alone, scoped to it, so a site that embeds it keeps its own look. */
export const FORM_STYLE = `
.postbox-form{display:grid;gap:16px;max-width:480px}
.postbox-form .pb-field{display:grid;gap:4px}
.postbox-form label{font-weight:600}
.postbox-form .pb-check{display:flex;gap:8px;align-items:flex-start;font-weight:400}
.postbox-form .pb-check input{margin-top:4px;width:18px;height:18px}
.postbox-form input:not([type=checkbox]){font:inherit;width:100%;padding:10px 12px;border:1px solid #71717a;border-radius:6px;
background:#fff;color:#18181b}
.postbox-form input:focus-visible,.postbox-form button:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
.postbox-form input[aria-invalid=true]{border-color:#b91c1c}
.postbox-form .pb-error{margin:0;color:#b91c1c;font-size:14px}
.postbox-form .pb-consent{margin:0;color:#52525b;font-size:14px}
.postbox-form .pb-optional{font-weight:400;color:#52525b}
.postbox-form .pb-topics{display:grid;gap:8px;margin:0;padding:0;border:0}
.postbox-form .pb-topics legend{font-weight:600;padding:0;margin:0 0 4px}
.postbox-form button{font:inherit;padding:10px 16px;border:1px solid #18181b;border-radius:6px;background:#18181b;
color:#fff;cursor:pointer;justify-self:start}
.postbox-form button[disabled]{opacity:.7;cursor:progress}
.postbox-form .pb-status{margin:0}
.postbox-form .pb-status.pb-refused{color:#b91c1c}
.postbox-form .pb-hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.postbox-form [hidden]{display:none!important}
.postbox-form .pb-status.pb-done{padding:12px 16px;border-radius:6px;background:#ecfdf5;color:#065f46}
`;

/** The language the embed code is rendered in: English when the form has it, else one it has. */
export function formLocale(form: { title: LocalizedText; fields: FormField[] }): Locale {
  const given = [...Object.keys(form.title), ...Object.keys(form.fields[0]?.label ?? {})];
  return given.length === 0 || given.includes('en') ? 'en' : (baseLocale(given[0]!) ?? 'en');
}

const INPUT_TYPES = { string: 'text', number: 'number', date: 'date', boolean: 'checkbox' } as const;

function fieldHtml(prefix: string, field: FormField, locale: Locale): string {
  const s = formStringsFor(locale);
  const id = `${prefix}-${field.key}`;
  const label = escapeHtml(textIn(field.label, locale) ?? field.key);
  const attrs =
    `id="${id}" name="${escapeHtml(field.key)}" data-key="${escapeHtml(field.key)}" ` +
    `type="${INPUT_TYPES[field.type]}" aria-describedby="${id}-error"` +
    (field.type === 'number' ? ' inputmode="decimal" step="any"' : '') +
    (field.required ? ' required' : '');
  const error = `<p id="${id}-error" class="pb-error" hidden></p>`;
  if (field.type === 'boolean') {
    return `<div class="pb-field"><label class="pb-check" for="${id}"><input ${attrs}> <span>${label}</span></label>${error}</div>\n`;
  }
  const optional = field.required ? '' : ` <span class="pb-optional">(${escapeHtml(s.optional)})</span>`;
  return `<div class="pb-field"><label for="${id}">${label}${optional}</label><input ${attrs}>${error}</div>\n`;
}

/** A topic a form offers, as it shows it. */
export interface OfferedTopic {
  id: string;
  name: string;
  description: string;
}

/** The offered topics: one checkbox each, unticked (consent is given, not assumed). */
function topicsHtml(prefix: string, topics: OfferedTopic[], locale: Locale): string {
  if (topics.length === 0) return '';
  const s = stringsFor(locale);
  return (
    `<fieldset class="pb-topics"><legend>${escapeHtml(s.topicsHeading)}</legend>\n` +
    topics
      .map((t, i) => {
        const id = `${prefix}-topic-${i}`;
        const hint = t.description ? ` <span class="pb-optional">${escapeHtml(t.description)}</span>` : '';
        return (
          `<label class="pb-check" for="${id}"><input id="${id}" type="checkbox" name="topic" ` +
          `value="${escapeHtml(t.id)}" data-topic="${escapeHtml(t.id)}"> <span>${escapeHtml(t.name)}${hint}</span></label>\n`
        );
      })
      .join('') +
    '</fieldset>\n'
  );
}

/** The `<form>` itself, in `locale`, posting to the service at `publicUrl`. */
export function formHtml(publicUrl: string, form: Form, locale: Locale, topics: OfferedTopic[] = []): string {
  const s = formStringsFor(locale);
  const prefix = `pb-${form.id.slice(0, 8)}`;
  const consent = textIn(form.consentText, locale);
  return (
    `<form class="postbox-form" data-postbox-form="${escapeHtml(`${publicUrl}/v1/forms/${form.id}`)}" ` +
    `data-sending="${escapeHtml(s.sending)}" data-failed="${escapeHtml(stringsFor(locale).errorText)}" ` +
    `lang="${locale}">\n` +
    `<div class="pb-field"><label for="${prefix}-email">${escapeHtml(s.emailLabel)}</label>` +
    `<input id="${prefix}-email" name="email" type="email" autocomplete="email" required ` +
    `aria-describedby="${prefix}-email-error"><p id="${prefix}-email-error" class="pb-error" hidden></p></div>\n` +
    form.fields.map((f) => fieldHtml(prefix, f, locale)).join('') +
    topicsHtml(prefix, topics, locale) +
    // People never see this field, so never fill it in; form-filling bots do.
    `<div class="pb-hp" aria-hidden="true"><label for="${prefix}-website">Website</label>` +
    `<input id="${prefix}-website" name="website" type="text" tabindex="-1" autocomplete="off"></div>\n` +
    (consent ? `<p class="pb-consent">${escapeHtml(consent)}</p>\n` : '') +
    `<button type="submit">${escapeHtml(s.submit)}</button>\n` +
    '<p class="pb-status" role="status" aria-live="polite"></p>\n' +
    // Shown until the script runs and hides it: what a page without script says, wherever it is pasted.
    `<p class="pb-error pb-noscript">${escapeHtml(s.scriptNeeded)}</p>\n` +
    '</form>\n'
  );
}

export const scriptUrl = (publicUrl: string) => `${publicUrl}/f/script.js`;

/** What GET /forms/:id offers to paste into a website: the form, its styles and its script. */
export function embedCode(publicUrl: string, form: Form, topics: OfferedTopic[] = []): string {
  return (
    `<style>${FORM_STYLE.trim()}</style>\n` +
    formHtml(publicUrl, form, formLocale(form), topics) +
    `<script src="${escapeHtml(scriptUrl(publicUrl))}" defer></script>\n`
  );
}
