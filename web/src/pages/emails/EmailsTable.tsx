import { Link } from 'react-router-dom';
import type { EmailRecord } from '../../../../src/api.js';
import { StatusBadge } from './StatusBadge.js';

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const COLUMNS = ['Recipient', 'Subject', 'Status', 'Date'] as const;

function TableHead() {
  return (
    <thead>
      <tr>
        {COLUMNS.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export function EmailsTable({ emails, stale }: { emails: readonly EmailRecord[]; stale: boolean }) {
  return (
    <div className="table-scroll">
      <table className={`table emails-table${stale ? ' is-stale' : ''}`}>
        <caption className="visually-hidden">Emails</caption>
        <TableHead />
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
        <time dateTime={when}>{dateTimeFormat.format(new Date(when))}</time>
      </td>
    </tr>
  );
}

/** Placeholder rows while the first page loads, so the layout does not jump when it arrives. */
export function EmailsTableSkeleton() {
  return (
    <div className="table-scroll">
      <p className="visually-hidden">Loading emails…</p>
      <table className="table" aria-hidden="true">
        <TableHead />
        <tbody>
          {Array.from({ length: 8 }, (_, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have nothing else to tell them apart
            <tr key={i}>
              {COLUMNS.map((c) => (
                <td key={c}>
                  <span className="skeleton" />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
