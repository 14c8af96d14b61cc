/**
 * Import presets: how the contact exports of other products become the rows of Postbox's one CSV
 * import. A preset reads a row (header → cell) of that product's file and returns what the import
 * stores: the address, the subscription, `data`, and, for an address that product stopped mailing
 * because it bounced or was blocked, a suppression. Pure, so the dashboard's preview runs the same
 * code as the server's job.
 *
 *   mailchimp  audience export: one file per state (subscribed, unsubscribed, cleaned); a file's
 *              state is read from its columns (UNSUB_TIME, CLEAN_TIME), or from a STATUS column.
 *              Merge fields become camelCase data keys, TAGS the text `tags`.
 *   listmonk   subscribers export: uuid, email, name, attributes (JSON), status
 *              (enabled / disabled / blocklisted), created_at, updated_at; a `lists` column is kept.
 *   plunk      contacts: email, subscribed, data (JSON); other columns as in a Postbox CSV.
 */

import { RESERVED_DATA_KEYS } from './contact-data.js';
import { type CsvContact, coerceCell, csvRowToContact } from './csv-contacts.js';
import { normalizeEmail } from './email.js';

export const IMPORT_PRESETS = ['mailchimp', 'listmonk', 'plunk'] as const;
export type ImportPreset = (typeof IMPORT_PRESETS)[number];

export const PRESET_LABELS: Record<ImportPreset, string> = {
  mailchimp: 'Mailchimp',
  listmonk: 'listmonk',
  plunk: 'Plunk',
};

export const isImportPreset = (value: unknown): value is ImportPreset =>
  (IMPORT_PRESETS as readonly unknown[]).includes(value);

/** An address the product had stopped mailing, listed on the project's suppressions by the import. */
export interface ImportSuppression {
  reason: 'bounce' | 'manual';
  detail: string;
}

export type ImportRow =
  | (Extract<CsvContact, { ok: true }> & { suppress?: ImportSuppression })
  | Extract<CsvContact, { ok: false }>;

/** Where a row lands: `unstated` leaves an existing contact's subscription as it is (new ones subscribe). */
export type ImportState = 'subscribed' | 'unsubscribed' | 'suppressed' | 'unstated';

export function rowState(row: Extract<ImportRow, { ok: true }>): ImportState {
  if (row.suppress) return 'suppressed';
  if (row.subscribed === undefined) return 'unstated';
  return row.subscribed ? 'subscribed' : 'unsubscribed';
}

/** What a column of a file becomes, shown in the preview before anything is uploaded. */
export type ColumnRole =
  | { kind: 'email' }
  | { kind: 'subscribed' }
  | { kind: 'state'; text: string }
  | { kind: 'data'; key: string }
  | { kind: 'data-json' }
  | { kind: 'ignored'; reason: string };

// ---------------------------------------------------------------------------------------------
// Cells

/**
 * A timestamp as an ISO date the project types as `date`. Mailchimp writes "2024-03-05 14:02:11"
 * in UTC; listmonk and Plunk write a zone. Anything else stays text.
 */
export function isoTime(cell: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)? ?([zZ]|[+-]\d{2}(?::?\d{2})?)?$/.exec(cell);
  if (!m) return cell;
  const offset = m[4] && m[4].toUpperCase() !== 'Z' ? m[4] : 'Z';
  // "+00" and "+0530" as Date.parse reads them: "+00:00", "+05:30".
  const zone = offset === 'Z' ? 'Z' : `${offset.slice(0, 3)}:${offset.slice(3).replace(':', '') || '00'}`;
  const ms = Date.parse(`${m[1]}T${m[2]}${(m[3] ?? '').slice(0, 4)}${zone}`);
  return Number.isNaN(ms) ? cell : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A list cell ("VIP","Customer" from Mailchimp, a JSON array, or plain commas) as one text value. */
