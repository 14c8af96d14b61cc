import { type DragEvent, useId, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { IMPORT_PRESETS, PRESET_LABELS } from '../../../../src/domain/import-presets.js';
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
  type ImportPreset,
  type ImportState,
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
  /** The file's text, read once; the preview is made from it for the chosen format. */
  text: string | null;
  problem: string | null;
}

/** Where each format's file comes from, and what happens to the addresses that product stopped mailing. */
const FORMAT_HINTS: Record<ImportPreset | '', string> = {
  '': 'A CSV with a header row and an "email" column; the other columns become data fields.',
  mailchimp:
    'Mailchimp’s audience export is a ZIP of CSV files: import the subscribed, unsubscribed and cleaned files one at a time. Cleaned addresses are suppressed as bounces; pending ones are not subscribed.',
  listmonk:
    'listmonk’s subscribers export. The attributes become data fields; blocklisted subscribers are unsubscribed and suppressed.',
  plunk: 'Plunk’s contacts export: the subscription and each key of the data column are kept.',
};

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
  const [format, setFormat] = useState<ImportPreset | ''>('');
  const upload = useImportContacts(project.id);
  const preview = useMemo(
    () => (chosen?.text == null ? null : previewCsv(chosen.text, 10, format || null)),
    [chosen, format],
  );
  const problem = chosen?.problem ?? preview?.error ?? null;

  const start = () => {
    if (!chosen) return;
    upload.mutate(
      { file: chosen.file, preset: format || null },
      { onSuccess: (job) => setParams({ job: job.jobId }, { replace: true }) },
    );
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
          <FormatField value={format} onChange={setFormat} disabled={upload.isPending} />
          <FilePicker onChoose={setChosen} chosen={chosen} disabled={upload.isPending} />
          {problem && <Alert>{problem}</Alert>}
          {chosen && preview && (
            <PreviewSection
              projectId={project.id}
              chosen={chosen}
              preview={preview}
              preset={format || null}
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
  if (problem) return { file, text: null, problem };
  try {
    return { file, text: await file.text(), problem: null };
  } catch {
    return { file, text: null, problem: `${file.name} could not be read.` };
  }
}

/** Which product the file comes from: its columns are then read as that product exports them. */
function FormatField({
  value,
  onChange,
  disabled,
}: {
  value: ImportPreset | '';
  onChange: (format: ImportPreset | '') => void;
  disabled: boolean;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Exported from</label>
      <select
        id={id}
        className="import-format-select"
        value={value}
        disabled={disabled}
        aria-describedby={`${id}-hint`}
        onChange={(e) => onChange(e.target.value as ImportPreset | '')}
      >
        <option value="">Postbox CSV</option>
        {IMPORT_PRESETS.map((p) => (
          <option key={p} value={p}>
            {PRESET_LABELS[p]}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="field-hint">
        {FORMAT_HINTS[value]}
      </p>
    </div>
  );
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
  preset,
  uploading,
  error,
  onUpload,
}: {
  projectId: string;
  chosen: Chosen;
  preview: CsvPreview;
  preset: ImportPreset | null;
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
        preset={preset}
      />
      {!preview.error && (
        <ImportTotals totals={outcome?.totals ?? null} refused={preview.problemCount} lookup={existing} />
      )}
      {!preview.error && <StateTotals states={preview.states} />}
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

const STATE_LABELS: Record<ImportState, string> = {
  subscribed: 'Subscribed',
  unsubscribed: 'Unsubscribed',
  suppressed: 'Suppressed',
  unstated: 'Not stated',
};

/** How many rows end in each subscription state; "not stated" only when the file leaves some open. */
function StateTotals({ states }: { states: Record<ImportState, number> }) {
  const shown = (Object.keys(STATE_LABELS) as ImportState[]).filter((s) => s !== 'unstated' || states.unstated > 0);
  return (
    <section className="card stack" aria-labelledby="states-title">
      <h2 id="states-title">Subscriptions after the import</h2>
      <dl className="job-counts">
        {shown.map((s) => (
          <div key={s}>
            <dt>{STATE_LABELS[s]}</dt>
            <dd>{numberFormat.format(states[s])}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small">
        {states.unstated > 0
          ? 'Rows that do not state a subscription subscribe new contacts and leave existing ones as they are. '
          : ''}
        Suppressed addresses are unsubscribed and added to the suppression list, so nothing is sent to them.
      </p>
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
