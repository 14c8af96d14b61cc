import { useId } from 'react';
import type { Campaign } from '../../../../src/api.js';
import { QueryView } from '../../components/QueryView.js';
import { formatDateTime } from '../../format/dates.js';
import { count, durationWords, percent, plural } from './campaign-words.js';
import { useCampaignProgress } from './campaigns-api.js';

/**
 * How far sending is: done of total, the rate, when it should end and what pacing holds back. Read
 * again every two seconds while the campaign sends; the figures are announced politely as they change.
 */
export function ProgressCard({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const live = campaign.status === 'SENDING' || campaign.status === 'PAUSED';
  const progress = useCampaignProgress(projectId, campaign.id, campaign.status);
  const titleId = useId();
  const textId = useId();

  return (
    <section className="card stack-tight progress-card" aria-labelledby={titleId}>
      <h2 id={titleId}>{live ? 'Sending' : 'Sent'}</h2>
      <QueryView query={progress} loading={<p className="muted">Loading…</p>} retry="small">
        {(p) => {
          const share = p.totalRecipients === 0 ? (live ? 0 : 1) : p.done / p.totalRecipients;
          return (
            <>
              <progress max={1} value={share} aria-labelledby={titleId} aria-describedby={textId} />
              <p id={textId} aria-live="polite" data-testid="progress-text">
                <strong>{percent(share)}</strong> · {count(p.sent)} of {plural(p.totalRecipients, 'recipient')} sent
                {p.done > p.sent ? ` (${count(p.done - p.sent)} not sent or failed)` : ''}
              </p>
              {live && (
                <dl className="progress-facts">
                  <div>
                    <dt>Rate</dt>
                    <dd>{count(Math.round(p.ratePerMinute))} a minute</dd>
                  </div>
                  <div>
                    <dt>Last minute</dt>
                    <dd>{plural(p.sentLastMinute, 'message')}</dd>
                  </div>
                  <div>
                    <dt>Done in</dt>
                    <dd>
                      {campaign.status === 'PAUSED'
                        ? 'paused'
                        : p.etaSeconds === null
                          ? 'estimating…'
                          : p.etaSeconds < 60
                            ? 'under a minute'
                            : `about ${durationWords(p.etaSeconds)}`}
                    </dd>
                  </div>
                  <div>
                    <dt>Deferred by pacing</dt>
                    <dd>
                      {plural(p.deferred, 'message')}
                      {p.deferredUntil ? `, until ${formatDateTime(p.deferredUntil)}` : ''}
                    </dd>
                  </div>
                </dl>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
