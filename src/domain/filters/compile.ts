/**
 * Compiles a filter tree to one boolean SQL expression over the contacts table aliased `c`:
 *
 *     select c.id from contacts c where c.project_id = ${projectId} and (${compileCondition(tree, ctx)})
 *
 * Every user value is a bound parameter. Every leaf is written so that it is never NULL and never
 * raises an error, whatever is stored in `data` (a string in a number field, an object, an
 * impossible date): a value that does not fit simply does not match. So each negative operator is
 * exactly the negation of its positive one, and the in-memory evaluator (`evaluate.ts`), which uses
 * the value helpers below, agrees with this compiler on every contact. The operators are listed,
 * with an example each, in `index.ts`.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { FieldType } from '../contact-data.js';
import { isUuid, likePattern } from '../formats.js';
import {
  type Filter,
  type FilterCondition,
  type FilterGroup,
  ISO_DATE_PATTERN,
  type Operator,
  operatorKind,
  parseField,
  parseIsoSpan,
  windowStart,
} from './schema.js';

export interface SegmentRef {
  id: string;
  type: 'STATIC' | 'DYNAMIC';
  trackMembership: boolean;
  condition: FilterCondition | null;
}

/** What the compiler and the evaluator need besides the tree. */
export interface FilterContext {
  /** The inferred type of each top-level `data` key of the project (`contact_fields`). */
  fieldTypes: Record<string, FieldType>;
  /** The instant time windows are measured back from; never the database's `now()`. */
  now: Date;
  /** The project's segment with that (lower-case) id, or undefined. */
  segments: (id: string) => SegmentRef | undefined;
  /** The project's topic with that (lower-case) id, or undefined (no topic: nobody is a member). */
  topics?: (id: string) => TopicRef | undefined;
}

export interface TopicRef {
  id: string;
  /** What a contact that never chose receives. */
  defaultOn: boolean;
}

/** The topic a membership filter names, when the project has it. */
export function topicTarget(value: unknown, ctx: FilterContext): TopicRef | undefined {
  return typeof value === 'string' ? ctx.topics?.(value.toLowerCase()) : undefined;
}

export interface CompileContext extends FilterContext {
  projectId: string;
}

/**
 * A tree that cannot be compiled or evaluated; callers answer 422 with a field error carrying `code`
 * (for example `validationError([{ field: 'condition', message: e.message, code: e.code }])`).
 */
export class FilterError extends Error {
  override name = 'FilterError';
  constructor(
    readonly code: 'segment_cycle' | 'too_many_filters',
    message: string,
  ) {
    super(message);
  }
}

/** Filters in a tree once the conditions of untracked dynamic segments are inlined. */
export const MAX_EXPANDED_FILTERS = 2_000;

export function compileCondition(condition: FilterCondition, ctx: CompileContext): SQL {
  checkSegments(condition, ctx);
  return condition_(condition, { ctx, inlining: [] });
}

interface State {
  ctx: CompileContext;
  /** Ids of the untracked dynamic segments being inlined, outermost first. */
  inlining: string[];
}

function condition_(condition: FilterCondition, s: State): SQL {
  const groups = condition.groups.map((g) => group(g, s));
  return combine(groups, condition.logic === 'AND' ? sql` and ` : sql` or `);
}

function group(g: FilterGroup, s: State): SQL {
  const parts = g.filters.map((f) => OPERATOR_SQL[f.operator](f, s));
  if (g.conditions) parts.push(condition_(g.conditions, s));
  return parts.length === 0 ? sql`true` : combine(parts, sql` and `);
}

