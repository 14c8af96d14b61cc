/**
 * Editing a contact's `data` under the API's rules (API.md, "Rules for the data object"): only the
 * keys sent change, `null` deletes a key, an empty string is ignored (so clearing a value means
 * removing the field), reserved keys are dropped silently (so they are refused here, with a reason),
 * and a key's type is fixed by the project the first time it is seen (`GET /contacts/fields`).
 */
import { RESERVED_DATA_KEYS } from '../../../../src/domain/contact-data.js';

export type ValueType = 'string' | 'number' | 'boolean' | 'date' | 'json';

export const VALUE_TYPES: readonly { value: ValueType; label: string }[] = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'True or false' },
  { value: 'date', label: 'Date' },
  { value: 'json', label: 'JSON' },
];

export const typeLabel = (type: ValueType) => VALUE_TYPES.find((t) => t.value === type)!.label;

export interface DataRow {
  /** Stable while editing, for React keys and for errors. */
  id: string;
  /** The key the contact has now; null for a field added in this edit. */
  originalKey: string | null;
  key: string;
  text: string;
  type: ValueType;
}

const MAX_KEY_LENGTH = 256;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{3})?Z)?$/;

/** The project's field types by data key, from `GET /contacts/fields` (`data.plan` → plan). */
export function fieldTypesByKey(fields: readonly { field: string; type: string; isCustom: boolean }[]) {
  const types: Record<string, ValueType> = {};
  for (const f of fields) {
    if (!f.isCustom) continue;
    const key = f.field.startsWith('data.') ? f.field.slice(5) : f.field;
    if (f.type === 'number' || f.type === 'boolean' || f.type === 'date' || f.type === 'string') types[key] = f.type;
  }
  return types;
}

export function valueType(value: unknown): ValueType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)) ? 'date' : 'string';
  return 'json';
}

export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The type a row is edited as: the project's type of the key when the stored value reads back the
 * same under it, else the value's own (the API stores a value unchanged whatever the key's type).
 */
function rowType(value: unknown, projectType: ValueType | undefined): ValueType {
  if (projectType) {
    const parsed = parseValue(valueText(value), projectType);
    if (parsed.ok && JSON.stringify(parsed.value) === JSON.stringify(value)) return projectType;
  }
  return valueType(value);
}

export function rowsFromData(data: Record<string, unknown>, types: Record<string, ValueType>): DataRow[] {
  return Object.keys(data)
    .sort((a, b) => a.localeCompare(b))
    .map((key) => ({
      id: `k:${key}`,
      originalKey: key,
      key,
      text: valueText(data[key]),
      type: rowType(data[key], types[key]),
    }));
}

export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

export function parseValue(text: string, type: ValueType): Parsed {
  const t = text.trim();
  switch (type) {
    case 'string':
      return text === ''
        ? { ok: false, message: 'An empty value is ignored by the API; remove the field to clear it' }
        : { ok: true, value: text };
    case 'number': {
      const n = Number(t);
      return t !== '' && Number.isFinite(n) ? { ok: true, value: n } : { ok: false, message: 'Enter a number' };
    }
    case 'boolean':
      return t === 'true' || t === 'false'
        ? { ok: true, value: t === 'true' }
        : { ok: false, message: 'Choose true or false' };
    case 'date':
      return ISO_DATE.test(t) && !Number.isNaN(Date.parse(t))
        ? { ok: true, value: t }
        : { ok: false, message: 'Enter a date as YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ' };
    case 'json':
      try {
        const value: unknown = JSON.parse(t);
        return value === null ? { ok: false, message: 'null deletes a field; remove it instead' } : { ok: true, value };
      } catch {
        return { ok: false, message: 'Enter valid JSON' };
      }
  }
}

export interface DataChange {
  /** The `data` to PATCH (null values delete keys); empty when nothing changed. */
  data: Record<string, unknown>;
  /** Problems by row id, shown beside the row; nothing is sent while there are any. */
  errors: Record<string, string>;
}

function keyProblem(key: string): string | null {
  if (key === '') return 'Name the field';
  if (key.length > MAX_KEY_LENGTH) return `At most ${MAX_KEY_LENGTH} characters`;
  if (RESERVED_DATA_KEYS.has(key)) return `"${key}" is reserved and would be dropped; choose another name`;
  return null;
}

/** What to send for the edited rows: changed and new keys with their values, removed or renamed keys as null. */
export function dataChange(original: Record<string, unknown>, rows: readonly DataRow[]): DataChange {
  const data: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  const kept = rows.filter((r) => !(r.originalKey === null && r.key.trim() === '' && r.text === ''));
  const counts = new Map<string, number>();
  for (const r of kept) counts.set(r.key.trim(), (counts.get(r.key.trim()) ?? 0) + 1);

  for (const r of kept) {
    const key = r.key.trim();
    const problem = keyProblem(key) ?? ((counts.get(key) ?? 0) > 1 ? 'Another field has this name' : null);
    if (problem) {
      errors[r.id] = problem;
      continue;
    }
    const parsed = parseValue(r.text, r.type);
    if (!parsed.ok) {
      errors[r.id] = parsed.message;
      continue;
    }
    const unchanged = r.originalKey === key && JSON.stringify(original[key]) === JSON.stringify(parsed.value);
    if (!unchanged) data[key] = parsed.value;
  }
  // Keys no longer among the rows (removed, or renamed to another key) are deleted.
  const present = new Set(kept.map((r) => r.key.trim()));
  for (const key of Object.keys(original)) if (!present.has(key)) data[key] = null;
  return { data, errors };
}

/** Server field errors (`data.plan`) placed beside the row of that key. */
export function rowErrorsFromServer(
  fieldErrors: Record<string, string>,
  rows: readonly DataRow[],
): { byRow: Record<string, string>; unplaced: string[] } {
  const byRow: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const [field, message] of Object.entries(fieldErrors)) {
    const key = field.startsWith('data.') ? field.slice(5) : null;
    const row = key === null ? undefined : rows.find((r) => r.key.trim() === key);
    if (row) byRow[row.id] = message;
    else unplaced.push(message);
  }
  return { byRow, unplaced };
}
