import type { Contact } from '../../../../src/api.js';
import { contactName, subscriptionLabel } from './contact-format.js';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const COLUMNS = ['Email', 'Name', 'Subscription', 'Created'] as const;

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

export function ContactsTable({ contacts, stale }: { contacts: readonly Contact[]; stale: boolean }) {
  return (
    <div className="table-scroll">
      <table className={stale ? 'table contacts-table is-stale' : 'table contacts-table'}>
        <caption className="visually-hidden">Contacts</caption>
        <TableHead />
        <tbody>
          {contacts.map((c) => (
            <ContactRow key={c.id} contact={c} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ContactRow({ contact }: { contact: Contact }) {
  const name = contactName(contact.data);
  const created = new Date(contact.createdAt);
  return (
    <tr>
      <td className="cell-email">{contact.email}</td>
      <td className="cell-name">{name ?? <span className="muted">—</span>}</td>
      <td className="cell-subscription">
        <SubscriptionBadge contact={contact} />
      </td>
      <td className="cell-created">
        <time dateTime={contact.createdAt} title={dateTimeFormat.format(created)}>
          {dateFormat.format(created)}
        </time>
      </td>
    </tr>
  );
}

function SubscriptionBadge({ contact }: { contact: Contact }) {
  const label = subscriptionLabel(contact);
  const until = contact.snoozedUntil ? ` until ${dateTimeFormat.format(new Date(contact.snoozedUntil))}` : '';
  return <span className={contact.subscribed ? 'badge badge-ok' : 'badge'}>{label + until}</span>;
}

/** Placeholder rows while the first page loads, so the layout does not jump when it arrives. */
export function ContactsTableSkeleton() {
  return (
    <div className="table-scroll">
      <p className="visually-hidden">Loading contacts…</p>
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
