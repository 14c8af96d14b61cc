/**
 * Filter trees: who is in a segment, a campaign's filtered audience, a workflow's CONDITION step.
 *
 *     { logic: 'AND' | 'OR', groups: [{ filters: Filter[], conditions?: FilterCondition }, …] }
 *
 * Filters in a group are ANDed with each other and with the group's nested `conditions`; the groups
 * are combined by `logic`. A group with neither filters nor conditions matches every contact.
 *
 * Fields: `email`, `subscribed`, `createdAt`, and `data.<key>` with nested keys by dotted path
 * (`data.company.size`). A `data` value is compared by the inferred type of its top-level key
 * (`contact_fields`; a key never seen is a string): number keys compare stored JSON numbers, boolean
 * keys JSON booleans, date keys strings in the date forms of the `data` rules (`YYYY-MM-DD`, the
 * whole UTC day; `YYYY-MM-DDTHH:MM:SS[.sss]Z`), string keys the text of any string, number or
 * boolean. A stored value that does not fit the type (a string in a number field, an object, an
 * impossible date such as `2024-02-30`) matches no comparison, and so matches its negation.
 *
 * Operators, with an example each:
 *
 *   equals              { field: 'data.plan', operator: 'equals', value: 'pro' }
 *                       same value; `email` ignoring case; a date-only value means that UTC day
 *   notEquals           { field: 'subscribed', operator: 'notEquals', value: true }
 *                       not equals; also matches contacts without the key
 *   contains            { field: 'email', operator: 'contains', value: '@acme.' }
 *                       case-insensitive substring of the email or of a scalar value's text
 *   notContains         { field: 'data.company', operator: 'notContains', value: 'test' }
 *                       not contains; also matches contacts without the key
 *   greaterThan         { field: 'data.age', operator: 'greaterThan', value: 30 }
 *                       numbers, dates (after the day or instant), strings in code point order
 *   lessThan            { field: 'createdAt', operator: 'lessThan', value: '2024-01-01' }
 *   greaterThanOrEqual  { field: 'data.score', operator: 'greaterThanOrEqual', value: 4.5 }
 *   lessThanOrEqual     { field: 'data.renewsOn', operator: 'lessThanOrEqual', value: '2025-06-30' }
 *   exists              { field: 'data.phone', operator: 'exists' }
 *                       the key is present and not null (standard fields always exist)
 *   notExists           { field: 'data.phone', operator: 'notExists' }
 *   within              { field: 'data.lastSeen', operator: 'within', value: 7, unit: 'days' }
 *                       a date in [now − 7 days, now]; the value is read as a date whatever its key's type
 *   olderThan           { field: 'createdAt', operator: 'olderThan', value: 30, unit: 'days' }
 *                       a date before now − 30 days
 *   triggered           { field: 'signup', operator: 'triggered' }
 *                       the contact has at least one event of that name
 *   triggeredWithin     { field: 'purchase', operator: 'triggeredWithin', value: 24, unit: 'hours' }
 *                       an event of that name at or after now − 24 hours
 *   triggeredOlderThan  { field: 'purchase', operator: 'triggeredOlderThan', value: 90, unit: 'days' }
 *                       an event of that name before now − 90 days (newer ones may exist too)
 *   notTriggered        { field: 'signup', operator: 'notTriggered' }
 *   notTriggeredWithin  { field: 'login', operator: 'notTriggeredWithin', value: 30, unit: 'days' }
 *                       no event of that name since now − 30 days (including never)
 *   memberOfSegment     { field: 'segment', operator: 'memberOfSegment', value: '<segment uuid>' }
 *                       the segment id goes in `value` (`field` is free, "segment" by convention);
 *                       static and tracked segments by their member list, untracked dynamic ones
 *                       by their condition; an unknown segment has no members
 *   notMemberOfSegment  { field: 'segment', operator: 'notMemberOfSegment', value: '<segment uuid>' }
 *   memberOfTopic       { field: 'topic', operator: 'memberOfTopic', value: '<topic uuid>' }
 *                       receives the topic: its choice, or without one the topic's default; an
 *                       unknown topic has no members (whether it is subscribed is its own field)
 *   notMemberOfTopic    { field: 'topic', operator: 'notMemberOfTopic', value: '<topic uuid>' }
 *
 * Workflow CONDITION steps may also name `context.<key>` (nested keys by dotted path): a value of the
 * execution's context, compared by the type of the value itself. Only the evaluator reads it.
 *
 * Units: `days` (24 hours), `hours`, `minutes`; windows are measured back from `ctx.now`.
 * Every negative operator is exactly the negation of its positive one.
 */

export {
  type CompileContext,
  checkSegments,
  compileCondition,
  type FilterContext,
  FilterError,
  MAX_EXPANDED_FILTERS,
  type SegmentRef,
} from './compile.js';
export { evaluateCondition, eventNamesIn, type FilterSubject } from './evaluate.js';
export {
  FILTER_LIMITS,
  type FieldRef,
  type Filter,
  type FilterCondition,
  type FilterGroup,
  filterConditionSchema,
  filterGroupSchema,
  filterReferences,
  filterSchema,
  ISO_DATE_PATTERN,
  LOGICS,
  type Logic,
  OPERATOR_SPECS,
  OPERATORS,
  type Operand,
  type Operator,
  type OperatorKind,
  operandOf,
  operatorKind,
  parseContextField,
  parseField,
  parseIsoInstant,
  STANDARD_FIELD_OPERATORS,
  type StandardField,
  TIME_UNITS,
  type TimeUnit,
  workflowConditionSchema,
} from './schema.js';
