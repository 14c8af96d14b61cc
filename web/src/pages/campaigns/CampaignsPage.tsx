import { useId } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import type { Campaign, CampaignStatus } from '../../../../src/api.js';
import { EmptyState } from '../../components/EmptyState.js';
import { OffsetPager } from '../../components/OffsetPager.js';
import { QueryView } from '../../components/QueryView.js';
import { SearchField } from '../../components/SearchField.js';
import { SelectField } from '../../components/SelectField.js';
import { TableHead, TableSkeleton } from '../../components/TableHead.js';
import { formatDateTime } from '../../format/dates.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { badgeClass, CAMPAIGN_STATUSES, count, percent, plural, STATUS_WORDS } from './campaign-words.js';
import { useCampaignsPage } from './campaigns-api.js';
import './campaigns.css';

const PAGE_SIZE = 20;
const COLUMNS = ['Name', 'Status', 'Recipients', 'Opened', 'Clicked', 'When'] as const;

/** `/campaigns`: every campaign of the project, newest first, paged by the server. */
export default function CampaignsPage() {
  usePageTitle('Campaigns');
  const project = useCurrentProject();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const status = (CAMPAIGN_STATUSES as string[]).includes(params.get('status') ?? '')
    ? (params.get('status') as CampaignStatus)
    : undefined;
  const search = params.get('q') ?? '';
  const list = useCampaignsPage(project.id, { page, pageSize: PAGE_SIZE, status, search: search || undefined });
  const regionId = useId();
  const go = (next: { page?: number; status?: string; q?: string }) => {
    const merged = { page: String(next.page ?? 1), status: next.status ?? status ?? '', q: next.q ?? search };
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(merged)) if (v && !(k === 'page' && v === '1')) query.set(k, v);
    setParams(query);
  };
  const filtered = Boolean(status || search);

  return (
    <section aria-labelledby="campaigns-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="campaigns-title">Campaigns</h1>
          <p className="muted">One email to an audience, sent now or at a time you choose.</p>
        </div>
        <Link className="button button-primary" to="/campaigns/new">
          New campaign
        </Link>
      </div>

      <search className="toolbar" aria-label="Campaigns">
        <SearchField
          label="Search campaigns"
          placeholder="Name, subject or sender"
          value={search}
          onSearch={(q) => go({ q })}
          controls={regionId}
        />
        <SelectField
          label="Status"
          value={status ?? ''}
          controls={regionId}
          options={[
            { value: '', label: 'All statuses' },
            ...CAMPAIGN_STATUSES.map((s) => ({ value: s, label: STATUS_WORDS[s].label })),
          ]}
          onChange={(s) => go({ status: s })}
        />
      </search>

      <div id={regionId} className="table-region" aria-busy={list.isFetching || undefined}>
        <QueryView
          query={list}
          loading={<TableSkeleton label="Loading campaigns…" columns={COLUMNS} rows={5} />}
          isEmpty={(found) => found.data.length === 0}
          empty={
            filtered ? (
              <EmptyState title="No campaigns match">
                <button type="button" className="button" onClick={() => setParams(new URLSearchParams())}>
                  Clear filters
                </button>
              </EmptyState>
            ) : (
              <EmptyState title="No campaigns yet">
                <p className="muted">
                  Write an email once and send it to everyone, or to a segment, now or later. Its report shows who
                  opened, clicked, bounced and unsubscribed.
                </p>
                <Link className="button button-primary" to="/campaigns/new">
                  New campaign
                </Link>
              </EmptyState>
            )
          }
        >
          {(found) => <CampaignsTable campaigns={found.data} stale={list.isPlaceholderData} />}
        </QueryView>
      </div>
      {list.data && (
        <OffsetPager
          label="Pages of campaigns"
          page={page}
          totalPages={list.data.totalPages}
          busy={list.isPlaceholderData}
          onPage={(n) => go({ page: n })}
        />
      )}
    </section>
  );
}

function CampaignsTable({ campaigns, stale }: { campaigns: readonly Campaign[]; stale: boolean }) {
  return (
    <div className="table-scroll">
      <table className={stale ? 'table campaigns-table is-stale' : 'table campaigns-table'}>
        <caption className="visually-hidden">Campaigns</caption>
        <TableHead columns={COLUMNS} />
        <tbody>
          {campaigns.map((c) => (
            <tr key={c.id}>
              <td>
                <Link to={`/campaigns/${c.id}`}>{c.name}</Link>
                <span className="muted small campaign-subject">{c.subject}</span>
              </td>
              <td>
                <span className={badgeClass(STATUS_WORDS[c.status].tone)}>{STATUS_WORDS[c.status].label}</span>
              </td>
              <td className="numeric">{recipientsCell(c)}</td>
              <td className="numeric">{c.deliveredCount ? percent(c.openedCount / c.deliveredCount) : '—'}</td>
              <td className="numeric">{c.deliveredCount ? percent(c.clickedCount / c.deliveredCount) : '—'}</td>
              <td>{whenCell(c)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function recipientsCell(c: Campaign): string {
  if (c.status === 'DRAFT' || c.status === 'SCHEDULED') return '—';
  if (c.status === 'SENT') return plural(c.totalRecipients, 'recipient');
  return `${count(c.sentCount)} of ${count(c.totalRecipients)} sent`;
}

function whenCell(c: Campaign) {
  const at = c.status === 'SCHEDULED' ? c.scheduledFor : c.sentAt;
  if (!at) return <span className="muted">Not sent</span>;
  return (
    <time dateTime={at}>
      {c.status === 'SCHEDULED' ? 'For ' : ''}
      {formatDateTime(at)}
    </time>
  );
}