export function listText(cell: string): string {
  let items: string[];
  if (cell.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(cell);
      items = Array.isArray(parsed)
        ? parsed.map((v) => (v && typeof v === 'object' && 'name' in v ? String(v.name) : String(v)))
        : [cell];
    } catch {
      items = cell.split(',');
    }
  } else if (cell.includes('"')) items = [...cell.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replace(/""/g, '"'));
  else items = cell.split(',');
  return items
    .map((s) => s.trim())
    .filter(Boolean)
    .join(', ');
}

/** A merge field's label as a data key: "First Name" → firstName, "PHONE" → phone. */
export function camelKey(label: string): string {
  const words = label
    .trim()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return words
    .map((w, i) => {
      const word = w === w.toUpperCase() ? w.toLowerCase() : w;
      return i === 0 ? word.charAt(0).toLowerCase() + word.slice(1) : word.charAt(0).toUpperCase() + word.slice(1);
    })
    .join('');
}

/** A JSON object cell's keys, for listmonk's attributes and Plunk's data. */
function jsonObject(cell: string, column: string): Record<string, unknown> | string {
  if (cell === '') return {};
  try {
    const value: unknown = JSON.parse(cell);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below, as any cell that is not an object.
  }
  return `${column} must be a JSON object, got "${cell.length > 60 ? `${cell.slice(0, 60)}…` : cell}"`;
}

function withEmail(email: string, fields: Omit<Extract<ImportRow, { ok: true }>, 'ok' | 'email'>): ImportRow {
  if (!email) return { ok: false, message: 'email is empty' };
  const normalized = normalizeEmail(email);
  if (!normalized) return { ok: false, email, message: `"${email}" is not a valid email address` };
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields.data)) if (!RESERVED_DATA_KEYS.has(k) && v !== '') data[k] = v;
  return { ok: true, email: normalized, ...fields, data };
}

// ---------------------------------------------------------------------------------------------
// Mailchimp

/** Mailchimp's own bookkeeping columns: what each becomes. Other columns are merge fields. */
const MAILCHIMP_COLUMNS: Record<string, ColumnRole> = {
  MEMBER_RATING: { kind: 'data', key: 'memberRating' },
  OPTIN_TIME: { kind: 'data', key: 'subscribedAt' },
  CONFIRM_TIME: { kind: 'data', key: 'confirmedAt' },
  UNSUB_TIME: { kind: 'state', text: 'Unsubscribed; the time as data field unsubscribedAt' },
  UNSUB_REASON: { kind: 'data', key: 'unsubscribeReason' },
  CLEAN_TIME: { kind: 'state', text: 'Suppressed as a bounce; the time as data field cleanedAt' },
  STATUS: { kind: 'state', text: 'Subscription state (subscribed, unsubscribed, cleaned, pending)' },
  TAGS: { kind: 'data', key: 'tags' },
  TIMEZONE: { kind: 'data', key: 'timezone' },
  CC: { kind: 'data', key: 'country' },
  REGION: { kind: 'data', key: 'region' },
  NOTES: { kind: 'data', key: 'notes' },
};
const MAILCHIMP_IGNORED = new Set([
  'EMAIL_TYPE',
  'OPTIN_IP',
  'CONFIRM_IP',
  'LATITUDE',
  'LONGITUDE',
  'GMTOFF',
  'DSTOFF',
  'LAST_CHANGED',
  'LEID',
  'EUID',
  'UNSUB_CAMPAIGN_TITLE',
  'UNSUB_CAMPAIGN_ID',
  'UNSUB_REASON_OTHER',
  'CLEAN_CAMPAIGN_TITLE',
  'CLEAN_CAMPAIGN_ID',
]);
const MAILCHIMP_TIMES: Record<string, string> = {
  OPTIN_TIME: 'subscribedAt',
  CONFIRM_TIME: 'confirmedAt',
  UNSUB_TIME: 'unsubscribedAt',
  CLEAN_TIME: 'cleanedAt',
};
const isMailchimpEmail = (name: string) => ['email address', 'email'].includes(name.toLowerCase());

