import type { Member } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { useRemoveMember } from '../../api/members.js';
import { Alert } from '../../components/Alert.js';
import { Dialog } from '../../components/Dialog.js';

/** Confirms removing a member, or leaving the project when the member is oneself. */
export function RemoveMemberDialog({
  projectId,
  projectName,
  member,
  leaving,
  onClose,
  onLeft,
}: {
  projectId: string;
  projectName: string;
  member: Member | null;
  leaving: boolean;
  onClose: () => void;
  onLeft: () => void;
}) {
  const remove = useRemoveMember(projectId);
  const close = () => {
    remove.reset();
    onClose();
  };
  const confirm = () =>
    member &&
    remove.mutate(member.userId, {
      onSuccess: () => {
        close();
        if (leaving) onLeft();
      },
    });

  return (
    <Dialog
      open={member !== null}
      title={leaving ? `Leave ${projectName}?` : `Remove ${member?.email ?? 'member'}?`}
      onClose={close}
      busy={remove.isPending}
    >
      <p>
        {leaving
          ? 'You will no longer see this project. Only an invitation brings you back.'
          : `${member?.email} will no longer reach ${projectName}, from their next request on.`}
      </p>
      {remove.isError && <Alert>{errorMessage(remove.error)}</Alert>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={close} disabled={remove.isPending}>
          Cancel
        </button>
        <button type="button" className="button button-danger" disabled={remove.isPending} onClick={confirm}>
          {remove.isPending ? 'Removing…' : leaving ? 'Leave project' : 'Remove member'}
        </button>
      </div>
    </Dialog>
  );
}
