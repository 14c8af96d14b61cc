import { FieldNotes, useFieldNotes } from './Field.js';

export interface SelectOption {
  value: string;
  label: string;
}

/**
 * A labelled drop-down, such as a list's filter; `controls` names the region it changes. Its hint
 * and error, if any, are read out with it.
 */
export function SelectField({
  label,
  value,
  options,
  onChange,
  controls,
  hint,
  error,
  disabled,
  className = 'field',
}: {
  label: string;
  value: string;
  options: readonly SelectOption[];
  onChange: (value: string) => void;
  controls?: string;
  hint?: string;
  error?: string;
  disabled?: boolean;
  className?: string;
}) {
  const notes = useFieldNotes(hint, error);
  return (
    <div className={className}>
      <label htmlFor={notes.id}>{label}</label>
      <select
        id={notes.id}
        value={value}
        aria-controls={controls}
        aria-invalid={error ? true : undefined}
        aria-describedby={notes.describedBy}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldNotes {...notes} />
    </div>
  );
}
