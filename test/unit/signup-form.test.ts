import { describe, expect, it } from 'vitest';
import { formStringsFor } from '../../src/domain/form-i18n.js';
import {
  addressRefusal,
  formFieldsSchema,
  originSchema,
  parseSubmission,
  textIn,
} from '../../src/domain/signup-form.js';

const fields = formFieldsSchema.parse([
  { key: 'firstName', required: true, label: { en: 'First name' } },
  { key: 'age', type: 'number', label: { en: 'Age' } },
  { key: 'news', type: 'boolean', label: { en: 'News' } },
  { key: 'birthday', type: 'date', label: { en: 'Birthday' } },
]);

describe('parseSubmission', () => {
  it('coerces what a form posts to the fields’ types and ignores unknown keys', () => {
    expect(
      parseSubmission(
        fields,
        ' Ann@Example.COM ',
        { firstName: ' Ann ', age: '41.5', news: 'on', birthday: '1990-02-03', x: 1 },
        'en',
      ),
    ).toEqual({
      ok: true,
      email: 'ann@example.com',
      data: { firstName: 'Ann', age: 41.5, news: true, birthday: '1990-02-03' },
    });
  });

  it('names every problem in the visitor’s language', () => {
    const parsed = parseSubmission(fields, 'not an address', { age: 'many', birthday: '03/02/1990' }, 'fr');
    expect(parsed).toEqual({
      ok: false,
      errors: [
        { field: 'email', message: formStringsFor('fr').invalidEmail, code: 'invalid_string' },
        { field: 'data.firstName', message: formStringsFor('fr').required, code: 'required' },
        { field: 'data.age', message: formStringsFor('fr').invalidValue, code: 'invalid_type' },
        { field: 'data.birthday', message: formStringsFor('fr').invalidValue, code: 'invalid_type' },
      ],
    });
  });

  it('counts a missing email and an unchecked box as no value', () => {
    const parsed = parseSubmission(fields, '', { firstName: 'A', news: false }, 'en');
    expect(parsed).toEqual({
      ok: false,
      errors: [{ field: 'email', message: 'Please fill in this field.', code: 'required' }],
    });
  });
});

describe('form settings', () => {
  it('refuses reserved and repeated field keys', () => {
    const result = formFieldsSchema.safeParse([
      { key: 'email', label: { en: 'E' } },
      { key: 'a', label: { en: 'A' } },
      { key: 'a', label: { en: 'B' } },
    ]);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['0.key', '2.key']);
  });

  it('takes an origin without a path, and nothing else', () => {
    expect(originSchema.parse('https://www.example.com/')).toBe('https://www.example.com');
    expect(originSchema.safeParse('https://www.example.com/signup').success).toBe(false);
    expect(originSchema.safeParse('ftp://example.com').success).toBe(false);
  });

  it('falls back to English, then to any language given', () => {
    expect(textIn({ en: 'Hello', de: 'Hallo' }, 'de')).toBe('Hallo');
    expect(textIn({ en: 'Hello', de: 'Hallo' }, 'fr')).toBe('Hello');
    expect(textIn({ pt: 'Olá' }, 'fr')).toBe('Olá');
    expect(textIn({}, 'fr')).toBeUndefined();
  });
});

describe('addressRefusal', () => {
  const s = formStringsFor('en');
  const ok = { isDisposable: false, hasMxRecords: true, reasons: [] };
  it('refuses disposable, mistyped and mail-less addresses, but not a failed lookup', () => {
    expect(addressRefusal(ok, s)).toBeNull();
    expect(addressRefusal({ ...ok, isDisposable: true }, s)?.message).toBe(s.refusedDisposable);
    expect(addressRefusal({ ...ok, suggestedEmail: 'a@gmail.com' }, s)).toEqual({
      message: 'Did you mean a@gmail.com? Please check the address.',
      suggestion: 'a@gmail.com',
    });
    expect(addressRefusal({ ...ok, hasMxRecords: false }, s)?.message).toBe(s.refusedNoMail);
    expect(
      addressRefusal({ ...ok, hasMxRecords: false, reasons: ['DNS lookup of MX records failed (ETIMEOUT)'] }, s),
    ).toBeNull();
  });
});
