import { useId, useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router-dom';
import type { Webhook, WebhookDelivery, WebhookDeliveryStatus } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { CopyButton } from '../../components/CopyButton.js';
import { EmptyState } from '../../components/EmptyState.js';
import { OffsetPager } from '../../components/OffsetPager.js';
import { QueryView } from '../../components/QueryView.js';
import { RecordPage } from '../../components/RecordPage.js';
import { SelectField } from '../../components/SelectField.js';
import { TableHead } from '../../components/TableHead.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import {
  DELIVERY_STATUSES,
  type DeliveryListState,
  deliveriesApiQuery,
  deliveryListToQuery,
  parseDeliveryList,
  responseSummary,
  STATUS_LABELS,
  STATUS_TONE,
} from './delivery-list.js';
import { DeleteWebhookDialog, DisableWebhookDialog, RotateSecretDialog } from './WebhookDialogs.js';
import { WebhookFormDialog } from './WebhookFormDialog.js';
import { EnabledBadge } from './WebhooksPage.js';
import { useDeliveries, useUpdateWebhook, useWebhook } from './webhooks-api.js';
import './webhooks.css';
import { formatDateTime } from '../../format/dates.js';

const PAGE_SIZE = 25;
const STATUS_OPTIONS = [
  { value: '', label: 'All statuses' },
  ...DELIVERY_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] })),
];

function When({ at }: { at: string }) {
  return <time dateTime={at}>{formatDateTime(at)}</time>;
}

