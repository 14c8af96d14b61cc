import type { Invite, Role } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { useRevokeInvite } from '../../api/members.js';
import { Alert } from '../../components/Alert.js';
import { TableHead } from '../../components/TableHead.js';
import { formatDate } from '../../format/dates.js';
import { canManage, ROLE_LABELS } from './roles.js';

/** Invitations not yet accepted; withdrawing one makes its link open nothing. */
export function PendingInvites({ projectId, invites, role }: { projectId: string; invites: Invite[]; role: Role }) {
  const revoke = useRevokeInvite(projectId);
  return (
    <div className="card stack">
      <h2>Pending invitations</h2>
      {revoke.isError && <Alert>{errorMessage(revoke.error)}</Alert>}
      <div className="table-scroll">
        <table className="table members-table stack-on-narrow">
          <caption className="visually-hidden">Pending invitations</caption>
          <TableHead columns={['Email', 'Role', 'Invited by', 'Expires']} actions="Actions" />
          <tbody>
            {invites.map((i) => (
              <tr key={i.id}>
                <td className="cell-email">{i.email}</td>
                <td data-label="Role">{ROLE_LABELS[i.role]}</td>
                <td data-label="Invited by">{i.invitedBy ?? '—'}</td>
                <td data-label="Expires">{formatDate(i.expiresAt)}</td>
                <td className="cell-actions">
                  {canManage(role, i.role) && (
                    <button
                      type="button"
                      className="button button-small"
                      aria-label={`Withdraw the invitation of ${i.email}`}
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate(i.id)}
                    >
                      Withdraw
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
