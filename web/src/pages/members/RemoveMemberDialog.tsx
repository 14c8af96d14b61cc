import type { Invite, Member } from '../../../../src/api.js';
import { useRemoveMember } from '../../api/members.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';

/** Confirms removing a member, or leaving the project when the member is oneself. */
export function RemoveMemberDialog({
  projectId,
  projectName,
  member,
  leaving,
  onClose,
  onLeft,
  onRemoved,
}: {
  projectId: string;
  projectName: string;
  member: Member | null;
  leaving: boolean;
  onClose: () => void;
  onLeft: () => void;
  /** The member was removed, and these invitations they had made were withdrawn with them. */
  onRemoved: (member: Member, withdrawn: Invite[]) => void;
}) {
  const remove = useRemoveMember(projectId);
  const confirm = () =>
    member &&
    remove.mutate(member.userId, {
      onSuccess: ({ withdrawnInvites }) => {
        onClose();
        if (leaving) onLeft();
        else onRemoved(member, withdrawnInvites);
      },
    });

  return (
    <ConfirmDialog
      open={member !== null}
      title={leaving ? `Leave ${projectName}?` : `Remove ${member?.email ?? 'member'}?`}
      mutation={remove}
      confirmLabel={leaving ? 'Leave project' : 'Remove member'}
      pendingLabel="Removing…"
      onConfirm={confirm}
      onClose={onClose}
    >
      <p>
        {leaving
          ? 'You will no longer see this project. Only an invitation brings you back.'
          : `${member?.email} will no longer reach ${projectName}, from their next request on.`}
      </p>
    </ConfirmDialog>
  );
}
