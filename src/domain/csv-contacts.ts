import { normalizeEmail } from './email.js';

export type CsvContact =
  | {
      ok: true;
      email: string;
      subscribed?: boolean;
      data: Record<string, unknown>;
      /** From `topic:<name or id>` columns: the topic as the header names it → receives it. */
      topics?: Record<string, boolean>;
    }
  | { ok: false; email?: string; message: string };

const TRUE = new Set(['true', 'yes', '1', 'y']);
const FALSE = new Set(['false', 'no', '0', 'n']);

/** Finds the email column of a header row, whatever its case. */
export function emailColumn(header: string[]): string | undefined {
  return header.find((h) => h.trim().toLowerCase() === 'email');
}

/**
 * A CSV cell is text; numbers and booleans are recovered only when the text is their exact
 * canonical form, so "02134" stays a string and "42" becomes 42.
 */
export function coerceCell(cell: string): unknown {
  if (cell === 'true') return true;
  if (cell === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(cell) && String(Number(cell)) === cell) return Number(cell);
  return cell;
}

/** A `topic:<name or id>` column's topic, as the header names it; null for any other column. */
export function topicColumn(column: string): string | null {
  const m = /^topic:\s*(.+)$/i.exec(column.trim());
  return m ? m[1]!.trim() : null;
}

export function csvRowToContact(record: Record<string, string>): CsvContact {
  let email: string | undefined;
  let subscribed: boolean | undefined;
  const data: Record<string, unknown> = {};
  const topics: Record<string, boolean> = {};
  for (const [column, raw] of Object.entries(record)) {
    const name = column.trim();
    const cell = (raw ?? '').trim();
    const lower = name.toLowerCase();
    if (lower === 'email') email = cell;
    else if (lower === 'subscribed') {
      if (cell === '') continue;
      if (TRUE.has(cell.toLowerCase())) subscribed = true;
      else if (FALSE.has(cell.toLowerCase())) subscribed = false;
      else return { ok: false, email, message: `subscribed must be true or false, got "${cell}"` };
    } else if (topicColumn(name) !== null) {
      // An empty cell leaves the topic as it is (a new contact: the topic's default).
      if (cell === '') continue;
      if (TRUE.has(cell.toLowerCase())) topics[topicColumn(name)!] = true;
      else if (FALSE.has(cell.toLowerCase())) topics[topicColumn(name)!] = false;
      else return { ok: false, email, message: `${name} must be true or false, got "${cell}"` };
    } else if (name && cell !== '') data[name] = coerceCell(cell);
  }
  if (!email) return { ok: false, message: 'email is empty' };
  const normalized = normalizeEmail(email);
  if (!normalized) return { ok: false, email, message: `"${email}" is not a valid email address` };
  return { ok: true, email: normalized, subscribed, data, ...(Object.keys(topics).length > 0 ? { topics } : {}) };
}
