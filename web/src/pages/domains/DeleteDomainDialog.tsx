import type { Domain } from '../../../../src/api.js';
import { useDeleteDomain } from '../../api/domains.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';

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
  return (
    <ConfirmDialog
      open={domain !== null}
      title={`Delete ${domain?.domain ?? 'domain'}?`}
      mutation={remove}
      confirmLabel="Delete domain"
      pendingLabel="Deleting…"
      onConfirm={() => domain && remove.mutate(domain.id, { onSuccess: onClose })}
      onClose={onClose}
    >
      <p>
        Mail can no longer be sent from <strong>{domain?.domain}</strong>. Templates and campaigns that use it will fail
        to send until the domain is added and verified again, with new DNS records.
      </p>
    </ConfirmDialog>
  );
}
