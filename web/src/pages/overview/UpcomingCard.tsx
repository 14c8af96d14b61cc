import { QueryView } from '../../components/QueryView.js';
import { formatDateTime } from '../../format/dates.js';
import { useUpcoming } from './overview-api.js';

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** Campaigns scheduled to send, soonest first, and workflows with executions under way. */
export function UpcomingCard({ projectId }: { projectId: string }) {
  const upcoming = useUpcoming(projectId);
  return (
    <section
      className="card stack overview-card"
      aria-labelledby="upcoming-title"
      aria-busy={upcoming.isFetching || undefined}
    >
      <h2 id="upcoming-title">Coming up</h2>
      <QueryView
        query={upcoming}
        loading={<p className="muted">Loading…</p>}
        retry="small"
        isEmpty={({ campaigns, workflows }) => campaigns.length === 0 && workflows.length === 0}
        empty={
          <p className="muted">
            Nothing scheduled. Campaigns scheduled to send and workflows with contacts on their way through them show up
            here.
          </p>
        }
      >
        {({ campaigns, workflows }) => (
          <>
            {campaigns.length > 0 && (
              <div>
                <h3 className="overview-subhead">Scheduled campaigns</h3>
                <ul className="upcoming-list" aria-label="Scheduled campaigns">
                  {campaigns.map((c) => (
                    <li key={c.id}>
                      <span className="upcoming-name">{c.name}</span>
                      <span className="muted small">
                        sends <time dateTime={c.scheduledFor}>{formatDateTime(c.scheduledFor)}</time>
                      </span>
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {workflows.length > 0 && (
              <div>
                <h3 className="overview-subhead">Workflows under way</h3>
                <ul className="upcoming-list" aria-label="Workflows under way">
                  {workflows.map((w) => (
                    <li key={w.workflowId}>
                      <span className="upcoming-name">{w.name}</span>
                      <span className="muted small">
                        {plural(w.running, 'running', 'running')}, {plural(w.waiting, 'waiting', 'waiting')}
                        {w.nextRunAt && (
                          <>
                            {'; next step '}
                            <time dateTime={w.nextRunAt}>{formatDateTime(w.nextRunAt)}</time>
                          </>
                        )}
                      </span>
                    </li>
                  ))}
                </ul>
              </div>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
}
