import type { Contact } from '../../../../src/api.js';
import { useDeleteContact } from '../../api/contacts.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';

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
  return (
    <ConfirmDialog
      open={contact !== null}
      title="Delete this contact?"
      mutation={remove}
      confirmLabel="Delete contact"
      pendingLabel="Deleting…"
      onConfirm={() => contact && remove.mutate(contact.id, { onSuccess: onDeleted })}
      onClose={onClose}
    >
      <p>
        <strong className="cell-email">{contact?.email}</strong> is removed for good, with its data. Campaigns and
        workflows stop reaching it; a later send or tracked event to the address creates a new contact.
      </p>
    </ConfirmDialog>
  );
}
