import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import type { EmailStatus } from '../../../../src/api.js';
import { isApiError } from '../../api/client.js';
import { fieldMessages } from '../../api/errors.js';
import { CursorPager } from '../../components/CursorPager.js';
import { EmptyState } from '../../components/EmptyState.js';
import { Field } from '../../components/Field.js';
import { FilterChip } from '../../components/FilterChip.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { useListPosition } from '../../components/useListPosition.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { EmailsTable, EmailsTableSkeleton } from './EmailsTable.js';
import {
  EMAIL_STATUSES,
  type EmailFilters,
  emailFiltersToQuery,
  emailsApiQuery,
  FIRST_PAGE,
  isFiltered,
  type ListPosition,
  looksLikeAddress,
  nextPage,
  pageNumber,
  parseEmailFilters,
  previousPage,
  withCriteria,
} from './email-filters.js';
import { statusFilterLabel } from './email-status.js';
import { useEmailsPage } from './emails-api.js';
import './emails.css';

const PAGE_SIZE = 50;

export default function EmailsPage() {
  usePageTitle('Emails');
  const project = useCurrentProject();
  const { filters, trail, go } = useListPosition(parseEmailFilters, emailFiltersToQuery);
  const page = useEmailsPage(project.id, emailsApiQuery(filters, PAGE_SIZE));
  const regionId = useId();
  const turnPage = (to: ListPosition) => {
    go(to);
    window.scrollTo({ top: 0 });
  };
  const isFirstPage = !filters.cursor;
  // The server's word on the recipient filter (an address it cannot take) belongs beside the field.
  const serverFieldErrors = page.isError && isApiError(page.error, 422) ? fieldMessages(page.error.fieldErrors) : {};

  return (
    <section aria-labelledby="emails-title" className="stack">
      <div className="page-heading">
        <h1 id="emails-title">Emails</h1>
        <p className="muted">Every email of this project, newest first: sent, waiting, or held back.</p>
      </div>

      <search className="toolbar emails-toolbar" aria-label="Emails">
        <SelectField
          label="Status"
          value={filters.status ?? ''}
          options={STATUS_OPTIONS}
          onChange={(status) => go(withCriteria(filters, { status: (status || null) as EmailStatus | null }))}
        />
        <RecipientFilter
          key={filters.to}
          value={filters.to}
          serverError={serverFieldErrors.to}
          controls={regionId}
          onApply={(to) => go(withCriteria(filters, { to }))}
        />
        {filters.campaignId && (
          <FilterChip
            removeLabel="Show emails of every campaign"
            onRemove={() => go(withCriteria(filters, { campaignId: null }))}
          >
            Campaign <code>{filters.campaignId}</code>
          </FilterChip>
        )}
      </search>

      <div id={regionId} className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<EmailsTableSkeleton />}
          isEmpty={(found) => found.data.length === 0}
          empty={<NoEmails filters={filters} onClear={() => go({ filters: FIRST_PAGE, trail: [] })} />}
        >
          {(found) => <EmailsTable emails={found.data} stale={page.isPlaceholderData} />}
        </QueryView>
      </div>

      {page.data && (
        <CursorPager
          label="Pages of emails"
          page={pageNumber(filters, trail)}
          busy={page.isPlaceholderData}
          onPrevious={isFirstPage ? undefined : () => turnPage(previousPage(filters, trail))}
          next={page.data.hasMore ? page.data.cursor : null}
          onNext={(cursor) => turnPage(nextPage(filters, trail, cursor))}
        />
      )}
    </section>
  );
}

const STATUS_OPTIONS = [
  { value: '', label: 'All statuses' },
  ...EMAIL_STATUSES.map((s) => ({ value: s, label: statusFilterLabel(s) })),
];

/** The API matches one whole address, so the filter applies when it is submitted, not as it is typed. */
function RecipientFilter({
  value,
  serverError,
  controls,
  onApply,
}: {
  value: string;
  serverError: string | undefined;
  controls: string;
  onApply: (to: string) => void;
}) {
  const [draft, setDraft] = useState(value);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <form
      className="recipient-filter"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const to = draft.trim();
        if (to && !looksLikeAddress(to)) {
          setProblem('Enter a whole address, such as ada@example.com: the filter matches it exactly.');
          return;
        }
        setProblem(null);
        onApply(to);
      }}
    >
      <Field
        label="Recipient"
        type="email"
        name="to"
        autoComplete="off"
        spellCheck={false}
        placeholder="ada@example.com"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        error={problem ?? serverError}
        aria-controls={controls}
      />
      <button type="submit" className="button">
        Filter
      </button>
      {value && (
        <button type="button" className="button" onClick={() => onApply('')}>
          Any recipient
        </button>
      )}
    </form>
  );
}

function NoEmails({ filters, onClear }: { filters: EmailFilters; onClear: () => void }) {
  if (isFiltered(filters)) {
    return (
      <EmptyState title="No emails match">
        <p className="muted">Nothing with this status, recipient or campaign{filters.cursor ? ' on this page' : ''}.</p>
        <button type="button" className="button" onClick={onClear}>
          Clear filters
        </button>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No emails yet">
      <p className="muted">
        Send one with the API (<code>POST /v1/send</code>) or a test from a <Link to="/templates">template</Link>.
      </p>
    </EmptyState>
  );
}
