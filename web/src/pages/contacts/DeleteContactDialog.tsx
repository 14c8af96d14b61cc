import type { Contact } from '../../../../src/api.js';
import { useDeleteContact } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';

export function DeleteContactDialog({
  projectId,
  contact,
  onClose,
  onDeleted,
}: {
  projectId: string;
  contact: Contact | null;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const remove = useDeleteContact(projectId);
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <Dialog open={contact !== null} title="Delete this contact?" onClose={close} busy={remove.isPending}>
      <p>
        <strong className="cell-email">{contact?.email}</strong> is removed for good, with its data. Campaigns and
        workflows stop reaching it; a later send or tracked event to the address creates a new contact.
      </p>
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={close} disabled={remove.isPending}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={remove.isPending || !contact}
          onClick={() => contact && remove.mutate(contact.id, { onSuccess: onDeleted })}
        >
          {remove.isPending ? 'Deleting…' : 'Delete contact'}
        </button>
      </div>
    </Dialog>
  );
}