function combine(parts: SQL[], separator: SQL): SQL {
  return parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, separator)})`;
}

const not = (positive: SQL): SQL => sql`(not ${positive})`;

// ---------------------------------------------------------------------------------------------
// One function per operator.

const OPERATOR_SQL: Record<Operator, (f: Filter, s: State) => SQL> = {
  equals: (f, s) => compare(f, 'equals', s),
  notEquals: (f, s) => not(compare(f, 'equals', s)),
  contains: (f) => contains(f),
  notContains: (f) => not(contains(f)),
  greaterThan: (f, s) => compare(f, 'greaterThan', s),
  lessThan: (f, s) => compare(f, 'lessThan', s),
  greaterThanOrEqual: (f, s) => compare(f, 'greaterThanOrEqual', s),
  lessThanOrEqual: (f, s) => compare(f, 'lessThanOrEqual', s),
  exists: (f) => exists(f),
  notExists: (f) => not(exists(f)),
  within: (f, s) => dateWindow(f, s, (since) => ({ gte: since, lte: s.ctx.now.getTime() })),
  olderThan: (f, s) => dateWindow(f, s, (since) => ({ lt: since })),
  triggered: (f, s) => triggered(f, s, {}),
  triggeredWithin: (f, s) => triggeredInWindow(f, s, (since) => ({ gte: since })),
  triggeredOlderThan: (f, s) => triggeredInWindow(f, s, (since) => ({ lt: since })),
  notTriggered: (f, s) => not(triggered(f, s, {})),
  notTriggeredWithin: (f, s) => not(triggeredInWindow(f, s, (since) => ({ gte: since }))),
  memberOfSegment: (f, s) => memberOf(f, s),
  notMemberOfSegment: (f, s) => not(memberOf(f, s)),
  memberOfTopic: (f, s) => inTopic(f, s),
  notMemberOfTopic: (f, s) => not(inTopic(f, s)),
};

/**
 * Receives the topic: the contact's choice (`contact_topics`), or without one the topic's default.
 * Not `subscribed`: a filter asks about the choice; sending adds the subscription itself.
 */
function inTopic(f: Filter, s: State): SQL {
  const topic = topicTarget(f.value, s.ctx);
  if (!topic) return sql`false`;
  return topic.defaultOn
    ? sql`not exists (select 1 from contact_topics ct where ct.topic_id = ${topic.id}::uuid and ct.contact_id = c.id and not ct.subscribed)`
    : sql`exists (select 1 from contact_topics ct where ct.topic_id = ${topic.id}::uuid and ct.contact_id = c.id and ct.subscribed)`;
}

/** equals and the orderings: by the column's type, or by the `data` key's inferred type. */
function compare(f: Filter, cmp: Comparison, s: State): SQL {
  const ref = parseField(f.field);
  if (!ref) return sql`false`;
  switch (ref.kind) {
    case 'email':
      return cmp === 'equals' && typeof f.value === 'string' ? sql`c.email = ${f.value.toLowerCase()}` : sql`false`;
    case 'subscribed':
      return cmp === 'equals' && typeof f.value === 'boolean' ? sql`c.subscribed = ${f.value}::boolean` : sql`false`;
    case 'createdAt': {
      const span = parseIsoSpan(f.value);
      return span ? inRange(sql`c.created_at`, rangeFor(cmp, span)) : sql`false`;
    }
    case 'data': {
      const operand = dataOperand(fieldType(ref.path, s.ctx.fieldTypes), cmp, f.value);
      if (!operand) return sql`false`;
      switch (operand.type) {
        case 'number':
          return jsonPathHolds(ref.path, JSONPATH_COMPARATORS[cmp], numberText(operand.value));
        case 'boolean':
          return jsonPathHolds(ref.path, '==', String(operand.value));
        case 'string':
          return scalarTextHolds(ref.path, (text) =>
            cmp === 'equals'
              ? sql`${text} = ${operand.value}`
              : sql`${text} collate "C" ${COMPARATORS[cmp]} ${operand.value}`,
          );
        case 'date':
          return dateIn(ref.path, rangeFor(cmp, operand.span));
      }
    }
  }
}

/** A case-insensitive substring of the email, or of the text of a scalar `data` value. */
function contains(f: Filter): SQL {
  const ref = parseField(f.field);
  if (!ref || typeof f.value !== 'string') return sql`false`;
  if (ref.kind === 'email') return sql`c.email ilike ${likePattern(f.value)}`;
  if (ref.kind !== 'data') return sql`false`;
  const pattern = likePattern(f.value);
  return scalarTextHolds(ref.path, (text) => sql`${text} ilike ${pattern}`);
}

/** A standard field always exists; a `data` key exists when it is present and not null. */
function exists(f: Filter): SQL {
  const ref = parseField(f.field);
  if (!ref) return sql`false`;
  if (ref.kind !== 'data') return sql`true`;
  return sql`coalesce(jsonb_typeof(${jsonAt(ref.path)}) <> 'null', false)`;
}

/** within / olderThan: `createdAt`, or a `data` value read as a date whatever the key's type. */
function dateWindow(f: Filter, s: State, range: (since: number) => Range): SQL {
  const ref = parseField(f.field);
  const since = windowStart(s.ctx.now, f.value, f.unit);
  if (!ref || since === null) return sql`false`;
  if (ref.kind === 'createdAt') return inRange(sql`c.created_at`, range(since));
  if (ref.kind !== 'data') return sql`false`;
  return dateIn(ref.path, range(since));
}

function triggeredInWindow(f: Filter, s: State, range: (since: number) => Range): SQL {
  const since = windowStart(s.ctx.now, f.value, f.unit);
  return since === null ? sql`false` : triggered(f, s, range(since));
}

/** Some event of that name, in the range if one is given (served by `events_contact_created`). */
function triggered(f: Filter, s: State, range: Range): SQL {
  const bounds = rangeParts(sql`e.created_at`, range);
  return sql`exists (select 1 from events e where e.contact_id = c.id
    and e.project_id = ${s.ctx.projectId}::uuid and e.name = ${f.field}${sql.join(bounds.map((b) => sql` and ${b}`))})`;
}

/** Listed members for static and tracked segments; the inlined condition for untracked ones. */
function memberOf(f: Filter, s: State): SQL {
  const target = segmentTarget(f.value, s.ctx);
  switch (target.kind) {
    case 'none':
      return sql`false`;
    case 'members':
      return sql`exists (select 1 from segment_members m where m.segment_id = ${target.id}::uuid
        and m.contact_id = c.id)`;
    case 'inline': {
      if (s.inlining.includes(target.id)) throw cycleError([...s.inlining, target.id]);
      s.inlining.push(target.id);
      try {
        return condition_(target.condition, s);
      } finally {
        s.inlining.pop();
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// SQL for reading `data`.

/**
 * `c.data -> 'company' -> 'size'`, one parameter per key: NULL when a key is missing or a step is not
 * an object (arrays are not indexed).
 */
function jsonAt(path: string[]): SQL {
  return sql`(c.data${sql.join(path.map((key) => sql` -> ${key}::text`))})`;
}

/**
 * The same value as text (`->>` for the last step): the text of a string, number or boolean
 * (numbers as PostgreSQL prints them; see `numberText`), the JSON of an object or array, NULL for null.
 */
function textAt(path: string[]): SQL {
  const last = path.length - 1;
  return sql`(c.data${sql.join(path.map((key, i) => (i === last ? sql` ->> ${key}::text` : sql` -> ${key}::text`)))})`;
}

/**
 * `test` of the text of a string, number or boolean; false for anything else. The test runs first:
 * on most rows it fails, and the value's type is never looked up.
 */
function scalarTextHolds(path: string[], test: (text: SQL) => SQL): SQL {
  return sql`coalesce(${test(textAt(path))}
    and jsonb_typeof(${jsonAt(path)}) in ('string', 'number', 'boolean'), false)`;
}

/**
 * `strict $."company"."size" > 50` on `data`: one pass over the stored document instead of reading
 * the value once for its type and again for the comparison. In strict mode a missing key, a step
 * that is not an object and a value of another type make the predicate unknown, which `@@` gives
 * as NULL (and a JSON null compares false); numbers compare as numeric. The predicate is one parameter.
 */
function jsonPathHolds(path: string[], operator: string, literal: string): SQL {
  const steps = path.map((key) => `."${key.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`).join('');
  return sql`coalesce(c.data @@ ${`strict $${steps} ${operator} ${literal}`}::jsonpath, false)`;
}

