import { lazy, Suspense, useId, useState } from 'react';
import { Link } from 'react-router-dom';
import type { Campaign, CampaignEngagement } from '../../../../src/api.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { OffsetPager } from '../../components/OffsetPager.js';
import { QueryView } from '../../components/QueryView.js';
import { formatDateTime } from '../../format/dates.js';
import { AbTestReportCard } from './AbTestReportCard.js';
import { CampaignActions } from './CampaignActions.js';
import { ContentAsSent } from './ContentAsSent.js';
import {
  badgeClass,
  count,
  type Figure,
  funnel,
  pauseWords,
  percent,
  plural,
  type RecipientView,
  STATUS_WORDS,
} from './campaign-words.js';
import { useCampaignAction, useCampaignEngagement, useCampaignLinks, useCampaignStats } from './campaigns-api.js';
import { ProgressCard } from './ProgressCard.js';
import { RecipientsCard } from './RecipientsCard.js';
import { SendMenu } from './SendMenu.js';

// uPlot is loaded only when there is a curve to draw.
const EngagementChart = lazy(() => import('./EngagementChart.js'));

/** A campaign once it has started: its progress, its figures in funnel order, its links and recipients. */
export default function CampaignReport({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const live = campaign.status === 'SENDING' || campaign.status === 'PAUSED';
  const stats = useCampaignStats(projectId, campaign.id, campaign.status);
  const [view, setView] = useState<RecipientView | null>(null);
  const words = STATUS_WORDS[campaign.status];
  const showRecipients = (v: RecipientView) => {
    setView(v);
    // The list is below the fold on most screens: bring it, and the reader's focus, to it.
    requestAnimationFrame(() => {
      const heading = document.querySelector<HTMLElement>('#recipients h2');
      heading?.scrollIntoView({ block: 'start' });
      heading?.focus();
    });
  };

  return (
    <section className="stack campaign-report" aria-labelledby="campaign-title">
      <div className="page-heading-row">
        <div className="page-heading">
          <Link to="/campaigns" className="back-link">
            ← Campaigns
          </Link>
          <h1 id="campaign-title">{campaign.name}</h1>
          <p className="muted small">
            <span className={badgeClass(words.tone)}>{words.label}</span> “{campaign.subject}” from {campaign.from}
            {campaign.sentAt ? ` · started ${formatDateTime(campaign.sentAt)}` : ''}
          </p>
        </div>
        <div className="editor-actions">
          {live && <SendMenu projectId={projectId} campaign={campaign} audience={undefined} blockedBy={null} />}
          {campaign.status === 'SENT' && (
            <ResendButton projectId={projectId} campaign={campaign} failed={stats.data?.bounced ?? 0} />
          )}
          <CampaignActions projectId={projectId} campaign={campaign} />
        </div>
      </div>
      {campaign.status === 'PAUSED' && (
        <Alert>
          <span data-testid="pause-reason">{pauseWords(campaign)}</span>
        </Alert>
      )}
      {campaign.status === 'CANCELLED' && (
        <p className="notice">Cancelled: what was sent before the cancel stays sent; nobody else gets it.</p>
      )}

      <ProgressCard projectId={projectId} campaign={campaign} />
      {campaign.abTest && <AbTestReportCard projectId={projectId} campaign={campaign} />}

      <section className="card stack" aria-labelledby="figures-title">
        <h2 id="figures-title">Figures</h2>
        <QueryView query={stats} loading={<p className="muted">Loading…</p>} retry="small">
          {(s) => (
            <ul className="figure-grid">
              {funnel(s).map((f) => (
                <FigureTile key={f.key} figure={f} onOpen={showRecipients} />
              ))}
            </ul>
          )}
        </QueryView>
      </section>

      <div className="report-columns">
        <EngagementCard projectId={projectId} campaignId={campaign.id} />
        <LinksCard projectId={projectId} campaignId={campaign.id} />
      </div>

      <RecipientsCard projectId={projectId} campaignId={campaign.id} view={view} onView={setView} />

      <ContentAsSent projectId={projectId} campaign={campaign} />
    </section>
  );
}

function FigureTile({ figure: f, onOpen }: { figure: Figure; onOpen: (v: RecipientView) => void }) {
  const body = (
    <>
      <span className="figure-label">{f.label}</span>
      <span className="figure-value" data-testid={`figure-${f.key}`}>
        {count(f.value)}
      </span>
      <span className="figure-rate">
        {percent(f.rate)} {f.of}
      </span>
    </>
  );
  return (
    <li className={f.alarm ? 'figure is-alarm' : 'figure'}>
      {f.view ? (
        <button type="button" className="figure-button" onClick={() => onOpen(f.view!)}>
          {body}
          {/* Read after the visible words, so the name a speech user says matches what they see. */}
          <span className="visually-hidden">{f.alarm ? ', too high.' : '.'} Show these recipients</span>
        </button>
      ) : (
        <div className="figure-button">{body}</div>
      )}
    </li>
  );
}

function EngagementCard({ projectId, campaignId }: { projectId: string; campaignId: string }) {
  const engagement = useCampaignEngagement(projectId, campaignId);
  const titleId = useId();
  return (
    <section className="card stack-tight" aria-labelledby={titleId}>
      <h2 id={titleId}>Opens and clicks over time</h2>
      <QueryView
        query={engagement}
        loading={<p className="muted">Loading…</p>}
        retry="small"
        isEmpty={(e) => e.data.length === 0}
        empty={<p className="muted">No opens or clicks yet.</p>}
      >
        {(e) => (
          <>
            <Suspense fallback={<div className="engagement-chart" />}>
              <EngagementChart engagement={e} />
            </Suspense>
            <EngagementTable engagement={e} />
          </>
        )}
      </QueryView>
    </section>
  );
}

const INTERVAL_WORDS = { minute: 'minute', hour: 'hour', day: 'day' } as const;

/** The chart's numbers for screen readers: the busiest intervals. */
function EngagementTable({ engagement }: { engagement: CampaignEngagement }) {
  const busiest = [...engagement.data].sort((a, b) => b.opens + b.clicks - (a.opens + a.clicks)).slice(0, 10);
  return (
    <table className="visually-hidden">
      <caption>Busiest {INTERVAL_WORDS[engagement.interval]}s</caption>
      <thead>
        <tr>
          <th scope="col">From</th>
          <th scope="col">Opens</th>
          <th scope="col">Clicks</th>
        </tr>
      </thead>
      <tbody>
        {busiest.map((p) => (
          <tr key={p.at}>
            <td>{formatDateTime(p.at)}</td>
            <td>{p.opens}</td>
            <td>{p.clicks}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LinksCard({ projectId, campaignId }: { projectId: string; campaignId: string }) {
  const [page, setPage] = useState(1);
  const links = useCampaignLinks(projectId, campaignId, page);
  const titleId = useId();
  return (
    <section className="card stack-tight" aria-labelledby={titleId}>
      <h2 id={titleId}>Clicks per link</h2>
      <QueryView
        query={links}
        loading={<p className="muted">Loading…</p>}
        retry="small"
        isEmpty={(l) => l.total === 0}
        empty={<p className="muted">No link has been clicked yet.</p>}
      >
        {(l) => (
          <>
            <div className="table-scroll">
              <table className="table links-table">
                <caption className="visually-hidden">Clicks per link</caption>
                <thead>
                  <tr>
                    <th scope="col">Link</th>
                    <th scope="col" className="numeric">
                      Clicks
                    </th>
                    <th scope="col" className="numeric">
                      People
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {l.data.map((link) => (
                    <tr key={link.url} data-testid="link-row">
                      <td className="link-url">
                        <a href={link.url} target="_blank" rel="noreferrer noopener">
                          {link.url}
                        </a>
                      </td>
                      <td className="numeric">{count(link.clicks)}</td>
                      <td className="numeric">{count(link.uniqueClicks)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <OffsetPager
              label="Pages of links"
              page={page}
              totalPages={l.totalPages}
              busy={links.isPlaceholderData}
              onPage={setPage}
            />
          </>
        )}
      </QueryView>
    </section>
  );
}

function ResendButton({ projectId, campaign, failed }: { projectId: string; campaign: Campaign; failed: number }) {
  const [open, setOpen] = useState(false);
  const action = useCampaignAction(projectId, campaign.id);
  const [message, setMessage] = useState<string | null>(null);
  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>
        Resend to the failed
      </button>
      {message && (
        <p className="muted small" role="status">
          {message}
        </p>
      )}
      <ConfirmDialog
        open={open}
        title="Resend to the failed recipients?"
        onClose={() => setOpen(false)}
        mutation={action}
        tone="primary"
        confirmLabel="Resend"
        pendingLabel="Resending…"
        onConfirm={() =>
          action.mutate(
            { action: 'resend' },
            {
              onSuccess: (answer) => {
                setMessage(answer.message);
                setOpen(false);
              },
            },
          )
        }
      >
        <p>
          Recipients whose message was refused or given up on (
          {failed ? `up to ${plural(failed, 'recipient')}` : 'none so far'}
          ), or held back by the marketing cap, get a new one. Delivered, bounced, unsubscribed and suppressed
          recipients get nothing again.
        </p>
      </ConfirmDialog>
    </>
  );
}
