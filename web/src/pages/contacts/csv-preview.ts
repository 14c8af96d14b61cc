/**
 * What the import page shows before uploading: the CSV read in the browser by the same rules the
 * server's import applies (src/domain/csv-contacts.ts): the first row is the header; the column
 * named "email" (any case) is the address; "subscribed" sets the subscription (true/yes/1/y,
 * false/no/0/n); every other named column becomes a `data` key, its cells typed as the server types
 * them ("42" a number, "true" a boolean, "02134" text), empty cells left out. The server takes no
 * mapping: this page shows the one it will apply.
 */

import { inferFieldType, RESERVED_DATA_KEYS } from '../../../../src/domain/contact-data.js';
import { normalizeEmail } from '../../../../src/domain/email.js';
import {
  type ColumnRole,
  type ImportPreset,
  type ImportState,
  importRow,
  PRESET_LABELS,
  presetColumn,
  rowState,
} from '../../../../src/domain/import-presets.js';

export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

const MB = 1024 * 1024;

/** Why a chosen file cannot be uploaded, or null; checked before a byte leaves the browser. */
export function checkImportFile(file: { name: string; size: number; type: string }): string | null {
  if (file.size === 0) return `${file.name} is empty.`;
  if (file.size > MAX_IMPORT_BYTES)
    return `${file.name} is ${(file.size / MB).toFixed(1)} MB; a CSV may be at most ${MAX_IMPORT_BYTES / MB} MB. Split it into smaller files.`;
  const csvType = file.type === '' || /csv|text\/plain|excel/.test(file.type);
  if (!/\.(csv|txt|tsv)$/i.test(file.name) && !csvType) return `${file.name} is not a CSV file.`;
  return null;
}

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    /** The record (header = 1) where reading stopped, as the server numbers rows. */
    readonly row: number,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

/**
 * Reads RFC 4180 CSV (quoted cells, doubled quotes, CRLF or LF, a leading BOM), calling `onRecord`
 * for each record; empty lines are skipped, as the server skips them. Throws CsvSyntaxError where
 * the server's parser would stop: a quote opening inside a bare cell, text after a closing quote,
 * or a quote never closed.
 */
export function readCsv(text: string, onRecord: (cells: string[], index: number) => void): void {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let index = 0;
  const n = text.length;
  while (i < n) {
    const cells: string[] = [];
    let lineEnded = false;
    // One record: cells until an unquoted line break or the end of the text.
    while (!lineEnded) {
      let cell = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new CsvSyntaxError(`Row ${index + 1}: a quoted cell is never closed`, index + 1);
          const ch = text[i]!;
          if (ch === '"') {
            if (text[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          cell += ch;
          i++;
        }
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r')
          throw new CsvSyntaxError(`Row ${index + 1}: text follows a closing quote`, index + 1);
      } else {
        const start = i;
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"')
            throw new CsvSyntaxError(`Row ${index + 1}: a quote inside a cell that does not start with one`, index + 1);
          i++;
        }
        cell = text.slice(start, i);
      }
      cells.push(cell);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r') i++;
      if (text[i] === '\n') i++;
      lineEnded = true;
    }
    if (cells.length === 1 && cells[0] === '') continue;
    onRecord(cells, index);
    index++;
  }
}

export type { ColumnRole, ImportPreset, ImportState };

export interface ColumnMapping {
  /** The header as written in the file. */
  column: string;
  role: ColumnRole;
}

function target(column: string): ColumnRole {
  const name = column.trim();
  const lower = name.toLowerCase();
  if (lower === 'email') return { kind: 'email' };
  if (lower === 'subscribed') return { kind: 'subscribed' };
  if (!name) return { kind: 'ignored', reason: 'no header name' };
  if (RESERVED_DATA_KEYS.has(name)) return { kind: 'ignored', reason: 'a reserved name' };
  return { kind: 'data', key: name };
}

