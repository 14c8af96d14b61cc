import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { useContactsPage } from '../../api/contacts.js';
import { CursorPager } from '../../components/CursorPager.js';
import { QueryView } from '../../components/QueryView.js';
import { SearchField } from '../../components/SearchField.js';
import { SelectField } from '../../components/SelectField.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { BulkActions } from './BulkActions.js';
import { ContactsTable, ContactsTableSkeleton } from './ContactsTable.js';
import {
  contactsApiQuery,
  type ListPosition,
  nextPage,
  pageNumber,
  parseSortValue,
  previousPage,
  SORT_OPTIONS,
  type SubscribedFilter,
  sortValue,
  withCriteria,
} from './contact-filters.js';
import { NewContactDialog } from './NewContactDialog.js';
import { NoContacts } from './NoContacts.js';
import { toggle, toggleAll } from './selection.js';
import { useContactFilters } from './useContactFilters.js';
import './contacts.css';

const PAGE_SIZE = 50;
const numberFormat = new Intl.NumberFormat();

export default function ContactsPage() {
  usePageTitle('Contacts');
  const project = useCurrentProject();
  const { filters, trail, total: carriedTotal, go } = useContactFilters();
  const page = useContactsPage(project.id, contactsApiQuery(filters, PAGE_SIZE));
  const regionId = useId();
  const [creating, setCreating] = useState(false);
  const selection = useSelection(contactsApiQuery(filters, PAGE_SIZE));
  const pageIds = page.data && !page.isPlaceholderData ? page.data.data.map((c) => c.id) : [];
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
      <div className="contacts-heading">
        <div className="page-heading">
          <h1 id="contacts-title">Contacts</h1>
          {total !== null && !page.isPlaceholderData && (
            <p className="muted" aria-live="polite">
              {`${numberFormat.format(total)}${filtered ? ' matching' : ''} contact${total === 1 ? '' : 's'}`}
            </p>
          )}
        </div>
        <div className="button-row">
          <Link to="/contacts/fields" className="button">
            Fields
          </Link>
          <Link to="/contacts/import" className="button">
            Import CSV
          </Link>
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            New contact
          </button>
        </div>
      </div>

      <search className="toolbar" aria-label="Contacts">
        <SearchField
          label="Search by email"
          placeholder="name@example.com"
          spellCheck={false}
          value={filters.search}
          onSearch={(search) => go(withCriteria(filters, { search }), { replace: true })}
          controls={regionId}
        />
        <SelectField
          label="Subscription"
          value={filters.subscribed}
          options={SUBSCRIBED_OPTIONS}
          onChange={(subscribed) => go(withCriteria(filters, { subscribed: subscribed as SubscribedFilter }), {})}
        />
        <SelectField
          label="Sort by"
          value={sortValue(filters)}
          options={SORT_OPTIONS}
          onChange={(v) => go(withCriteria(filters, parseSortValue(v)), {})}
        />
      </search>

      <BulkActions
        projectId={project.id}
        selected={[...selection.selected]}
        onClear={selection.clear}
        onBusyChange={selection.setLocked}
      />

      <div id={regionId} className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<ContactsTableSkeleton />}
          isEmpty={(found) => found.data.length === 0}
          empty={
            <NoContacts
              filtered={filtered}
              onClear={() => go(withCriteria(filters, { search: '', subscribed: 'all' }), {})}
            />
          }
        >
          {(found) => (
            <ContactsTable
              contacts={found.data}
              stale={page.isPlaceholderData}
              selection={{
                selected: selection.selected,
                onToggle: (id) => selection.set(toggle(selection.selected, id)),
                onToggleAll: () => selection.set(toggleAll(selection.selected, pageIds)),
                disabled: selection.locked || page.isPlaceholderData,
              }}
            />
          )}
        </QueryView>
      </div>

      {page.data && (
        <CursorPager
          label="Pages of contacts"
          page={pageNumber(filters, trail)}
          busy={page.isPlaceholderData}
          onPrevious={isFirstPage ? undefined : () => turnPage(previousPage(filters, trail))}
          next={page.data.hasMore ? page.data.cursor : null}
          onNext={(cursor) => turnPage(nextPage(filters, trail, cursor))}
        />
      )}
      <NewContactDialog projectId={project.id} open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}

/**
 * The rows chosen for a bulk action; they belong to the page they were chosen on, so another page,
 * search or filter starts with none. Locked while a bulk job runs on them.
 */
function useSelection(position: object) {
  const at = JSON.stringify(position);
  const [state, setState] = useState<{ at: string; ids: ReadonlySet<string> }>({ at, ids: new Set() });
  const [locked, setLocked] = useState(false);
  const selected = state.at === at ? state.ids : new Set<string>();
  return {
    selected,
    set: (ids: ReadonlySet<string>) => setState({ at, ids }),
    clear: () => setState({ at, ids: new Set() }),
    locked,
    setLocked,
  };
}

const SUBSCRIBED_OPTIONS: { value: SubscribedFilter; label: string }[] = [
  { value: 'all', label: 'All contacts' },
  { value: 'subscribed', label: 'Subscribed' },
  { value: 'unsubscribed', label: 'Unsubscribed' },
];
