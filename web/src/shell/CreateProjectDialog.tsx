import { type FormEvent, useState } from 'react';
import { ApiError, fieldMessages, formMessage } from '../api/errors.js';
import { type ProjectWithKeys, useCreateProject } from '../api/projects.js';
import { Alert } from '../components/Alert.js';
import { Dialog } from '../components/Dialog.js';
import { DialogActions, DoneAction } from '../components/DialogActions.js';
import { Field } from '../components/Field.js';
import { KeyRow } from '../components/KeyRow.js';

interface CreateProjectDialogProps {
  open: boolean;
  onClose: () => void;
  onCreated: (project: ProjectWithKeys) => void;
}

/** Creates a project, then shows its keys: the only time the secret key can be read. */
export function CreateProjectDialog({ open, onClose, onCreated }: CreateProjectDialogProps) {
  const create = useCreateProject();
  const [made, setMade] = useState<ProjectWithKeys | null>(null);

  const close = () => {
    setMade(null);
    create.reset();
    onClose();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '').trim();
    create.mutate(name, {
      onSuccess: (project) => {
        setMade(project);
        onCreated(project);
      },
    });
  };

  const fields = create.error instanceof ApiError ? fieldMessages(create.error.fieldErrors) : {};
  const message = formMessage(create.error, ['name']);
  return (
    <Dialog
      open={open}
      title={made ? `Project “${made.name}” created` : 'Create project'}
      onClose={close}
      busy={create.isPending}
    >
      {made ? (
        <ProjectKeys project={made} onDone={close} />
      ) : (
        <form className="stack" onSubmit={submit} noValidate>
          {message && <Alert>{message}</Alert>}
          <Field label="Project name" name="name" required maxLength={255} error={fields.name} />
          <DialogActions busy={create.isPending} label="Create project" busyLabel="Creating…" onCancel={close} />
        </form>
      )}
    </Dialog>
  );
}

function ProjectKeys({ project, onDone }: { project: ProjectWithKeys; onDone: () => void }) {
  return (
    <div className="stack">
      <p className="notice">
        Copy the secret key now and keep it on your server: it is shown only once. The dashboard does not need it.
      </p>
      <KeyRow label="Secret key" value={project.secretKey} />
      <KeyRow label="Public key" value={project.publicKey} />
      <DoneAction onDone={onDone} />
    </div>
  );
}
