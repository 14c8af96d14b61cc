import { useId } from 'react';
import type { FilterCondition } from '../../../../src/api.js';
import {
  type Filter,
  OPERATORS,
  type Operator,
  operandOf,
  operatorKind,
  STANDARD_FIELD_OPERATORS,
  type StandardField,
  TIME_UNITS,
} from '../../../../src/domain/filters/schema.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { AmountAndUnit } from './AmountAndUnit.js';
import { useWorkflowFields } from './workflows-api.js';

/** Each operator in plain words; the registry (OPERATOR_SPECS) says whom it asks about and what value it takes. */
const OPERATOR_LABELS: Record<Operator, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  greaterThan: 'is greater than',
  lessThan: 'is less than',
  greaterThanOrEqual: 'is at least',
  lessThanOrEqual: 'is at most',
  exists: 'is set',
  notExists: 'is not set',
  within: 'is within the last',
  olderThan: 'is more than … ago',
  triggered: 'happened',
  triggeredWithin: 'happened in the last',
  triggeredOlderThan: 'happened, but not in the last',
  notTriggered: 'never happened',
  notTriggeredWithin: 'did not happen in the last',
  memberOfSegment: 'is in segment',
  notMemberOfSegment: 'is not in segment',
};

const EVENT_PREFIX = 'event:';

export const emptyCondition = (): FilterCondition => ({
  logic: 'AND',
  groups: [{ filters: [{ field: 'email', operator: 'contains', value: '' }] }],
});

/** The operators a field offers: an event's, a standard field's, or every field operator for data and context. */
function operatorsFor(field: string): Operator[] {
  if (field.startsWith(EVENT_PREFIX)) return OPERATORS.filter((op) => operatorKind(op) === 'event');
  const standard = STANDARD_FIELD_OPERATORS[field as StandardField];
  return OPERATORS.filter((op) => operatorKind(op) === 'field' && (!standard || standard.has(op)));
}

/** The filter as the form shows it: an event filter's field is its event name, shown as `event:<name>`. */
const pickedField = (f: Filter) => (operatorKind(f.operator) === 'event' ? `${EVENT_PREFIX}${f.field}` : f.field);

/**
 * The condition of a CONDITION step. For now one filter: a field (contact fields, custom data,
 * events from /workflows/fields, or a value of the execution's context), an operator of the
 * registry, and its value. Changing the field or the operator resets the value.
 */
export function ConditionEditor({
  value,
  onChange,
}: {
  value: FilterCondition;
  onChange(next: FilterCondition): void;
}) {
  const project = useCurrentProject();
  const fields = useWorkflowFields(project.id);
  const id = useId();
  const filter = value.groups[0]?.filters[0] ?? emptyCondition().groups[0]!.filters[0]!;
  const others = value.groups.reduce((n, g) => n + g.filters.length, 0) - 1;
  const field = pickedField(filter);
  const operand = operandOf(filter.operator);
  const set = (next: Filter) => onChange({ logic: 'AND', groups: [{ filters: [next] }] });

  const pickField = (picked: string) => {
    const operator = operatorsFor(picked)[0]!;
    const name = picked.startsWith(EVENT_PREFIX) ? picked.slice(EVENT_PREFIX.length) : picked;
    set(withOperand({ field: name, operator }));
  };
  const contact = fields.data?.fields ?? [];
  const events = fields.data?.events ?? [];
  const known = [...contact.map((f) => f.field), ...events.map((e) => `${EVENT_PREFIX}${e}`)];

  return (
    <fieldset className="plain-fieldset condition-editor">
      <legend className="section-legend">Condition</legend>
      {others > 0 && <p className="muted small">This condition has {others + 1} filters; the first one is shown.</p>}
      <div className="field">
        <label htmlFor={`${id}-field`}>Field</label>
        <select id={`${id}-field`} value={field} onChange={(e) => pickField(e.target.value)}>
          {!known.includes(field) && <option value={field}>{field}</option>}
          <optgroup label="Contact">
            {contact.map((f) => (
              <option key={f.field} value={f.field}>
                {f.field}
              </option>
            ))}
          </optgroup>
          {events.length > 0 && (
            <optgroup label="Events">
              {events.map((e) => (
                <option key={e} value={`${EVENT_PREFIX}${e}`}>
                  {e}
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-op`}>Operator</label>
        <select
          id={`${id}-op`}
          value={filter.operator}
          onChange={(e) => set(withOperand({ field: filter.field, operator: e.target.value as Operator }))}
        >
          {operatorsFor(field).map((op) => (
            <option key={op} value={op}>
              {OPERATOR_LABELS[op]}
            </option>
          ))}
        </select>
      </div>
      {operand === 'window' ? (
        <AmountAndUnit
          amount={typeof filter.value === 'number' ? filter.value : Number.NaN}
          unit={filter.unit ?? 'days'}
          units={TIME_UNITS}
          onChange={(w) => set({ ...filter, value: Number.isNaN(w.amount) ? undefined : w.amount, unit: w.unit })}
        />
      ) : operand !== 'none' && operand !== 'segment' ? (
        <ValueInput
          id={`${id}-value`}
          filter={filter}
          type={contact.find((f) => f.field === field)?.type}
          onChange={set}
        />
      ) : null}
    </fieldset>
  );
}

/** A new operator's empty value: a window's unit, a boolean's `true`; nothing for the rest. */
function withOperand(f: Filter): Filter {
  const operand = operandOf(f.operator);
  if (operand === 'window') return { ...f, value: 1, unit: 'days' };
  if (operand === 'none') return { field: f.field, operator: f.operator };
  return { ...f, value: f.field === 'subscribed' ? true : '' };
}

function ValueInput({
  id,
  filter,
  type,
  onChange,
}: {
  id: string;
  filter: Filter;
  type: string | undefined;
  onChange: (f: Filter) => void;
}) {
  if (type === 'boolean' || filter.field === 'subscribed') {
    return (
      <div className="field">
        <label htmlFor={id}>Value</label>
        <select
          id={id}
          value={String(filter.value)}
          onChange={(e) => onChange({ ...filter, value: e.target.value === 'true' })}
        >
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      </div>
    );
  }
  const numeric = type === 'number';
  return (
    <div className="field">
      <label htmlFor={id}>Value</label>
      <input
        id={id}
        type={numeric ? 'number' : type === 'date' ? 'date' : 'text'}
        value={String(filter.value ?? '')}
        onChange={(e) =>
          onChange({ ...filter, value: numeric && e.target.value !== '' ? Number(e.target.value) : e.target.value })
        }
      />
    </div>
  );
}
