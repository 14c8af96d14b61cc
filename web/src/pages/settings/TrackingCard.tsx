import { type FormEvent, useId, useState } from 'react';
import type { Project, TrackingSettings } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { QueryView } from '../../components/QueryView.js';
import { settingsAllowed } from './project-settings.js';
import { useTrackingSettings, useUpdateTrackingSettings } from './tracking-api.js';
import { TRACKING_FLAGS, TRACKING_ROWS, trackingPatch } from './tracking-settings.js';

/** Whether the project's emails count opens and clicks, per type; a template, campaign or send may choose otherwise. */
export function TrackingCard({ project }: { project: Project }) {
  const settings = useTrackingSettings(project.id);
  const headingId = useId();
  return (
    <section className="card stack" aria-labelledby={headingId} aria-busy={settings.isPending || undefined}>
      <h2 id={headingId}>Open and click tracking</h2>
      <p className="muted">
        Opens are counted by a tiny image at the end of the email, clicks by sending links through this service first. A
        template, a campaign or a single send can choose otherwise; this is what applies when they do not.
      </p>
      <QueryView query={settings} loading={<p>Loading…</p>} retry="small">
        {(saved) => <TrackingForm project={project} saved={saved} />}
      </QueryView>
    </section>
  );
}

function TrackingForm({ project, saved }: { project: Project; saved: TrackingSettings }) {
  const update = useUpdateTrackingSettings(project.id);
  const allowed = settingsAllowed(project).tracking;
  const [draft, setDraft] = useState(saved);
  const [savedNote, setSavedNote] = useState(false);
  const patch = trackingPatch(saved, draft);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSavedNote(false);
    if (!patch) return;
    update.mutate(patch, {
      onSuccess: (now) => {
        setDraft(now);
        setSavedNote(true);
      },
    });
  };

  return (
    <form className="stack" noValidate onSubmit={submit}>
      <div className="table-scroll">
        <table className="table tracking-table">
          <caption className="visually-hidden">Tracking per type of email</caption>
          <thead>
            <tr>
              <th scope="col">Type of email</th>
              {TRACKING_FLAGS.map(({ flag, label }) => (
                <th key={flag} scope="col" className="cell-check">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {TRACKING_ROWS.map(({ type, label, hint }) => (
              <tr key={type}>
                <th scope="row">
                  {label}
                  <span className="muted small tracking-hint">{hint}</span>
                </th>
                {TRACKING_FLAGS.map(({ flag, label: flagLabel }) => (
                  <td key={flag} className="cell-check">
                    <input
                      type="checkbox"
                      aria-label={`${flagLabel} of ${label.toLowerCase()} email`}
                      checked={draft[type][flag]}
                      disabled={!allowed || update.isPending}
                      onChange={(e) => {
                        setDraft({ ...draft, [type]: { ...draft[type], [flag]: e.target.checked } });
                        setSavedNote(false);
                      }}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {allowed ? (
        <p>
          <button type="submit" className="button button-primary" disabled={update.isPending || !patch}>
            {update.isPending ? 'Saving…' : 'Save tracking'}
          </button>
        </p>
      ) : (
        <p className="muted small">Only an admin or owner of the project can change this.</p>
      )}
      {update.isError && <Alert>{errorMessage(update.error)}</Alert>}
      <p role="status" className="settings-saved">
        {savedNote ? 'Tracking saved: emails made from now on follow it.' : ''}
      </p>
    </form>
  );
}
