import { useId } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import type { EmailType } from '../../../../src/api.js';
import { useTemplatesPage } from '../../api/templates.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { SearchField } from '../../components/SearchField.js';
import { SelectField } from '../../components/SelectField.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { TemplatesTable, TemplatesTableSkeleton } from './TemplatesTable.js';
import {
  DEFAULT_LIST,
  type PageItem,
  pageItems,
  parseSortKey,
  parseTemplateList,
  SORT_OPTIONS,
  sortKey,
  TEMPLATE_TYPES,
  type TemplateListState,
  TYPE_LABELS,
  templateListToQuery,
  templatesApiQuery,
  withCriteria,
} from './template-list.js';

const PAGE_SIZE = 20;
const numberFormat = new Intl.NumberFormat();

export default function TemplatesPage() {
  usePageTitle('Templates');
  const project = useCurrentProject();
  const location = useLocation();
  const navigate = useNavigate();
  const state = parseTemplateList(location.search);
  const page = useTemplatesPage(project.id, templatesApiQuery(state, PAGE_SIZE));
  const regionId = useId();

  const go = (next: TemplateListState, replace = false) => {
    const query = templateListToQuery(next);
    navigate({ pathname: location.pathname, search: query ? `?${query}` : '' }, { replace });
  };
  const turnPage = (n: number) => {
    go({ ...state, page: n });
    window.scrollTo({ top: 0 });
  };
  const filtered = state.search !== '' || state.type !== 'all';
  const total = page.data && !page.isPlaceholderData ? page.data.total : null;

  return (
    <section aria-labelledby="templates-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="templates-title">Templates</h1>
          {total !== null && (
            <p className="muted" aria-live="polite">
              {`${numberFormat.format(total)}${filtered ? ' matching' : ''} template${total === 1 ? '' : 's'}`}
            </p>
          )}
        </div>
        <Link className="button button-primary" to="/templates/new">
          New template
        </Link>
      </div>

      <search className="toolbar" aria-label="Templates">
        <SearchField
          label="Search templates"
          placeholder="Name, description or subject"
          value={state.search}
          onSearch={(search) => go(withCriteria(state, { search }), true)}
          controls={regionId}
        />
        <SelectField
          label="Type"
          value={state.type}
          options={[
            { value: 'all', label: 'All types' },
            ...TEMPLATE_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] })),
          ]}
          onChange={(type) => go(withCriteria(state, { type: type as EmailType | 'all' }))}
        />
        <SelectField
          label="Sort by"
          value={sortKey(state)}
          options={SORT_OPTIONS.map((o) => ({ value: sortKey(o), label: o.label }))}
          onChange={(key) => go(withCriteria(state, parseSortKey(key)))}
        />
      </search>

      <div id={regionId} className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<TemplatesTableSkeleton />}
          isEmpty={(found) => found.data.length === 0}
          empty={
            filtered ? (
              <EmptyState title="No templates match">
                <p className="muted">Try another search or type.</p>
                <button
                  type="button"
                  className="button"
                  onClick={() => go({ ...DEFAULT_LIST, sort: state.sort, dir: state.dir })}
                >
                  Clear filters
                </button>
              </EmptyState>
            ) : state.page > 1 ? (
              <EmptyState title="This page is empty">
                <button type="button" className="button" onClick={() => turnPage(1)}>
                  Go to the first page
                </button>
              </EmptyState>
            ) : (
              <EmptyState title="No templates yet">
                <p className="muted">
                  A template holds a subject and an HTML body with <code>{'{{ placeholders }}'}</code> for each
                  contact’s data. Campaigns, workflows and <code>POST /v1/send</code> use them.
                </p>
                <Link className="button button-primary" to="/templates/new">
                  New template
                </Link>
              </EmptyState>
            )
          }
        >
          {(found) => <TemplatesTable templates={found.data} stale={page.isPlaceholderData} />}
        </QueryView>
      </div>

      {page.data && page.data.totalPages > 1 && (
        <Pager current={state.page} totalPages={page.data.totalPages} onPage={turnPage} busy={page.isPlaceholderData} />
      )}
    </section>
  );
}

function Pager({
  current,
  totalPages,
  onPage,
  busy,
}: {
  current: number;
  totalPages: number;
  onPage: (n: number) => void;
  busy: boolean;
}) {
  const items: PageItem[] = pageItems(current, totalPages);
  return (
    <nav className="pager" aria-label="Pages of templates">
      <button type="button" className="button" disabled={current <= 1 || busy} onClick={() => onPage(current - 1)}>
        Previous
      </button>
      <ol className="page-numbers">
        {items.map((item, i) =>
          item === 'gap' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: a gap is known only by where it is
            <li key={`gap-${i}`} className="muted" aria-hidden="true">
              …
            </li>
          ) : (
            <li key={item}>
              <button
                type="button"
                className="button page-number"
                aria-current={item === current ? 'page' : undefined}
                aria-label={`Page ${item}`}
                disabled={busy}
                onClick={() => item !== current && onPage(item)}
              >
                {item}
              </button>
            </li>
          ),
        )}
      </ol>
      <button
        type="button"
        className="button"
        disabled={current >= totalPages || busy}
        onClick={() => onPage(current + 1)}
      >
        Next
      </button>
    </nav>
  );
}
