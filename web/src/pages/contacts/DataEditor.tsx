import { useId } from 'react';
import { TableHead } from '../../components/TableHead.js';
import { type DataRow, typeLabel, VALUE_TYPES, type ValueType } from './data-editor.js';

export const newDataRow = (): DataRow => ({
  id: `new:${Math.random().toString(36).slice(2)}`,
  originalKey: null,
  key: '',
  text: '',
  type: 'string',
});

interface DataEditorProps {
  rows: DataRow[];
  onChange: (rows: DataRow[]) => void;
  /** Problems by row id, from the page's own checks or the server's field errors. */
  errors: Record<string, string>;
  /** The project's types by key: a new field of a known key takes the key's type. */
  types: Record<string, ValueType>;
  caption: string;
}

/** Rows of `data` being edited: existing keys keep their name and type; new ones choose both. */
export function DataEditor({ rows, onChange, errors, types, caption }: DataEditorProps) {
  const update = (id: string, change: Partial<DataRow>) =>
    onChange(rows.map((r) => (r.id === id ? { ...r, ...change } : r)));

  return (
    <div className="data-editor">
      {rows.length > 0 && (
        <table className="table data-edit-table">
          <caption className="visually-hidden">{caption}</caption>
          <TableHead columns={['Field', 'Type', 'Value']} actions="Remove" />
          <tbody>
            {rows.map((row, i) => (
              <DataEditRow
                key={row.id}
                row={row}
                position={i + 1}
                error={errors[row.id]}
                onChange={(change) => {
                  const key = change.key?.trim();
                  const known = key !== undefined && row.originalKey === null ? types[key] : undefined;
                  update(row.id, known ? { ...change, type: known } : change);
                }}
                onRemove={() => onChange(rows.filter((r) => r.id !== row.id))}
                knownType={row.originalKey === null ? types[row.key.trim()] : undefined}
              />
            ))}
          </tbody>
        </table>
      )}
      <button type="button" className="button button-small" onClick={() => onChange([...rows, newDataRow()])}>
        Add field
      </button>
    </div>
  );
}

function DataEditRow({
  row,
  position,
  error,
  onChange,
  onRemove,
  knownType,
}: {
  row: DataRow;
  position: number;
  error: string | undefined;
  onChange: (change: Partial<DataRow>) => void;
  onRemove: () => void;
  knownType: ValueType | undefined;
}) {
  const errorId = useId();
  const isNew = row.originalKey === null;
  const name = row.key.trim() || `new field ${position}`;
  const describedBy = error ? errorId : undefined;
  return (
    <tr>
      <td data-label="Field" className="data-key">
        {isNew ? (
          <input
            aria-label={`Name of field ${position}`}
            value={row.key}
            onChange={(e) => onChange({ key: e.target.value })}
            autoComplete="off"
            spellCheck={false}
            maxLength={300}
          />
        ) : (
          <code>{row.key}</code>
        )}
      </td>
      <td data-label="Type">
        {isNew && !knownType ? (
          <select
            aria-label={`Type of ${name}`}
            value={row.type}
            onChange={(e) => onChange({ type: e.target.value as ValueType })}
          >
            {VALUE_TYPES.filter((t) => t.value !== 'json').map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        ) : (
          <span className="muted">{typeLabel(row.type)}</span>
        )}
      </td>
      <td data-label="Value" className="data-value">
        <ValueInput
          row={row}
          label={`Value of ${name}`}
          describedBy={describedBy}
          invalid={!!error}
          onChange={onChange}
        />
        {error && (
          <p id={errorId} className="field-error">
            {error}
          </p>
        )}
      </td>
      <td className="data-remove">
        <button type="button" className="button button-small" onClick={onRemove} aria-label={`Remove ${name}`}>
          Remove
        </button>
      </td>
    </tr>
  );
}

function ValueInput({
  row,
  label,
  describedBy,
  invalid,
  onChange,
}: {
  row: DataRow;
  label: string;
  describedBy: string | undefined;
  invalid: boolean;
  onChange: (change: Partial<DataRow>) => void;
}) {
  const common = {
    'aria-label': label,
    'aria-describedby': describedBy,
    'aria-invalid': invalid || undefined,
  };
  if (row.type === 'boolean') {
    return (
      <select {...common} value={row.text} onChange={(e) => onChange({ text: e.target.value })}>
        <option value="">Choose…</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  return (
    <input
      {...common}
      value={row.text}
      onChange={(e) => onChange({ text: e.target.value })}
      inputMode={row.type === 'number' ? 'decimal' : undefined}
      placeholder={row.type === 'date' ? 'YYYY-MM-DD' : undefined}
      autoComplete="off"
      className={row.type === 'json' ? 'mono' : undefined}
    />
  );
}
