import { type FormEvent, useId, useState } from 'react';
import type { Execution, ExecutionStatus } from '../../../../src/api.js';
import { ApiError, errorMessage, fieldMessages } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { CursorPager } from '../../components/CursorPager.js';
import { EmptyState } from '../../components/EmptyState.js';
import { Field } from '../../components/Field.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { TableHead } from '../../components/TableHead.js';
import { formatDateTime } from '../../format/dates.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { useExecutions, type WorkflowCalls } from './workflows-api.js';

const STATUS_OPTIONS: { value: '' | ExecutionStatus; label: string }[] = [
  { value: '', label: 'Any status' },
  { value: 'running', label: 'Running' },
  { value: 'waiting', label: 'Waiting' },
  { value: 'completed', label: 'Completed' },
  { value: 'exited', label: 'Exited' },
  { value: 'failed', label: 'Failed' },
  { value: 'cancelled', label: 'Cancelled' },
];

const ACTIVE: ExecutionStatus[] = ['running', 'waiting'];

/** The workflow's executions, newest first: filter by status, follow one, cancel, start one for a contact. */
export function ExecutionsCard({
  workflowId,
  calls,
  stepTitle,
  onFollow,
}: {
  workflowId: string;
  calls: WorkflowCalls;
  stepTitle: (id: string | null) => string;
  onFollow: (e: Execution) => void;
}) {
  const project = useCurrentProject();
  const [status, setStatus] = useState<'' | ExecutionStatus>('');
  const [trail, setTrail] = useState<string[]>([]);
  const cursor = trail[trail.length - 1];
  const executions = useExecutions(project.id, workflowId, { status: status || undefined, cursor });
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const act = async (change: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await change();
      await calls.refresh();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const cancelAll = {
    isPending: busy,
    error,
    reset: () => setError(null),
  };
  const titleId = useId();

  return (
    <section className="card stack" aria-labelledby={titleId}>
      <div className="page-heading-row">
        <h2 id={titleId}>Executions</h2>
        <button type="button" className="button" onClick={() => setCancelling(true)}>
          Cancel all
        </button>
      </div>
      <StartForm calls={calls} />
      <div className="toolbar">
        <SelectField
          label="Status"
          value={status}
          options={STATUS_OPTIONS}
          onChange={(v) => {
            setStatus(v as ExecutionStatus | '');
            setTrail([]);
          }}
        />
        {executions.data && (
          <span className="muted" role="status">
            {executions.data.total} {executions.data.total === 1 ? 'execution' : 'executions'}
          </span>
        )}
      </div>
      {error && !cancelling ? <Alert>{errorMessage(error)}</Alert> : null}
      <QueryView
        query={executions}
        loading={<p className="region-message">Loading executions…</p>}
        isEmpty={(page) => page.data.length === 0}
        empty={<EmptyState title={status ? 'No executions with this status' : 'No executions yet'} />}
      >
        {(page) => (
          <div className="table-scroll">
            <table className="table">
              <caption className="visually-hidden">Executions</caption>
              <TableHead columns={['Contact', 'Status', 'At step', 'Started']} actions="Actions" />
              <tbody>
                {page.data.map((e) => (
                  <tr key={e.id}>
                    <td className="cell-email">{e.email}</td>
                    <td>
                      <span
                        className={`badge ${e.status === 'failed' ? 'badge-failed' : ACTIVE.includes(e.status) ? 'badge-pending' : 'badge-ok'}`}
                      >
                        {e.status}
                      </span>
                      {e.lastError && <span className="muted small"> {e.lastError}</span>}
                    </td>
                    <td>{ACTIVE.includes(e.status) ? stepTitle(e.currentStepId) : '—'}</td>
                    <td className="cell-when">
                      <time dateTime={e.startedAt}>{formatDateTime(e.startedAt)}</time>
                    </td>
                    <td className="cell-actions">
                      <button type="button" className="button button-small" onClick={() => onFollow(e)}>
                        Show path<span className="visually-hidden"> of {e.email}</span>
                      </button>
                      {ACTIVE.includes(e.status) && (
                        <button
                          type="button"
                          className="button button-small"
                          disabled={busy}
                          onClick={() => act(() => calls.cancel(e.id))}
                        >
                          Cancel<span className="visually-hidden"> the execution of {e.email}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
      <CursorPager
        label="Pages of executions"
        page={trail.length + 1}
        busy={executions.isFetching}
        onPrevious={trail.length > 0 ? () => setTrail(trail.slice(0, -1)) : undefined}
        next={executions.data?.cursor ?? null}
        onNext={(c) => setTrail([...trail, c])}
      />
      <ConfirmDialog
        open={cancelling}
        title="Cancel every active execution?"
        mutation={cancelAll}
        confirmLabel="Cancel all"
        pendingLabel="Cancelling…"
        onConfirm={() => act(calls.cancelAll).then(() => setCancelling(false))}
        onClose={() => setCancelling(false)}
      >
        <p>Every running and waiting execution stops where it is. Finished ones stay as they are.</p>
      </ConfirmDialog>
    </section>
  );
}

interface ContextRow {
  id: number;
  key: string;
  value: string;
}

/** Starts the workflow for a contact, with a context given as key/value pairs or, for developers, JSON. */
function StartForm({ calls }: { calls: WorkflowCalls }) {
  const [email, setEmail] = useState('');
  const [rows, setRows] = useState<ContextRow[]>([]);
  const [asJson, setAsJson] = useState(false);
  const [json, setJson] = useState('{}');
  const [error, setError] = useState<unknown>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [started, setStarted] = useState<string | null>(null);
  const jsonId = useId();
  const fields = error instanceof ApiError ? fieldMessages(error.fieldErrors) : {};
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setProblem(null);
    setStarted(null);
    let context: Record<string, unknown>;
    if (asJson) {
      try {
        context = JSON.parse(json);
      } catch {
        setProblem('The context is not valid JSON');
        return;
      }
    } else {
      context = Object.fromEntries(rows.filter((r) => r.key.trim()).map((r) => [r.key.trim(), r.value]));
    }
    try {
      await calls.start({ email, context });
      setStarted(email);
      await calls.refresh();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="stack-tight start-form" onSubmit={submit} aria-label="Start for a contact">
      <Field
        label="Start for a contact (email)"
        type="email"
        value={email}
        required
        error={fields.email ?? fields.contactId}
        onChange={(e) => setEmail(e.target.value)}
      />
      <fieldset className="plain-fieldset">
        <legend className="section-legend">Context</legend>
        <div className="checkbox-field">
          <input id={jsonId} type="checkbox" checked={asJson} onChange={(e) => setAsJson(e.target.checked)} />
          <label htmlFor={jsonId}>Write it as JSON</label>
        </div>
        {asJson ? (
          <Field
            label="Context (JSON)"
            value={json}
            error={problem ?? fields.context}
            onChange={(e) => setJson(e.target.value)}
          />
        ) : (
          <>
            {rows.map((r, i) => (
              <div className="duration-row" key={r.id}>
                <Field
                  label={`Key ${i + 1}`}
                  value={r.key}
                  onChange={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)))}
                />
                <Field
                  label={`Value ${i + 1}`}
                  value={r.value}
                  onChange={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
                />
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => setRows(rows.filter((_, j) => j !== i))}
                >
                  Remove key {i + 1}
                </button>
              </div>
            ))}
            <button
              type="button"
              className="button button-small"
              onClick={() => setRows([...rows, { id: Date.now(), key: '', value: '' }])}
            >
              Add a value
            </button>
            {fields.context && <p className="field-error">{fields.context}</p>}
          </>
        )}
      </fieldset>
      {error && Object.keys(fields).length === 0 ? <Alert>{errorMessage(error)}</Alert> : null}
      <div className="editor-actions">
        <button type="submit" className="button button-primary">
          Start
        </button>
        <span role="status" className="muted small">
          {started ? `Started for ${started}` : ''}
        </span>
      </div>
    </form>
  );
}
