import { useState } from 'react';
import type { Form, FormStats } from '../../../../src/api.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { LineChart } from '../overview/LineChart.js';
import '../overview/overview.css';
import { useFormStats } from './forms-api.js';

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const RANGES = [
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
];

/** One form's views, submissions and confirmations over a range of days: figures, then per day. */
export function FormStatsPanel({ projectId, form }: { projectId: string; form: Form }) {
  const [days, setDays] = useState('30');
  const stats = useFormStats(projectId, form.id, Number(days));
  const titleId = `form-stats-${form.id}`;
  return (
    <section className="stack card" aria-labelledby={titleId}>
      <div className="page-heading-row">
        <h2 id={titleId}>Statistics of {form.name}</h2>
        <SelectField label="Period" value={days} options={RANGES} onChange={setDays} />
      </div>
      <QueryView query={stats} loading={<p className="region-message">Loading the statistics…</p>}>
        {(found) => <StatsBody stats={found} doubleOptIn={form.doubleOptIn} />}
      </QueryView>
    </section>
  );
}

function StatsBody({ stats, doubleOptIn }: { stats: FormStats; doubleOptIn: boolean }) {
  const t = stats.totals;
  const rate = (value: number | null, of: string) => (value === null ? `no ${of} yet` : `${percent.format(value)}`);
  const tiles = [
    { label: 'Views', value: t.views.toLocaleString(), note: 'the form shown, hosted or embedded' },
    {
      label: 'Submissions',
      value: t.submissions.toLocaleString(),
      note: `${rate(t.submissionRate, 'views')} of views`,
    },
    ...(doubleOptIn
      ? [
          { label: 'Confirmations', value: t.confirmations.toLocaleString(), note: 'links clicked' },
          {
            label: 'Confirmation rate',
            value: t.confirmationRate === null ? '—' : percent.format(t.confirmationRate),
            note: 'of submissions',
          },
        ]
      : []),
  ];
  const dates = stats.days.map((d) => d.day);
  return (
    <>
      <dl className="form-stats-tiles">
        {tiles.map((tile) => (
          <div key={tile.label}>
            <dt>{tile.label}</dt>
            <dd className="form-stats-value">{tile.value}</dd>
            <dd className="muted small">{tile.note}</dd>
          </div>
        ))}
      </dl>
      <LineChart
        title="Views and submissions"
        dates={dates}
        series={[
          { label: 'Views', tone: 'accent', values: stats.days.map((d) => d.views) },
          { label: 'Submissions', tone: 'alt', values: stats.days.map((d) => d.submissions) },
        ]}
        empty="No views in this period."
      />
      {doubleOptIn && (
        <LineChart
          title="Submissions and confirmations"
          dates={dates}
          series={[
            { label: 'Submissions', tone: 'accent', values: stats.days.map((d) => d.submissions) },
            { label: 'Confirmations', tone: 'alt', values: stats.days.map((d) => d.confirmations) },
          ]}
          empty="No submissions in this period."
        />
      )}
    </>
  );
}
