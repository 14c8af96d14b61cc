import { useId } from 'react';

export interface SelectOption {
  value: string;
  label: string;
}

/** A labelled drop-down, such as a list's filter; `controls` names the region it changes. */
export function SelectField({
  label,
  value,
  options,
  onChange,
  controls,
  className = 'field',
}: {
  label: string;
  value: string;
  options: readonly SelectOption[];
  onChange: (value: string) => void;
  controls?: string;
  className?: string;
}) {
  const id = useId();
  return (
    <div className={className}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} aria-controls={controls} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