const JSONPATH_COMPARATORS: Record<Comparison, string> = {
  equals: '==',
  greaterThan: '>',
  lessThan: '<',
  greaterThanOrEqual: '>=',
  lessThanOrEqual: '<=',
};

/**
 * The instant of a date string, NULL for anything else. The cast runs only behind the pattern (the
 * text of a number, boolean or object never matches it), so an impossible date is NULL rather than
 * an error. The pattern is a constant of this module, written into the statement as a literal.
 */
function dateOf(path: string[]): SQL {
  const text = textAt(path);
  return sql`(case when ${text} ~ ${ISO_DATE_SQL} then (${text}::timestamp at time zone 'UTC') end)`;
}
const ISO_DATE_SQL = sql.raw(`'${ISO_DATE_PATTERN}'`);

/** A `data` date in the range: one read of the value, however many bounds. */
function dateIn(path: string[], range: Range): SQL {
  const lower = range.gte ?? null;
  const upper = range.lt ?? range.lte ?? null;
  if (lower !== null && upper !== null && lower > upper) return sql`false`;
  const bounds = `[${range.lt === undefined && range.lte !== undefined ? ']' : ')'}`;
  const param = (ms: number | null) => (ms === null ? sql`null::timestamptz` : sql`${instantParam(ms)}::timestamptz`);
  return sql`coalesce(tstzrange(${param(lower)}, ${param(upper)}, ${bounds}) @> ${dateOf(path)}, false)`;
}

