import { useId } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import type { ActivityType } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { EmptyState } from '../../components/EmptyState.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { ActivityFeed, ActivityFeedSkeleton } from './ActivityFeed.js';
import { useActivityPage, useActivityTypes } from './activity-api.js';
import {
  type ActivityFilters,
  ALL_ACTIVITY,
  activityApiQuery,
  activityFiltersToQuery,
  isActivityType,
  isNarrowed,
  parseActivityFilters,
  withCriteria,
} from './activity-filters.js';
import { TYPE_LABELS, typeLabel } from './activity-words.js';
import { nextPage, pageNumber, previousPage, readTrail, type Trail } from './cursor-trail.js';

const PAGE_SIZE = 50;

function useActivityFilters() {
  const location = useLocation();
  const navigate = useNavigate();
  const go = (next: { filters: ActivityFilters; trail: Trail }) => {
    const query = activityFiltersToQuery(next.filters);
    navigate({ pathname: location.pathname, search: query ? `?${query}` : '' }, { state: { trail: next.trail } });
  };
  return { filters: parseActivityFilters(location.search), trail: readTrail(location.state), go };
}

export default function ActivityPage() {
  usePageTitle('Activity');
  const project = useCurrentProject();
  const { filters, trail, go } = useActivityFilters();
  const page = useActivityPage(project.id, activityApiQuery(filters, PAGE_SIZE));
  const regionId = useId();
  const turnPage = (to: { filters: ActivityFilters; trail: Trail }) => {
    go(to);
    window.scrollTo({ top: 0 });
  };
  const first = page.data?.data[0];
  const contactEmail = filters.contactId && first?.contact.id === filters.contactId ? first.contact.email : null;
  const shown = page.data && !filters.cursor ? page.data.total : null;

  return (
    <section aria-labelledby="activity-title" className="stack">
      <div className="page-heading">
        <h1 id="activity-title">Activity</h1>
        <p className="muted">
          What happened to this project's email, newest first: sends, opens, clicks, bounces and replies.
        </p>
      </div>

      <search className="toolbar activity-toolbar" aria-label="Activity">
        <TypeSelect
          projectId={project.id}
          value={filters.type}
          controls={regionId}
          onChange={(type) => go(withCriteria(filters, { type }))}
        />
        {filters.contactId && (
          <p className="filter-chip">
            <span>
              Contact{' '}
              {contactEmail ? (
                <Link to={`/contacts/${filters.contactId}`}>{contactEmail}</Link>
              ) : (
                <code>{filters.contactId}</code>
              )}
            </span>
            <button
              type="button"
              className="button button-small"
              aria-label="Show the activity of every contact"
              onClick={() => go(withCriteria(filters, { contactId: null }))}
            >
              Remove
            </button>
          </p>
        )}
        {filters.campaignId && (
          <p className="filter-chip">
            <span>
              Campaign <code>{filters.campaignId}</code>
            </span>
            <button
              type="button"
              className="button button-small"
              aria-label="Show the activity of every campaign"
              onClick={() => go(withCriteria(filters, { campaignId: null }))}
            >
              Remove
            </button>
          </p>
        )}
        {shown !== null && shown > 0 && (
          <p className="muted small activity-total" aria-live="polite">
            {shown.toLocaleString()} {shown === 1 ? 'item' : 'items'}
          </p>
        )}
      </search>

      <div id={regionId} className="table-region activity-region" aria-busy={page.isFetching || undefined}>
        {page.isPending ? (
          <ActivityFeedSkeleton rows={8} />
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
          <NoActivity filters={filters} onClear={() => go({ filters: ALL_ACTIVITY, trail: [] })} />
        ) : (
          <ActivityFeed items={page.data.data} label="Activity, newest first" stale={page.isPlaceholderData} />
        )}
      </div>

      {page.data && (filters.cursor || page.data.hasMore) && (
        <nav className="pager" aria-label="Pages of activity">
          <button
            type="button"
            className="button"
            disabled={!filters.cursor || page.isPlaceholderData}
            onClick={() => turnPage(previousPage(filters, trail))}
          >
            Previous
          </button>
          <span className="muted">{pageLabel(pageNumber(filters.cursor, trail))}</span>
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

const pageLabel = (n: number | null) => (n === null ? 'Later page' : `Page ${n}`);

/** The kinds the project has had; every kind is offered once the list has loaded, the chosen one always. */
function TypeSelect({
  projectId,
  value,
  controls,
  onChange,
}: {
  projectId: string;
  value: ActivityType | null;
  controls: string;
  onChange: (v: ActivityType | null) => void;
}) {
  const id = useId();
  const types = useActivityTypes(projectId);
  const present = new Set(types.data?.types ?? []);
  if (value) present.add(value);
  const offered = (Object.keys(TYPE_LABELS) as ActivityType[]).filter((t) => !types.data || present.has(t));
  return (
    <div className="field">
      <label htmlFor={id}>Kind</label>
      <select
        id={id}
        value={value ?? ''}
        aria-controls={controls}
        onChange={(e) => onChange(isActivityType(e.target.value) ? e.target.value : null)}
      >
        <option value="">Everything</option>
        {offered.map((t) => (
          <option key={t} value={t}>
            {typeLabel(t)}
          </option>
        ))}
      </select>
    </div>
  );
}

function NoActivity({ filters, onClear }: { filters: ActivityFilters; onClear: () => void }) {
  if (isNarrowed(filters)) {
    return (
      <EmptyState title="Nothing matches">
        <p className="muted">No activity of this kind, contact or campaign{filters.cursor ? ' on this page' : ''}.</p>
        <button type="button" className="button" onClick={onClear}>
          Show all activity
        </button>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No activity yet">
      <p className="muted">
        Each email sent, opened, clicked, bounced or answered shows up here. Send one with the API (
        <code>POST /v1/send</code>) or a test from a <Link to="/templates">template</Link>.
      </p>
    </EmptyState>
  );
}
