import { useMemo } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import type { Timeseries } from '../../../../src/api.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { ActivityFeed, ActivityFeedSkeleton } from '../activity/ActivityFeed.js';
import { useActivityPage, useActivityTypes } from '../activity/activity-api.js';
import { FirstSteps } from './FirstSteps.js';
import { LineChart, type Series } from './LineChart.js';
import { useActivityStats, useTimeseries } from './overview-api.js';
import { parseRange, RANGES, type Range, type RangeKey, rangeApiQuery, rangeToQuery } from './range.js';
import { StatTiles, StatTilesSkeleton } from './StatTiles.js';
import { TopCampaignsCard } from './TopCampaignsCard.js';
import { UpcomingCard } from './UpcomingCard.js';
import './overview.css';

const RECENT = { limit: 10 };

export default function OverviewPage() {
  usePageTitle('Overview');
  const project = useCurrentProject();
  const location = useLocation();
  const navigate = useNavigate();
  const range = parseRange(location.search);
  // The range starts at a UTC midnight: the same query all day, so the cache serves it.
  const query = useMemo(() => rangeApiQuery(range, new Date()), [range]);
  const types = useActivityTypes(project.id);
  const fresh = types.data?.types.length === 0;

  const chooseRange = (key: RangeKey) => {
    const search = rangeToQuery(key, location.search);
    navigate({ pathname: location.pathname, search: search ? `?${search}` : '' }, { replace: true });
  };

  return (
    <section aria-labelledby="overview-title" className="stack overview">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="overview-title">Overview</h1>
          <p className="muted">
            How this project's email is doing: what was sent, opened and clicked, and what went wrong.
          </p>
        </div>
        {!fresh && <RangeSelect value={range.key} onChange={chooseRange} />}
      </div>

      <FirstSteps />
      {!fresh && (
        <>
          <Figures projectId={project.id} range={range} query={query} />
          <Charts projectId={project.id} range={range} query={query} />
        </>
      )}

      <div className="columns">
        {!fresh && <RecentActivity projectId={project.id} />}
        <div className="stack">
          {!fresh && <TopCampaignsCard projectId={project.id} />}
          <UpcomingCard projectId={project.id} />
        </div>
      </div>
    </section>
  );
}

const RANGE_OPTIONS = RANGES.map((r) => ({ value: r.key, label: r.label }));

function RangeSelect({ value, onChange }: { value: RangeKey; onChange: (key: RangeKey) => void }) {
  return (
    <SelectField
      className="field overview-range"
      label="Range"
      value={value}
      options={RANGE_OPTIONS}
      onChange={(key) => onChange(key as RangeKey)}
    />
  );
}

function Figures({ projectId, range, query }: { projectId: string; range: Range; query: { since: string } }) {
  const stats = useActivityStats(projectId, query);
  return (
    <section aria-labelledby="figures-title" className="stack" aria-busy={stats.isFetching || undefined}>
      <h2 id="figures-title" className="visually-hidden">
        {`Totals, ${range.label.toLowerCase()}`}
      </h2>
      <QueryView query={stats} loading={<StatTilesSkeleton />}>
        {(found) => <StatTiles stats={found} stale={stats.isPlaceholderData} />}
      </QueryView>
    </section>
  );
}

/** The three charts of the timeseries, each series in words in its table too. */
export function chartsOf(ts: Timeseries): { title: string; series: Series[]; empty: string }[] {
  const column = (key: 'sent' | 'failed' | 'opened' | 'clicked' | 'bounced' | 'complained') =>
    ts.data.map((d) => d[key]);
  return [
    {
      title: 'Sending',
      series: [
        { label: 'Sent', tone: 'accent', values: column('sent') },
        { label: 'Failed', tone: 'danger', values: column('failed') },
      ],
      empty: 'Nothing sent in this range.',
    },
    {
      title: 'Opens and clicks',
      series: [
        { label: 'Opened', tone: 'accent', values: column('opened') },
        { label: 'Clicked', tone: 'alt', values: column('clicked') },
      ],
      empty: 'No opens or clicks in this range.',
    },
    {
      title: 'Bounces and complaints',
      series: [
        { label: 'Bounced', tone: 'warn', values: column('bounced') },
        { label: 'Spam complaints', tone: 'danger', values: column('complained') },
      ],
      empty: 'No bounces or spam complaints in this range.',
    },
  ];
}

function Charts({ projectId, range, query }: { projectId: string; range: Range; query: { since: string } }) {
  const ts = useTimeseries(projectId, query);
  return (
    <section aria-labelledby="charts-title" className="stack" aria-busy={ts.isFetching || undefined}>
      <h2 id="charts-title">{`Per day, ${range.label.toLowerCase()}`}</h2>
      <QueryView
        query={ts}
        loading={
          <div className="chart-grid" aria-hidden="true">
            {[0, 1, 2].map((i) => (
              <div key={i} className="card chart chart-skeleton">
                <span className="skeleton" />
              </div>
            ))}
          </div>
        }
      >
        {(series) => (
          <div className={`chart-grid${ts.isPlaceholderData ? ' is-stale' : ''}`}>
            {chartsOf(series).map((c) => (
              <LineChart
                key={c.title}
                title={c.title}
                dates={series.data.map((d) => d.date)}
                series={c.series}
                empty={c.empty}
              />
            ))}
          </div>
        )}
      </QueryView>
    </section>
  );
}

function RecentActivity({ projectId }: { projectId: string }) {
  const recent = useActivityPage(projectId, RECENT);
  return (
    <section className="card stack overview-card overview-recent" aria-labelledby="recent-title">
      <div className="overview-card-head">
        <h2 id="recent-title">Recent activity</h2>
        <Link to="/activity" className="small">
          All activity
        </Link>
      </div>
      <QueryView
        query={recent}
        loading={<ActivityFeedSkeleton />}
        retry="small"
        isEmpty={(found) => found.data.length === 0}
        empty={<p className="muted">Nothing has happened yet.</p>}
      >
        {(found) => <ActivityFeed items={found.data} label="Recent activity, newest first" />}
      </QueryView>
    </section>
  );
}