const COMPARATORS: Record<Comparison, SQL> = {
  equals: sql`=`,
  greaterThan: sql`>`,
  lessThan: sql`<`,
  greaterThanOrEqual: sql`>=`,
  lessThanOrEqual: sql`<=`,
};

function rangeParts(column: SQL, range: Range): SQL[] {
  const parts: SQL[] = [];
  if (range.gte !== undefined) parts.push(sql`${column} >= ${instantParam(range.gte)}::timestamptz`);
  if (range.lt !== undefined) parts.push(sql`${column} < ${instantParam(range.lt)}::timestamptz`);
  if (range.lte !== undefined) parts.push(sql`${column} <= ${instantParam(range.lte)}::timestamptz`);
  return parts;
}

function inRange(column: SQL, range: Range): SQL {
  const parts = rangeParts(column, range);
  return parts.length === 0 ? sql`(${column} is not null)` : combine(parts, sql` and `);
}

function instantParam(ms: number): string {
  if (ms === Infinity) return 'infinity';
  if (ms === -Infinity) return '-infinity';
  return new Date(ms).toISOString();
}

// ---------------------------------------------------------------------------------------------
// The meaning of values, shared with the evaluator.

export type Comparison = 'equals' | 'greaterThan' | 'lessThan' | 'greaterThanOrEqual' | 'lessThanOrEqual';

/** Bounds in milliseconds since the epoch (±Infinity allowed); all given bounds must hold. */
export interface Range {
  gte?: number;
  lt?: number;
  lte?: number;
}

/** A date operand is a span [lo, hi): equals means inside it, greaterThan after it, and so on. */
export function rangeFor(cmp: Comparison, span: { lo: number; hi: number }): Range {
  switch (cmp) {
    case 'equals':
      return { gte: span.lo, lt: span.hi };
    case 'greaterThan':
      return { gte: span.hi };
    case 'greaterThanOrEqual':
      return { gte: span.lo };
    case 'lessThan':
      return { lt: span.lo };
    case 'lessThanOrEqual':
      return { lt: span.hi };
  }
}

export function inRangeMs(ms: number, range: Range): boolean {
  return (
    (range.gte === undefined || ms >= range.gte) &&
    (range.lt === undefined || ms < range.lt) &&
    (range.lte === undefined || ms <= range.lte)
  );
}

/** The top-level key decides the type of a path; a key never seen compares as a string. */
export function fieldType(path: string[], fieldTypes: Record<string, FieldType>): FieldType {
  return Object.hasOwn(fieldTypes, path[0]!) ? fieldTypes[path[0]!]! : 'string';
}

export type Operand =
  | { type: 'number'; value: number }
  | { type: 'boolean'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'date'; span: { lo: number; hi: number } };

const NUMERIC = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * The filter value converted to the key's type, or null when it cannot be (`"abc"` for a number
 * key, an ordering on a boolean): then the comparison matches no contact.
 */
