import { useId } from 'react';
import type { Campaign } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { usePreview } from '../../api/templates.js';
import { PreviewPanel } from '../templates/PreviewPanel.js';
import { TYPE_LABELS } from '../templates/template-list.js';

/**
 * What a started campaign went out with. A campaign holds its own copy of its content, which cannot
 * change once it starts, so this stays true however the template it came from changes later.
 */
export function ContentAsSent({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const titleId = useId();
  const preview = usePreview(projectId, {
    subject: campaign.subject,
    body: campaign.body,
    type: campaign.type,
    data: {},
  });
  const from = campaign.fromName ? `${campaign.fromName} <${campaign.from}>` : campaign.from;
  return (
    <section className="card stack-tight content-as-sent" aria-labelledby={titleId}>
      <h2 id={titleId}>Content as sent</h2>
      <dl className="sent-fields">
        <div>
          <dt>Subject</dt>
          <dd data-testid="sent-subject">{campaign.subject}</dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>{from}</dd>
        </div>
        {campaign.replyTo && (
          <div>
            <dt>Reply-to</dt>
            <dd>{campaign.replyTo}</dd>
          </div>
        )}
        <div>
          <dt>Type</dt>
          <dd>{TYPE_LABELS[campaign.type]}</dd>
        </div>
      </dl>
      <p className="muted small">Rendered for a sample recipient: placeholders show their defaults.</p>
      <PreviewPanel
        preview={preview.data}
        updating={preview.isFetching}
        problem={preview.error ? `The preview failed: ${errorMessage(preview.error)}` : null}
        empty={null}
        frameTitle="The campaign's email as sent"
      />
    </section>
  );
}
