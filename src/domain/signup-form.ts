import { z } from 'zod';
import { RESERVED_DATA_KEYS } from './contact-data.js';
import { emailSchema } from './email.js';
import { type FormStrings, formStringsFor } from './form-i18n.js';
import { LOCALES, type Locale } from './subscriber-i18n.js';

/**
 * What a signup form collects and how a submission is read against it: pure rules shared by the
 * forms API (validation), the submission endpoint and the hosted page.
 */

/** A text in some of the subscriber languages: `{ en: "…", de: "…" }`. */
export const localizedText = (max: number) =>
  z
    .record(z.string(), z.string().trim().max(max))
    .superRefine((texts, ctx) => {
      for (const key of Object.keys(texts)) {
        if (!(LOCALES as readonly string[]).includes(key)) {
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            path: [key],
            message: `Not a supported language; use one of ${LOCALES.join(', ')}`,
          });
        }
      }
    })
    .transform((texts) => Object.fromEntries(Object.entries(texts).filter(([, v]) => v !== '')) as LocalizedText);
export type LocalizedText = Partial<Record<Locale, string>>;

/** The text in `locale`, else in English, else in any language given; undefined when none. */
export function textIn(texts: LocalizedText, locale: Locale): string | undefined {
  return texts[locale] ?? texts.en ?? Object.values(texts).find((t) => t);
}

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date'] as const;
export type FormFieldType = (typeof FIELD_TYPES)[number];

export const formFieldSchema = z.object({
  key: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'Letters, digits and _ only, starting with a letter, up to 64 characters')
    .refine((key) => !RESERVED_DATA_KEYS.has(key) && key !== 'locale', 'Reserved by the service'),
  type: z.enum(FIELD_TYPES).default('string'),
  required: z.boolean().default(false),
  label: localizedText(200).refine((t) => Object.keys(t).length > 0, 'Give a label in at least one language'),
});
export type FormField = z.infer<typeof formFieldSchema>;

export const formFieldsSchema = z
  .array(formFieldSchema)
  .max(20)
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (seen.has(f.key)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'key'], message: 'Used twice' });
      seen.add(f.key);
    });
  });

/** An origin a form may be embedded on: scheme, host and port, nothing else. */
export const originSchema = z
  .string()
  .trim()
  .max(200)
  .transform((raw, ctx) => {
    try {
      const url = new URL(raw);
      if ((url.protocol === 'https:' || url.protocol === 'http:') && `${url.origin}` === raw.replace(/\/$/, '')) {
        return url.origin;
      }
    } catch {}
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'An origin such as https://www.example.com (no path)' });
    return z.NEVER;
  });

/** A visitor-facing field error: the field, and what to do, in the visitor's language. */
export interface SubmissionFieldError {
  field: string;
  message: string;
  code: 'required' | 'invalid_string' | 'invalid_type';
}

export type ParsedSubmission =
  | { ok: true; email: string; data: Record<string, string | number | boolean> }
  | { ok: false; errors: SubmissionFieldError[] };

const MAX_TEXT = 500;

function readValue(type: FormFieldType, raw: unknown): string | number | boolean | undefined | null {
  if (raw === undefined || raw === null || raw === '') return undefined;
  switch (type) {
    case 'string':
      return typeof raw === 'string' && raw.trim().length <= MAX_TEXT ? raw.trim() || undefined : null;
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
      return Number.isFinite(n) ? n : null;
    }
    case 'boolean':
      if (raw === true || raw === 'true' || raw === 'on' || raw === 'yes') return true;
      if (raw === false || raw === 'false') return undefined;
      return null;
    case 'date':
      return typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(raw) && !Number.isNaN(Date.parse(raw)) ? raw : null;
  }
}

/**
 * Reads a submission (`email` and the form's fields under `data`) against the form: values are
 * coerced to their field's type (a form posts strings), unknown keys are ignored, and every problem
 * is named in the visitor's language. An unchecked box is no value.
 */
export function parseSubmission(fields: FormField[], email: unknown, data: unknown, locale: Locale): ParsedSubmission {
  const s = formStringsFor(locale);
  const errors: SubmissionFieldError[] = [];
  const parsedEmail = emailSchema.safeParse(email);
  if (email === undefined || email === null || email === '') {
    errors.push({ field: 'email', message: s.required, code: 'required' });
  } else if (!parsedEmail.success) errors.push({ field: 'email', message: s.invalidEmail, code: 'invalid_string' });
  const given = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  const values: Record<string, string | number | boolean> = {};
  for (const field of fields) {
    const value = readValue(field.type, given[field.key]);
    if (value === null) errors.push({ field: `data.${field.key}`, message: s.invalidValue, code: 'invalid_type' });
    else if (value === undefined) {
      if (field.required) errors.push({ field: `data.${field.key}`, message: s.required, code: 'required' });
    } else values[field.key] = value;
  }
  if (errors.length > 0 || !parsedEmail.success) return { ok: false, errors };
  return { ok: true, email: parsedEmail.data, data: values };
}

/** Why an address is refused by a form, from the /v1/verify checks; null when it may sign up. */
export function addressRefusal(
  verdict: { isDisposable: boolean; suggestedEmail?: string; hasMxRecords: boolean; reasons: string[] },
  s: FormStrings,
): { message: string; suggestion?: string } | null {
  if (verdict.isDisposable) return { message: s.refusedDisposable };
  if (verdict.suggestedEmail) {
    return {
      message: s.refusedTypo.replace('{suggestion}', verdict.suggestedEmail),
      suggestion: verdict.suggestedEmail,
    };
  }
  // Only a domain whose DNS answered without mail servers: a lookup that failed proves nothing.
  const lookupFailed = verdict.reasons.some((r) => r.startsWith('DNS lookup of MX'));
  if (!verdict.hasMxRecords && !lookupFailed) return { message: s.refusedNoMail };
  return null;
}
