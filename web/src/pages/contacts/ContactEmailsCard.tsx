import { Link } from 'react-router-dom';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { useEmailsPage } from '../emails/emails-api.js';
import { StatusBadge } from '../emails/StatusBadge.js';

const LIMIT = 10;
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The latest emails sent to the contact's address (`GET /emails?to=`), newest first, with their status. */
export function ContactEmailsCard({ projectId, email }: { projectId: string; email: string }) {
  const emails = useEmailsPage(projectId, { to: email, limit: LIMIT });
  const list = emails.data?.data ?? [];
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
      {emails.isPending ? (
        <p className="muted">Loading emails…</p>
      ) : emails.isError ? (
        <Alert
          action={
            <button type="button" className="button button-small" onClick={() => emails.refetch()}>
              Try again
            </button>
          }
        >
          {errorMessage(emails.error)}
        </Alert>
      ) : list.length === 0 ? (
        <p className="muted">No email has been sent to this contact.</p>
      ) : (
        <ul className="contact-emails" aria-label="Emails to this contact, newest first">
          {list.map((e) => (
            <li key={e.id}>
              <Link to={`/emails/${e.id}`}>{e.subject || '(no subject)'}</Link>
              <span className="email-meta">
                <StatusBadge email={e} />
                <time dateTime={e.createdAt} className="muted small">
                  {dateTimeFormat.format(new Date(e.createdAt))}
                </time>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
