import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { UpsertedContact } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import { useContactFields } from '../../api/contacts.js';
import { ApiError, fieldMessages, formMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import { DataEditor } from './DataEditor.js';
import { type DataRow, dataChange, fieldTypesByKey, rowErrorsFromServer } from './data-editor.js';

class AlreadyExists extends Error {
  constructor(readonly contactId: string) {
    super('A contact with this email already exists');
  }
}

/**
 * POST /contacts upserts by email, and would silently change a contact that exists; the address is
 * looked up first (POST /contacts/lookup) so an existing contact is opened instead of overwritten.
 */
function useAddContact(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { email: string; subscribed: boolean; data?: Record<string, unknown> }) => {
      const found = await api<{ data: { exists: boolean; contactId: string | null }[] }>('POST', '/contacts/lookup', {
        projectId,
        body: { emails: [body.email] },
      });
      const existing = found.data[0];
      if (existing?.exists && existing.contactId) throw new AlreadyExists(existing.contactId);
      return api<UpsertedContact>('POST', '/contacts', { projectId, body });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['contacts', projectId] }),
  });
}

export function NewContactDialog({
  projectId,
  open,
  onClose,
}: {
  projectId: string;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} title="New contact" onClose={onClose}>
      <NewContactForm projectId={projectId} onClose={onClose} />
    </Dialog>
  );
}

function NewContactForm({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const add = useAddContact(projectId);
  const fields = useContactFields(projectId);
  const navigate = useNavigate();
  const subscribedId = useId();
  const [email, setEmail] = useState('');
  const [subscribed, setSubscribed] = useState(true);
  const [rows, setRows] = useState<DataRow[]>([]);
  const [checked, setChecked] = useState(false);

  const change = dataChange({}, rows);
  const apiError = add.error instanceof ApiError ? add.error : null;
  const byField = apiError ? fieldMessages(apiError.fieldErrors) : {};
  const server = rowErrorsFromServer(
    Object.fromEntries(Object.entries(byField).filter(([f]) => f.startsWith('data'))),
    rows,
  );
  const rowErrors = { ...server.byRow, ...(checked ? change.errors : {}) };
  const exists = add.error instanceof AlreadyExists ? add.error : null;
  const message = exists
    ? null
    : add.error
      ? server.unplaced.length > 0
        ? server.unplaced.join(' ')
        : formMessage(add.error, ['email', 'emails.0', ...Object.keys(byField).filter((f) => f.startsWith('data.'))])
      : checked && Object.keys(change.errors).length > 0
        ? 'Check the highlighted fields.'
        : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setChecked(true);
    if (Object.keys(change.errors).length > 0) return;
    const data = Object.keys(change.data).length > 0 ? change.data : undefined;
    add.mutate(
      { email: email.trim(), subscribed, data },
      { onSuccess: (contact) => navigate(`/contacts/${encodeURIComponent(contact.id)}`) },
    );
  };

  return (
    <form onSubmit={submit} noValidate className="stack">
      {message && <Alert>{message}</Alert>}
      {exists && (
        <Alert>
          A contact with this email already exists.{' '}
          <Link to={`/contacts/${encodeURIComponent(exists.contactId)}`}>Open it</Link>
        </Alert>
      )}
      <Field
        label="Email"
        type="email"
        name="email"
        value={email}
        onChange={(e) => {
          setEmail(e.target.value);
          if (add.error) add.reset();
        }}
        autoComplete="off"
        spellCheck={false}
        required
        // The lookup names the address `emails.0`; the create, `email`.
        error={byField.email ?? byField['emails.0']}
      />
      <div className="checkbox-field">
        <input
          id={subscribedId}
          type="checkbox"
          checked={subscribed}
          onChange={(e) => setSubscribed(e.target.checked)}
        />
        <label htmlFor={subscribedId}>Subscribed to campaigns</label>
      </div>
      <fieldset className="plain-fieldset">
        <legend>Data (optional)</legend>
        <DataEditor
          rows={rows}
          onChange={setRows}
          errors={rowErrors}
          types={fieldTypesByKey(fields.data?.fields ?? [])}
          caption="Data of the new contact"
        />
      </fieldset>
      <DialogActions busy={add.isPending} label="Add contact" busyLabel="Adding…" onCancel={onClose} />
    </form>
  );
}
