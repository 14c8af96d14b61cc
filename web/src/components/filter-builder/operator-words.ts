/**
 * What the builder offers for a field and how it says it: the operators of the registry
 * (`OPERATOR_SPECS`) that apply to the field's kind and type, each in plain English. The label
 * table is keyed by the registry's `Operator` type, so an operator added there fails the build here
 * until it has words.
 */
import {
  type Filter,
  OPERATORS,
  type Operand,
  type Operator,
  operandOf,
  operatorKind,
  STANDARD_FIELD_OPERATORS,
  type StandardField,
  type TimeUnit,
} from '../../../../src/domain/filters/schema.js';

export type ValueType = 'string' | 'number' | 'boolean' | 'date';

/** One entry of the field picker: a contact field, an event name, a segment or a topic. */
export interface FieldChoice {
  /** What goes in the filter's `field`: `email`, `data.plan`, an event name, `segment`. */
  field: string;
  label: string;
  kind: 'field' | 'event' | 'segment' | 'topic';
  /** The value type of a field; events, segments and topics have none. */
  type?: ValueType;
  /** The segment a segment choice stands for. */
  segmentId?: string;
  /** The topic a topic choice stands for. */
  topicId?: string;
  /** Shown beside the label: a segment's member count. */
  detail?: string;
}

const STANDARD = new Set<string>(['email', 'subscribed', 'createdAt']);

/** The operands a `data` field of each type is compared with. */
const OPERANDS_BY_TYPE: Record<ValueType, readonly Operand[]> = {
  string: ['scalar', 'text', 'ordered', 'none'],
  number: ['scalar', 'ordered', 'none'],
  boolean: ['scalar', 'none'],
  date: ['scalar', 'ordered', 'window', 'none'],
};

/** The registry's operators that apply to a choice, in the registry's order. */
export function operatorsFor(choice: FieldChoice): Operator[] {
  if (choice.kind !== 'field') return OPERATORS.filter((op) => operatorKind(op) === choice.kind);
  if (STANDARD.has(choice.field)) return [...STANDARD_FIELD_OPERATORS[choice.field as StandardField]];
  const operands = OPERANDS_BY_TYPE[choice.type ?? 'string'];
  return OPERATORS.filter((op) => operatorKind(op) === 'field' && operands.includes(operandOf(op)));
}

type Words = string | (Partial<Record<ValueType, string>> & { default: string });

/** Each operator in words, by the type of value it compares where that changes the words. */
const OPERATOR_WORDS: Record<Operator, Words> = {
  equals: { default: 'is', date: 'is on' },
  notEquals: { default: 'is not', date: 'is not on' },
  contains: 'contains',
  notContains: 'does not contain',
  greaterThan: { default: 'comes after', number: 'is more than', date: 'is after' },
  lessThan: { default: 'comes before', number: 'is less than', date: 'is before' },
  greaterThanOrEqual: { default: 'is or comes after', number: 'is at least', date: 'is on or after' },
  lessThanOrEqual: { default: 'is or comes before', number: 'is at most', date: 'is on or before' },
  exists: 'has a value',
  notExists: 'has no value',
  within: 'is in the last…',
  olderThan: 'is more than … ago',
  triggered: 'happened',
  triggeredWithin: 'happened in the last…',
  triggeredOlderThan: 'happened more than … ago',
  notTriggered: 'never happened',
  notTriggeredWithin: 'has not happened in the last…',
  memberOfSegment: 'is in the segment',
  notMemberOfSegment: 'is not in the segment',
  memberOfTopic: 'receives the topic',
  notMemberOfTopic: 'does not receive the topic',
};

export function operatorLabel(operator: Operator, type?: ValueType): string {
  const words = OPERATOR_WORDS[operator];
  if (typeof words === 'string') return words;
  return (type && words[type]) || words.default;
}

export const UNIT_WORDS: Record<TimeUnit, string> = { days: 'days', hours: 'hours', minutes: 'minutes' };

/** The type of `createdAt`, `subscribed` and `email`, as `GET /contacts/fields` reports them. */
export function valueTypeOf(type: string | undefined): ValueType {
  return type === 'number' || type === 'boolean' || type === 'date' ? type : 'string';
}

/** The choice a stored filter stands for, among the known ones; an unknown field is kept as it is. */
export function choiceOf(filter: Filter, choices: readonly FieldChoice[]): FieldChoice {
  const kind = operatorKind(filter.operator);
  if (kind === 'segment') {
    return (
      choices.find((c) => c.kind === 'segment' && c.segmentId === filter.value) ?? {
        field: filter.field,
        label: 'A deleted segment',
        kind,
        segmentId: typeof filter.value === 'string' ? filter.value : undefined,
      }
    );
  }
  if (kind === 'topic') {
    return (
      choices.find((c) => c.kind === 'topic' && c.topicId === filter.value) ?? {
        field: filter.field,
        label: 'A deleted topic',
        kind,
        topicId: typeof filter.value === 'string' ? filter.value : undefined,
      }
    );
  }
  return (
    choices.find((c) => c.kind === kind && c.field === filter.field) ?? {
      field: filter.field,
      label: kind === 'field' ? filter.field.replace(/^data\./, '') : filter.field,
      kind,
      type: kind === 'field' ? 'string' : undefined,
    }
  );
}

const countFormat = new Intl.NumberFormat();

/** A figure with its margin when sampled: "1,204", "about 1,204 (± 35)". */
export function countWords(value: number, margin: number): string {
  return margin > 0
    ? `about ${countFormat.format(value)} (± ${countFormat.format(margin)})`
    : countFormat.format(value);
}

/** "1,204 match · 1,150 subscribed", as the live count says it. */
export function matchWords(figures: {
  total: number;
  subscribed: number;
  margin?: number;
  subscribedMargin?: number;
}): string {
  return `${countWords(figures.total, figures.margin ?? 0)} match · ${countWords(
    figures.subscribed,
    figures.subscribedMargin ?? 0,
  )} subscribed`;
}
