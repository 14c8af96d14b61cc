import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { Segment } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { formatDateTime } from '../../format/dates.js';
import { changeWords, membershipEvents } from './segment-form.js';
import { useComputeSegment, useEventUsage, useRefreshSegment } from './segments-api.js';

const numberFormat = new Intl.NumberFormat();

/**
 * The saved segment's membership: its cached count and when it was taken, a refresh, and for a
 * tracked dynamic segment the computation that records who entered and left. A tracked segment
 * shows its entry and exit event names with the workflows they start.
 */
export function MembershipCard({ projectId, segment }: { projectId: string; segment: Segment }) {
  const refresh = useRefreshSegment(projectId, segment.id);
  const compute = useComputeSegment(projectId, segment.id);
  const computable = segment.type === 'DYNAMIC' && segment.trackMembership;
  // The count before the last refresh: the segment shown is replaced by the refreshed one.
  const [before, setBefore] = useState(segment.memberCount);
  return (
    <section className="card stack-tight membership-card" aria-labelledby="membership-title">
      <h2 id="membership-title">Members</h2>
      <p>
        <strong data-testid="member-count">{numberFormat.format(segment.memberCount)}</strong> members
        <span className="muted small">
          {segment.memberCountUpdatedAt
            ? ` · counted ${formatDateTime(segment.memberCountUpdatedAt)}`
            : ' · not counted yet'}
        </span>
      </p>
      <div className="toolbar">
        <button
          type="button"
          className="button"
          disabled={refresh.isPending}
          onClick={() => {
            setBefore(segment.memberCount);
            refresh.mutate();
          }}
        >
          {refresh.isPending ? 'Counting…' : 'Refresh count'}
        </button>
        {computable && (
          <button type="button" className="button" disabled={compute.isPending} onClick={() => compute.mutate()}>
            {compute.isPending ? 'Computing…' : 'Compute membership'}
          </button>
        )}
      </div>
      <p aria-live="polite" data-testid="membership-change">
        {compute.data &&
          changeWords({ added: compute.data.entered, removed: compute.data.exited, total: compute.data.memberCount })}
        {refresh.data &&
          !compute.data &&
          `Counted ${numberFormat.format(refresh.data.memberCount)} (was ${numberFormat.format(before)})`}
      </p>
      {(refresh.error || compute.error) && (
        <p className="field-error">{errorMessage(refresh.error ?? compute.error)}</p>
      )}
      {computable && (
        <p className="muted small">
          Computing records who entered and left since the last computation, and sends their entry and exit events.
        </p>
      )}
      {segment.trackMembership && <MembershipEvents projectId={projectId} slug={segment.slug} />}
    </section>
  );
}

function MembershipEvents({ projectId, slug }: { projectId: string; slug: string }) {
  const names = membershipEvents(slug);
  return (
    <div className="stack-tight">
      <h3>Membership events</h3>
      <ul className="membership-events">
        <EventWorkflows projectId={projectId} name={names.entry} what="enters" />
        <EventWorkflows projectId={projectId} name={names.exit} what="leaves" />
      </ul>
    </div>
  );
}

function EventWorkflows({ projectId, name, what }: { projectId: string; name: string; what: string }) {
  const usage = useEventUsage(projectId, name);
  const workflows = usage.data?.workflows ?? [];
  return (
    <li>
      <code>{name}</code> <span className="muted small">when a contact {what}</span>
      <div className="small">
        {usage.isPending ? (
          'Looking for workflows…'
        ) : usage.isError ? (
          errorMessage(usage.error)
        ) : workflows.length === 0 ? (
          'No workflow uses it yet.'
        ) : (
          <>
            Used by{' '}
            {workflows.map((w, i) => (
              <span key={w.id}>
                {i > 0 && ', '}
                <Link to={`/workflows/${w.id}`}>{w.name}</Link>
              </span>
            ))}
          </>
        )}
      </div>
    </li>
  );
}
