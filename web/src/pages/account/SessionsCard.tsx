import { useId } from 'react';
import type { UserSession } from '../../../../src/api.js';
import { useSignOut } from '../../api/auth.js';
import { errorMessage } from '../../api/errors.js';
import { useEndSession, useSessions } from '../../api/security.js';
import { Alert } from '../../components/Alert.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { formatDateTime } from '../../format/dates.js';

/** Where the user is signed in: each session with its device, address and last use, and ending one. */
export function SessionsCard() {
  const sessions = useSessions();
  const headingId = useId();
  return (
    <section className="card stack" aria-labelledby={headingId} aria-busy={sessions.isPending || undefined}>
      <h2 id={headingId}>Where you are signed in</h2>
      <p className="muted">
        Each browser you signed in with. End any you do not recognise: it is signed out at its next click. Changing your
        password signs out all but this one.
      </p>
      <QueryView
        query={sessions}
        loading={<p>Loading…</p>}
        retry="small"
        isEmpty={(list) => list.length === 0}
        empty={<p className="muted">No sessions.</p>}
      >
        {(list) => <SessionsTable sessions={list} />}
      </QueryView>
    </section>
  );
}

function SessionsTable({ sessions }: { sessions: readonly UserSession[] }) {
  const end = useEndSession();
  const signOut = useSignOut();
  return (
    <>
      {end.isError && <Alert>{errorMessage(end.error)}</Alert>}
      <div className="table-scroll">
        <table className="table sessions-table stack-on-narrow">
          <caption className="visually-hidden">Sessions</caption>
          <TableHead columns={['Device', 'Address', 'Last seen', 'Signed in']} actions="Actions" />
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id}>
                <td className="cell-device" title={s.userAgent}>
                  {s.device}
                  {s.current && <span className="badge badge-ok session-current">This browser</span>}
                  {s.secondFactor && <span className="muted small"> · with a code</span>}
                </td>
                <td data-label="Address" className="mono">
                  {s.ip}
                </td>
                <td data-label="Last seen">{formatDateTime(s.lastSeenAt)}</td>
                <td data-label="Signed in">{formatDateTime(s.createdAt)}</td>
                <td className="cell-actions">
                  {s.current ? (
                    <button
                      type="button"
                      className="button button-small"
                      disabled={signOut.isPending}
                      onClick={() => signOut.mutate()}
                    >
                      Sign out
                    </button>
                  ) : (
                    <button
                      type="button"
                      className="button button-small button-danger"
                      aria-label={`End the session of ${s.device} at ${s.ip}`}
                      disabled={end.isPending && end.variables === s.id}
                      onClick={() => end.mutate(s.id)}
                    >
                      End
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
