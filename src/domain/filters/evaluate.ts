/**
 * Judges one contact against a filter tree in memory (workflow CONDITION steps, segment entry on a
 * single event). It gives the same answer as the SQL of `compile.ts` for every contact: both take
 * the meaning of values from the same helpers, and a property test holds them to it.
 */

import { type FieldType, inferFieldType } from '../contact-data.js';
import {
  type Comparison,
  checkSegments,
  compareText,
  dataOperand,
  type FilterContext,
  fieldType,
  foldCase,
  inRangeMs,
  type Range,
  rangeFor,
  scalarText,
  segmentTarget,
  topicTarget,
} from './compile.js';
import {
  type FieldRef,
  type Filter,
  type FilterCondition,
  type FilterGroup,
  type Operator,
  operatorKind,
  parseContextField,
  parseField,
  parseIsoInstant,
  parseIsoSpan,
  windowStart,
} from './schema.js';

export interface FilterSubject {
  contact: { email: string; subscribed: boolean; createdAt: Date; data: Record<string, unknown> };
  /** The contact's events (at least those with the names the tree mentions). */
  events: { name: string; createdAt: Date }[];
  /** Ids of the static and tracked segments listing the contact (`segment_members`). */
  memberOf: Set<string>;
  /** A workflow execution's context, for `context.<key>` fields. */
  context?: Record<string, unknown>;
  /** The topics the contact chose (topic id → receives it); a topic not named has its default. */
  topics?: Record<string, boolean>;
}

export function evaluateCondition(condition: FilterCondition, subject: FilterSubject, ctx: FilterContext): boolean {
  checkSegments(condition, ctx);
  return condition_(condition, { subject, ctx });
}

interface State {
  subject: FilterSubject;
  ctx: FilterContext;
}

function condition_(condition: FilterCondition, s: State): boolean {
  return condition.logic === 'AND'
    ? condition.groups.every((g) => group(g, s))
    : condition.groups.some((g) => group(g, s));
}

function group(g: FilterGroup, s: State): boolean {
  return g.filters.every((f) => OPERATOR_TEST[f.operator](f, s)) && (!g.conditions || condition_(g.conditions, s));
}

// ---------------------------------------------------------------------------------------------
// One function per operator, as in the compiler.

const OPERATOR_TEST: Record<Operator, (f: Filter, s: State) => boolean> = {
  equals: (f, s) => compare(f, 'equals', s),
  notEquals: (f, s) => !compare(f, 'equals', s),
  contains: (f, s) => contains(f, s),
  notContains: (f, s) => !contains(f, s),
  greaterThan: (f, s) => compare(f, 'greaterThan', s),
  lessThan: (f, s) => compare(f, 'lessThan', s),
  greaterThanOrEqual: (f, s) => compare(f, 'greaterThanOrEqual', s),
  lessThanOrEqual: (f, s) => compare(f, 'lessThanOrEqual', s),
  exists: (f, s) => exists(f, s),
  notExists: (f, s) => !exists(f, s),
  within: (f, s) => dateWindow(f, s, (since) => ({ gte: since, lte: s.ctx.now.getTime() })),
  olderThan: (f, s) => dateWindow(f, s, (since) => ({ lt: since })),
  triggered: (f, s) => triggered(f, s, {}),
  triggeredWithin: (f, s) => triggeredInWindow(f, s, (since) => ({ gte: since })),
  triggeredOlderThan: (f, s) => triggeredInWindow(f, s, (since) => ({ lt: since })),
  notTriggered: (f, s) => !triggered(f, s, {}),
  notTriggeredWithin: (f, s) => !triggeredInWindow(f, s, (since) => ({ gte: since })),
  memberOfSegment: (f, s) => memberOf(f, s),
  notMemberOfSegment: (f, s) => !memberOf(f, s),
  memberOfTopic: (f, s) => inTopic(f, s),
  notMemberOfTopic: (f, s) => !inTopic(f, s),
};

function inTopic(f: Filter, s: State): boolean {
  const topic = topicTarget(f.value, s.ctx);
  return topic ? (s.subject.topics?.[topic.id] ?? topic.defaultOn) : false;
}

/**
 * The field a filter names: a standard field, a `data` value (typed by its key), or a `context`
 * value (typed by itself, since contexts have no declared types).
 */
type Ref = Exclude<FieldRef, { kind: 'data' }> | { kind: 'data'; stored: unknown; type: FieldType };