function mailchimpColumn(column: string): ColumnRole {
  const name = column.trim();
  if (isMailchimpEmail(name)) return { kind: 'email' };
  const own = MAILCHIMP_COLUMNS[name.toUpperCase()];
  if (own) return own;
  if (MAILCHIMP_IGNORED.has(name.toUpperCase())) return { kind: 'ignored', reason: "Mailchimp's own bookkeeping" };
  const key = camelKey(name);
  return key ? { kind: 'data', key } : { kind: 'ignored', reason: 'no header name' };
}

type MailchimpState = 'subscribed' | 'unsubscribed' | 'cleaned' | 'pending';

/** The row's state: a STATUS column when the file has one, otherwise which of the export's files it is. */
function mailchimpState(upper: Map<string, string>): MailchimpState | string {
  const status = upper.get('STATUS');
  if (status !== undefined && status !== '') {
    const s = status.toLowerCase();
    if (s === 'subscribed' || s === 'unsubscribed' || s === 'cleaned' || s === 'pending') return s;
    // Transactional, archived and non-subscribed contacts never opted in to marketing mail.
    if (['transactional', 'archived', 'nonsubscribed', 'non-subscribed'].includes(s)) return 'unsubscribed';
    return `STATUS must be subscribed, unsubscribed, cleaned or pending, got "${status}"`;
  }
  if (upper.has('CLEAN_TIME')) return 'cleaned';
  if (upper.has('UNSUB_TIME')) return 'unsubscribed';
  return 'subscribed';
}

