import { useId, useState } from 'react';
import type { Campaign, CampaignAbTestReport } from '../../../../src/api.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { QueryView } from '../../components/QueryView.js';
import { formatDateTime } from '../../format/dates.js';
import { count, percent, plural } from './campaign-words.js';
import { useCampaignAbTest, useCampaignAction } from './campaigns-api.js';

type Variant = CampaignAbTestReport['variants'][number];

/** A difference in points from the best other variant, signed: "+3.2 pts". */
const points = (d: number) => `${d > 0 ? '+' : d < 0 ? '−' : '±'}${(Math.abs(d) * 100).toFixed(1)} pts`;

/** Rounding would show a near-certainty as a certainty: 99.99 % is "over 99.9%", not "100%". */
const confidenceWords = (c: number | null) =>
  c === null ? 'Not enough data yet' : c >= 0.999 ? 'over 99.9%' : percent(c);

/**
 * The A/B test's variants side by side: what each changed, what its recipients did, the measure
 * that decides with its difference and confidence, and the winner with why; while the test waits,
 * the marketer may send a variant to the rest.
 */
export function AbTestReportCard({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const report = useCampaignAbTest(projectId, campaign.id, campaign.status);
  const titleId = useId();
  return (
    <section className="card stack-tight" aria-labelledby={titleId}>
      <h2 id={titleId}>A/B test</h2>
      <QueryView query={report} loading={<p className="muted">Loading…</p>} retry="small">
        {(r) => <AbTestReport projectId={projectId} campaign={campaign} report={r} />}
      </QueryView>
    </section>
  );
}

function AbTestReport({
  projectId,
  campaign,
  report: r,
}: {
  projectId: string;
  campaign: Campaign;
  report: CampaignAbTestReport;
}) {
  const waiting =
    r.testPercent !== null && !r.winner && (campaign.status === 'SENDING' || campaign.status === 'PAUSED');
  return (
    <>
      <p data-testid="ab-verdict" aria-live="polite">
        {r.winner ? (
          <>
            <strong>Variant {r.winner.variant} won.</strong> {r.winner.reason}{' '}
            <span className="muted">({formatDateTime(r.winner.decidedAt)})</span>
          </>
        ) : r.testPercent === null ? (
          'The audience is split evenly between the variants; there is no winner phase.'
        ) : waiting && r.decidesAt ? (
          <>
            {r.testPercent} % of the audience is being tested. The variant with the best {r.metricName} goes to the rest
            at <strong>{formatDateTime(r.decidesAt)}</strong> your time, unless you pick one before.
          </>
        ) : (
          `${r.testPercent} % of the audience is tested first; the variant with the best ${r.metricName} goes to the rest after ${plural(r.waitHours, 'hour')}.`
        )}
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a table wider than a phone scrolls, and must be reachable by keyboard */}
      <section className="table-scroll" aria-label="The variants side by side, scrollable" tabIndex={0}>
        <table className="table ab-table">
          <caption className="visually-hidden">The variants side by side</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Subject and sender</th>
              <th scope="col" className="numeric">
                Delivered
              </th>
              <th scope="col" className="numeric">
                Opened
              </th>
              <th scope="col" className="numeric">
                Clicked
              </th>
              <th scope="col" className="numeric">
                {r.metricName[0]!.toUpperCase() + r.metricName.slice(1)}
              </th>
              <th scope="col" className="numeric">
                Difference
              </th>
              <th scope="col" className="numeric">
                Confidence
              </th>
            </tr>
          </thead>
          <tbody>
            {r.variants.map((v) => (
              <tr key={v.variant} className={r.winner?.variant === v.variant ? 'is-winner' : undefined}>
                <th scope="row">
                  {v.variant}
                  {r.winner?.variant === v.variant && <span className="badge badge-ok ab-badge">Winner</span>}
                </th>
                <td>
                  <span className="ab-subject">{v.subject}</span>
                  <span className="muted small">
                    {v.fromName ? ` from ${v.fromName}` : ''}
                    {v.changesBody ? ' · own content' : ''}
                  </span>
                </td>
                <td className="numeric">{v.figures ? count(v.figures.delivered) : '–'}</td>
                <td className="numeric">{v.figures ? count(v.figures.humanOpened) : '–'}</td>
                <td className="numeric">{v.figures ? count(v.figures.clicked) : '–'}</td>
                <td className="numeric">{v.rate === null ? '–' : percent(v.rate)}</td>
                <td className="numeric">{v.difference === null ? '–' : points(v.difference)}</td>
                <td className="numeric">{v.figures ? confidenceWords(v.confidence) : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {waiting && (
        <div className="ab-pick">
          <p className="muted small">Or send one to the rest now:</p>
          {r.variants.map((v) => (
            <PickWinner key={v.variant} projectId={projectId} campaignId={campaign.id} variant={v} />
          ))}
        </div>
      )}
      {r.machineOpens > 0 && (
        <p className="muted small">
          {plural(r.machineOpens, 'open')} by mail providers’ image proxies right after delivery are not counted: they
          were not people reading.
        </p>
      )}
      {r.rest && r.rest.recipients > 0 && (
        <p className="muted small" data-testid="ab-rest">
          The rest: {plural(r.rest.recipients, 'recipient')}
          {r.winner ? ` got variant ${r.winner.variant}` : ''}; {count(r.rest.delivered)} delivered,{' '}
          {count(r.rest.humanOpened)} opened, {count(r.rest.clicked)} clicked.
        </p>
      )}
    </>
  );
}

function PickWinner({ projectId, campaignId, variant }: { projectId: string; campaignId: string; variant: Variant }) {
  const [open, setOpen] = useState(false);
  const action = useCampaignAction(projectId, campaignId);
  return (
    <>
      <button type="button" className="button button-small" onClick={() => setOpen(true)}>
        Send {variant.variant} to the rest
      </button>
      <ConfirmDialog
        open={open}
        title={`Send variant ${variant.variant} to the rest now?`}
        onClose={() => setOpen(false)}
        mutation={action}
        tone="primary"
        confirmLabel={`Send ${variant.variant}`}
        pendingLabel="Sending…"
        onConfirm={() =>
          action.mutate(
            { action: 'ab-test/winner', body: { variant: variant.variant } },
            { onSuccess: () => setOpen(false) },
          )
        }
      >
        <p>
          Everyone not in the test gets “{variant.subject}” now, without waiting for the test's figures. The winner
          cannot be changed afterwards.
        </p>
      </ConfirmDialog>
    </>
  );
}
