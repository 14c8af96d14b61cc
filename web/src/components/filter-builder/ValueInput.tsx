import { useId } from 'react';
import { type Filter, operandOf, TIME_UNITS, type TimeUnit } from '../../../../src/domain/filters/schema.js';
import { useFieldValues } from '../../api/contacts.js';
import { useCurrentProject } from '../../shell/current-project.js';
import type { FieldChoice } from './operator-words.js';
import { UNIT_WORDS } from './operator-words.js';

/** A typed number, or no value while the box is empty (or holds no number yet). */
const numberOrNothing = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/**
 * The value of a filter, as its operator and field type want it: nothing, a number of units with
 * the unit, yes or no, a number, a date, or text with the field's common values as suggestions.
 */
export function ValueInput({
  filter,
  choice,
  onChange,
  errorId,
  invalid,
}: {
  filter: Filter;
  choice: FieldChoice | null;
  onChange: (next: Filter) => void;
  /** The id of the message saying what is wrong with the value, if any. */
  errorId?: string;
  invalid: boolean;
}) {
  const operand = operandOf(filter.operator);
  const set = (value: unknown) => onChange({ ...filter, value });
  const common = { 'aria-invalid': invalid || undefined, 'aria-describedby': errorId };
  if (operand === 'none' || operand === 'segment' || operand === 'topic' || !choice) return null;
  if (operand === 'window') {
    return (
      <span className="filter-window">
        <input
          type="number"
          min={1}
          inputMode="numeric"
          className="filter-number"
          aria-label="How many"
          placeholder="7"
          value={typeof filter.value === 'number' && Number.isFinite(filter.value) ? filter.value : ''}
          onChange={(e) => set(numberOrNothing(e.target.value))}
          {...common}
        />
        <select
          aria-label="Unit"
          value={filter.unit ?? 'days'}
          onChange={(e) => onChange({ ...filter, unit: e.target.value as TimeUnit })}
        >
          {TIME_UNITS.map((u) => (
            <option key={u} value={u}>
              {UNIT_WORDS[u]}
            </option>
          ))}
        </select>
      </span>
    );
  }
  const type = operand === 'text' ? 'string' : (choice.type ?? 'string');
  if (type === 'boolean') {
    return (
      <select
        aria-label="Value"
        value={filter.value === false ? 'false' : 'true'}
        onChange={(e) => set(e.target.value === 'true')}
        {...common}
      >
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  }
  if (type === 'number') {
    return (
      <input
        type="number"
        step="any"
        className="filter-number"
        aria-label="Value"
        value={typeof filter.value === 'number' && Number.isFinite(filter.value) ? filter.value : ''}
        onChange={(e) => set(numberOrNothing(e.target.value))}
        {...common}
      />
    );
  }
  if (type === 'date') {
    return (
      <input
        type="date"
        aria-label="Date"
        value={typeof filter.value === 'string' ? filter.value.slice(0, 10) : ''}
        onChange={(e) => set(e.target.value || undefined)}
        {...common}
      />
    );
  }
  return <TextValue filter={filter} onChange={set} common={common} />;
}

/** Text, with the field's most common values offered as the user types. */
function TextValue({
  filter,
  onChange,
  common,
}: {
  filter: Filter;
  onChange: (value: string | undefined) => void;
  common: Record<string, unknown>;
}) {
  const projectId = useCurrentProject().id;
  const listId = useId();
  // Only contact fields have stored values to suggest; `context.` values exist only in a workflow run.
  const suggestable = filter.field === 'email' || filter.field.startsWith('data.');
  const values = useFieldValues(projectId, suggestable ? filter.field : null);
  const suggestions = (values.data?.values ?? []).filter(
    (v) => typeof v.value === 'string' || typeof v.value === 'number',
  );
  return (
    <>
      <input
        type="text"
        aria-label="Value"
        className="filter-text"
        list={suggestions.length > 0 ? listId : undefined}
        value={typeof filter.value === 'string' || typeof filter.value === 'number' ? String(filter.value) : ''}
        onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
        {...common}
      />
      {suggestions.length > 0 && (
        <datalist id={listId}>
          {suggestions.map((v) => (
            <option key={String(v.value)} value={String(v.value)} />
          ))}
        </datalist>
      )}
    </>
  );
}