function mailchimpRow(record: Record<string, string>): ImportRow {
  const upper = new Map<string, string>();
  let email = '';
  const data: Record<string, unknown> = {};
  for (const [column, raw] of Object.entries(record)) {
    const cell = (raw ?? '').trim();
    upper.set(column.trim().toUpperCase(), cell);
    const role = mailchimpColumn(column);
    if (role.kind === 'email') email = cell;
    const timeKey = MAILCHIMP_TIMES[column.trim().toUpperCase()];
    if (cell === '') continue;
    if (timeKey) data[timeKey] = isoTime(cell);
    else if (role.kind === 'data') data[role.key] = role.key === 'tags' ? listText(cell) : coerceCell(cell);
  }
  const state = mailchimpState(upper);
  if (state !== 'subscribed' && state !== 'unsubscribed' && state !== 'cleaned' && state !== 'pending')
    return { ok: false, email: email || undefined, message: state };
  return withEmail(email, {
    // Pending: the address never confirmed, so there is no consent to mail it yet.
    subscribed: state === 'subscribed',
    data,
    ...(state === 'cleaned' ? { suppress: { reason: 'bounce', detail: 'Cleaned in Mailchimp' } } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// listmonk

function listmonkColumn(column: string): ColumnRole {
  const name = column.trim().toLowerCase();
  switch (name) {
    case 'email':
      return { kind: 'email' };
    case 'name':
      return { kind: 'data', key: 'name' };
    case 'attributes':
    case 'attribs':
      return { kind: 'data-json' };
    case 'status':
      return { kind: 'state', text: 'Subscription: enabled subscribes, disabled unsubscribes, blocklisted suppresses' };
    case 'lists':
      return { kind: 'data', key: 'lists' };
    case 'created_at':
      return { kind: 'data', key: 'subscribedAt' };
    case 'uuid':
    case 'id':
      return { kind: 'ignored', reason: "listmonk's own id" };
    case 'updated_at':
      return { kind: 'ignored', reason: "listmonk's own bookkeeping" };
    default:
      return column.trim() ? { kind: 'data', key: column.trim() } : { kind: 'ignored', reason: 'no header name' };
  }
}

function listmonkRow(record: Record<string, string>): ImportRow {
  let email = '';
  let attributes: Record<string, unknown> = {};
  const own: Record<string, unknown> = {};
  let status = '';
  for (const [column, raw] of Object.entries(record)) {
    const cell = (raw ?? '').trim();
    const role = listmonkColumn(column);
    if (role.kind === 'email') email = cell;
    else if (role.kind === 'state') status = cell.toLowerCase();
    else if (role.kind === 'data-json') {
      const parsed = jsonObject(cell, column.trim());
      if (typeof parsed === 'string') return { ok: false, email: email || undefined, message: parsed };
      attributes = parsed;
    } else if (role.kind === 'data' && cell !== '')
      own[role.key] =
        role.key === 'lists' ? listText(cell) : role.key === 'subscribedAt' ? isoTime(cell) : coerceCell(cell);
  }
  if (status !== '' && !['enabled', 'disabled', 'blocklisted'].includes(status))
    return {
      ok: false,
      email: email || undefined,
      message: `status must be enabled, disabled or blocklisted, got "${status}"`,
    };
  return withEmail(email, {
    subscribed: status === '' ? undefined : status === 'enabled',
    // The export's own columns win over attributes of the same name.
    data: { ...attributes, ...own },
    ...(status === 'blocklisted' ? { suppress: { reason: 'manual', detail: 'Blocklisted in listmonk' } } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Plunk

function plunkColumn(column: string): ColumnRole {
  const name = column.trim();
  switch (name.toLowerCase()) {
    case 'email':
      return { kind: 'email' };
    case 'subscribed':
      return { kind: 'subscribed' };
    case 'data':
      return { kind: 'data-json' };
    case 'id':
      return { kind: 'ignored', reason: "Plunk's own id" };
    case 'createdat':
    case 'updatedat':
      return { kind: 'ignored', reason: "Plunk's own bookkeeping" };
    default:
      if (!name) return { kind: 'ignored', reason: 'no header name' };
      return RESERVED_DATA_KEYS.has(name)
        ? { kind: 'ignored', reason: 'a reserved name' }
        : { kind: 'data', key: name };
  }
}

function plunkRow(record: Record<string, string>): ImportRow {
  const plain: Record<string, string> = {};
  let data: Record<string, unknown> = {};
  for (const [column, raw] of Object.entries(record)) {
    const role = plunkColumn(column);
    if (role.kind === 'data-json') {
      const parsed = jsonObject((raw ?? '').trim(), column.trim());
      if (typeof parsed === 'string') {
        const email = Object.entries(record)
          .find(([c]) => plunkColumn(c).kind === 'email')?.[1]
          ?.trim();
        return { ok: false, email: email || undefined, message: parsed };
      }
      data = parsed;
    } else if (role.kind !== 'ignored') plain[column] = raw ?? '';
  }
  // Everything but the JSON column reads as a Postbox CSV does; its own columns win over `data`.
  const row = csvRowToContact(plain);
  if (!row.ok) return row;
  return withEmail(row.email, { subscribed: row.subscribed, data: { ...data, ...row.data } });
}

// ---------------------------------------------------------------------------------------------
// The registry

const PRESETS: Record<
  ImportPreset,
  { column: (column: string) => ColumnRole; row: (record: Record<string, string>) => ImportRow }
> = {
  mailchimp: { column: mailchimpColumn, row: mailchimpRow },
  listmonk: { column: listmonkColumn, row: listmonkRow },
  plunk: { column: plunkColumn, row: plunkRow },
};

/** What a column of the preset's file becomes. */
export const presetColumn = (preset: ImportPreset, column: string): ColumnRole => PRESETS[preset].column(column);

/** A row of the preset's file as the import stores it; without a preset, a Postbox CSV row. */
export function importRow(preset: ImportPreset | null | undefined, record: Record<string, string>): ImportRow {
  return preset ? PRESETS[preset].row(record) : csvRowToContact(record);
}

/** The address column of a header row, or undefined when the file has none. */
export function presetEmailColumn(preset: ImportPreset, header: readonly string[]): string | undefined {
  return header.find((h) => presetColumn(preset, h).kind === 'email');
}
