import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Invite, Member, Role } from '../../../../src/api.js';
import { useMe } from '../../api/auth.js';
import { errorMessage } from '../../api/errors.js';
import { useChangeRole, useMembers, usePendingInvites } from '../../api/members.js';
import { useEndMemberSessions } from '../../api/security.js';
import { Alert } from '../../components/Alert.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { InviteForm } from './InviteForm.js';
import { PendingInvites } from './PendingInvites.js';
import { RemoveMemberDialog } from './RemoveMemberDialog.js';
import { canManage, ROLE_LABELS, rolesGrantable } from './roles.js';
import './members.css';
import { formatDate } from '../../format/dates.js';

export default function MembersPage() {
  usePageTitle('Members');
  const project = useCurrentProject();
  const me = useMe().data;
  const members = useMembers(project.id);
  const manages = project.role !== 'member';
  const invites = usePendingInvites(project.id, manages);
  const [removing, setRemoving] = useState<Member | null>(null);
  // What a removal or a role change also did, said to the person who made it.
  const [notice, setNotice] = useState<string | null>(null);
  const changed = (member: Member, withdrawn: Invite[]) => setNotice(withdrawnNotice(member.email, withdrawn));
  const navigate = useNavigate();

  return (
    <section aria-labelledby="members-title" className="stack">
      <div className="page-heading">
        <h1 id="members-title">Members</h1>
        <p className="muted">
          You are {project.role === 'member' ? 'a member' : `an ${project.role}`} of {project.name}. Members do the
          everyday work; admins also manage members, domains and webhooks; owners also manage owners, the API keys and
          the project itself.
        </p>
      </div>

      {manages && <InviteForm projectId={project.id} role={project.role} />}

      <p className="notice" role="status" hidden={!notice}>
        {notice}
      </p>

      <div className="card stack" aria-busy={members.isPending || undefined}>
        <h2>People in this project</h2>
        <QueryView query={members} loading={<p>Loading…</p>}>
          {(found) => (
            <MembersTable
              projectId={project.id}
              members={found}
              myId={me?.id ?? ''}
              myRole={project.role}
              onRemove={setRemoving}
              onChanged={changed}
              onSignedOut={(m, ended) =>
                setNotice(
                  `${m.email} is signed out everywhere (${ended} ${ended === 1 ? 'session' : 'sessions'} ended).`,
                )
              }
            />
          )}
        </QueryView>
      </div>

      {manages && invites.data && invites.data.length > 0 && (
        <PendingInvites projectId={project.id} invites={invites.data} role={project.role} />
      )}

      <RemoveMemberDialog
        projectId={project.id}
        projectName={project.name}
        member={removing}
        leaving={removing !== null && removing.userId === me?.id}
        onClose={() => setRemoving(null)}
        onLeft={() => navigate('/', { replace: true })}
        onRemoved={changed}
      />
    </section>
  );
}

function MembersTable({
  projectId,
  members,
  myId,
  myRole,
  onRemove,
  onChanged,
  onSignedOut,
}: {
  projectId: string;
  members: readonly Member[];
  myId: string;
  myRole: Role;
  onRemove: (m: Member) => void;
  onChanged: (m: Member, withdrawn: Invite[]) => void;
  onSignedOut: (m: Member, ended: number) => void;
}) {
  const change = useChangeRole(projectId);
  const endSessions = useEndMemberSessions(projectId);
  return (
    <>
      {change.isError && <Alert>{errorMessage(change.error)}</Alert>}
      {endSessions.isError && <Alert>{errorMessage(endSessions.error)}</Alert>}
      <div className="table-scroll">
        <table className="table members-table stack-on-narrow">
          <caption className="visually-hidden">Members</caption>
          <TableHead columns={['Email', 'Role', 'Two-factor', 'Member since']} actions="Actions" />
          <tbody>
            {members.map((m) => {
              const self = m.userId === myId;
              const manageable = !self && canManage(myRole, m.role);
              return (
                <tr key={m.userId}>
                  <td className="cell-email">
                    {m.email}
                    {self && <span className="muted"> (you)</span>}
                  </td>
                  <td data-label="Role">
                    {manageable ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        disabled={change.isPending}
                        onChange={(e) =>
                          change.mutate(
                            { userId: m.userId, role: e.target.value as Role },
                            { onSuccess: (res) => onChanged(m, res.withdrawnInvites) },
                          )
                        }
                      >
                        {rolesGrantable(myRole).map((r) => (
                          <option key={r} value={r}>
                            {ROLE_LABELS[r]}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <span className={`badge role-${m.role}`}>{ROLE_LABELS[m.role]}</span>
                    )}
                  </td>
                  <td data-label="Two-factor">
                    <span className={`badge ${m.twoFactor ? 'badge-ok' : 'badge-pending'}`}>
                      {m.twoFactor ? 'On' : 'Off'}
                    </span>
                  </td>
                  <td data-label="Member since">{formatDate(m.createdAt)}</td>
                  <td className="cell-actions">
                    {!self && myRole === 'owner' && (
                      <button
                        type="button"
                        className="button button-small"
                        aria-label={`Sign out everywhere: ${m.email}`}
                        disabled={endSessions.isPending && endSessions.variables === m.userId}
                        onClick={() => endSessions.mutate(m.userId, { onSuccess: (r) => onSignedOut(m, r.ended) })}
                      >
                        Sign out everywhere
                      </button>
                    )}{' '}
                    {self ? (
                      <button type="button" className="button button-small" onClick={() => onRemove(m)}>
                        Leave project
                      </button>
                    ) : (
                      manageable && (
                        <button
                          type="button"
                          className="button button-small button-danger"
                          aria-label={`Remove ${m.email}`}
                          onClick={() => onRemove(m)}
                        >
                          Remove
                        </button>
                      )
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Which invitations went with a removal or a demotion, or nothing to say when none did. */
export function withdrawnNotice(email: string, withdrawn: readonly Invite[]): string | null {
  if (withdrawn.length === 0) return null;
  const list = withdrawn.map((i) => `${i.email} (${i.role})`).join(', ');
  const which = withdrawn.length === 1 ? 'invitation' : `${withdrawn.length} invitations`;
  return `Also withdrawn: the pending ${which} ${email} had made, whose links no longer work: ${list}.`;
}