/** What a column becomes, in words. */
export function roleText(m: ColumnMapping): string {
  switch (m.role.kind) {
    case 'email':
      return 'Email address';
    case 'subscribed':
      return 'Subscription (true or false)';
    case 'data':
      return `Data field ${m.role.key}`;
    case 'data-json':
      return 'Each of its keys a data field';
    case 'state':
      return m.role.text;
    case 'ignored':
      return `Ignored: ${m.role.reason}`;
  }
}

const targetId = (role: ColumnRole) =>
  role.kind === 'data' ? `data:${role.key}` : role.kind === 'state' ? `state:${role.text}` : role.kind;

/** What the server does with each column; of two columns with the same target, the later one wins. */
export function importMapping(header: readonly string[], preset: ImportPreset | null = null): ColumnMapping[] {
  const roles = header.map((column) => (preset ? presetColumn(preset, column) : target(column)));
  return header.map((column, i) => {
    const role = roles[i]!;
    const laterTwin = role.kind !== 'ignored' && roles.slice(i + 1).some((r) => targetId(r) === targetId(role));
    return { column, role: laterTwin ? { kind: 'ignored', reason: 'a later column has the same name' } : role };
  });
}

export type CellType = 'string' | 'number' | 'boolean' | 'date';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{3})?Z)?$/;

/** A cell's value as the server stores it: numbers and booleans only in their exact canonical form. */
export function coerceCell(cell: string): string | number | boolean {
  if (cell === 'true') return true;
  if (cell === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(cell) && String(Number(cell)) === cell) return Number(cell);
  return cell;
}

/** The type the project gives a key the first time it sees a value for it. */
export function cellType(cell: string): CellType {
  const value = coerceCell(cell);
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)) ? 'date' : 'string';
}

const TRUE = new Set(['true', 'yes', '1', 'y']);
const FALSE = new Set(['false', 'no', '0', 'n']);

/** A row as the server will take it: the contact's address (normalized), or why it refuses the row. */
export function readRow(
  cells: readonly string[],
  mapping: readonly ColumnMapping[],
): { email: string; problem: null } | { email: null; problem: string } {
  let email = '';
  for (const [i, m] of mapping.entries()) {
    const cell = (cells[i] ?? '').trim();
    if (m.role.kind === 'email') email = cell;
    if (m.role.kind === 'subscribed' && cell !== '' && !TRUE.has(cell.toLowerCase()) && !FALSE.has(cell.toLowerCase()))
      return { email: null, problem: `subscribed must be true or false, got "${cell}"` };
  }
  if (!email) return { email: null, problem: 'email is empty' };
  const normalized = normalizeEmail(email);
  return normalized
    ? { email: normalized, problem: null }
    : { email: null, problem: `"${email}" is not a valid email address` };
}

/** The problem the server will report for this row, or null. */
export const rowProblem = (cells: readonly string[], mapping: readonly ColumnMapping[]) =>
  readRow(cells, mapping).problem;

export interface CsvPreview {
  header: string[];
  mapping: ColumnMapping[];
  /** The first data rows, as read. */
  rows: string[][];
  /** Data rows in the whole file (the header not counted). */
  rowCount: number;
  /** Each data row's address as the server stores it, null for a row it refuses. */
  emails: (string | null)[];
  /** Rows the server will refuse, by row number (header = 1), the first few of them. */
  problems: { row: number; message: string }[];
  problemCount: number;
  /** The type each data column's first value would give its key, by column index. */
  types: (CellType | null)[];
  /** Why each of the first rows is refused, or null, in the order of `rows`. */
  rowProblems: (string | null)[];
  /** How many of the rows the server takes end in each subscription state. */
  states: Record<ImportState, number>;
  /** Why the file cannot be imported as a whole, or null. */
  error: string | null;
}

const MAX_PROBLEMS = 20;

/** The header and cells of a row as the server's parser gives them: a later column of the same name wins. */
function recordOf(header: readonly string[], cells: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [i, column] of header.entries()) record[column] = cells[i] ?? '';
  return record;
}

