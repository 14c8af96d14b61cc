import { useId } from 'react';
import { useContactsPage } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { ContactsTable, ContactsTableSkeleton } from './ContactsTable.js';
import {
  contactsApiQuery,
  type ListPosition,
  nextPage,
  pageNumber,
  previousPage,
  type SubscribedFilter,
  withCriteria,
} from './contact-filters.js';
import { NoContacts } from './NoContacts.js';
import { SearchBox } from './SearchBox.js';
import { useContactFilters } from './useContactFilters.js';

const PAGE_SIZE = 50;
const numberFormat = new Intl.NumberFormat();

export default function ContactsPage() {
  usePageTitle('Contacts');
  const project = useCurrentProject();
  const { filters, trail, total: carriedTotal, go } = useContactFilters();
  const page = useContactsPage(project.id, contactsApiQuery(filters, PAGE_SIZE));
  const regionId = useId();
  // Next and Previous sit at the foot of a long table; the new page is read from its top.
  const turnPage = (to: ListPosition) => {
    go(to, { total });
    window.scrollTo({ top: 0 });
  };

  const isFirstPage = !filters.cursor;
  const total = isFirstPage ? (page.data?.total ?? null) : carriedTotal;
  const filtered = filters.search !== '' || filters.subscribed !== 'all';

  return (
    <section aria-labelledby="contacts-title" className="stack">
      <div className="page-heading">
        <h1 id="contacts-title">Contacts</h1>
        {total !== null && !page.isPlaceholderData && (
          <p className="muted" aria-live="polite">
            {`${numberFormat.format(total)}${filtered ? ' matching' : ''} contact${total === 1 ? '' : 's'}`}
          </p>
        )}
      </div>

      <search className="toolbar" aria-label="Contacts">
        <SearchBox
          value={filters.search}
          onSearch={(search) => go(withCriteria(filters, { search }), { replace: true })}
          controls={regionId}
        />
        <SubscribedSelect
          value={filters.subscribed}
          onChange={(subscribed) => go(withCriteria(filters, { subscribed }), {})}
        />
      </search>

      <div id={regionId} className="table-region" aria-busy={page.isFetching || undefined}>
        {page.isPending ? (
          <ContactsTableSkeleton />
        ) : page.isError ? (
          <Alert
            action={
              <button type="button" className="button" onClick={() => page.refetch()}>
                Try again
              </button>
            }
          >
            {errorMessage(page.error)}
          </Alert>
        ) : page.data.data.length === 0 ? (
          <NoContacts
            filtered={filtered}
            onClear={() => go(withCriteria(filters, { search: '', subscribed: 'all' }), {})}
          />
        ) : (
          <ContactsTable contacts={page.data.data} stale={page.isPlaceholderData} />
        )}
      </div>

      {page.data && (filters.cursor || page.data.hasMore) && (
        <nav className="pager" aria-label="Pages of contacts">
          <button
            type="button"
            className="button"
            disabled={isFirstPage || page.isPlaceholderData}
            onClick={() => turnPage(previousPage(filters, trail))}
          >
            Previous
          </button>
          <PageLabel page={pageNumber(filters, trail)} />
          <button
            type="button"
            className="button"
            disabled={!page.data.hasMore || !page.data.cursor || page.isPlaceholderData}
            onClick={() => page.data.cursor && turnPage(nextPage(filters, trail, page.data.cursor))}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

const SUBSCRIBED_OPTIONS: { value: SubscribedFilter; label: string }[] = [
  { value: 'all', label: 'All contacts' },
  { value: 'subscribed', label: 'Subscribed' },
  { value: 'unsubscribed', label: 'Unsubscribed' },
];

function SubscribedSelect({ value, onChange }: { value: SubscribedFilter; onChange: (v: SubscribedFilter) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>Subscription</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as SubscribedFilter)}>
        {SUBSCRIBED_OPTIONS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

function PageLabel({ page }: { page: number | null }) {
  return <span className="muted">{page === null ? 'Later page' : `Page ${page}`}</span>;
}
