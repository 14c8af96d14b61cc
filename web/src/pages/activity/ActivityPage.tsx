import { useId } from 'react';
import { Link } from 'react-router-dom';
import type { ActivityType } from '../../../../src/api.js';
import { TrailPager } from '../../components/CursorPager.js';
import type { ListPosition } from '../../components/cursor-trail.js';
import { EmptyState } from '../../components/EmptyState.js';
import { FilterChip } from '../../components/FilterChip.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { useListPosition } from '../../components/useListPosition.js';
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

const PAGE_SIZE = 50;

export default function ActivityPage() {
  usePageTitle('Activity');
  const project = useCurrentProject();
  const { filters, trail, go } = useListPosition(parseActivityFilters, activityFiltersToQuery);
  const page = useActivityPage(project.id, activityApiQuery(filters, PAGE_SIZE));
  const regionId = useId();
  const turnPage = (to: ListPosition<ActivityFilters>) => {
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
          <FilterChip
            removeLabel="Show the activity of every contact"
            onRemove={() => go(withCriteria(filters, { contactId: null }))}
          >
            Contact{' '}
            {contactEmail ? (
              <Link to={`/contacts/${filters.contactId}`}>{contactEmail}</Link>
            ) : (
              <code>{filters.contactId}</code>
            )}
          </FilterChip>
        )}
        {filters.campaignId && (
          <FilterChip
            removeLabel="Show the activity of every campaign"
            onRemove={() => go(withCriteria(filters, { campaignId: null }))}
          >
            Campaign <code>{filters.campaignId}</code>
          </FilterChip>
        )}
        {shown !== null && shown > 0 && (
          <p className="muted small activity-total" aria-live="polite">
            {shown.toLocaleString()} {shown === 1 ? 'item' : 'items'}
          </p>
        )}
      </search>

      <div id={regionId} className="table-region activity-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<ActivityFeedSkeleton rows={8} />}
          isEmpty={(found) => found.data.length === 0}
          empty={<NoActivity filters={filters} onClear={() => go({ filters: ALL_ACTIVITY, trail: [] })} />}
        >
          {(found) => <ActivityFeed items={found.data} label="Activity, newest first" stale={page.isPlaceholderData} />}
        </QueryView>
      </div>

      {page.data && (
        <TrailPager
          label="Pages of activity"
          position={{ filters, trail }}
          busy={page.isPlaceholderData}
          next={page.data.hasMore ? page.data.cursor : null}
          onTurn={turnPage}
        />
      )}
    </section>
  );
}

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
  const types = useActivityTypes(projectId);
  const present = new Set(types.data?.types ?? []);
  if (value) present.add(value);
  const offered = (Object.keys(TYPE_LABELS) as ActivityType[]).filter((t) => !types.data || present.has(t));
  return (
    <SelectField
      label="Kind"
      value={value ?? ''}
      options={[{ value: '', label: 'Everything' }, ...offered.map((t) => ({ value: t, label: typeLabel(t) }))]}
      controls={controls}
      onChange={(type) => onChange(isActivityType(type) ? type : null)}
    />
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
