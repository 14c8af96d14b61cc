import { Link } from 'react-router-dom';
import type { Segment } from '../../../../src/api.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead, TableSkeleton } from '../../components/TableHead.js';
import { formatDate, formatDateTime } from '../../format/dates.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { TYPE_LABELS } from './segment-labels.js';
import './segments.css';
import { useSegments } from './segments-api.js';

const COLUMNS = ['Name', 'Type', 'Members', 'Updated'] as const;
const numberFormat = new Intl.NumberFormat();

/**
 * `/segments`: every segment of the project. `GET /segments` answers the whole list (a project has
 * tens of segments, not millions), with each one's cached member count, so nothing is counted here.
 */
export default function SegmentsPage() {
  usePageTitle('Segments');
  const project = useCurrentProject();
  const segments = useSegments(project.id);
  return (
    <section aria-labelledby="segments-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="segments-title">Segments</h1>
          {segments.data && (
            <p className="muted">
              {numberFormat.format(segments.data.length)} segment{segments.data.length === 1 ? '' : 's'}
            </p>
          )}
        </div>
        <Link className="button button-primary" to="/segments/new">
          New segment
        </Link>
      </div>
      <div className="table-region" aria-busy={segments.isFetching || undefined}>
        <QueryView
          query={segments}
          loading={<TableSkeleton label="Loading segments…" columns={COLUMNS} rows={5} />}
          isEmpty={(found) => found.length === 0}
          empty={
            <EmptyState title="No segments yet">
              <p className="muted">
                A segment is a saved audience for campaigns and workflows: contacts that match conditions (plan is pro
                and opened an email in the last 30 days), or a list you keep by hand.
              </p>
              <Link className="button button-primary" to="/segments/new">
                New segment
              </Link>
            </EmptyState>
          }
        >
          {(found) => <SegmentsTable segments={found} />}
        </QueryView>
      </div>
    </section>
  );
}

function SegmentsTable({ segments }: { segments: readonly Segment[] }) {
  return (
    <div className="table-scroll">
      <table className="table segments-table">
        <caption className="visually-hidden">Segments</caption>
        <TableHead columns={COLUMNS} />
        <tbody>
          {segments.map((s) => (
            <tr key={s.id}>
              <td>
                <Link to={`/segments/${s.id}`}>{s.name}</Link>
                {s.description && <span className="muted small segment-description">{s.description}</span>}
              </td>
              <td>
                <span className={`badge badge-segment-${s.type.toLowerCase()}`}>{TYPE_LABELS[s.type]}</span>
                {s.trackMembership && <span className="muted small"> · tracked</span>}
              </td>
              <td className="cell-number">
                {s.memberCountUpdatedAt === null && s.type === 'DYNAMIC' ? (
                  <span className="muted">Counting…</span>
                ) : (
                  numberFormat.format(s.memberCount)
                )}
              </td>
              <td>
                <time dateTime={s.updatedAt} title={formatDateTime(s.updatedAt)}>
                  {formatDate(s.updatedAt)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
