import type { ReactNode } from 'react';

/**
 * A header row of plain column names. `first` is a cell before them, such as a select-all box;
 * `actions` names a last column of buttons for screen readers only, since its buttons say what they do.
 */
export function TableHead({
  columns,
  first,
  actions,
}: {
  columns: readonly string[];
  first?: ReactNode;
  actions?: string;
}) {
  return (
    <thead>
      <tr>
        {first}
        {columns.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">{actions}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/**
 * Placeholder rows while a table's first page loads, so the layout does not jump when it arrives;
 * `label` tells screen readers what is loading.
 */
export function TableSkeleton({ label, columns, rows }: { label: string; columns: readonly string[]; rows: number }) {
  return (
    <div className="table-scroll">
      <p className="visually-hidden">{label}</p>
      <table className="table" aria-hidden="true">
        <TableHead columns={columns} />
        <tbody>
          {Array.from({ length: rows }, (_, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have nothing else to tell them apart
            <tr key={i}>
              {columns.map((c) => (
                <td key={c}>
                  <span className="skeleton" />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
