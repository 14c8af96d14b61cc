import { describe, expect, it } from 'vitest';
import { coerceCell, csvRowToContact, emailColumn } from '../../src/domain/csv-contacts.js';

describe('coerceCell', () => {
  it('recovers canonical numbers and booleans only', () => {
    expect(coerceCell('42')).toBe(42);
    expect(coerceCell('-3.5')).toBe(-3.5);
    expect(coerceCell('02134')).toBe('02134');
    expect(coerceCell('1e3')).toBe('1e3');
    expect(coerceCell('true')).toBe(true);
    expect(coerceCell('TRUE')).toBe('TRUE');
    expect(coerceCell('hello')).toBe('hello');
  });
});

describe('csvRowToContact', () => {
  it('maps email, subscribed and the other columns to data', () => {
    expect(
      csvRowToContact({ Email: ' Ann@Example.com ', subscribed: 'no', plan: 'pro', seats: '3', note: '' }),
    ).toEqual({
      ok: true,
      email: 'ann@example.com',
      subscribed: false,
      data: { plan: 'pro', seats: 3 },
    });
  });

  it('leaves subscription unset when the cell is empty', () => {
    expect(csvRowToContact({ email: 'a@b.co', subscribed: '' })).toMatchObject({ ok: true, subscribed: undefined });
  });

  it('reports rows it cannot use', () => {
    expect(csvRowToContact({ email: '' })).toEqual({ ok: false, message: 'email is empty' });
    expect(csvRowToContact({ email: 'nope' })).toMatchObject({ ok: false, email: 'nope' });
    expect(csvRowToContact({ email: 'a@b.co', subscribed: 'maybe' })).toMatchObject({ ok: false });
  });

  it('finds the email column whatever its case', () => {
    expect(emailColumn(['name', 'E-mail'])).toBeUndefined();
    expect(emailColumn(['name', ' EMAIL '])).toBe(' EMAIL ');
  });
});
