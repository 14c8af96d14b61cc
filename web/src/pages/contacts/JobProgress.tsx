import { useId } from 'react';
import type { ContactJob } from '../../../../src/api.js';
import { jobPercent, jobProgressText } from './job-progress.js';

/** A job's progress bar with its line of text, read out as it changes. */
export function JobProgress({ job, label }: { job: ContactJob; label: string }) {
  const textId = useId();
  const percent = jobPercent(job);
  return (
    <div className="job-progress">
      <progress
        max={100}
        value={job.status === 'queued' ? undefined : percent}
        aria-label={label}
        aria-describedby={textId}
        className={job.status === 'failed' ? 'is-failed' : undefined}
      />
      <p id={textId} className="job-progress-text" aria-live="polite">
        {jobProgressText(job)}
      </p>
    </div>
  );
}

const ERRORS_SHOWN = 100;

/** The rows or contacts a job could not handle, with the server's reason for each. */
export function JobErrors({ job }: { job: ContactJob }) {
  if (job.errors.length === 0) return null;
  const isImport = job.kind === 'import';
  const more = job.failed - job.errors.length;
  const title = isImport ? 'Rows not imported' : 'Contacts not changed';
  return (
    <div className="stack job-errors">
      <h3>{title}</h3>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
      <section className="table-scroll" aria-label={`${title}, scrollable`} tabIndex={0}>
        <table className="table">
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{isImport ? 'Row' : 'Contact'}</th>
              {isImport && <th scope="col">Email</th>}
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {job.errors.slice(0, ERRORS_SHOWN).map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the server's list has no ids and never reorders
              <tr key={i}>
                <td className="cell-nowrap">{isImport ? (e.row ?? '—') : (e.id ?? '—')}</td>
                {isImport && <td className="cell-email">{e.email || <span className="muted">—</span>}</td>}
                <td>{e.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {more > 0 && <p className="muted small">{`and ${more} more, not listed`}</p>}
    </div>
  );
}
