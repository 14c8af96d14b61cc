import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router-dom';
import type { InstanceSettings, Project, ProjectCreation } from '../../../../src/api.js';
import { useMe } from '../../api/auth.js';
import { ApiError, errorMessage, fieldMessages, formMessage } from '../../api/errors.js';
import { useInstanceSettings, usePermissions, useUpdateInstanceSettings } from '../../api/instance.js';
import type { ProjectWithKeys } from '../../api/projects.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog, ConfirmStep } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { DoneAction } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { KeyRow } from '../../components/KeyRow.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { DEFAULT_ZONE_HINT, defaultZoneOptions } from './default-time-zone.js';
import { PrivacyCard } from './PrivacyCard.js';
import { disableCopy, generalBody, MAX_NAME, projectNameProblem, settingsAllowed } from './project-settings.js';
import { SsoCard } from './SsoCard.js';
import { useRegenerateKeys, useUpdateProject } from './settings-api.js';
import { TrackingCard } from './TrackingCard.js';
import './settings.css';

export default function SettingsPage() {
  usePageTitle('Settings');
  const project = useCurrentProject();
  const instanceAdmin = usePermissions().data?.instanceAdmin ?? false;
  return (
    <section aria-labelledby="settings-title" className="stack settings">
      <div className="page-heading">
        <h1 id="settings-title">Settings</h1>
        <p className="muted">
          Project “{project.name}”: its name and default time zone, its API keys, whether it works at all, what its
          emails track, and how long it keeps what.
        </p>
      </div>
      {project.disabled && (
        <p className="notice" role="status">
          This project is disabled: its keys are refused, and so are its other pages here. Enable it below.
        </p>
      )}
      <GeneralCard project={project} />
      <KeysCard project={project} />
      <StatusCard project={project} />
      <TwoFactorRequirementCard project={project} />
      <TrackingCard project={project} />
      <PrivacyCard project={project} />
      {instanceAdmin && <InstanceCard />}
      {instanceAdmin && <SsoCard />}
    </section>
  );
}

/** The project's name and its default time zone, saved together. */
function GeneralCard({ project }: { project: Project }) {
  const update = useUpdateProject(project.id);
  const allowed = settingsAllowed(project).rename;
  const [name, setName] = useState(project.name);
  const [timezone, setTimezone] = useState(project.timezone);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const headingId = useId();
  const server = update.error instanceof ApiError ? fieldMessages(update.error.fieldErrors) : {};
  const message = formMessage(update.error, ['name', 'timezone']);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wrong = projectNameProblem(name);
    setProblem(wrong);
    setSaved(false);
    const body = wrong ? null : generalBody(project, { name, timezone });
    if (body) update.mutate(body, { onSuccess: () => setSaved(true) });
  };

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Name and time zone</h2>
      <form className="stack" noValidate onSubmit={submit}>
        <div className="settings-row">
          <Field
            label="Name"
            name="name"
            autoComplete="off"
            maxLength={MAX_NAME}
            required
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setSaved(false);
            }}
            error={problem ?? server.name}
            hint="Shown in the project switcher; your API clients never see it."
          />
          <SelectField
            label="Default time zone"
            value={timezone}
            options={defaultZoneOptions(project.timezone)}
            onChange={(zone) => {
              setTimezone(zone);
              setSaved(false);
            }}
            error={server.timezone}
            hint={DEFAULT_ZONE_HINT}
          />
        </div>
        <p>
          <button type="submit" className="button button-primary" disabled={update.isPending || !allowed}>
            {update.isPending ? 'Saving…' : 'Save'}
          </button>
        </p>
      </form>
      {!allowed && <p className="muted small">Only an admin or owner of the project can change these.</p>}
      {message && <Alert>{message}</Alert>}
      <p role="status" className="settings-saved">
        {saved ? 'Saved.' : ''}
      </p>
    </section>
  );
}

function KeysCard({ project }: { project: Project }) {
  const [open, setOpen] = useState(false);
  const headingId = useId();
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>API keys</h2>
      <p>
        A project has a public key (<code>pk_…</code>, for <code>POST /v1/track</code> from browsers and apps) and a
        secret key (<code>sk_…</code>, for everything else, from your servers).
      </p>
      <p className="muted">
        Only their hashes are stored, so they cannot be shown again: the keys were shown once, when the project was
        created. If one is lost or leaked, make new ones; both are replaced together.
      </p>
      <p>
        For an integration that needs less than everything, make it a key of its own with only the scopes it needs, on
        the <Link to="/api-keys">API keys</Link> page; those rotate one at a time, without downtime.
      </p>
      <p>
        <button
          type="button"
          className="button button-danger"
          disabled={!settingsAllowed(project).keys}
          onClick={() => setOpen(true)}
        >
          Regenerate keys
        </button>
      </p>
      {!settingsAllowed(project).keys && (
        <p className="muted small">Only an owner of the project can regenerate its keys.</p>
      )}
      <RegenerateKeysDialog project={project} open={open} onClose={() => setOpen(false)} />
    </section>
  );
}

