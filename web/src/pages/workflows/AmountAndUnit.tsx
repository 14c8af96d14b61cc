import { useId } from 'react';

/** A number of units (a delay, a timeout, a condition's time window): the amount and its unit side by side. */
export function AmountAndUnit<U extends string>({
  amount,
  unit,
  units,
  invalid,
  onChange,
}: {
  /** NaN while the box is empty. */
  amount: number;
  unit: U;
  units: readonly U[];
  invalid?: boolean;
  onChange: (next: { amount: number; unit: U }) => void;
}) {
  const id = useId();
  return (
    <div className="duration-row">
      <div className="field">
        <label htmlFor={`${id}-amount`}>Amount</label>
        <input
          id={`${id}-amount`}
          type="number"
          min={1}
          step="any"
          value={Number.isFinite(amount) ? amount : ''}
          aria-invalid={invalid || undefined}
          onChange={(e) => onChange({ amount: e.target.value === '' ? Number.NaN : Number(e.target.value), unit })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-unit`}>Unit</label>
        <select id={`${id}-unit`} value={unit} onChange={(e) => onChange({ amount, unit: e.target.value as U })}>
          {units.map((u) => (
            <option key={u} value={u}>
              {u}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

/** A form's submit button with the "Saved" its last save earned, read out when it appears. */
export function SaveRow({ label, saved, busy }: { label: string; saved: boolean; busy?: boolean }) {
  return (
    <div className="editor-actions">
      <button type="submit" className="button button-primary" disabled={busy}>
        {label}
      </button>
      <span role="status" className="muted small">
        {saved ? 'Saved' : ''}
      </span>
    </div>
  );
}
