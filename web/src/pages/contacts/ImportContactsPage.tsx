import { type DragEvent, useId, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useContactFields, useContactJob, useExistingEmails, useImportContacts } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { Alert, RetryAlert } from '../../components/Alert.js';
import { BackLink } from '../../components/BackLink.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import {
  type CsvPreview,
  checkImportFile,
  distinctEmails,
  importOutcome,
  MAX_IMPORT_BYTES,
  previewCsv,
  type RowOutcome,
} from './csv-preview.js';
import { fieldTypesByKey } from './data-editor.js';
import { ImportPreview } from './ImportPreview.js';
import { JobErrors, JobProgress } from './JobProgress.js';
import { isFinished } from './job-progress.js';
import './contacts.css';

const numberFormat = new Intl.NumberFormat();

interface Chosen {
  file: File;
  preview: CsvPreview | null;
  problem: string | null;
}

/**
 * Import a CSV: the file is checked and read in the browser first, its columns shown as the server
 * will map them, then uploaded (POST /contacts/import) and followed until the job ends. The job's id
 * rides in the address (`?job=…`), so a reload keeps following it.
 */
export default function ImportContactsPage() {
  usePageTitle('Import contacts');
  const project = useCurrentProject();
  const [params, setParams] = useSearchParams();
  const jobId = params.get('job');
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const upload = useImportContacts(project.id);

  const start = () => {
    if (!chosen) return;
    upload.mutate(chosen.file, { onSuccess: (job) => setParams({ job: job.jobId }, { replace: true }) });
  };
  const again = () => {
    setChosen(null);
    upload.reset();
    setParams({}, { replace: true });
  };

  return (
    <section className="stack import-page" aria-labelledby="import-title">
      <BackLink to="/contacts">Contacts</BackLink>
      <div className="page-heading">
        <h1 id="import-title">Import contacts</h1>
        <p className="muted">
          A CSV with a header row and an <code>email</code> column, at most {MAX_IMPORT_BYTES / 1024 / 1024} MB. A
          contact that exists already is updated.
        </p>
      </div>

      {jobId ? (
        <ImportJob projectId={project.id} jobId={jobId} onAgain={again} />
      ) : (
        <>
          <FilePicker onChoose={setChosen} chosen={chosen} disabled={upload.isPending} />
          {chosen?.problem && <Alert>{chosen.problem}</Alert>}
          {chosen?.preview && (
            <PreviewSection
              projectId={project.id}
              chosen={chosen}
              preview={chosen.preview}
              uploading={upload.isPending}
              error={upload.error}
              onUpload={start}
            />
          )}
        </>
      )}
    </section>
  );
}

async function readChosen(file: File): Promise<Chosen> {
  const problem = checkImportFile(file);
  if (problem) return { file, preview: null, problem };
  try {
    const preview = previewCsv(await file.text());
    return { file, preview, problem: preview.error };
  } catch {
    return { file, preview: null, problem: `${file.name} could not be read.` };
  }
}

