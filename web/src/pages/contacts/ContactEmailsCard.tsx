import { Link } from 'react-router-dom';
import { QueryView } from '../../components/QueryView.js';
import { formatDateTime } from '../../format/dates.js';
import { useEmailsPage } from '../emails/emails-api.js';
import { StatusBadge } from '../emails/StatusBadge.js';

const LIMIT = 10;

/** The latest emails sent to the contact's address (`GET /emails?to=`), newest first, with their status. */
export function ContactEmailsCard({ projectId, email }: { projectId: string; email: string }) {
  const emails = useEmailsPage(projectId, { to: email, limit: LIMIT });
  return (
    <section className="card stack" aria-labelledby="contact-emails-title" aria-busy={emails.isFetching || undefined}>
      <div className="card-heading">
        <h2 id="contact-emails-title">Emails</h2>
        {emails.data?.hasMore && (
          <Link to={`/emails?to=${encodeURIComponent(email)}`} className="small">
            All emails to this contact
          </Link>
        )}
      </div>
      <QueryView
        query={emails}
        loading={<p className="muted">Loading emails…</p>}
        retry="small"
        isEmpty={(found) => found.data.length === 0}
        empty={<p className="muted">No email has been sent to this contact.</p>}
      >
        {(found) => (
          <ul className="contact-emails" aria-label="Emails to this contact, newest first">
            {found.data.map((e) => (
              <li key={e.id}>
                <Link to={`/emails/${e.id}`}>{e.subject || '(no subject)'}</Link>
                <span className="email-meta">
                  <StatusBadge email={e} />
                  <time dateTime={e.createdAt} className="muted small">
                    {formatDateTime(e.createdAt)}
                  </time>
                </span>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}
