import { describe, expect, it } from 'vitest';
import { applyDataPatch, parseDataPatch } from '../../src/domain/contact-data.js';
import { snoozeEnd } from '../../web/src/pages/contacts/contact-format.js';
import {
  type DataRow,
  dataChange,
  fieldTypesByKey,
  parseValue,
  rowErrorsFromServer,
  rowsFromData,
} from '../../web/src/pages/contacts/data-editor.js';
import { pageSelection, toggle, toggleAll } from '../../web/src/pages/contacts/selection.js';

const stored = { plan: 'pro', seats: 3, vip: true, since: '2024-01-02', zip: '02134', tags: ['a'] };
const types = fieldTypesByKey([
  { field: 'email', type: 'string', isCustom: false },
  { field: 'data.plan', type: 'string', isCustom: true },
  { field: 'data.seats', type: 'number', isCustom: true },
  { field: 'data.vip', type: 'boolean', isCustom: true },
  { field: 'data.since', type: 'date', isCustom: true },
  { field: 'data.zip', type: 'number', isCustom: true },
]);
const edit = (rows: DataRow[], key: string, change: Partial<DataRow>) =>
  rows.map((r) => (r.key === key ? { ...r, ...change } : r));
const added = (key: string, text: string, type: DataRow['type'] = 'string'): DataRow => ({
  id: `new:${key}`,
  originalKey: null,
  key,
  text,
  type,
});

describe('editing a contact’s data', () => {
  it('lists the keys with the project’s types, keeping a value that does not fit its key’s type as it is', () => {
    expect(types).toEqual({ plan: 'string', seats: 'number', vip: 'boolean', since: 'date', zip: 'number' });
    const rows = rowsFromData(stored, types);
    expect(rows.map((r) => [r.key, r.text, r.type])).toEqual([
      ['plan', 'pro', 'string'],
      ['seats', '3', 'number'],
      ['since', '2024-01-02', 'date'],
      ['tags', '["a"]', 'json'],
      ['vip', 'true', 'boolean'],
      // A string stored under a number key stays a string: saving must not change it unasked.
      ['zip', '02134', 'string'],
    ]);
    expect(dataChange(stored, rows)).toEqual({ data: {}, errors: {} });
  });

  it('sends only what changed; a removed key as null, which the API deletes', () => {
    let rows = rowsFromData(stored, types);
    rows = edit(rows, 'seats', { text: ' 12 ' });
    rows = rows.filter((r) => r.key !== 'vip');
    rows = [...rows, added('company', 'Acme'), added('', '')];
    const { data, errors } = dataChange(stored, rows);
    expect(errors).toEqual({});
    expect(data).toEqual({ seats: 12, vip: null, company: 'Acme' });
    // What the server then stores, by its own rules.
    expect(applyDataPatch(stored, parseDataPatch(data))).toEqual({
      plan: 'pro',
      seats: 12,
      since: '2024-01-02',
      zip: '02134',
      tags: ['a'],
      company: 'Acme',
    });
  });

  it('refuses what the API would drop or ignore, beside the row', () => {
    const rows = [
      ...rowsFromData({ plan: 'pro', seats: 3 }, types),
      added('email', 'x@y.z'),
      added('k'.repeat(257), '1'),
      added('n', 'abc', 'number'),
      added('d', '01/02/2024', 'date'),
      added('b', '', 'boolean'),
      added('', 'orphan'),
      added('plan', 'again'),
    ];
    const cleared = edit(rows, 'plan', { text: '' });
    const { errors } = dataChange({ plan: 'pro', seats: 3 }, cleared);
    expect(errors).toEqual({
      'k:plan': 'Another field has this name',
      'new:email': '"email" is reserved and would be dropped; choose another name',
      [`new:${'k'.repeat(257)}`]: 'At most 256 characters',
      'new:n': 'Enter a number',
      'new:d': 'Enter a date as YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ',
      'new:b': 'Choose true or false',
      'new:': 'Name the field',
      'new:plan': 'Another field has this name',
    });
    expect(parseValue('', 'string')).toEqual({
      ok: false,
      message: 'An empty value is ignored by the API; remove the field to clear it',
    });
    expect(parseValue('{"a":1}', 'json')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('places the server’s field errors beside their rows', () => {
    const rows = rowsFromData({ plan: 'pro' }, types);
    expect(rowErrorsFromServer({ 'data.plan': 'Too long', data: 'At most 500 keys' }, rows)).toEqual({
      byRow: { 'k:plan': 'Too long' },
      unplaced: ['At most 500 keys'],
    });
  });
});

describe('choosing rows and snoozing', () => {
  it('selects a page, all of it, and none again', () => {
    const page = ['a', 'b', 'c'];
    let selected = toggle(new Set(), 'b');
    expect(pageSelection(selected, page)).toBe('some');
    selected = toggleAll(selected, page);
    expect([...selected].sort()).toEqual(page);
    expect(pageSelection(selected, page)).toBe('all');
    selected = toggleAll(selected, page);
    expect(pageSelection(selected, page)).toBe('none');
    expect(pageSelection(toggle(toggle(new Set(), 'a'), 'a'), page)).toBe('none');
  });

  it('ends a snooze the given days later', () => {
    expect(snoozeEnd(7, new Date('2025-03-01T12:00:00Z'))).toBe('2025-03-08T12:00:00.000Z');
  });
});