/** A row read by the preset's rules (the server's own code): its address or problem, state and data. */
function presetRow(preset: ImportPreset, header: readonly string[], cells: readonly string[]) {
  const row = importRow(preset, recordOf(header, cells));
  return row.ok
    ? { email: row.email, problem: null, state: rowState(row), data: row.data }
    : { email: null, problem: row.message, state: null, data: {} as Record<string, unknown> };
}

export function previewCsv(text: string, previewRows = 10, preset: ImportPreset | null = null): CsvPreview {
  let header: string[] = [];
  let mapping: ColumnMapping[] = [];
  const rows: string[][] = [];
  const emails: (string | null)[] = [];
  const problems: CsvPreview['problems'] = [];
  let problemCount = 0;
  let rowCount = 0;
  let types: (CellType | null)[] = [];
  const rowProblems: (string | null)[] = [];
  const states: Record<ImportState, number> = { subscribed: 0, unsubscribed: 0, suppressed: 0, unstated: 0 };
  let error: string | null = null;
  try {
    readCsv(text, (cells, index) => {
      if (index === 0) {
        header = cells;
        mapping = importMapping(cells, preset);
        types = cells.map(() => null);
        return;
      }
      rowCount++;
      const read = preset ? presetRow(preset, header, cells) : null;
      for (const [i, m] of mapping.entries()) {
        const cell = (cells[i] ?? '').trim();
        if (m.role.kind !== 'data' || types[i] !== null) continue;
        // A preset changes cells on the way (timestamps become ISO dates): the type is the stored value's.
        if (read) types[i] = inferFieldType(read.data[m.role.key]);
        else if (cell !== '') types[i] = cellType(cell);
      }
      const { email, problem } = read ?? readRow(cells, mapping);
      const plain = read || problem ? null : importRow(null, recordOf(header, cells));
      const state = read ? read.state : plain?.ok ? rowState(plain) : null;
      if (state) states[state]++;
      if (rows.length < previewRows) {
        rows.push(cells);
        rowProblems.push(problem);
      }
      emails.push(email);
      if (problem) {
        problemCount++;
        if (problems.length < MAX_PROBLEMS) problems.push({ row: index + 1, message: problem });
      }
    });
  } catch (e) {
    if (!(e instanceof CsvSyntaxError)) throw e;
    error = `The file is not valid CSV. ${e.message}.`;
  }
  if (!error && header.length === 0) error = 'The file has no header row.';
  else if (!error && !mapping.some((m) => m.role.kind === 'email'))
    error = preset
      ? `The header row has no email column of a ${PRESET_LABELS[preset]} export. Choose the file as ${PRESET_LABELS[preset]} exported it, or another format above.`
      : 'The header row has no "email" column. Add one; the other columns become contact data.';
  return { header, mapping, rows, rowCount, emails, problems, problemCount, types, rowProblems, states, error };
}

export type RowOutcome = 'create' | 'update' | 'refuse';

/**
 * What the import will do with each row, knowing which addresses the project already has: the
 * first row of an address that is new creates its contact, every later row of it (and every row
 * of an address that exists) updates it, a row the server refuses is refused.
 */
export function importOutcome(
  emails: readonly (string | null)[],
  existing: ReadonlySet<string>,
): { rows: RowOutcome[]; totals: Record<RowOutcome, number> } {
  const seen = new Set<string>();
  const totals = { create: 0, update: 0, refuse: 0 };
  const rows = emails.map((email): RowOutcome => {
    const outcome = email === null ? 'refuse' : existing.has(email) || seen.has(email) ? 'update' : 'create';
    if (email !== null) seen.add(email);
    totals[outcome]++;
    return outcome;
  });
  return { rows, totals };
}

/** The distinct addresses of the rows the server takes, in the order they appear. */
export const distinctEmails = (emails: readonly (string | null)[]) => [
  ...new Set(emails.filter((e): e is string => e !== null)),
];
