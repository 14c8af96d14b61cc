import { PRESET_LABELS } from '../../../../src/domain/import-presets.js';
import { TableHead } from '../../components/TableHead.js';
import { type CsvPreview, type ImportPreset, type RowOutcome, roleText } from './csv-preview.js';
import { typeLabel, type ValueType } from './data-editor.js';

const numberFormat = new Intl.NumberFormat();

export function ImportPreview({
  preview,
  knownTypes,
  fileName,
  outcomes,
  preset,
}: {
  preview: CsvPreview;
  /** The product whose export the file is; null for a Postbox CSV. */
  preset: ImportPreset | null;
  knownTypes: Record<string, ValueType>;
  fileName: string;
  /** Each row's outcome once the addresses are looked up; null until then. */
  outcomes: readonly RowOutcome[] | null;
}) {
  const { header, mapping, rows } = preview;
  const typeOf = (i: number): string => {
    const role = mapping[i]!.role;
    if (role.kind !== 'data') return '';
    const known = knownTypes[role.key];
    if (known) return typeLabel(known);
    const seen = preview.types[i];
    return seen ? `${typeLabel(seen)} (new field)` : 'New field, no values';
  };
  const more = preview.rowCount - rows.length;

  return (
    <>
      <section className="card stack" aria-labelledby="mapping-title">
        <div className="card-heading">
          <h2 id="mapping-title">Columns</h2>
          <p className="muted small">{`${fileName} · ${numberFormat.format(preview.rowCount)} row${preview.rowCount === 1 ? '' : 's'}`}</p>
        </div>
        {preset ? (
          <p className="muted small">
            {`The columns of a ${PRESET_LABELS[preset]} export, as Postbox reads them. Empty cells leave a field as it is.`}
          </p>
        ) : (
          <p className="muted small">
            The server maps columns by their header: <code>email</code> is the address, <code>subscribed</code> the
            subscription, every other column a data field. Empty cells leave a field as it is.
          </p>
        )}
        <div className="table-scroll">
          <table className="table mapping-table">
            <caption className="visually-hidden">How each column is imported</caption>
            <TableHead columns={['Column', 'Becomes', 'Type']} />
            <tbody>
              {mapping.map((m, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional; two may share a name
                <tr key={i} className={m.role.kind === 'ignored' ? 'is-ignored' : undefined}>
                  <td data-label="Column">
                    <code>{m.column || '(no name)'}</code>
                  </td>
                  <td data-label="Becomes">{roleText(m)}</td>
                  <td data-label="Type" className="muted">
                    {typeOf(i)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      {preview.error && (
        <div className="alert" role="alert">
          <p>{preview.error}</p>
        </div>
      )}

      {rows.length > 0 && (
        <section className="card stack" aria-labelledby="preview-title">
          <h2 id="preview-title">{`First ${rows.length} row${rows.length === 1 ? '' : 's'}`}</h2>
          {/* Wide files scroll sideways; the region takes focus so a keyboard can scroll it too. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
          <section className="table-scroll preview-scroll" aria-label="First rows, scrollable" tabIndex={0}>
            <table className="table preview-table">
              <caption className="visually-hidden">First rows of the file</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Outcome</th>
                  {header.map((h, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                    <th key={i} scope="col">
                      <span className="preview-column">{h || '(no name)'}</span>
                      <span className="preview-role">{roleText(mapping[i]!)}</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((cells, r) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
                  <tr key={r}>
                    <td className="muted">{r + 2}</td>
                    <td className="cell-outcome">
                      <OutcomeBadge outcome={outcomes?.[r]} problem={preview.rowProblems[r] ?? null} />
                    </td>
                    {header.map((_, i) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: cells are positional
                      <td key={i} className={mapping[i]!.role.kind === 'ignored' ? 'is-ignored' : undefined}>
                        {cells[i] ?? ''}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          {more > 0 && <p className="muted small">{`and ${numberFormat.format(more)} more rows`}</p>}
        </section>
      )}

      {preview.problemCount > 0 && !preview.error && (
        <section className="notice stack" aria-labelledby="problems-title">
          <h2 id="problems-title">
            {`${numberFormat.format(preview.problemCount)} row${preview.problemCount === 1 ? '' : 's'} will not be imported`}
          </h2>
          <ul className="problem-list">
            {preview.problems.map((p) => (
              <li key={p.row}>{`Row ${p.row}: ${p.message}`}</li>
            ))}
          </ul>
          <p className="small">
            The other rows are imported. The server also checks each address and lists the rows it refuses.
          </p>
        </section>
      )}
    </>
  );
}

/** A row's fate: new contact, update of an existing one, or refused with the server's reason. */
function OutcomeBadge({ outcome, problem }: { outcome: RowOutcome | undefined; problem: string | null }) {
  if (problem) return <span className="badge badge-failed import-refused">{`Refused: ${problem}`}</span>;
  if (outcome === 'create') return <span className="badge badge-ok">New</span>;
  if (outcome === 'update') return <span className="badge">Update</span>;
  return <span className="muted">…</span>;
}
