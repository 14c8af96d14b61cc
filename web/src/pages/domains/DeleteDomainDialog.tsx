import type { Domain } from '../../../../src/api.js';
import { useDeleteDomain } from '../../api/domains.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';

export function DeleteDomainDialog({
  projectId,
  domain,
  onClose,
}: {
  projectId: string;
  domain: Domain | null;
  onClose: () => void;
}) {
  const remove = useDeleteDomain(projectId);
  const close = () => {
    remove.reset();
    onClose();
  };

  return (
    <Dialog
      open={domain !== null}
      title={`Delete ${domain?.domain ?? 'domain'}?`}
      onClose={close}
      busy={remove.isPending}
    >
      <p>
        Mail can no longer be sent from <strong>{domain?.domain}</strong>. Templates and campaigns that use it will fail
        to send until the domain is added and verified again, with new DNS records.
      </p>
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={close} disabled={remove.isPending}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={remove.isPending || !domain}
          onClick={() => domain && remove.mutate(domain.id, { onSuccess: close })}
        >
          {remove.isPending ? 'Deleting…' : 'Delete domain'}
        </button>
      </div>
    </Dialog>
  );
}