function RegenerateKeysDialog({ project, open, onClose }: { project: Project; open: boolean; onClose: () => void }) {
  const regenerate = useRegenerateKeys(project.id);
  const [keys, setKeys] = useState<ProjectWithKeys | null>(null);
  const close = () => {
    setKeys(null);
    regenerate.reset();
    onClose();
  };
  return (
    <Dialog
      open={open}
      title={keys ? 'New API keys' : 'Regenerate both keys?'}
      onClose={close}
      busy={regenerate.isPending}
    >
      {keys ? (
        <div className="stack">
          <p className="notice">
            Copy both keys now: they are shown only this once. The old keys have already stopped working.
          </p>
          <KeyRow label="Secret key" value={keys.secretKey} />
          <KeyRow label="Public key" value={keys.publicKey} />
          <DoneAction onDone={close} />
        </div>
      ) : (
        <div className="stack">
          <ConfirmStep
            mutation={regenerate}
            confirmLabel="Regenerate keys"
            pendingLabel="Regenerating…"
            onConfirm={() => regenerate.mutate(undefined, { onSuccess: setKeys })}
            onCancel={close}
          >
            <p className="alert settings-warning">
              The current public and secret keys of {project.name} stop working at once, with no grace period: every
              server and app that uses them is refused (401) until it has the new ones.
            </p>
            <p>The new keys are shown once, on the next screen. This dashboard keeps working either way.</p>
          </ConfirmStep>
        </div>
      )}
    </Dialog>
  );
}

function StatusCard({ project }: { project: Project }) {
  const update = useUpdateProject(project.id);
  const [open, setOpen] = useState(false);
  const headingId = useId();
  const copy = disableCopy(project);
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Project status</h2>
      <p>
        <span className={`badge ${project.disabled ? 'badge-failed' : 'badge-ok'}`}>{copy.state}</span>{' '}
        <span className="muted">{copy.explain}</span>
      </p>
      <p>
        <button
          type="button"
          className={`button ${project.disabled ? 'button-primary' : 'button-danger'}`}
          disabled={!settingsAllowed(project).status}
          onClick={() => setOpen(true)}
        >
          {copy.action}
        </button>
      </p>
      {!settingsAllowed(project).status && (
        <p className="muted small">Only an owner of the project can disable or enable it.</p>
      )}
      <ConfirmDialog
        open={open}
        title={copy.title}
        mutation={update}
        confirmLabel={copy.action}
        pendingLabel="Saving…"
        tone={project.disabled ? 'primary' : 'danger'}
        onConfirm={() => update.mutate(copy.body, { onSuccess: () => setOpen(false) })}
        onClose={() => setOpen(false)}
      >
        <p>{copy.confirm}</p>
      </ConfirmDialog>
    </section>
  );
}

/** The owner's switch: every member must sign in with a second factor to use the project. */
function TwoFactorRequirementCard({ project }: { project: Project }) {
  const update = useUpdateProject(project.id);
  const me = useMe().data;
  const headingId = useId();
  const owner = settingsAllowed(project).status;
  const ownTwoFactor = me?.twoFactorEnabled ?? false;
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Two-factor sign-in</h2>
      <label className="require-two-factor">
        <input
          type="checkbox"
          checked={project.requireTwoFactor}
          disabled={!owner || update.isPending || (!project.requireTwoFactor && !ownTwoFactor)}
          onChange={(e) => update.mutate({ requireTwoFactor: e.target.checked })}
        />
        Require two-factor sign-in for every member
      </label>
      <p className="muted small">
        Members who have not turned it on are asked to at their next sign-in, and this project refuses them until they
        do. The members list shows who has it.
      </p>
      {!owner && <p className="muted small">Only an owner of the project can change this.</p>}
      {owner && !ownTwoFactor && !project.requireTwoFactor && (
        <p className="muted small">
          Turn on two-factor sign-in for your own account first (<Link to="/account">Account</Link>).
        </p>
      )}
      {update.isError && <Alert>{errorMessage(update.error)}</Alert>}
    </section>
  );
}

const PROJECT_CREATION_OPTIONS: { value: ProjectCreation; label: string }[] = [
  { value: 'admins', label: 'Instance admins only' },
  { value: 'everyone', label: 'Everyone with an account' },
];

/** The instance's own settings, for its instance admins: who may create projects. */
function InstanceCard() {
  const project = useCurrentProject();
  const settings = useInstanceSettings(true);
  const headingId = useId();
  return (
    <section className="card stack" aria-labelledby={headingId} aria-busy={settings.isPending || undefined}>
      <h2 id={headingId}>This instance</h2>
      <p className="muted">
        For every project on this instance, not only {project.name}. Each project has keys of its own that send through
        this instance's mail relay.
      </p>
      <QueryView query={settings} loading={<p>Loading…</p>} retry="small">
        {(found) => <ProjectCreationForm settings={found} />}
      </QueryView>
    </section>
  );
}

function ProjectCreationForm({ settings }: { settings: InstanceSettings }) {
  const update = useUpdateInstanceSettings();
  const [draft, setDraft] = useState(settings.projectCreation);
  const [saved, setSaved] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    update.mutate({ projectCreation: draft }, { onSuccess: () => setSaved(true) });
  };
  return (
    <>
      <form className="settings-row" noValidate onSubmit={submit}>
        <SelectField
          label="Who may create projects"
          value={draft}
          options={PROJECT_CREATION_OPTIONS}
          onChange={(value) => {
            setDraft(value as ProjectCreation);
            setSaved(false);
          }}
        />
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save'}
        </button>
      </form>
      <p className="muted small">
        Instance admins: {settings.admins.map((a) => a.email).join(', ')}. Others see no “New project” button.
      </p>
      {update.isError && <Alert>{errorMessage(update.error)}</Alert>}
      <p role="status" className="settings-saved">
        {saved ? 'Saved.' : ''}
      </p>
    </>
  );
}
