import { type FormEvent, useId, useState } from 'react';
import type { ApiKey } from '../../../../src/api.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog, ConfirmStep } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions, DoneAction } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { KeyRow } from '../../components/KeyRow.js';
import { SelectField } from '../../components/SelectField.js';
import { type KeyWithSecret, useCreateKey, useRevokeKey, useRotateKey, useScopes } from './api-keys-api.js';
import {
  EMPTY_DRAFT,
  EXPIRY_OPTIONS,
  type KeyDraft,
  keyBody,
  keyDraftProblems,
  MAX_KEY_NAME,
  OVERLAP_OPTIONS,
  toggleScope,
} from './key-form.js';

/** A secret just made: shown this once, with a button to copy it. */
function NewSecret({ made, onDone }: { made: KeyWithSecret; onDone: () => void }) {
  return (
    <div className="stack">
      <KeyRow label={made.name} value={made.key} />
      <p className="muted small">
        Copy it now: only its hash is kept, so it cannot be shown again. Send it as <code>Authorization: Bearer …</code>
        .
      </p>
      <DoneAction onDone={onDone} />
    </div>
  );
}

export function NewKeyDialog({ projectId, open, onClose }: { projectId: string; open: boolean; onClose: () => void }) {
  const [made, setMade] = useState<KeyWithSecret | null>(null);
  const close = () => {
    setMade(null);
    onClose();
  };
  return (
    <Dialog open={open} title={made ? 'Key created' : 'New API key'} onClose={close}>
      {made ? (
        <NewSecret made={made} onDone={close} />
      ) : (
        <NewKeyForm projectId={projectId} onMade={setMade} onClose={close} />
      )}
    </Dialog>
  );
}

function NewKeyForm({
  projectId,
  onMade,
  onClose,
}: {
  projectId: string;
  onMade: (made: KeyWithSecret) => void;
  onClose: () => void;
}) {
  const create = useCreateKey(projectId);
  const scopes = useScopes(projectId);
  const [draft, setDraft] = useState<KeyDraft>(EMPTY_DRAFT);
  const [checked, setChecked] = useState(false);
  const legendId = useId();
  const scopesErrorId = useId();
  const local = checked ? keyDraftProblems(draft) : {};
  const server = create.error instanceof ApiError ? fieldMessages(create.error.fieldErrors) : {};
  const serverScopes = Object.entries(server).find(([f]) => f.startsWith('scopes'))?.[1];
  const errors = {
    name: local.name ?? server.name,
    scopes: local.scopes ?? serverScopes,
    expiresAt: server.expiresAt,
  };
  const placed = Object.keys(server).filter((f) => f === 'name' || f === 'expiresAt' || f.startsWith('scopes'));
  const message = formMessage(create.error, placed);
  const order = (scopes.data ?? []).map((s) => s.scope);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (Object.keys(keyDraftProblems(draft)).length > 0) return;
    create.mutate(keyBody(draft, new Date()), { onSuccess: onMade });
  };

  return (
    <form className="stack" onSubmit={submit} noValidate>
      {message && <Alert>{message}</Alert>}
      <Field
        label="Name"
        name="name"
        autoComplete="off"
        maxLength={MAX_KEY_NAME}
        placeholder="Checkout service"
        hint="What will use it, so you know which key to rotate or revoke."
        value={draft.name}
        onChange={(e) => setDraft({ ...draft, name: e.target.value })}
        error={errors.name}
        required
      />
      <fieldset
        className="plain-fieldset api-key-scope-choice"
        aria-labelledby={legendId}
        aria-describedby={errors.scopes ? scopesErrorId : undefined}
      >
        <legend id={legendId} className="field-label">
          What it may do
        </legend>
        {scopes.isPending && <p className="muted">Loading scopes…</p>}
        {scopes.isError && <Alert>The scopes could not be loaded; close this and try again.</Alert>}
        {scopes.data?.map((s) => (
          <label key={s.scope} className="check-row">
            <input
              type="checkbox"
              checked={draft.scopes.includes(s.scope)}
              onChange={(e) => setDraft(toggleScope(draft, s.scope, e.target.checked, order))}
            />
            <span>
              <code>{s.scope}</code> <span className="muted">{s.description}</span>
            </span>
          </label>
        ))}
        {errors.scopes && (
          <p id={scopesErrorId} className="field-error">
            {errors.scopes}
          </p>
        )}
      </fieldset>
      <SelectField
        label="Expires"
        value={draft.expiresInDays}
        options={EXPIRY_OPTIONS}
        onChange={(expiresInDays) => setDraft({ ...draft, expiresInDays })}
      />
      {errors.expiresAt && <p className="field-error">{errors.expiresAt}</p>}
      <DialogActions busy={create.isPending} label="Create key" busyLabel="Creating…" onCancel={onClose} />
    </form>
  );
}

export function RotateKeyDialog({
  projectId,
  apiKey,
  onClose,
}: {
  projectId: string;
  apiKey: ApiKey | null;
  onClose: () => void;
}) {
  const rotate = useRotateKey(projectId);
  const [overlap, setOverlap] = useState('60');
  const [made, setMade] = useState<KeyWithSecret | null>(null);
  const close = () => {
    setMade(null);
    setOverlap('60');
    rotate.reset();
    onClose();
  };
  return (
    <Dialog
      open={apiKey !== null}
      title={made ? 'New secret' : `Rotate “${apiKey?.name ?? ''}”?`}
      onClose={close}
      busy={rotate.isPending}
    >
      {made ? (
        <NewSecret made={made} onDone={close} />
      ) : (
        <ConfirmStep
          mutation={rotate}
          confirmLabel="Rotate"
          pendingLabel="Rotating…"
          tone="primary"
          onConfirm={() =>
            apiKey && rotate.mutate({ id: apiKey.id, overlapMinutes: Number(overlap) }, { onSuccess: setMade })
          }
          onCancel={close}
        >
          <div className="stack api-key-rotate">
            <p>
              The key gets a new secret with the same name and scopes. Put the new secret in place, and the old one
              stops when you choose below.
            </p>
            <SelectField label="The current secret" value={overlap} options={OVERLAP_OPTIONS} onChange={setOverlap} />
          </div>
        </ConfirmStep>
      )}
    </Dialog>
  );
}

export function RevokeKeyDialog({
  projectId,
  apiKey,
  onClose,
}: {
  projectId: string;
  apiKey: ApiKey | null;
  onClose: () => void;
}) {
  const revoke = useRevokeKey(projectId);
  return (
    <ConfirmDialog
      open={apiKey !== null}
      title={`Revoke “${apiKey?.name ?? ''}”?`}
      mutation={revoke}
      confirmLabel="Revoke key"
      pendingLabel="Revoking…"
      onConfirm={() => apiKey && revoke.mutate(apiKey.id, { onSuccess: onClose })}
      onClose={onClose}
    >
      <p>Every request with this key is refused from now on, on every server. This cannot be undone.</p>
    </ConfirmDialog>
  );
}
