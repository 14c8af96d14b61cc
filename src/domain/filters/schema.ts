/**
 * The shape of a filter tree (FilterCondition → FilterGroup → Filter, see `index.ts` for what each
 * operator means) and the rules a tree must follow before it is compiled or evaluated.
 *
 * Field errors carry precise paths (`groups.0.filters.2.value`) and zod issue codes:
 * `invalid_type` (a missing or mistyped `value` or `unit`), `too_small` / `too_big` (an empty
 * `contains` value, a non-positive window, too many filters), `invalid_string` (a segment id that is
 * not a uuid, a `createdAt` value that is not an ISO date) and custom issues whose `params.code`
 * names them: `invalid_field`, `invalid_operator`, `too_deep`.
 */
import { z } from 'zod';
import { isUuid } from '../formats.js';

/** Whom an operator asks about: a field of the contact, its events, a segment's or a topic's membership. */
export type OperatorKind = 'field' | 'event' | 'segment' | 'topic';
/**
 * What an operator's `value` holds: nothing; a value to compare with (`scalar`, or `ordered` for the
 * orderings); a non-empty text to look for; a number of `unit`s before now; a segment id.
 */
export type Operand = 'none' | 'scalar' | 'ordered' | 'text' | 'window' | 'segment' | 'topic';

/**
 * Every operator, with whom it asks about and what its value holds: the schema's checks, the
 * standard fields' operators and "where is this used" all read this table. What each one means is
 * in `index.ts`; how it runs is its entry in the compiler's `OPERATOR_SQL` and the evaluator's
 * `OPERATOR_TEST`, which the compiler requires for every operator.
 */
export const OPERATOR_SPECS = {
  equals: { kind: 'field', operand: 'scalar' },
  notEquals: { kind: 'field', operand: 'scalar' },
  contains: { kind: 'field', operand: 'text' },
  notContains: { kind: 'field', operand: 'text' },
  greaterThan: { kind: 'field', operand: 'ordered' },
  lessThan: { kind: 'field', operand: 'ordered' },
  greaterThanOrEqual: { kind: 'field', operand: 'ordered' },
  lessThanOrEqual: { kind: 'field', operand: 'ordered' },
  exists: { kind: 'field', operand: 'none' },
  notExists: { kind: 'field', operand: 'none' },
  within: { kind: 'field', operand: 'window' },
  olderThan: { kind: 'field', operand: 'window' },
  triggered: { kind: 'event', operand: 'none' },
  triggeredWithin: { kind: 'event', operand: 'window' },
  triggeredOlderThan: { kind: 'event', operand: 'window' },
  notTriggered: { kind: 'event', operand: 'none' },
  notTriggeredWithin: { kind: 'event', operand: 'window' },
  memberOfSegment: { kind: 'segment', operand: 'segment' },
  notMemberOfSegment: { kind: 'segment', operand: 'segment' },
  memberOfTopic: { kind: 'topic', operand: 'topic' },
  notMemberOfTopic: { kind: 'topic', operand: 'topic' },
} as const satisfies Record<string, { kind: OperatorKind; operand: Operand }>;

export type Operator = keyof typeof OPERATOR_SPECS;
export const OPERATORS = Object.keys(OPERATOR_SPECS) as [Operator, ...Operator[]];
export const operatorKind = (operator: Operator): OperatorKind => OPERATOR_SPECS[operator].kind;
export const operandOf = (operator: Operator): Operand => OPERATOR_SPECS[operator].operand;

