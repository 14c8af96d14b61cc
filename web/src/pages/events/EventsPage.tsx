import { useId } from 'react';
import { Link } from 'react-router-dom';
import type { TrackedEvent } from '../../../../src/api.js';
import { useEventNames } from '../../api/events.js';
import { referencesIn, useRecordNames } from '../../api/record-names.js';
import { TrailPager } from '../../components/CursorPager.js';
import type { ListPosition, Trail } from '../../components/cursor-trail.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { TableHead } from '../../components/TableHead.js';
import { useListPosition } from '../../components/useListPosition.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { EventData, EventName } from './EventData.js';
import {
  ALL_EVENTS,
  type EventFilters,
  eventFiltersToQuery,
  eventsApiQuery,
  isBuiltInEvent,
  parseEventFilters,
} from './event-filters.js';
import { useEventStats, useEventsPage, useEventUsage } from './events-api.js';
import './events.css';
import { formatDateTime } from '../../format/dates.js';

const PAGE_SIZE = 50;

const nameSearch = (name: string | null) => {
  const query = eventFiltersToQuery({ name, cursor: null });
  return query ? `?${query}` : '';
};

export default function EventsPage() {
  usePageTitle('Events');
  const project = useCurrentProject();
  const { filters, trail, go } = useListPosition(parseEventFilters, eventFiltersToQuery);

  return (
    <section aria-labelledby="events-title" className="stack">
      <div className="page-heading">
        <h1 id="events-title">Events</h1>
        <p className="muted">
          What your product tracked about its contacts (<code>POST /v1/track</code>), with the events the service
          records itself. Segments and workflows can start from them.
        </p>
      </div>
      <div className="columns">
        <EventNames projectId={project.id} chosen={filters.name} />
        {filters.name && <EventUsagePanel projectId={project.id} name={filters.name} />}
      </div>
      <RecentEvents projectId={project.id} filters={filters} trail={trail} go={go} />
    </section>
  );
}

