import { type FormEvent, useId, useState } from 'react';
import type { Contact } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions, DoneAction } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { eraseConfirmed, erasePercent, eraseProgressText } from './erase-confirm.js';
import { type EraseStarted, useEraseContact, useEraseJob, useForgetErased } from './privacy-api.js';

/**
 * Erasing a contact for good, asked for by typing its address: then the job's progress, read out
 * as it goes, and what was kept (the address's salted hash, when the project keeps one).
 */
export function EraseContactDialog({
  projectId,
  contact,
  onClose,
  onErased,
}: {
  projectId: string;
  contact: Contact | null;
  onClose: () => void;
  onErased: () => void;
}) {
  const erase = useEraseContact(projectId);
  const forget = useForgetErased(projectId);
  const leave = () => {
    void forget();
    onErased();
  };
  const [typed, setTyped] = useState('');
  const [started, setStarted] = useState<EraseStarted | null>(null);
  const job = useEraseJob(projectId, started?.jobId ?? null);
  const progressId = useId();
  const email = contact?.email ?? '';
  const current = job.data ?? started;
  const done = current?.status === 'completed';

  const close = () => {
    if (started) return leave();
    setTyped('');
    erase.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!contact || !eraseConfirmed(typed, email)) return;
    erase.mutate(contact.id, { onSuccess: setStarted });
  };

  return (
    <Dialog
      open={contact !== null}
      title={started ? (done ? 'Contact erased' : 'Erasing the contact…') : 'Erase this contact?'}
      onClose={close}
      busy={erase.isPending}
    >
      {started && current ? (
        <div className="stack">
          <div className="job-progress">
            <progress
              max={100}
              value={current.status === 'queued' ? undefined : erasePercent(current)}
              aria-label="Erase progress"
              aria-describedby={progressId}
            />
            <p id={progressId} aria-live="polite">
              {eraseProgressText(current)}
            </p>
          </div>
          <p className="muted small">
            {started.addressHash.purpose} The campaigns’ and the statistics’ counts stay as they were.
          </p>
          {done ? (
            <DoneAction onDone={leave} />
          ) : (
            <p className="muted small">You can close this: the erase goes on without the page.</p>
          )}
          {!done && (
            <div className="dialog-actions">
              <button type="button" className="button" onClick={leave}>
                Close
              </button>
            </div>
          )}
        </div>
      ) : (
        <form className="stack" noValidate onSubmit={submit}>
          <p>
            <strong className="cell-email">{email}</strong> and everything held about it go for good: its data, events,
            emails’ recipients and contents, inbound mail, workflow runs, form signups, segment memberships and
            suppression. This cannot be undone; download the data first if the person asked for a copy.
          </p>
          <p className="muted small">
            Unless the project’s privacy settings say otherwise, only a salted hash of the address is kept, so that an
            import, a tracked event, the API or a form cannot add it again.
          </p>
          <Field
            label="Type the address to confirm"
            name="confirm-address"
            autoComplete="off"
            spellCheck={false}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
          />
          {erase.error ? <Alert>{errorMessage(erase.error)}</Alert> : null}
          <EraseActions ready={eraseConfirmed(typed, email)} busy={erase.isPending} onCancel={close} />
        </form>
      )}
    </Dialog>
  );
}

function EraseActions({ ready, busy, onCancel }: { ready: boolean; busy: boolean; onCancel: () => void }) {
  if (ready)
    return <DialogActions busy={busy} label="Erase contact" busyLabel="Erasing…" tone="danger" onCancel={onCancel} />;
  return (
    <div className="dialog-actions">
      <button type="button" className="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="button button-danger" disabled>
        Erase contact
      </button>
    </div>
  );
}