function resolve(field: string, s: State): Ref | null {
  const contextPath = parseContextField(field);
  if (contextPath) {
    const stored = valueAt(s.subject.context ?? {}, contextPath);
    return { kind: 'data', stored, type: inferFieldType(stored) ?? 'string' };
  }
  const ref = parseField(field);
  if (ref?.kind !== 'data') return ref;
  return {
    kind: 'data',
    stored: valueAt(s.subject.contact.data, ref.path),
    type: fieldType(ref.path, s.ctx.fieldTypes),
  };
}

function compare(f: Filter, cmp: Comparison, s: State): boolean {
  const ref = resolve(f.field, s);
  if (!ref) return false;
  const { contact } = s.subject;
  switch (ref.kind) {
    case 'email':
      return cmp === 'equals' && typeof f.value === 'string' && contact.email === f.value.toLowerCase();
    case 'subscribed':
      return cmp === 'equals' && typeof f.value === 'boolean' && contact.subscribed === f.value;
    case 'createdAt': {
      const span = parseIsoSpan(f.value);
      return span !== null && inRangeMs(contact.createdAt.getTime(), rangeFor(cmp, span));
    }
    case 'data': {
      const operand = dataOperand(ref.type, cmp, f.value);
      if (!operand) return false;
      const { stored } = ref;
      switch (operand.type) {
        case 'number':
          return typeof stored === 'number' && order(stored - operand.value, cmp);
        case 'boolean':
          return typeof stored === 'boolean' && stored === operand.value;
        case 'string': {
          const text = scalarText(stored);
          return (
            text !== null && (cmp === 'equals' ? text === operand.value : order(compareText(text, operand.value), cmp))
          );
        }
        case 'date': {
          const at = parseIsoInstant(stored);
          return at !== null && inRangeMs(at, rangeFor(cmp, operand.span));
        }
      }
    }
  }
}

function order(difference: number, cmp: Comparison): boolean {
  switch (cmp) {
    case 'equals':
      return difference === 0;
    case 'greaterThan':
      return difference > 0;
    case 'lessThan':
      return difference < 0;
    case 'greaterThanOrEqual':
      return difference >= 0;
    case 'lessThanOrEqual':
      return difference <= 0;
  }
}

function contains(f: Filter, s: State): boolean {
  const ref = resolve(f.field, s);
  if (!ref || typeof f.value !== 'string') return false;
  const text = ref.kind === 'email' ? s.subject.contact.email : ref.kind === 'data' ? scalarText(ref.stored) : null;
  return text !== null && foldCase(text).includes(foldCase(f.value));
}

function exists(f: Filter, s: State): boolean {
  const ref = resolve(f.field, s);
  if (!ref) return false;
  return ref.kind !== 'data' || (ref.stored !== undefined && ref.stored !== null);
}

function dateWindow(f: Filter, s: State, range: (since: number) => Range): boolean {
  const ref = resolve(f.field, s);
  const since = windowStart(s.ctx.now, f.value, f.unit);
  if (!ref || since === null) return false;
  if (ref.kind === 'createdAt') return inRangeMs(s.subject.contact.createdAt.getTime(), range(since));
  if (ref.kind !== 'data') return false;
  const at = parseIsoInstant(ref.stored);
  return at !== null && inRangeMs(at, range(since));
}

function triggeredInWindow(f: Filter, s: State, range: (since: number) => Range): boolean {
  const since = windowStart(s.ctx.now, f.value, f.unit);
  return since !== null && triggered(f, s, range(since));
}

function triggered(f: Filter, s: State, range: Range): boolean {
  return s.subject.events.some((e) => e.name === f.field && inRangeMs(e.createdAt.getTime(), range));
}

function memberOf(f: Filter, s: State): boolean {
  const target = segmentTarget(f.value, s.ctx);
  switch (target.kind) {
    case 'none':
      return false;
    case 'members':
      return s.subject.memberOf.has(target.id);
    case 'inline':
      // checkSegments has ruled out cycles.
      return condition_(target.condition, s);
  }
}

/** The value at a `data` path; undefined when a key is missing or a step is not an object. */
function valueAt(data: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key))
      return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The event names a tree asks about, through the segments it inlines: the events a subject must
 * carry for `evaluateCondition` to judge it (run `checkSegments` first).
 */
export function eventNamesIn(condition: FilterCondition, ctx: FilterContext): string[] {
  const names = new Set<string>();
  const walk = (c: FilterCondition): void => {
    for (const g of c.groups) {
      for (const f of g.filters) {
        if (operatorKind(f.operator) === 'event') names.add(f.field);
        const target = operatorKind(f.operator) === 'segment' ? segmentTarget(f.value, ctx) : null;
        if (target?.kind === 'inline') walk(target.condition);
      }
      if (g.conditions) walk(g.conditions);
    }
  };
  walk(condition);
  return [...names];
}