function FilePicker({
  chosen,
  onChoose,
  disabled,
}: {
  chosen: Chosen | null;
  onChoose: (c: Chosen) => void;
  disabled: boolean;
}) {
  const inputId = useId();
  const hintId = useId();
  const [over, setOver] = useState(false);
  const choose = async (file: File | undefined) => {
    if (file) onChoose(await readChosen(file));
  };
  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setOver(false);
    if (!disabled) void choose(e.dataTransfer.files[0]);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is a shortcut for the mouse; the file input inside is the way for everyone
    <div
      className={`drop-zone${over ? ' is-over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <label htmlFor={inputId} className="drop-label">
        {chosen ? 'Choose another CSV file' : 'Choose a CSV file'}
      </label>
      <input
        id={inputId}
        type="file"
        accept=".csv,text/csv"
        className="file-input"
        aria-describedby={hintId}
        disabled={disabled}
        onChange={(e) => {
          void choose(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
      <p id={hintId} className="muted small">
        {chosen
          ? `${chosen.file.name} · ${formatBytes(chosen.file.size)}`
          : 'or drop it here. Nothing is uploaded before you confirm.'}
      </p>
    </div>
  );
}

function PreviewSection({
  projectId,
  chosen,
  preview,
  uploading,
  error,
  onUpload,
}: {
  projectId: string;
  chosen: Chosen;
  preview: CsvPreview;
  uploading: boolean;
  error: unknown;
  onUpload: () => void;
}) {
  const fields = useContactFields(projectId);
  const knownTypes = fieldTypesByKey(fields.data?.fields ?? []);
  const rows = `${numberFormat.format(preview.rowCount)} row${preview.rowCount === 1 ? '' : 's'}`;
  const emails = useMemo(() => distinctEmails(preview.emails), [preview]);
  const { name, size, lastModified } = chosen.file;
  const existing = useExistingEmails(projectId, emails, `${name} ${size} ${lastModified}`);
  const outcome = useMemo(
    () => (existing.data || emails.length === 0 ? importOutcome(preview.emails, existing.data ?? new Set()) : null),
    [preview, emails, existing.data],
  );
  return (
    <div className="stack">
      <ImportPreview
        preview={preview}
        knownTypes={knownTypes}
        fileName={chosen.file.name}
        outcomes={outcome?.rows ?? null}
      />
      {!preview.error && (
        <ImportTotals totals={outcome?.totals ?? null} refused={preview.problemCount} lookup={existing} />
      )}
      {error !== null && <Alert>{errorMessage(error)}</Alert>}
      {!preview.error && (
        <div className="button-row">
          <button
            type="button"
            className="button button-primary"
            onClick={onUpload}
            disabled={uploading || preview.rowCount === 0}
          >
            {uploading ? 'Uploading…' : `Import ${rows}`}
          </button>
        </div>
      )}
    </div>
  );
}

/** What the import will do, in total, before it starts. */
function ImportTotals({
  totals,
  refused,
  lookup,
}: {
  totals: Record<RowOutcome, number> | null;
  refused: number;
  lookup: { isError: boolean; error: unknown; refetch: () => unknown };
}) {
  const count = (n: number | undefined) => (n === undefined ? '…' : numberFormat.format(n));
  return (
    <section className="card stack" aria-labelledby="totals-title" aria-busy={!totals || undefined}>
      <h2 id="totals-title">What the import will do</h2>
      <dl className="job-counts">
        <div>
          <dt>New</dt>
          <dd>{count(totals?.create)}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{count(totals?.update)}</dd>
        </div>
        <div>
          <dt>Refused</dt>
          <dd className={refused > 0 ? 'count-failed' : undefined}>{numberFormat.format(refused)}</dd>
        </div>
      </dl>
      {lookup.isError ? (
        <RetryAlert error={lookup.error} onRetry={() => lookup.refetch()} small />
      ) : (
        !totals && <p className="muted small">Checking which addresses are contacts already…</p>
      )}
    </section>
  );
}

function ImportJob({ projectId, jobId, onAgain }: { projectId: string; jobId: string; onAgain: () => void }) {
  const job = useContactJob(projectId, 'import', jobId);
  if (job.isPending) return <p aria-busy="true">Loading the import…</p>;
  if (job.isError) {
    return (
      <Alert
        action={
          <button type="button" className="button" onClick={onAgain}>
            Import a file
          </button>
        }
      >
        {errorMessage(job.error)}
      </Alert>
    );
  }
  const j = job.data;
  const done = isFinished(j);
  return (
    <section className="card stack" aria-labelledby="job-title">
      <h2 id="job-title">{done ? (j.status === 'failed' ? 'Import failed' : 'Import finished') : 'Importing…'}</h2>
      <JobProgress job={j} label="Import progress" />
      <dl className="job-counts">
        <div>
          <dt>New</dt>
          <dd>{numberFormat.format(j.created)}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{numberFormat.format(j.updated)}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd className={j.failed > 0 ? 'count-failed' : undefined}>{numberFormat.format(j.failed)}</dd>
        </div>
      </dl>
      {done && <JobErrors job={j} />}
      {done && (
        <div className="button-row">
          <Link to="/contacts" className="button button-primary">
            Go to contacts
          </Link>
          <button type="button" className="button" onClick={onAgain}>
            Import another file
          </button>
        </div>
      )}
    </section>
  );
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
