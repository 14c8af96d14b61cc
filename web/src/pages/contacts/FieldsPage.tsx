import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import {
  type FieldDescriptor,
  useContactCount,
  useContactFields,
  useDeleteField,
  useFieldUsage,
  useFieldValues,
} from '../../api/contacts.js';
import { BackLink } from '../../components/BackLink.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import {
  coverageText,
  fieldDisplayName,
  fieldTypeLabel,
  fieldValueText,
  hasListableValues,
  isDeletable,
  usageGroups,
  usageWarning,
} from './field-format.js';
import './contacts.css';

const numberFormat = new Intl.NumberFormat();

/** The project's contact fields: type, how many contacts have each, its common values and what uses it. */
export default function FieldsPage() {
  usePageTitle('Contact fields');
  const project = useCurrentProject();
  const fields = useContactFields(project.id);
  const total = useContactCount(project.id);
  const [params, setParams] = useSearchParams();
  const [deleting, setDeleting] = useState<FieldDescriptor | null>(null);
  const [removed, setRemoved] = useState<string | null>(null);

  const list = fields.data?.fields ?? [];
  const selected = list.find((f) => f.field === params.get('field')) ?? null;
  const select = (field: string | null) =>
    setParams(field ? { field } : {}, { replace: true, preventScrollReset: true });
  const customCount = list.filter((f) => f.isCustom).length;

  return (
    <section aria-labelledby="fields-title" className="stack">
      <BackLink to="/contacts">Contacts</BackLink>
      <div className="page-heading">
        <h1 id="fields-title">Contact fields</h1>
        <p className="muted">
          The data contacts carry. Custom fields come from imports, the API and tracked events; their type is fixed the
          first time a value is seen.
        </p>
      </div>

      {removed && (
        <p role="status" className="notice field-removed">
          {removed}
        </p>
      )}

      <div className="table-region" aria-busy={fields.isFetching || undefined}>
        <QueryView query={fields} loading={<p className="muted">Loading fields…</p>}>
          {(found) => (
            <FieldsTable
              fields={found.fields}
              selected={selected?.field ?? null}
              total={total.data ?? null}
              onDetails={(field) => select(selected?.field === field ? null : field)}
              onDelete={(f) => {
                setRemoved(null);
                setDeleting(f);
              }}
            />
          )}
        </QueryView>
      </div>

      {fields.isSuccess && customCount === 0 && (
        <EmptyState title="No custom fields yet">
          <p className="muted">
            Import a CSV, or send <code>data</code> with a contact or a tracked event, and its keys appear here.
          </p>
          <Link to="/contacts/import" className="button">
            Import CSV
          </Link>
        </EmptyState>
      )}

      {selected && <FieldDetails projectId={project.id} field={selected} />}

      <DeleteFieldDialog
        projectId={project.id}
        field={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={(name, removedFrom) => {
          setDeleting(null);
          if (selected && selected.field === deleting?.field) select(null);
          setRemoved(
            `Deleted ${name}: removed from ${numberFormat.format(removedFrom)} contact${removedFrom === 1 ? '' : 's'}.`,
          );
        }}
      />
    </section>
  );
}

function FieldsTable({
  fields,
  selected,
  total,
  onDetails,
  onDelete,
}: {
  fields: readonly FieldDescriptor[];
  selected: string | null;
  total: number | null;
  onDetails: (field: string) => void;
  onDelete: (field: FieldDescriptor) => void;
}) {
  return (
    <div className="table-scroll">
      <table className="table fields-table" aria-label="Contact fields">
        <TableHead columns={['Field', 'Type', 'Coverage']} actions="Actions" />
        <tbody>
          {fields.map((f) => {
            const name = fieldDisplayName(f);
            return (
              <tr key={f.field} aria-current={selected === f.field || undefined}>
                <th scope="row" className="cell-field">
                  <code>{name}</code>
                  {!f.isCustom && <span className="muted small"> standard</span>}
                </th>
                <td>{fieldTypeLabel(f.type)}</td>
                <td>
                  <CoverageCell share={f.coverage} total={total} />
                </td>
                <td className="cell-actions">
                  <div className="button-row">
                    <button
                      type="button"
                      className="button button-small"
                      aria-expanded={selected === f.field}
                      aria-label={`Details of ${name}`}
                      onClick={() => onDetails(f.field)}
                    >
                      Details
                    </button>
                    {isDeletable(f) && (
                      <button
                        type="button"
                        className="button button-small button-danger"
                        aria-label={`Delete ${name}…`}
                        onClick={() => onDelete(f)}
                      >
                        Delete…
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function CoverageCell({ share, total }: { share: number; total: number | null }) {
  return (
    <span className="coverage">
      <meter min={0} max={1} value={share} aria-hidden="true" className="coverage-meter" />
      <span>{coverageText(share, total)}</span>
    </span>
  );
}

function FieldDetails({ projectId, field }: { projectId: string; field: FieldDescriptor }) {
  const name = fieldDisplayName(field);
  const titleId = useId();
  const listable = hasListableValues(field);
  const values = useFieldValues(projectId, listable ? field.field : null);
  const usage = useFieldUsage(projectId, field.field);

  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>
        Field <code>{name}</code>
      </h2>
      <div className="columns-record field-details">
        <div className="stack">
          <h3>Top values</h3>
          {!listable ? (
            <p className="muted">Every contact has its own; there are no common values to list.</p>
          ) : (
            <QueryView
              query={values}
              loading={<p className="muted">Loading values…</p>}
              retry="none"
              isEmpty={(found) => found.values.length === 0}
              empty={<p className="muted">No contact has a value for this field.</p>}
            >
              {(found) => (
                <table className="table" aria-label={`Top values of ${name}`}>
                  <thead>
                    <tr>
                      <th scope="col">Value</th>
                      <th scope="col" className="cell-number">
                        Contacts
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {found.values.map((v) => (
                      <tr key={JSON.stringify(v.value)}>
                        <td className="cell-value">{fieldValueText(v.value)}</td>
                        <td className="cell-number">{numberFormat.format(v.count)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </QueryView>
          )}
        </div>
        <div className="stack">
          <h3>Used by</h3>
          <QueryView
            query={usage}
            loading={<p className="muted">Loading…</p>}
            retry="none"
            isEmpty={(used) => usageGroups(used).length === 0}
            empty={<p className="muted">No segment, campaign or workflow uses this field.</p>}
          >
            {(used) => (
              <dl className="usage-list">
                {usageGroups(used).map((g) => (
                  <div key={g.kind}>
                    <dt>{g.kind}</dt>
                    <dd>{g.names.join(', ')}</dd>
                  </div>
                ))}
              </dl>
            )}
          </QueryView>
        </div>
      </div>
    </section>
  );
}

function DeleteFieldDialog({
  projectId,
  field,
  onClose,
  onDeleted,
}: {
  projectId: string;
  field: FieldDescriptor | null;
  onClose: () => void;
  onDeleted: (name: string, removedFrom: number) => void;
}) {
  const remove = useDeleteField(projectId);
  const usage = useFieldUsage(projectId, field?.field ?? null);
  const name = field ? fieldDisplayName(field) : '';
  const warning = usage.data ? usageWarning(usage.data) : null;
  return (
    <ConfirmDialog
      open={field !== null}
      title={`Delete the field ${name}?`}
      mutation={remove}
      confirmLabel="Delete field"
      pendingLabel="Deleting…"
      onConfirm={() =>
        field && remove.mutate(field.field, { onSuccess: (result) => onDeleted(name, result.removedFrom) })
      }
      onClose={onClose}
    >
      <p>
        <code>{name}</code> and its values are removed from every contact that has it. This cannot be undone.
      </p>
      {warning && (
        <p className="field-warning">
          <strong>{warning}</strong> Their conditions on this field will no longer match.
        </p>
      )}
    </ConfirmDialog>
  );
}
