import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { WorkflowListItem } from '../../../../src/api.js';
import { ApiError, errorMessage, fieldMessages } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { EmptyState } from '../../components/EmptyState.js';
import { Field } from '../../components/Field.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { triggerSummary } from './StepCard.js';
import { EventPicker } from './StepConfigForm.js';
import { useCreateWorkflow, useDeleteWorkflow, useDuplicateWorkflow, useWorkflows } from './workflows-api.js';
import './workflows.css';

const count = new Intl.NumberFormat();

export default function WorkflowsPage() {
  usePageTitle('Workflows');
  const project = useCurrentProject();
  const workflows = useWorkflows(project.id);
  const [creating, setCreating] = useState(false);
  const newButton = (
    <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
      New workflow
    </button>
  );
  return (
    <section aria-labelledby="workflows-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="workflows-title">Workflows</h1>
          <p className="muted">
            Automations that take each contact through steps (emails, delays, conditions), started by an event or
            through the API.
          </p>
        </div>
        {newButton}
      </div>
      <div className="table-region" aria-busy={workflows.isPending || undefined}>
        <QueryView
          query={workflows}
          loading={<p className="region-message">Loading workflows…</p>}
          isEmpty={(found) => found.length === 0}
          empty={
            <EmptyState title="No workflows yet">
              <p className="muted">Welcome new contacts, remind them of a cart, win back the quiet ones.</p>
              {newButton}
            </EmptyState>
          }
        >
          {(found) => <WorkflowsTable workflows={found} />}
        </QueryView>
      </div>
      <NewWorkflowDialog open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}

function WorkflowsTable({ workflows }: { workflows: readonly WorkflowListItem[] }) {
  const project = useCurrentProject();
  const navigate = useNavigate();
  const duplicate = useDuplicateWorkflow(project.id);
  const remove = useDeleteWorkflow(project.id);
  const [deleting, setDeleting] = useState<WorkflowListItem | null>(null);
  return (
    <>
      {duplicate.error ? <Alert>{errorMessage(duplicate.error)}</Alert> : null}
      <div className="table-scroll">
        <table className="table workflows-table">
          <caption className="visually-hidden">Workflows</caption>
          <TableHead columns={['Name', 'Trigger', 'State', 'Active executions']} actions="Actions" />
          <tbody>
            {workflows.map((w) => (
              <tr key={w.id}>
                <td>
                  <Link to={`/workflows/${encodeURIComponent(w.id)}`}>{w.name}</Link>
                </td>
                <td>{triggerSummary(w)}</td>
                <td>
                  <span className={`badge ${w.enabled ? 'badge-ok' : ''}`}>{w.enabled ? 'Enabled' : 'Disabled'}</span>
                </td>
                <td className="cell-number">{count.format(w.activeExecutions)}</td>
                <td className="cell-actions">
                  <button
                    type="button"
                    className="button button-small"
                    disabled={duplicate.isPending}
                    onClick={() =>
                      duplicate.mutate(w.id, {
                        onSuccess: (copy) => navigate(`/workflows/${encodeURIComponent(copy.id)}`),
                      })
                    }
                  >
                    Duplicate<span className="visually-hidden"> {w.name}</span>
                  </button>
                  <button type="button" className="button button-small" onClick={() => setDeleting(w)}>
                    Delete<span className="visually-hidden"> {w.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? ''}?`}
        mutation={remove}
        confirmLabel="Delete"
        pendingLabel="Deleting…"
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
        onClose={() => setDeleting(null)}
      >
        <p>
          The workflow, its steps and its history go. A workflow with executions still running or waiting cannot be
          deleted: cancel them on its page first (“Cancel all”), or let them finish.
          {deleting && deleting.activeExecutions > 0 && (
            <> It has {count.format(deleting.activeExecutions)} active now.</>
          )}
        </p>
      </ConfirmDialog>
    </>
  );
}

function NewWorkflowDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const project = useCurrentProject();
  const create = useCreateWorkflow(project.id);
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [event, setEvent] = useState('');
  const fields = create.error instanceof ApiError ? fieldMessages(create.error.fieldErrors) : {};
  const close = () => {
    create.reset();
    onClose();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name, ...(event.trim() ? { triggerConfig: { event: event.trim() } } : {}) },
      { onSuccess: (w) => navigate(`/workflows/${encodeURIComponent(w.id)}`) },
    );
  };
  return (
    <Dialog open={open} title="New workflow" onClose={close} busy={create.isPending}>
      <form className="stack-tight" onSubmit={submit}>
        <Field label="Name" value={name} required error={fields.name} onChange={(e) => setName(e.target.value)} />
        <EventPicker
          label="Started by the event (optional)"
          value={event}
          onChange={setEvent}
          error={fields['triggerConfig.event']}
        />
        {create.error && Object.keys(fields).length === 0 ? <Alert>{errorMessage(create.error)}</Alert> : null}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
