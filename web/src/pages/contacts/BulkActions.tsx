import { useEffect, useState } from 'react';
import { type BulkAction, useBulkAction, useContactJob } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { JobErrors, JobProgress } from './JobProgress.js';
import { isFinished } from './job-progress.js';

const count = (n: number) => `${n} contact${n === 1 ? '' : 's'}`;

const LABELS: Record<BulkAction, string> = {
  subscribe: 'Subscribing',
  unsubscribe: 'Unsubscribing',
  delete: 'Deleting',
};

/**
 * Subscribe, unsubscribe or delete the chosen contacts through the bulk endpoints; the job is
 * queued, so its progress is polled until it ends, and the list is refreshed then.
 */
export function BulkActions({
  projectId,
  selected,
  onClear,
  onBusyChange,
}: {
  projectId: string;
  selected: readonly string[];
  onClear: () => void;
  onBusyChange: (busy: boolean) => void;
}) {
  const start = useBulkAction(projectId);
  const [running, setRunning] = useState<{ action: BulkAction; jobId: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const job = useContactJob(projectId, 'bulk', running?.jobId ?? null);
  const finished = job.data ? isFinished(job.data) : false;

  // Once the job has ended the rows are free again; its summary stays until dismissed.
  const latest = { onClear, onBusyChange };
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per finished job, not per render
  useEffect(() => {
    if (!finished) return;
    latest.onClear();
    latest.onBusyChange(false);
  }, [finished]);

  const run = (action: BulkAction) => {
    onBusyChange(true);
    start.mutate(
      { action, contactIds: [...selected] },
      {
        onSuccess: (accepted) => {
          setConfirming(false);
          setRunning({ action, jobId: accepted.jobId });
        },
        onError: () => onBusyChange(false),
      },
    );
  };
  const dismiss = () => {
    setRunning(null);
    start.reset();
    onBusyChange(false);
  };

  if (running) {
    return (
      <section className="spread bulk-bar card stack" aria-label="Bulk action">
        {job.data ? (
          <JobProgress job={job.data} label={`${LABELS[running.action]} ${count(job.data.total || selected.length)}`} />
        ) : job.isError ? (
          <Alert>{errorMessage(job.error)}</Alert>
        ) : (
          <p aria-live="polite">{`${LABELS[running.action]} ${count(selected.length)}…`}</p>
        )}
        {job.data && finished && <JobErrors job={job.data} />}
        {(finished || job.isError) && (
          <div className="button-row">
            <button type="button" className="button" onClick={dismiss}>
              Dismiss
            </button>
          </div>
        )}
      </section>
    );
  }

  if (selected.length === 0) return null;
  return (
    <section className="spread bulk-bar card" aria-label="Bulk actions">
      <p className="bulk-count" aria-live="polite">
        <strong>{`${selected.length} selected`}</strong>
      </p>
      <div className="button-row">
        <button type="button" className="button" disabled={start.isPending} onClick={() => run('subscribe')}>
          Subscribe
        </button>
        <button type="button" className="button" disabled={start.isPending} onClick={() => run('unsubscribe')}>
          Unsubscribe
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={start.isPending}
          onClick={() => setConfirming(true)}
        >
          Delete…
        </button>
        <button type="button" className="button button-link" onClick={onClear} disabled={start.isPending}>
          Clear selection
        </button>
      </div>
      {start.isError && !confirming && <Alert>{errorMessage(start.error)}</Alert>}
      <ConfirmDialog
        open={confirming}
        title={`Delete ${count(selected.length)}?`}
        mutation={start}
        confirmLabel={`Delete ${count(selected.length)}`}
        pendingLabel="Deleting…"
        onConfirm={() => run('delete')}
        onClose={() => setConfirming(false)}
      >
        <p>
          The selected contacts are removed for good, with their data. This cannot be undone; a later send or tracked
          event to one of the addresses creates a new contact.
        </p>
      </ConfirmDialog>
    </section>
  );
}
