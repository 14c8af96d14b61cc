import { useId, useMemo } from 'react';
import type { Filter, FilterCondition, FilterGroup } from '../../../../src/domain/filters/schema.js';
import { FILTER_LIMITS, type Operator } from '../../../../src/domain/filters/schema.js';
import { FieldPicker } from './FieldPicker.js';
import { type ChoiceGroup, type ExtraFields, useFieldChoices } from './field-choices.js';
import {
  addFilter,
  addGroup,
  countFilters,
  filterFor,
  nestCondition,
  removeFilter,
  removeGroup,
  replaceFilter,
  replaceGroup,
  setNested,
  toggleLogic,
  treeIssues,
  withOperator,
} from './filter-tree.js';
import { choiceOf, type FieldChoice, operatorLabel, operatorsFor } from './operator-words.js';
import { ValueInput } from './ValueInput.js';
import './filter-builder.css';

export type { FilterCondition };

export interface FilterBuilderProps {
  value: FilterCondition;
  onChange: (next: FilterCondition) => void;
  /** The segment being edited: left out of the picker, since a segment cannot include itself. */
  excludeSegmentId?: string;
  /** Fields the host adds to the picker, as a group of their own (a workflow's `context.<key>`). */
  extraFields?: ExtraFields;
  /** The name of the whole condition, read out and shown as its legend; "Condition" by default. */
  label?: string;
  /**
   * Messages by path within the tree (`groups.0.filters.1.value`), such as the server's field
   * errors of a save with their `condition.` prefix removed; shown next to the filter they concern.
   */
  errors?: Record<string, string>;
}

interface Shared {
  groups: ChoiceGroup[];
  loading: boolean;
  choices: FieldChoice[];
  messages: Record<string, string>;
  total: number;
}

/**
 * The visual editor of a filter tree (`FilterCondition`): groups combined by an AND/OR pill that
 * toggles, filters ANDed within a group, groups nested in groups, every operator of the registry in
 * words for the field's type. Entirely usable by keyboard: Tab through the controls, Enter or Space
 * on the pills and buttons, arrows in the field picker.
 */
export function FilterBuilder({ value, onChange, excludeSegmentId, extraFields, label, errors }: FilterBuilderProps) {
  const { groups, choices, loading } = useFieldChoices(excludeSegmentId, extraFields);
  // Faults of values that are there but wrong (0 days, a bad date); missing values are only marked.
  const messages = useMemo(() => {
    const found: Record<string, string> = {};
    const contextFields = extraFields?.fields.some((f) => f.field.startsWith('context.')) ?? false;
    for (const issue of treeIssues(value, contextFields)) if (!issue.missing) found[issue.path] ??= issue.message;
    return { ...found, ...errors };
  }, [value, errors, extraFields]);
  const shared: Shared = { groups, choices, loading, messages, total: countFilters(value) };
  return (
    <fieldset className="filter-builder plain-fieldset">
      <legend className="filter-builder-legend">{label ?? 'Condition'}</legend>
      <ConditionEditor value={value} onChange={onChange} path="" depth={1} parent="" shared={shared} />
      {messages[''] && <p className="field-error">{messages['']}</p>}
    </fieldset>
  );
}

function ConditionEditor({
  value,
  onChange,
  path,
  depth,
  parent,
  shared,
}: {
  value: FilterCondition;
  onChange: (next: FilterCondition) => void;
  path: string;
  depth: number;
  /** The number of the group this condition is nested in ("1.2"), or "" at the top. */
  parent: string;
  shared: Shared;
}) {
  const other = value.logic === 'AND' ? 'OR' : 'AND';
  const numberOf = (i: number) => (parent ? `${parent}.${i + 1}` : String(i + 1));
  return (
    <div className={`filter-condition depth-${Math.min(depth, 3)}`}>
      {value.groups.map((group, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: groups have no identity but their place
        <div key={i} className="filter-condition-item">
          {i > 0 && (
            <button
              type="button"
              className={`logic-pill logic-${value.logic.toLowerCase()}`}
              aria-label={`${value.logic} between groups ${numberOf(i - 1)} and ${numberOf(i)}: switch to ${other}`}
              title={`Switch to ${other}`}
              onClick={() => onChange(toggleLogic(value))}
            >
              {value.logic}
            </button>
          )}
          <GroupEditor
            group={group}
            name={`group ${numberOf(i)}`}
            onChange={(g) => onChange(replaceGroup(value, i, g))}
            onRemove={() => onChange(removeGroup(value, i))}
            path={`${path}groups.${i}.`}
            depth={depth}
            shared={shared}
          />
        </div>
      ))}
      <div>
        <button type="button" className="button button-small" onClick={() => onChange(addGroup(value))}>
          + {value.groups.length > 1 ? `${value.logic} group` : 'Group'}
          {parent && <span className="visually-hidden"> in group {parent}</span>}
        </button>
      </div>
    </div>
  );
}