function EventNames({ projectId, chosen }: { projectId: string; chosen: string | null }) {
  const stats = useEventStats(projectId);
  return (
    <section className="card stack events-names" aria-labelledby="event-names-title">
      <div>
        <h2 id="event-names-title">Event names</h2>
        <p className="muted small">The last 30 days. Choose a name to see its events and where it is used.</p>
      </div>
      <QueryView
        query={stats}
        loading={<p className="muted">Loading…</p>}
        retry="small"
        isEmpty={(found) => found.byName.length === 0}
        empty={
          <p className="muted">
            No events in the last 30 days. Track one from your product with <code>POST /v1/track</code> and the
            project's public key.
          </p>
        }
      >
        {(found) => (
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
          <section className="table-scroll" aria-label="Event names, scrollable" tabIndex={0}>
            <table className="table events-names-table">
              <caption className="visually-hidden">Event names, the last 30 days</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col" className="numeric">
                    Events
                  </th>
                  <th scope="col" className="numeric wide-only">
                    Contacts
                  </th>
                  <th scope="col" className="wide-only">
                    Last seen
                  </th>
                </tr>
              </thead>
              <tbody>
                {found.byName.map((n) => (
                  <tr key={n.name} aria-current={n.name === chosen || undefined}>
                    <th scope="row">
                      <Link to={{ search: nameSearch(n.name) }} className="event-name">
                        {n.name}
                      </Link>
                      {isBuiltInEvent(n.name) && <span className="badge event-builtin">built in</span>}
                    </th>
                    <td className="numeric">{n.count.toLocaleString()}</td>
                    <td className="numeric wide-only">{n.uniqueContacts.toLocaleString()}</td>
                    <td className="muted wide-only">
                      <time dateTime={n.lastSeenAt}>{formatDateTime(n.lastSeenAt)}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )}
      </QueryView>
    </section>
  );
}

function UsageList({ title, items }: { title: string; items: { id: string; name: string }[] }) {
  if (items.length === 0) return null;
  return (
    <div>
      <h3 className="events-subhead">{title}</h3>
      <ul className="events-usage-list" aria-label={title}>
        {items.map((i) => (
          <li key={i.id}>{i.name}</li>
        ))}
      </ul>
    </div>
  );
}

/** Where an event name is referred to: segment filters, campaign audiences, workflow triggers and conditions. */
function EventUsagePanel({ projectId, name }: { projectId: string; name: string }) {
  const usage = useEventUsage(projectId, name);
  return (
    <section
      className="card stack events-usage"
      aria-labelledby="event-usage-title"
      aria-busy={usage.isFetching || undefined}
    >
      <div className="events-usage-head">
        <h2 id="event-usage-title">
          Where <code>{name}</code> is used
        </h2>
        <Link to={{ search: '' }} className="small">
          All events
        </Link>
      </div>
      <QueryView
        query={usage}
        loading={<p className="muted">Loading…</p>}
        retry="none"
        isEmpty={(used) => used.segments.length + used.campaigns.length + used.workflows.length === 0}
        empty={<p className="muted">No segment, campaign or workflow refers to this event yet.</p>}
      >
        {(used) => (
          <>
            <UsageList title="Workflows" items={used.workflows} />
            <UsageList title="Segments" items={used.segments} />
            <UsageList title="Campaigns" items={used.campaigns} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function NameSelect({
  projectId,
  value,
  controls,
  onChange,
}: {
  projectId: string;
  value: string | null;
  controls: string;
  onChange: (name: string | null) => void;
}) {
  const names = useEventNames(projectId);
  const list = names.data?.names ?? [];
  const offered = value && !list.includes(value) ? [value, ...list] : list;
  return (
    <SelectField
      label="Event name"
      value={value ?? ''}
      options={[{ value: '', label: 'All events' }, ...offered.map((n) => ({ value: n, label: n }))]}
      controls={controls}
      onChange={(name) => onChange(name || null)}
    />
  );
}

function RecentEvents({
  projectId,
  filters,
  trail,
  go,
}: {
  projectId: string;
  filters: EventFilters;
  trail: Trail;
  go: (next: ListPosition<EventFilters>) => void;
}) {
  const page = useEventsPage(projectId, eventsApiQuery(filters, PAGE_SIZE));
  const regionId = useId();
  const turnPage = (to: ListPosition<EventFilters>) => {
    go(to);
    document.getElementById('recent-events-title')?.scrollIntoView();
  };
  const total = page.data && !filters.cursor ? page.data.total : null;
  return (
    <section className="stack" aria-labelledby="recent-events-title">
      <h2 id="recent-events-title">Recent events</h2>
      <search className="toolbar events-toolbar" aria-label="Events">
        <NameSelect
          projectId={projectId}
          value={filters.name}
          controls={regionId}
          onChange={(name) => go({ filters: { name, cursor: null }, trail: [] })}
        />
        {total !== null && total > 0 && (
          <p className="muted small events-total">
            {total.toLocaleString()} {total === 1 ? 'event' : 'events'}
          </p>
        )}
      </search>
      <div id={regionId} className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<p className="events-loading muted">Loading events…</p>}
          isEmpty={(found) => found.data.length === 0}
          empty={
            filters.name ? (
              <EmptyState title="No events with this name">
                <button type="button" className="button" onClick={() => go({ filters: ALL_EVENTS, trail: [] })}>
                  Show all events
                </button>
              </EmptyState>
            ) : (
              <EmptyState title="No events yet">
                <p className="muted">
                  Track one from your product: <code>POST /v1/track</code> with the public key, an email and an event
                  name.
                </p>
              </EmptyState>
            )
          }
        >
          {(found) => <EventsTable projectId={projectId} events={found.data} stale={page.isPlaceholderData} />}
        </QueryView>
      </div>
      {page.data && (
        <TrailPager
          label="Pages of events"
          position={{ filters, trail }}
          busy={page.isPlaceholderData}
          next={page.data.hasMore ? page.data.cursor : null}
          onTurn={turnPage}
        />
      )}
    </section>
  );
}

function EventsTable({
  projectId,
  events,
  stale,
}: {
  projectId: string;
  events: readonly TrackedEvent[];
  stale: boolean;
}) {
  const nameOf = useRecordNames(projectId, referencesIn(events.map((e) => e.data)));
  return (
    <div className="table-scroll">
      <table className={`table table-cards events-table${stale ? ' is-stale' : ''}`}>
        <caption className="visually-hidden">Events, newest first</caption>
        <TableHead columns={['Event', 'Contact', 'Data', 'When']} />
        <tbody>
          {events.map((e) => (
            <tr key={e.id}>
              <td className="cell-event-name">
                <EventName name={e.name} />
              </td>
              <td className="cell-event-contact">
                <Link to={`/contacts/${encodeURIComponent(e.contactId)}`}>{e.email}</Link>
              </td>
              <td className="cell-event-data muted">
                <EventData data={e.data} nameOf={nameOf} />
              </td>
              <td className="cell-when">
                <time dateTime={e.createdAt}>{formatDateTime(e.createdAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
