import type { TrackedEvent } from '../../../../src/api.js';
import { useContactEvents } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { type RecordRef, referenceOf, referencesIn, useRecordNames } from '../../api/record-names.js';
import { Alert } from '../../components/Alert.js';
import { RecordLink } from '../../components/RecordLink.js';
import { formatDateTime } from '../../format/dates.js';
import { EventName } from '../events/EventData.js';
import { eventValueText } from '../events/event-filters.js';

/** The contact's events, newest first, a page at a time from GET /events/contact/{id}. */
export function EventsTimeline({ projectId, contactId }: { projectId: string; contactId: string }) {
  const events = useContactEvents(projectId, contactId);
  const list = events.data?.pages.flatMap((p) => p.data) ?? [];
  const nameOf = useRecordNames(projectId, referencesIn(list.map((e) => e.data)));

  return (
    <section className="card stack" aria-labelledby="events-title" aria-busy={events.isFetching || undefined}>
      <div className="card-heading">
        <h2 id="events-title">Events</h2>
        <button
          type="button"
          className="button button-small"
          onClick={() => events.refetch()}
          disabled={events.isFetching}
        >
          Refresh
        </button>
      </div>
      {events.isPending ? (
        <p className="muted">Loading events…</p>
      ) : events.isError && list.length === 0 ? (
        <Alert>{errorMessage(events.error)}</Alert>
      ) : list.length === 0 ? (
        <p className="muted">
          No events yet. Track one with <code>POST /v1/track</code>; subscription changes appear here too.
        </p>
      ) : (
        <ol className="timeline" aria-label="Events, newest first">
          {list.map((e) => (
            <TimelineItem key={e.id} event={e} nameOf={nameOf} />
          ))}
        </ol>
      )}
      {events.hasNextPage && (
        <button
          type="button"
          className="button"
          onClick={() => events.fetchNextPage()}
          disabled={events.isFetchingNextPage}
        >
          {events.isFetchingNextPage ? 'Loading…' : 'Show older events'}
        </button>
      )}
      {events.isFetchNextPageError && <Alert>{errorMessage(events.error)}</Alert>}
    </section>
  );
}

function TimelineItem({ event, nameOf }: { event: TrackedEvent; nameOf: (ref: RecordRef) => string | undefined }) {
  const entries = Object.entries(event.data);
  return (
    <li className="timeline-item">
      <div className="timeline-head">
        <span className="timeline-name">
          <EventName name={event.name} />
        </span>
        <time dateTime={event.createdAt} className="muted small">
          {formatDateTime(event.createdAt)}
        </time>
      </div>
      {entries.length > 0 && (
        <dl className="timeline-data">
          {entries.slice(0, 8).map(([k, v]) => {
            const ref = referenceOf(k, v);
            return (
              <div key={k}>
                <dt>{ref ? ref.kind : k}</dt>
                <dd>{ref ? <RecordLink to={ref} name={nameOf(ref)} /> : eventValueText(v)}</dd>
              </div>
            );
          })}
        </dl>
      )}
      {entries.length > 8 && <p className="muted small">{`and ${entries.length - 8} more fields`}</p>}
    </li>
  );
}
