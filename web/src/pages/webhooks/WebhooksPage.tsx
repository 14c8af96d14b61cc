import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { Webhook } from '../../../../src/api.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { WebhookFormDialog } from './WebhookFormDialog.js';
import { describeEvents } from './webhook-events.js';
import { useWebhooks } from './webhooks-api.js';
import './webhooks.css';
import { formatDate } from '../../format/dates.js';

export default function WebhooksPage() {
  usePageTitle('Webhooks');
  const project = useCurrentProject();
  const hooks = useWebhooks(project.id);
  const [creating, setCreating] = useState(false);

  return (
    <section aria-labelledby="webhooks-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="webhooks-title">Webhooks</h1>
          <p className="muted">
            Events of this project (mail sent, bounced, opened; contacts subscribing; events you track) POSTed to your
            URLs as they happen, signed, and retried for about four hours when a receiver fails.
          </p>
        </div>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
          New webhook
        </button>
      </div>

      <div className="table-region" aria-busy={hooks.isPending || undefined}>
        <QueryView
          query={hooks}
          loading={<p className="region-message">Loading webhooks…</p>}
          isEmpty={(found) => found.length === 0}
          empty={
            <EmptyState title="No webhooks yet">
              <p className="muted">
                Add the URL of your server to hear of bounces, complaints, opens and more at once.
              </p>
              <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
                New webhook
              </button>
            </EmptyState>
          }
        >
          {(found) => <WebhooksTable hooks={found} />}
        </QueryView>
      </div>

      <WebhookFormDialog projectId={project.id} open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}

function WebhooksTable({ hooks }: { hooks: readonly Webhook[] }) {
  return (
    <div className="table-scroll">
      <table className="table table-cards webhooks-table">
        <caption className="visually-hidden">Webhooks</caption>
        <TableHead columns={['URL', 'Events', 'State', 'Created']} />
        <tbody>
          {hooks.map((h) => (
            <tr key={h.id}>
              <td className="cell-webhook-url">
                <Link to={`/webhooks/${encodeURIComponent(h.id)}`} className="webhook-url">
                  {h.url}
                </Link>
                {h.description && <span className="muted small webhook-description">{h.description}</span>}
              </td>
              <td className="cell-webhook-events">{describeEvents(h.events)}</td>
              <td className="cell-webhook-state">
                <EnabledBadge enabled={h.enabled} />
              </td>
              <td className="cell-when">
                <time dateTime={h.createdAt}>{formatDate(h.createdAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return <span className={`badge ${enabled ? 'badge-ok' : ''}`}>{enabled ? 'Enabled' : 'Disabled'}</span>;
}
