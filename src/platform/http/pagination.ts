import { z } from 'zod';
import { isUuid } from '../../domain/formats.js';
import { validationError } from './errors.js';

export type CursorValue = string | number | boolean | null;

/** Opaque to clients: the sort key and id of the last row of the page, base64url-encoded JSON. */
export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

function decodeCursor(raw: string): CursorValue[] | null {
  try {
    const values = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(values) || values.length === 0 || values.length > 4) return null;
    return values.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v)) ? values : null;
  } catch {
    return null;
  }
}

/**
 * Whether a decoded cursor is the `[sort value, id]` pair a keyset list issues. Any other well-formed
 * JSON would reach the database as a failed cast: a 500 for what is the client's mistake.
 */
export function isKeysetCursor(values: CursorValue[], sortValue: 'timestamp' | 'text'): boolean {
  const [value, id] = values;
  if (values.length !== 2 || typeof value !== 'string' || typeof id !== 'string' || !isUuid(id)) return false;
  if (sortValue === 'text') return !value.includes('\u0000');
  const time = Date.parse(value);
  return /^\d{4}-/.test(value) && !Number.isNaN(time) && new Date(time).toISOString() === value;
}

export const invalidCursorError = () =>
  validationError([
    { field: 'cursor', message: 'Invalid cursor; use the cursor of the previous response', code: 'custom' },
  ]);

export const limitQuery = z.coerce
  .number()
  .int()
  .min(1)
  .default(20)
  .transform((n) => Math.min(n, 100));

export const cursorQuery = z
  .string()
  .max(1000)
  .transform((raw, ctx) => {
    const values = decodeCursor(raw);
    if (!values) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Invalid cursor; use the cursor of the previous response' });
      return z.NEVER;
    }
    return values;
  })
  .optional();

/** A query list, comma-separated or repeated (`?x=a,b` or `?x=a&x=b`), blanks dropped. */
export const commaListQuery = z.union([z.string(), z.array(z.string())]).transform((v) =>
  (Array.isArray(v) ? v : [v])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean),
);

/** `?ids=<uuid>,<uuid>`: up to a page (100) of a list's records by id, as a page that mentions them names them in one request. */
export const idsQuery = commaListQuery.pipe(z.array(z.string().uuid()).min(1).max(100)).optional();

export const dirQuery = z.enum(['asc', 'desc']).catch('desc').default('desc');

export const MAX_PAGE_SIZE = 100;

/** `?page=&pageSize=` of the numbered lists: a page size above the maximum is lowered to it. */
export const offsetPageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, MAX_PAGE_SIZE)),
});

/** The envelope of a numbered page of `item`. */
export function offsetPageSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object({
    data: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    totalPages: z.number().int(),
  });
}

/** `?subscribed=true|false`; anything else is a validation error rather than a silent false. */
export const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

/** A page of a keyset list: `cursor` asks for the next one. */
export interface KeysetPage<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
}

/** A keyset page with the number of all matching rows. */
export type CursorPage<T> = KeysetPage<T> & { total: number };

/**
 * A page from rows fetched with `limit + 1`: the extra row only tells that more follow. The cursor
 * holds the sort key of the last row returned, as `keyOf` gives it.
 */
export function cursorPage<R, T>(
  rows: R[],
  limit: number,
  keyOf: (row: R) => CursorValue[],
  toItem: (row: R) => T,
): KeysetPage<T> {
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(toItem), cursor: hasMore && last ? encodeCursor(keyOf(last)) : null, hasMore };
}

export const cursorPageSchema = <T extends z.ZodTypeAny>(item: T) =>
  z.object({ data: z.array(item), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });

/** A numbered page asked for (`page` counts from 1). */
export interface PageRequest {
  page: number;
  pageSize: number;
}

/** The rows a numbered page covers. */
export const pageWindow = (q: PageRequest) => ({ offset: (q.page - 1) * q.pageSize, limit: q.pageSize });

/** A numbered page as the API answers it. */
export function numberedPage<T>(data: T[], total: number, q: PageRequest) {
  return { data, total, page: q.page, pageSize: q.pageSize, totalPages: Math.ceil(total / q.pageSize) };
}
