/**
 * Edits of a filter tree, one level at a time: the builder's components each own one condition or
 * one group and hand the edited copy up, so no edit needs a path into the tree. Every function
 * returns a new value and leaves its input untouched.
 */
import type {
  Filter,
  FilterCondition,
  FilterGroup,
  Operator,
  TimeUnit,
} from '../../../../src/domain/filters/schema.js';
import { filterConditionSchema, operandOf, workflowConditionSchema } from '../../../../src/domain/filters/schema.js';
import { type FieldChoice, operatorsFor } from './operator-words.js';

/** A tree with one empty group: "every contact" until a filter is added. */
export const emptyCondition = (): FilterCondition => ({ logic: 'AND', groups: [{ filters: [] }] });

export function toggleLogic(condition: FilterCondition): FilterCondition {
  return { ...condition, logic: condition.logic === 'AND' ? 'OR' : 'AND' };
}

export function addGroup(condition: FilterCondition): FilterCondition {
  return { ...condition, groups: [...condition.groups, { filters: [] }] };
}

export function replaceGroup(condition: FilterCondition, index: number, group: FilterGroup): FilterCondition {
  return { ...condition, groups: condition.groups.map((g, i) => (i === index ? group : g)) };
}

/** Removes a group; the last group of a condition empties instead, since a condition needs one. */
export function removeGroup(condition: FilterCondition, index: number): FilterCondition {
  if (condition.groups.length === 1) return { ...condition, groups: [{ filters: [] }] };
  return { ...condition, groups: condition.groups.filter((_, i) => i !== index) };
}

export function addFilter(group: FilterGroup, filter: Filter): FilterGroup {
  return { ...group, filters: [...group.filters, filter] };
}

export function replaceFilter(group: FilterGroup, index: number, filter: Filter): FilterGroup {
  return { ...group, filters: group.filters.map((f, i) => (i === index ? filter : f)) };
}

export function removeFilter(group: FilterGroup, index: number): FilterGroup {
  return { ...group, filters: group.filters.filter((_, i) => i !== index) };
}

/**
 * Gives a group a nested condition (ANDed with its filters), an OR of two empty groups: nesting is
 * how "this AND (that OR the other)" is written.
 */
export function nestCondition(group: FilterGroup): FilterGroup {
  return { ...group, conditions: { logic: 'OR', groups: [{ filters: [] }, { filters: [] }] } };
}

export function setNested(group: FilterGroup, conditions: FilterCondition | undefined): FilterGroup {
  const { conditions: _, ...rest } = group;
  return conditions ? { ...rest, conditions } : rest;
}

/** The unit a window operator starts with. */
export const DEFAULT_UNIT: TimeUnit = 'days';

/** The filter for a field just picked: its first operator, and no value or unit from before. */
export function filterFor(choice: FieldChoice): Filter {
  return withOperator({ field: choice.field, operator: operatorsFor(choice)[0]! }, operatorsFor(choice)[0]!, choice);
}

/**
 * The filter with another operator: the value and unit of the last operator go, since they rarely
 * mean the same thing under the new one; a window starts in days, a segment keeps its id.
 */
export function withOperator(filter: Filter, operator: Operator, choice?: FieldChoice): Filter {
  const operand = operandOf(operator);
  const next: Filter = { field: filter.field, operator };
  if (operand === 'window') next.unit = DEFAULT_UNIT;
  if (operand === 'segment') next.value = choice?.segmentId ?? filter.value;
  if (operand === 'topic') next.value = choice?.topicId ?? filter.value;
  if (operand === 'scalar' && choice?.type === 'boolean') next.value = true;
  return next;
}

/** How many filters a tree holds, nested ones included. */
export function countFilters(condition: FilterCondition): number {
  return condition.groups.reduce((n, g) => n + g.filters.length + (g.conditions ? countFilters(g.conditions) : 0), 0);
}

/**
 * The tree without the groups that hold nothing (no filter, no nested condition left), so a group
 * just added and not yet filled does not turn "pro contacts" into "every contact" under OR. A tree
 * with no filter at all stays one empty group: every contact.
 */
export function pruneEmpty(condition: FilterCondition): FilterCondition {
  const groups = condition.groups.flatMap((g) => {
    const conditions = g.conditions ? pruneEmpty(g.conditions) : undefined;
    const nested = conditions && countFilters(conditions) > 0 ? conditions : undefined;
    if (g.filters.length === 0 && !nested) return [];
    return [nested ? { filters: g.filters, conditions: nested } : { filters: g.filters }];
  });
  return { logic: condition.logic, groups: groups.length > 0 ? groups : [{ filters: [] }] };
}

export interface FieldIssue {
  /** `groups.0.filters.1.value`, relative to the tree. */
  path: string;
  message: string;
  /** Nothing was entered there yet (no field picked, an empty value): to fill in rather than wrong. */
  missing: boolean;
}

/**
 * The faults the API's schema finds in a tree, by path, before any request is sent; with
 * `contextFields`, as a workflow's CONDITION step, which may also read `context.<key>`.
 */
export function treeIssues(condition: FilterCondition, contextFields = false): FieldIssue[] {
  const parsed = (contextFields ? workflowConditionSchema : filterConditionSchema).safeParse(condition);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => {
    const entered = i.path.reduce<unknown>(
      (node, key) => (node as Record<string, unknown> | undefined)?.[key],
      condition,
    );
    return { path: i.path.join('.'), message: i.message, missing: entered === undefined || entered === '' };
  });
}
