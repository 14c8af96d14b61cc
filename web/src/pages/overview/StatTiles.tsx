import type { ActivityStats } from '../../../../src/api.js';

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

interface Tile {
  label: string;
  value: number;
  note: string;
  tone?: 'problem';
}

/** The range's figures; the rates are of the emails sent, as the API gives them. */
export function statTiles(s: ActivityStats): Tile[] {
  const of = (rate: number) => (s.sent > 0 ? `${percent.format(rate)} of sent` : 'none sent');
  return [
    { label: 'Sent', value: s.sent, note: 'accepted for delivery' },
    { label: 'Opened', value: s.opened, note: of(s.openRate) },
    { label: 'Clicked', value: s.clicked, note: of(s.clickRate) },
    { label: 'Bounced', value: s.bounced, note: of(s.bounceRate), tone: s.bounced > 0 ? 'problem' : undefined },
    {
      label: 'Spam complaints',
      value: s.complained,
      note: s.complained > 0 ? 'sending stopped to them' : 'none',
      tone: s.complained > 0 ? 'problem' : undefined,
    },
    {
      label: 'Failed',
      value: s.failed,
      note: s.failed > 0 ? 'gave up after retries' : 'none',
      tone: s.failed > 0 ? 'problem' : undefined,
    },
    // Only projects that receive mail have replies; the others would see a 0 that means nothing.
    ...(s.received > 0 ? [{ label: 'Replies', value: s.received, note: 'received by inbound mail' }] : []),
  ];
}

export function StatTiles({ stats, stale }: { stats: ActivityStats; stale: boolean }) {
  return (
    <dl className={`stat-tiles${stale ? ' is-stale' : ''}`}>
      {statTiles(stats).map((t) => (
        <div key={t.label} className={`stat-tile${t.tone ? ' stat-problem' : ''}`}>
          <dt>{t.label}</dt>
          <dd className="stat-value">{t.value.toLocaleString()}</dd>
          <dd className="stat-note muted small">{t.note}</dd>
        </div>
      ))}
    </dl>
  );
}

export function StatTilesSkeleton() {
  return (
    <div className="stat-tiles" aria-hidden="true">
      {Array.from({ length: 6 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholder tiles have nothing else to tell them apart
        <div key={i} className="stat-tile">
          <span className="skeleton" />
          <span className="skeleton stat-skeleton-value" />
        </div>
      ))}
    </div>
  );
}
