import { type FormEvent, useId, useState } from 'react';
import type { Suppression } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { addressProblem, addSuppressionBody, MAX_DETAIL, REASON_LABELS } from './suppression-list.js';
import { AlreadySuppressed, useAddSuppression, useRemoveSuppression } from './suppressions-api.js';

export function AddSuppressionDialog({
  projectId,
  open,
  onClose,
}: {
  projectId: string;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} title="Suppress an address" onClose={onClose}>
      <AddSuppressionForm projectId={projectId} onClose={onClose} />
    </Dialog>
  );
}

function AddSuppressionForm({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const add = useAddSuppression(projectId);
  const [email, setEmail] = useState('');
  const [detail, setDetail] = useState('');
  const [checked, setChecked] = useState(false);
  const detailId = useId();
  const detailHintId = useId();

  const already = add.error instanceof AlreadySuppressed ? add.error.existing : null;
  const server = add.error instanceof ApiError ? fieldMessages(add.error.fieldErrors) : {};
  const emailError = (checked ? addressProblem(email) : null) ?? server.email;
  const message = already ? null : formMessage(add.error, ['email', 'detail']);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (addressProblem(email)) return;
    add.mutate(addSuppressionBody(email, detail), { onSuccess: onClose });
  };

  return (
    <form className="stack" noValidate onSubmit={submit}>
      <p className="muted">
        No email is sent to this address until it is removed from the list, whatever its subscription.
      </p>
      {message && <Alert>{message}</Alert>}
      {already && (
        <p className="notice" role="status">
          {already.email} is already suppressed ({REASON_LABELS[already.reason].toLowerCase()}).
        </p>
      )}
      <Field
        label="Email address"
        type="email"
        name="email"
        autoComplete="off"
        spellCheck={false}
        required
        value={email}
        onChange={(e) => {
          setEmail(e.target.value);
          if (already) add.reset();
        }}
        error={emailError}
      />
      <div className="field">
        <label htmlFor={detailId}>Note (optional)</label>
        <textarea
          id={detailId}
          name="detail"
          rows={3}
          maxLength={MAX_DETAIL}
          aria-describedby={detailHintId}
          aria-invalid={server.detail ? true : undefined}
          value={detail}
          onChange={(e) => setDetail(e.target.value)}
        />
        <p id={detailHintId} className={server.detail ? 'field-error' : 'field-hint'}>
          {server.detail ?? 'Why it is suppressed, for whoever reads the list later.'}
        </p>
      </div>
      <DialogActions
        busy={add.isPending}
        label="Suppress address"
        busyLabel="Adding…"
        onCancel={onClose}
        cancelLabel={already ? 'Close' : 'Cancel'}
      />
    </form>
  );
}

export function RemoveSuppressionDialog({
  projectId,
  suppression,
  onClose,
}: {
  projectId: string;
  suppression: Suppression | null;
  onClose: () => void;
}) {
  const remove = useRemoveSuppression(projectId);
  const risky = suppression && suppression.reason !== 'manual';
  return (
    <ConfirmDialog
      open={suppression !== null}
      title={`Remove ${suppression?.email ?? 'address'}?`}
      mutation={remove}
      confirmLabel="Remove from list"
      pendingLabel="Removing…"
      onConfirm={() => suppression && remove.mutate(suppression.email, { onSuccess: onClose })}
      onClose={onClose}
    >
      <p>
        Mail goes to <strong>{suppression?.email}</strong> again. Its contact’s subscription stays as it is.
      </p>
      {risky && (
        <p className="notice">
          It was listed for a {REASON_LABELS[suppression.reason].toLowerCase()}: sending to it again can hurt how
          mailbox providers treat all of this project’s mail.
        </p>
      )}
    </ConfirmDialog>
  );
}