export function dataOperand(type: FieldType, cmp: Comparison, value: unknown): Operand | null {
  switch (type) {
    case 'number': {
      const n =
        typeof value === 'number' ? value : typeof value === 'string' && NUMERIC.test(value) ? Number(value) : NaN;
      return Number.isFinite(n) ? { type, value: n } : null;
    }
    case 'boolean': {
      if (cmp !== 'equals') return null;
      const b = value === true || value === 'true' ? true : value === false || value === 'false' ? false : null;
      return b === null ? null : { type, value: b };
    }
    case 'date': {
      const span = parseIsoSpan(value);
      return span ? { type, span } : null;
    }
    case 'string': {
      const text = scalarText(value);
      return text === null ? null : { type, value: text };
    }
  }
}

/** The text PostgreSQL's `->>` gives for a scalar JSON value; null for anything else. */
export function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? numberText(value) : null;
  if (typeof value === 'boolean') return String(value);
  return null;
}

/**
 * A number as PostgreSQL prints the jsonb number JavaScript wrote: plain decimal notation, never an
 * exponent (`1e+21` is `1000000000000000000000`, `1.5e-7` is `0.00000015`).
 */
export function numberText(n: number): string {
  const text = String(n);
  const m = /^(-?)([0-9])(?:\.([0-9]+))?e([+-][0-9]+)$/.exec(text);
  if (!m) return text;
  const [, sign, first, rest = '', exp] = m;
  const digits = first! + rest;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Lower case, character by character, as PostgreSQL's `lower()` (and so `ilike`) does it:
 * JavaScript's `toLowerCase` alone would turn `İ` into two characters.
 */
export function foldCase(text: string): string {
  let out = '';
  for (const ch of text) out += ch === '\u0130' ? 'i' : ch.toLowerCase();
  return out;
}

/** Code point order, as PostgreSQL's `collate "C"` compares UTF-8 bytes. */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

export type SegmentTarget =
  | { kind: 'none' }
  | { kind: 'members'; id: string }
  | { kind: 'inline'; id: string; condition: FilterCondition };

/**
 * How a membership filter is decided: an unknown segment (or a dynamic one without a condition) has
 * no members; a static or tracked segment by its member rows; an untracked dynamic one by its
 * condition, inlined.
 */
export function segmentTarget(value: unknown, ctx: FilterContext): SegmentTarget {
  if (typeof value !== 'string') return { kind: 'none' };
  const id = value.toLowerCase();
  if (!isUuid(id)) return { kind: 'none' };
  const segment = ctx.segments(id);
  if (!segment) return { kind: 'none' };
  if (segment.type === 'STATIC' || segment.trackMembership) return { kind: 'members', id };
  return segment.condition ? { kind: 'inline', id, condition: segment.condition } : { kind: 'none' };
}

/** `inlining` ends with the segment met again; the message names the loop from its first visit. */
function cycleError(inlining: string[]): FilterError {
  const loop = inlining.slice(inlining.indexOf(inlining[inlining.length - 1]!));
  return new FilterError('segment_cycle', `Segments include each other through memberOfSegment: ${loop.join(' → ')}`);
}

/**
 * Throws FilterError when inlining untracked dynamic segments would never end (a cycle) or would
 * produce more than MAX_EXPANDED_FILTERS filters. Both the compiler and the evaluator call it first,
 * so they refuse the same trees.
 */
export function checkSegments(condition: FilterCondition, ctx: FilterContext): void {
  let count = 0;
  const inlining: string[] = [];
  const walk = (c: FilterCondition): void => {
    for (const g of c.groups) {
      for (const f of g.filters) {
        if (++count > MAX_EXPANDED_FILTERS) {
          throw new FilterError(
            'too_many_filters',
            `The condition expands to more than ${MAX_EXPANDED_FILTERS} filters once its segments are included`,
          );
        }
        if (operatorKind(f.operator) !== 'segment') continue;
        const target = segmentTarget(f.value, ctx);
        if (target.kind !== 'inline') continue;
        if (inlining.includes(target.id)) throw cycleError([...inlining, target.id]);
        inlining.push(target.id);
        walk(target.condition);
        inlining.pop();
      }
      if (g.conditions) walk(g.conditions);
    }
  };
  walk(condition);
}
