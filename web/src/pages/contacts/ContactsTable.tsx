import { type MouseEvent, useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { Contact } from '../../../../src/api.js';
import { TableHead, TableSkeleton } from '../../components/TableHead.js';
import { formatDate, formatDateTime } from '../../format/dates.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePendingSignups } from '../forms/forms-api.js';
import { contactName, subscriptionLabel } from './contact-format.js';
import { type PageSelection, pageSelection } from './selection.js';

const COLUMNS = ['Email', 'Name', 'Subscription', 'Created'] as const;

export interface Selection {
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
  onToggleAll: () => void;
  disabled?: boolean;
}

/** Checked when every row of the page is, mixed when some are. */
function SelectAllBox({
  state,
  onToggle,
  disabled,
}: {
  state: PageSelection;
  onToggle: () => void;
  disabled?: boolean;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = state === 'some';
  }, [state]);
  return (
    <label className="select-box">
      <input ref={ref} type="checkbox" checked={state === 'all'} onChange={onToggle} disabled={disabled} />
      <span className="visually-hidden">Select all contacts on this page</span>
    </label>
  );
}

export function ContactsTable({
  contacts,
  stale,
  selection,
}: {
  contacts: readonly Contact[];
  stale: boolean;
  selection?: Selection;
}) {
  const ids = contacts.map((c) => c.id);
  const project = useCurrentProject();
  // Only the unsubscribed can be waiting on a confirmation link.
  const pending = usePendingSignups(
    project.id,
    contacts.filter((c) => !c.subscribed).map((c) => c.id),
  ).data;
  return (
    <div className="table-scroll">
      <table
        className={`table table-cards contacts-table${stale ? ' is-stale' : ''}${selection ? ' is-selectable' : ''}`}
      >
        <caption className="visually-hidden">Contacts</caption>
        <TableHead
          columns={COLUMNS}
          first={
            selection && (
              <th scope="col" className="cell-select">
                <SelectAllBox
                  state={pageSelection(selection.selected, ids)}
                  onToggle={selection.onToggleAll}
                  disabled={selection.disabled}
                />
              </th>
            )
          }
        />
        <tbody>
          {contacts.map((c) => (
            <ContactRow key={c.id} contact={c} selection={selection} pending={pending?.has(c.id) ?? false} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ContactRow({ contact, selection, pending }: { contact: Contact; selection?: Selection; pending: boolean }) {
  const name = contactName(contact.data);
  const created = new Date(contact.createdAt);
  const selected = selection?.selected.has(contact.id) ?? false;
  const navigate = useNavigate();
  const to = `/contacts/${encodeURIComponent(contact.id)}`;
  // The whole row opens the contact; the address is the row's link for the keyboard and screen readers.
  const openRow = (e: MouseEvent) => {
    const target = e.target as HTMLElement;
    if (target.closest('a, button, input, label') || window.getSelection()?.toString()) return;
    navigate(to);
  };
  return (
    <tr className={`contact-row${selected ? ' is-selected' : ''}`} onClick={openRow}>
      {selection && (
        <td className="cell-select">
          <label className="select-box">
            <input
              type="checkbox"
              checked={selected}
              onChange={() => selection.onToggle(contact.id)}
              disabled={selection.disabled}
            />
            <span className="visually-hidden">{`Select ${contact.email}`}</span>
          </label>
        </td>
      )}
      <td className="cell-email">
        <Link to={to}>{contact.email}</Link>
      </td>
      <td className="cell-name">{name ?? <span className="muted">—</span>}</td>
      <td className="cell-subscription">
        <SubscriptionBadge contact={contact} />
        {pending && (
          <span
            className="badge badge-pending badge-after"
            title="Signed up through a form; the confirmation link is not used yet"
          >
            Pending
          </span>
        )}
      </td>
      <td className="cell-created">
        <time dateTime={contact.createdAt} title={formatDateTime(created)}>
          {formatDate(created)}
        </time>
      </td>
    </tr>
  );
}

function SubscriptionBadge({ contact }: { contact: Contact }) {
  const label = subscriptionLabel(contact);
  const until = contact.snoozedUntil ? ` until ${formatDateTime(contact.snoozedUntil)}` : '';
  return <span className={contact.subscribed ? 'badge badge-ok' : 'badge'}>{label + until}</span>;
}

export function ContactsTableSkeleton() {
  return <TableSkeleton label="Loading contacts…" columns={COLUMNS} rows={8} />;
}