function GroupEditor({
  group,
  name,
  onChange,
  onRemove,
  path,
  depth,
  shared,
}: {
  group: FilterGroup;
  /** "group 1.2": how its controls name it. */
  name: string;
  onChange: (next: FilterGroup) => void;
  onRemove: () => void;
  path: string;
  depth: number;
  shared: Shared;
}) {
  const full = shared.total >= FILTER_LIMITS.maxFilters;
  const inGroup = <span className="visually-hidden"> in {name}</span>;
  return (
    <section className="filter-group" aria-label={name[0]!.toUpperCase() + name.slice(1)}>
      {group.filters.length === 0 && !group.conditions && (
        <p className="muted small">No filter yet: this group matches every contact.</p>
      )}
      {group.filters.map((filter, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: filters have no identity but their place
        <div key={i} className="filter-row-wrap">
          {i > 0 && <span className="filter-and">and</span>}
          <FilterRow
            filter={filter}
            name={`filter ${i + 1} of ${name}`}
            onChange={(f) => onChange(replaceFilter(group, i, f))}
            onRemove={() => onChange(removeFilter(group, i))}
            path={`${path}filters.${i}.`}
            shared={shared}
          />
        </div>
      ))}
      {group.conditions && (
        <div className="filter-nested">
          {group.filters.length > 0 && <span className="filter-and">and</span>}
          <ConditionEditor
            value={group.conditions}
            onChange={(c) => onChange(setNested(group, c))}
            path={`${path}conditions.`}
            depth={depth + 1}
            parent={name.slice('group '.length)}
            shared={shared}
          />
          <button type="button" className="button button-small" onClick={() => onChange(setNested(group, undefined))}>
            Remove nested groups{inGroup}
          </button>
        </div>
      )}
      <div className="filter-group-actions">
        <button
          type="button"
          className="button button-small"
          disabled={full}
          onClick={() => onChange(addFilter(group, { field: '', operator: 'equals' }))}
        >
          + Filter{inGroup}
        </button>
        {!group.conditions && depth < FILTER_LIMITS.maxDepth && (
          <button type="button" className="button button-small" onClick={() => onChange(nestCondition(group))}>
            + Nested OR groups{inGroup}
          </button>
        )}
        <button type="button" className="button button-small button-danger" onClick={onRemove}>
          Remove {name}
        </button>
      </div>
    </section>
  );
}

function FilterRow({
  filter,
  name,
  onChange,
  onRemove,
  path,
  shared,
}: {
  filter: Filter;
  /** "filter 2 of group 1.2". */
  name: string;
  onChange: (next: Filter) => void;
  onRemove: () => void;
  path: string;
  shared: Shared;
}) {
  const errorId = useId();
  const choice = filter.field === '' ? null : choiceOf(filter, shared.choices);
  const operators = choice ? operatorsFor(choice) : [];
  const message =
    shared.messages[`${path}value`] ??
    shared.messages[`${path}unit`] ??
    shared.messages[`${path}field`] ??
    shared.messages[`${path}operator`] ??
    shared.messages[path.slice(0, -1)];
  return (
    <fieldset className="filter-row plain-fieldset">
      <legend className="visually-hidden">{name[0]!.toUpperCase() + name.slice(1)}</legend>
      <FieldPicker
        groups={shared.groups}
        current={choice}
        label="Field"
        loading={shared.loading}
        invalid={Boolean(shared.messages[`${path}field`])}
        onPick={(c) => onChange(filterFor(c))}
      />
      {choice && (
        <select
          aria-label="Operator"
          value={filter.operator}
          onChange={(e) => onChange(withOperator(filter, e.target.value as Operator, choice))}
        >
          {/* A stored operator the field no longer offers (its type changed) stays shown. */}
          {(operators.includes(filter.operator) ? operators : [filter.operator, ...operators]).map((op) => (
            <option key={op} value={op}>
              {operatorLabel(op, choice.type)}
            </option>
          ))}
        </select>
      )}
      <ValueInput
        filter={filter}
        choice={choice}
        onChange={onChange}
        invalid={Boolean(message)}
        errorId={message ? errorId : undefined}
      />
      <button
        type="button"
        className="button button-small filter-remove"
        aria-label={`Remove ${name}`}
        onClick={onRemove}
      >
        ×
      </button>
      {message && (
        <p id={errorId} className="field-error filter-error">
          {message}
        </p>
      )}
    </fieldset>
  );
}
