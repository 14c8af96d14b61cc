import { Link } from 'react-router-dom';
import type { EmailRecord } from '../../../../src/api.js';
import { TableHead, TableSkeleton } from '../../components/TableHead.js';
import { formatDateTime } from '../../format/dates.js';
import { StatusBadge } from './StatusBadge.js';

const COLUMNS = ['Recipient', 'Subject', 'Status', 'Date'] as const;

export function EmailsTable({ emails, stale }: { emails: readonly EmailRecord[]; stale: boolean }) {
  return (
    <div className="table-scroll">
      <table className={`table table-cards emails-table${stale ? ' is-stale' : ''}`}>
        <caption className="visually-hidden">Emails</caption>
        <TableHead columns={COLUMNS} />
        <tbody>
          {emails.map((e) => (
            <EmailRow key={e.id} email={e} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function EmailRow({ email }: { email: EmailRecord }) {
  const sent = email.sentAt !== null;
  const when = email.sentAt ?? email.createdAt;
  return (
    <tr>
      <td className="cell-recipient">{email.to}</td>
      <td className="cell-email-subject">
        <Link to={`/emails/${encodeURIComponent(email.id)}`}>{email.subject || '(no subject)'}</Link>
      </td>
      <td className="cell-status">
        <StatusBadge email={email} />
      </td>
      <td className="cell-when">
        <span className="muted">{sent ? 'Sent ' : 'Created '}</span>
        <time dateTime={when}>{formatDateTime(when)}</time>
      </td>
    </tr>
  );
}

export function EmailsTableSkeleton() {
  return <TableSkeleton label="Loading emails…" columns={COLUMNS} rows={8} />;
}
