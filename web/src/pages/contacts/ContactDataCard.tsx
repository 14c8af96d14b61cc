import { type FormEvent, useState } from 'react';
import type { Contact } from '../../../../src/api.js';
import { useContactFields, useUpdateContact } from '../../api/contacts.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { TableHead } from '../../components/TableHead.js';
import { formatDateTime, formatDay } from '../../format/dates.js';
import { DataEditor, newDataRow } from './DataEditor.js';
import {
  type DataRow,
  dataChange,
  fieldTypesByKey,
  rowErrorsFromServer,
  rowsFromData,
  typeLabel,
  type ValueType,
  valueText,
  valueType,
} from './data-editor.js';

/** A contact's `data` as a table of fields, and the form that patches it. */
export function ContactDataCard({ projectId, contact }: { projectId: string; contact: Contact }) {
  const fields = useContactFields(projectId);
  const types = fieldTypesByKey(fields.data?.fields ?? []);
  const update = useUpdateContact(projectId, contact.id);
  const [rows, setRows] = useState<DataRow[] | null>(null);
  const [checked, setChecked] = useState(false);
  const [saved, setSaved] = useState('');

  const editing = rows !== null;
  const keys = Object.keys(contact.data).sort((a, b) => a.localeCompare(b));
  const startEditing = () => {
    update.reset();
    setChecked(false);
    setSaved('');
    const current = rowsFromData(contact.data, types);
    setRows(current.length > 0 ? current : [newDataRow()]);
  };

  const change = rows ? dataChange(contact.data, rows) : null;
  const server =
    update.error instanceof ApiError && rows
      ? rowErrorsFromServer(fieldMessages(update.error.fieldErrors), rows)
      : { byRow: {}, unplaced: [] };
  const errors = { ...server.byRow, ...(checked ? change?.errors : {}) };
  const message =
    server.unplaced.length > 0
      ? server.unplaced.join(' ')
      : update.error && Object.keys(server.byRow).length === 0
        ? formMessage(update.error, [])
        : checked && change && Object.keys(change.errors).length > 0
          ? 'Check the highlighted fields.'
          : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setChecked(true);
    if (!change || Object.keys(change.errors).length > 0) return;
    if (Object.keys(change.data).length === 0) {
      setRows(null);
      setSaved('No changes to save.');
      return;
    }
    update.mutate(
      { data: change.data },
      {
        onSuccess: () => {
          setRows(null);
          setSaved('Saved.');
        },
      },
    );
  };

  return (
    <section className="card stack" aria-labelledby="data-title">
      <div className="card-heading">
        <h2 id="data-title">Data</h2>
        {!editing && (
          <button type="button" className="button button-small" onClick={startEditing}>
            {keys.length > 0 ? 'Edit data' : 'Add data'}
          </button>
        )}
      </div>
      {rows !== null ? (
        <form onSubmit={submit} noValidate className="stack" aria-labelledby="data-title">
          {message && <Alert>{message}</Alert>}
          <DataEditor
            rows={rows}
            onChange={(next) => {
              setRows(next);
              if (update.isError) update.reset();
            }}
            errors={errors}
            types={types}
            caption="Data fields being edited"
          />
          <p className="field-hint">
            Removing a field deletes it from this contact. Values keep the type the project gave their field.
          </p>
          <div className="button-row">
            <button type="submit" className="button button-primary" disabled={update.isPending}>
              {update.isPending ? 'Saving…' : 'Save data'}
            </button>
            <button type="button" className="button" onClick={() => setRows(null)} disabled={update.isPending}>
              Cancel
            </button>
          </div>
        </form>
      ) : keys.length === 0 ? (
        <p className="muted">No data yet. Fields come from imports, tracked events and the API.</p>
      ) : (
        <DataTable data={contact.data} keys={keys} types={types} />
      )}
      <p className="visually-hidden" aria-live="polite">
        {saved}
      </p>
      {saved && !editing && (
        <p className="muted small" aria-hidden="true">
          {saved}
        </p>
      )}
    </section>
  );
}

function DataTable({
  data,
  keys,
  types,
}: {
  data: Record<string, unknown>;
  keys: string[];
  types: Record<string, ValueType>;
}) {
  return (
    <div className="table-scroll">
      <table className="table data-table">
        <caption className="visually-hidden">Data fields</caption>
        <TableHead columns={['Field', 'Value', 'Type']} />
        <tbody>
          {keys.map((key) => {
            const value = data[key];
            const type = types[key] ?? valueType(value);
            return (
              <tr key={key}>
                <th scope="row" data-label="Field">
                  <code>{key}</code>
                </th>
                <td data-label="Value" className="data-value">
                  <DisplayValue value={value} type={type} />
                </td>
                <td data-label="Type" className="muted">
                  {typeLabel(type)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function DisplayValue({ value, type }: { value: unknown; type: ValueType }) {
  if (type === 'date' && typeof value === 'string' && !Number.isNaN(Date.parse(value))) {
    const date = new Date(value);
    const dateOnly = value.length === 10;
    return (
      <time dateTime={value} title={value}>
        {dateOnly ? formatDay(date) : formatDateTime(date)}
      </time>
    );
  }
  if (typeof value === 'object' && value !== null) return <code className="data-json">{valueText(value)}</code>;
  return <span>{valueText(value)}</span>;
}