export default function WebhookPage() {
  const { id = '' } = useParams();
  const project = useCurrentProject();
  const hook = useWebhook(project.id, id);
  usePageTitle(hook.data ? `Webhook ${hostOf(hook.data.url)}` : 'Webhook');

  return (
    <RecordPage
      query={hook}
      back={{ to: '/webhooks', label: 'Webhooks' }}
      labelledBy="webhook-title"
      title="Webhook"
      missing={{
        heading: 'Webhook not found',
        title: 'No such webhook in this project',
        hint: 'It was deleted, belongs to another project, or the link is incomplete.',
      }}
    >
      {(webhook) => (
        <>
          <WebhookDetails projectId={project.id} webhook={webhook} />
          <Deliveries projectId={project.id} webhookId={webhook.id} />
        </>
      )}
    </RecordPage>
  );
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

type Open = 'edit' | 'disable' | 'rotate' | 'delete' | null;

function WebhookDetails({ projectId, webhook }: { projectId: string; webhook: Webhook }) {
  const [open, setOpen] = useState<Open>(null);
  const [showSecret, setShowSecret] = useState(false);
  const enable = useUpdateWebhook(projectId);
  const settingsId = useId();
  const close = () => setOpen(null);
  return (
    <>
      <div className="page-heading-row">
        <div className="page-heading webhook-heading">
          <h1 id="webhook-title" className="webhook-url">
            {webhook.url}
          </h1>
          <p className="webhook-state-line">
            <span className="visually-hidden">State: </span>
            <EnabledBadge enabled={webhook.enabled} />
            {webhook.description && <span className="muted">{webhook.description}</span>}
          </p>
        </div>
        <div className="webhook-actions">
          <button type="button" className="button" onClick={() => setOpen('edit')}>
            Edit
          </button>
          {webhook.enabled ? (
            <button type="button" className="button" onClick={() => setOpen('disable')}>
              Disable
            </button>
          ) : (
            <button
              type="button"
              className="button"
              disabled={enable.isPending}
              onClick={() => enable.mutate({ id: webhook.id, enabled: true })}
            >
              {enable.isPending ? 'Enabling…' : 'Enable'}
            </button>
          )}
          <button type="button" className="button" onClick={() => setOpen('rotate')}>
            Rotate secret
          </button>
          <button type="button" className="button button-danger" onClick={() => setOpen('delete')}>
            Delete
          </button>
        </div>
      </div>
      {enable.isError && <Alert>{errorMessage(enable.error)}</Alert>}

      <section className="card stack" aria-labelledby={settingsId}>
        <h2 id={settingsId}>Settings</h2>
        <dl className="details-list">
          <div>
            <dt>Events</dt>
            <dd>
              <ul className="event-chips">
                {webhook.events.map((e) => (
                  <li key={e}>
                    <code>{e === '*' ? '* (every event)' : e}</code>
                  </li>
                ))}
              </ul>
            </dd>
          </div>
          <div>
            <dt>Signing secret</dt>
            <dd className="secret-line">
              {showSecret ? <code className="key-value">{webhook.secret}</code> : <span className="muted">Hidden</span>}
              <button
                type="button"
                className="button button-small"
                aria-pressed={showSecret}
                onClick={() => setShowSecret((s) => !s)}
              >
                {showSecret ? 'Hide' : 'Show'}
              </button>
              <CopyButton value={webhook.secret} label="Copy signing secret" />
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <When at={webhook.createdAt} />
            </dd>
          </div>
          <div>
            <dt>Last changed</dt>
            <dd>
              <When at={webhook.updatedAt} />
            </dd>
          </div>
        </dl>
      </section>

      <WebhookFormDialog projectId={projectId} open={open === 'edit'} webhook={webhook} onClose={close} />
      <DisableWebhookDialog projectId={projectId} webhook={webhook} open={open === 'disable'} onClose={close} />
      <RotateSecretDialog projectId={projectId} webhook={webhook} open={open === 'rotate'} onClose={close} />
      <DeleteWebhookDialog projectId={projectId} webhook={webhook} open={open === 'delete'} onClose={close} />
    </>
  );
}

function Deliveries({ projectId, webhookId }: { projectId: string; webhookId: string }) {
  const location = useLocation();
  const navigate = useNavigate();
  const state = parseDeliveryList(location.search);
  const page = useDeliveries(projectId, webhookId, deliveriesApiQuery(state, PAGE_SIZE));
  const headingId = useId();
  const go = (next: DeliveryListState) => {
    const query = deliveryListToQuery(next);
    navigate({ pathname: location.pathname, search: query ? `?${query}` : '' });
  };

  return (
    <section className="stack" aria-labelledby={headingId}>
      <div className="page-heading-row">
        <h2 id={headingId}>Deliveries</h2>
        <div className="toolbar">
          <SelectField
            label="Status"
            value={state.status ?? ''}
            options={STATUS_OPTIONS}
            onChange={(status) => go({ status: (status || null) as WebhookDeliveryStatus | null, page: 1 })}
          />
          <button type="button" className="button" disabled={page.isFetching} onClick={() => page.refetch()}>
            {page.isFetching && !page.isPending ? 'Refreshing…' : 'Refresh'}
          </button>
        </div>
      </div>

      <div className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<p className="region-message">Loading deliveries…</p>}
          isEmpty={(found) => found.data.length === 0}
          empty={
            state.status || state.page > 1 ? (
              <EmptyState title="No deliveries match">
                <button type="button" className="button" onClick={() => go({ status: null, page: 1 })}>
                  Show every delivery
                </button>
              </EmptyState>
            ) : (
              <EmptyState title="No deliveries yet">
                <p className="muted">Each event this webhook subscribes to is listed here once it happens.</p>
              </EmptyState>
            )
          }
        >
          {(found) => <DeliveriesTable deliveries={found.data} stale={page.isPlaceholderData} />}
        </QueryView>
      </div>

      {page.data && (
        <OffsetPager
          label="Pages of deliveries"
          page={state.page}
          totalPages={page.data.totalPages}
          busy={page.isPlaceholderData}
          onPage={(n) => go({ ...state, page: n })}
        />
      )}
    </section>
  );
}

function DeliveriesTable({ deliveries, stale }: { deliveries: readonly WebhookDelivery[]; stale: boolean }) {
  return (
    <div className="table-scroll">
      <table className={`table table-cards deliveries-table${stale ? ' is-stale' : ''}`}>
        <caption className="visually-hidden">Deliveries</caption>
        <TableHead columns={['Event', 'Status', 'Response', 'Attempts', 'Time']} />
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id}>
              <td className="cell-delivery-event">
                <code>{d.eventName}</code>
                <details className="payload">
                  <summary>Payload</summary>
                  <pre>{JSON.stringify(d.payload, null, 2)}</pre>
                </details>
              </td>
              <td className="cell-delivery-status">
                <span className={`badge badge-${STATUS_TONE[d.status]}`}>{STATUS_LABELS[d.status]}</span>
              </td>
              <td className="cell-delivery-response">{responseSummary(d)}</td>
              <td className="cell-delivery-attempts">
                <span className="narrow-label">Attempts: </span>
                {d.attempts}
              </td>
              <td className="cell-when">
                <span className="muted">Created </span>
                <When at={d.createdAt} />
                {d.deliveredAt ? (
                  <>
                    <br />
                    <span className="muted">Delivered </span>
                    <When at={d.deliveredAt} />
                  </>
                ) : d.attempts > 0 ? (
                  <>
                    <br />
                    <span className="muted">Last try </span>
                    <When at={d.updatedAt} />
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