export const TIME_UNITS = ['days', 'hours', 'minutes'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

export const LOGICS = ['AND', 'OR'] as const;
export type Logic = (typeof LOGICS)[number];

export interface Filter {
  /** `email`, `subscribed`, `createdAt` or `data.<key>[.<nested>…]`; an event name for event operators. */
  field: string;
  operator: Operator;
  /** The operand; the number of units for time windows; the segment id for membership operators. */
  value?: unknown;
  unit?: TimeUnit;
}

export interface FilterGroup {
  /** ANDed together. */
  filters: Filter[];
  /** A nested condition, ANDed with the filters. */
  conditions?: FilterCondition;
}

export interface FilterCondition {
  logic: Logic;
  groups: FilterGroup[];
}

export const FILTER_LIMITS = {
  /** Levels of FilterCondition, the outermost one being level 1. */
  maxDepth: 10,
  /** Filters in a whole tree. */
  maxFilters: 200,
  /** Keys in a `data.` path. */
  maxPathKeys: 10,
  /** Length of an event name, as `/v1/track` accepts it. */
  maxEventName: 255,
} as const;

export type StandardField = 'email' | 'subscribed' | 'createdAt';
export type FieldRef = { kind: StandardField } | { kind: 'data'; path: string[] };

/** The field operators taking one of `operands`, in the table's order. */
const fieldOperators = (...operands: Operand[]): ReadonlySet<Operator> =>
  new Set(OPERATORS.filter((op) => operatorKind(op) === 'field' && operands.includes(operandOf(op))));

/** The operators each standard field supports; `data.` fields support every field operator. */
export const STANDARD_FIELD_OPERATORS: Record<StandardField, ReadonlySet<Operator>> = {
  email: fieldOperators('scalar', 'text', 'none'),
  subscribed: fieldOperators('scalar', 'none'),
  createdAt: fieldOperators('scalar', 'ordered', 'none', 'window'),
};

/**
 * `email`, `subscribed`, `createdAt`, or `data.a.b` (the path `['a', 'b']`). A dot always separates
 * keys, so a top-level key that itself contains a dot cannot be filtered on.
 */
export function parseField(field: string): FieldRef | null {
  if (field === 'email' || field === 'subscribed' || field === 'createdAt') return { kind: field };
  if (!field.startsWith('data.')) return null;
  const path = field.slice(5).split('.');
  if (path.length > FILTER_LIMITS.maxPathKeys || path.some((key) => key === '')) return null;
  return { kind: 'data', path };
}

/**
 * `context.a.b` (the path `['a', 'b']`): a value of a workflow execution's context. Only workflow
 * CONDITION steps read it (`workflowConditionSchema`); segments and campaigns have no context.
 */
export function parseContextField(field: string): string[] | null {
  if (!field.startsWith('context.')) return null;
  const path = field.slice(8).split('.');
  return path.length > FILTER_LIMITS.maxPathKeys || path.some((key) => key === '') ? null : path;
}

// ---------------------------------------------------------------------------------------------
// Dates, shared by the schema, the compiler and the evaluator so that all three agree.

/**
 * The date forms of the `data` rules (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SS[.sss]Z`), restricted to
 * real calendar dates of years 0001–9999 (leap years included) and times up to 23:59:59.999. The
 * same pattern runs in JavaScript and in PostgreSQL, so a value the database could not cast (such
 * as `2024-02-30`, which `Date.parse` would roll over to March) is no date on either side.
 */
export const ISO_DATE_PATTERN =
  '^(' +
  '(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-(' +
  '(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|' +
  '(0[469]|11)-(0[1-9]|[12][0-9]|30)|' +
  '02-(0[1-9]|1[0-9]|2[0-8]))|' +
  '([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)-02-29' +
  ')(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{3})?Z)?$';
const ISO_DATE = new RegExp(ISO_DATE_PATTERN);
const DAY_MS = 86_400_000;

/** Milliseconds since the epoch of a date string in one of the accepted forms, else null. */
export function parseIsoInstant(value: unknown): number | null {
  if (typeof value !== 'string' || !ISO_DATE.test(value)) return null;
  return Date.parse(value.length === 10 ? `${value}T00:00:00.000Z` : value);
}

/**
 * What a date operand denotes: a date-only value the whole UTC day, a timestamp its millisecond.
 * `hi` is exclusive and may be Infinity (the day after 9999-12-31).
 */
export function parseIsoSpan(value: unknown): { lo: number; hi: number } | null {
  const lo = parseIsoInstant(value);
  if (lo === null) return null;
  return { lo, hi: clampInstant(lo + ((value as string).length === 10 ? DAY_MS : 1)) };
}

const MIN_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** Instants outside years 0001–9999 become ±Infinity, which both sides can represent. */
export function clampInstant(ms: number): number {
  if (ms < MIN_INSTANT) return -Infinity;
  if (ms > MAX_INSTANT) return Infinity;
  return ms;
}

const UNIT_MS: Record<TimeUnit, number> = { days: DAY_MS, hours: 3_600_000, minutes: 60_000 };

/** The start of the window "the last `value` `unit`s" before `now`, whole milliseconds. */
export function windowStart(now: Date, value: unknown, unit: unknown): number | null {
  if (typeof value !== 'number' || !(value > 0) || typeof unit !== 'string' || !(unit in UNIT_MS)) return null;
  return clampInstant(now.getTime() - Math.round(value * UNIT_MS[unit as TimeUnit]));
}

// ---------------------------------------------------------------------------------------------
// Schemas

const typeName = (value: unknown): z.ZodParsedType => z.getParsedType(value);

interface SchemaOptions {
  /** Whether `context.<key>` fields are allowed (workflow conditions). */
  contextFields: boolean;
}

function checkFilter(
  filter: { field: string; operator: Operator; value?: unknown; unit?: TimeUnit },
  ctx: z.RefinementCtx,
  options: SchemaOptions,
) {
  const { field, operator, value } = filter;
  const kind = operatorKind(operator);
  const invalidType = (path: 'value' | 'unit', expected: z.ZodParsedType, message: string) =>
    ctx.addIssue({ code: 'invalid_type', path: [path], expected, received: typeName(filter[path]), message });

  // field
  let ref: FieldRef | null = null;
  if (kind === 'field') {
    // A context value is checked like a `data` value.
    const contextPath = options.contextFields ? parseContextField(field) : null;
    ref = contextPath ? { kind: 'data', path: contextPath } : parseField(field);
    if (!ref) {
      ctx.addIssue({
        code: 'custom',
        path: ['field'],
        message:
          `Use email, subscribed, createdAt${options.contextFields ? ', context.<key>' : ''} ` +
          'or data.<key> (nested keys by dotted path)',
        params: { code: 'invalid_field' },
      });
    } else if (ref.kind !== 'data' && !STANDARD_FIELD_OPERATORS[ref.kind].has(operator)) {
      ctx.addIssue({
        code: 'custom',
        path: ['operator'],
        message:
          `${operator} does not apply to ${ref.kind}; ` +
          `use one of ${[...STANDARD_FIELD_OPERATORS[ref.kind]].join(', ')}`,
        params: { code: 'invalid_operator' },
      });
      ref = null;
    }
  } else if (kind === 'event') {
    if (field.length === 0) {
      ctx.addIssue({
        code: 'too_small',
        path: ['field'],
        minimum: 1,
        inclusive: true,
        type: 'string',
        message: 'Name the event in field',
      });
    } else if (field.length > FILTER_LIMITS.maxEventName) {
      ctx.addIssue({
        code: 'too_big',
        path: ['field'],
        maximum: FILTER_LIMITS.maxEventName,
        inclusive: true,
        type: 'string',
        message: `An event name has at most ${FILTER_LIMITS.maxEventName} characters`,
      });
    }
  }

  // value and unit
  const operand = operandOf(operator);
  if (operand === 'none') return;
  if (value === undefined) {
    const what =
      operand === 'window'
        ? 'Required: the number of units'
        : operand === 'segment' || operand === 'topic'
          ? `Required: the ${operand} id goes in value`
          : 'Required';
    invalidType('value', operand === 'window' ? 'number' : 'string', what);
  } else if (operand === 'window') {
    if (typeof value !== 'number') invalidType('value', 'number', 'Expected the number of units, a positive number');
    else if (!(value > 0)) {
      ctx.addIssue({
        code: 'too_small',
        path: ['value'],
        minimum: 0,
        inclusive: false,
        type: 'number',
        message: 'Must be greater than 0',
      });
    }
  } else if (operand === 'segment' || operand === 'topic') {
    if (typeof value !== 'string') invalidType('value', 'string', `Expected the ${operand} id`);
    else if (!isUuid(value)) {
      ctx.addIssue({
        code: 'invalid_string',
        path: ['value'],
        validation: 'uuid',
        message: `Expected a ${operand} id (uuid)`,
      });
    }
  } else if (ref) {
    checkFieldValue(ref, operator, value, ctx, invalidType);
  }
  if (operand === 'window' && filter.unit === undefined) {
    invalidType('unit', 'string', "Required: one of 'days', 'hours', 'minutes'");
  }
}

function checkFieldValue(
  ref: FieldRef,
  operator: Operator,
  value: unknown,
  ctx: z.RefinementCtx,
  invalidType: (path: 'value', expected: z.ZodParsedType, message: string) => void,
) {
  const operand = operandOf(operator);
  if (operand === 'text') {
    if (typeof value !== 'string') invalidType('value', 'string', 'Expected a string');
    else if (value.length === 0) {
      ctx.addIssue({
        code: 'too_small',
        path: ['value'],
        minimum: 1,
        inclusive: true,
        type: 'string',
        message: 'Must not be empty',
      });
    }
    return;
  }
  const ordering = operand === 'ordered';
  switch (ref.kind) {
    case 'email':
      if (typeof value !== 'string') invalidType('value', 'string', 'Expected a string');
      return;
    case 'subscribed':
      if (typeof value !== 'boolean') invalidType('value', 'boolean', 'Expected a boolean');
      return;
    case 'createdAt':
      if (typeof value !== 'string')
        invalidType('value', 'string', 'Expected an ISO 8601 date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.sss]Z)');
      else if (parseIsoInstant(value) === null) {
        ctx.addIssue({
          code: 'invalid_string',
          path: ['value'],
          validation: 'datetime',
          message: 'Expected an ISO 8601 date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.sss]Z)',
        });
      }
      return;
    case 'data':
      if (ordering ? typeof value !== 'string' && typeof value !== 'number' : !isScalar(value)) {
        invalidType(
          'value',
          ordering ? 'number' : 'string',
          ordering ? 'Expected a number or a string' : 'Expected a string, number or boolean',
        );
      }
  }
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

const filterObject = z.object({
  field: z.string(),
  operator: z.enum(OPERATORS),
  value: z.unknown().optional(),
  unit: z.enum(TIME_UNITS).optional(),
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Depth and size limits, checked on the raw input before the recursive schema descends into it, so
 * a body nested thousands of levels deep is refused without exhausting the stack.
 */
function checkLimits(input: unknown, ctx: z.RefinementCtx) {
  let filters = 0;
  const pending: { node: unknown; depth: number; path: (string | number)[] }[] = [{ node: input, depth: 1, path: [] }];
  while (pending.length > 0) {
    const { node, depth, path } = pending.pop()!;
    if (!isRecord(node)) continue;
    if (depth > FILTER_LIMITS.maxDepth) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: `Conditions nest at most ${FILTER_LIMITS.maxDepth} levels deep`,
        params: { code: 'too_deep' },
        fatal: true,
      });
      return;
    }
    if (!Array.isArray(node.groups)) continue;
    node.groups.forEach((group, i) => {
      if (!isRecord(group)) return;
      if (Array.isArray(group.filters)) filters += group.filters.length;
      if (group.conditions !== undefined)
        pending.push({ node: group.conditions, depth: depth + 1, path: [...path, 'groups', i, 'conditions'] });
    });
  }
  if (filters > FILTER_LIMITS.maxFilters) {
    ctx.addIssue({
      code: 'too_big',
      path: [],
      maximum: FILTER_LIMITS.maxFilters,
      inclusive: true,
      type: 'array',
      message: `A condition holds at most ${FILTER_LIMITS.maxFilters} filters in all`,
      fatal: true,
    });
  }
}

/**
 * The schemas of a filter, a group and a whole tree. The whole-tree limits run first, as a
 * preprocess step whose issues are fatal, so the OpenAPI document shows the tree's plain shape.
 */
function schemas(options: SchemaOptions) {
  const filter = filterObject.superRefine((f, ctx) => checkFilter(f, ctx, options)) as z.ZodType<Filter>;
  // The recursive shape, without the whole-tree limits (those run once, at the root).
  const shape: z.ZodType<FilterCondition> = z.lazy(() =>
    z.object({ logic: z.enum(LOGICS), groups: z.array(group).min(1) }),
  );
  const group: z.ZodType<FilterGroup> = z.object({ filters: z.array(filter), conditions: shape.optional() });
  const condition: z.ZodType<FilterCondition, z.ZodTypeDef, unknown> = z.preprocess((input, ctx) => {
    checkLimits(input, ctx);
    return input;
  }, shape);
  return { filter, group, condition };
}

const standard = schemas({ contextFields: false });
export const filterSchema = standard.filter;
export const filterGroupSchema = standard.group;
/** A whole filter tree: `{ logic, groups: [{ filters, conditions? }, …] }`. */
export const filterConditionSchema = standard.condition;
/** A workflow CONDITION step's tree, which may also read the execution's `context.<key>`. */
export const workflowConditionSchema = schemas({ contextFields: true }).condition;

/**
 * What a tree names directly (segments are not followed): the fields (`email`, `data.plan.tier`),
 * event names and segment ids, each once, for "where is this used" answers.
 */
export function filterReferences(condition: FilterCondition): {
  fields: string[];
  events: string[];
  segments: string[];
} {
  const fields = new Set<string>();
  const events = new Set<string>();
  const segments = new Set<string>();
  const walk = (c: FilterCondition): void => {
    for (const g of c.groups) {
      for (const f of g.filters) {
        const kind = operatorKind(f.operator);
        if (kind === 'field') fields.add(f.field);
        else if (kind === 'event') events.add(f.field);
        else if (kind === 'segment' && typeof f.value === 'string') segments.add(f.value.toLowerCase());
      }
      if (g.conditions) walk(g.conditions);
    }
  };
  walk(condition);
  return { fields: [...fields], events: [...events], segments: [...segments] };
}
