import { useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import type { RecipientReason } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { CursorPager } from '../../components/CursorPager.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { saveFile } from '../../components/save-file.js';
import { TableHead, TableSkeleton } from '../../components/TableHead.js';
import { formatDateTime } from '../../format/dates.js';
import {
  badgeClass,
  count,
  OUTCOME_LABELS,
  OUTCOME_REASONS,
  OUTCOME_TONES,
  REASON_LABELS,
  RECIPIENT_VIEWS,
  type RecipientView,
  VIEW_LABELS,
} from './campaign-words.js';
import { type RecipientFilter, useRecipientsPage } from './campaigns-api.js';
import { recipientsCsv } from './export-csv.js';

const COLUMNS = ['Recipient', 'Outcome', 'Sent'] as const;

/**
 * Who got what: each recipient's outcome and its reason, filtered by outcome and reason (the
 * report's figures set the outcome), paged by cursor, and exported as CSV a page at a time.
 */
export function RecipientsCard({
  projectId,
  campaignId,
  view,
  onView,
}: {
  projectId: string;
  campaignId: string;
  view: RecipientView | null;
  onView: (v: RecipientView | null) => void;
}) {
  const [trail, setTrail] = useState<string[]>([]);
  const cursor = trail[trail.length - 1];
  const [reason, setReason] = useState<RecipientReason | ''>('');
  const reasons: readonly RecipientReason[] =
    view && view in OUTCOME_REASONS ? OUTCOME_REASONS[view as keyof typeof OUTCOME_REASONS] : [];
  const filter: RecipientFilter =
    view === 'opened' || view === 'clicked'
      ? { engagement: view }
      : view
        ? { outcome: view, ...(reason && reasons.includes(reason) ? { reason } : {}) }
        : {};
  const page = useRecipientsPage(projectId, campaignId, filter, cursor);
  const titleId = useId();
  const regionId = useId();
  const [exported, setExported] = useState<{ rows: number; done: boolean; error?: string } | null>(null);
  const abort = useRef<AbortController | null>(null);

  const exportCsv = async () => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setExported({ rows: 0, done: false });
    try {
      const blob = await recipientsCsv(
        projectId,
        campaignId,
        filter,
        (rows) => setExported({ rows, done: false }),
        controller.signal,
      );
      saveFile(blob, `campaign-${campaignId}-recipients${view ? `-${view}` : ''}.csv`);
      setExported((e) => ({ rows: e?.rows ?? 0, done: true }));
    } catch (err) {
      if (!controller.signal.aborted)
        setExported((e) => ({ rows: e?.rows ?? 0, done: true, error: errorMessage(err) }));
    }
  };

  return (
    <section className="card stack" aria-labelledby={titleId} id="recipients">
      <div className="card-head-row">
        <h2 id={titleId} tabIndex={-1}>
          Recipients
        </h2>
        <div className="toolbar">
          <SelectField
            label="Show"
            value={view ?? ''}
            controls={regionId}
            options={[
              { value: '', label: 'Every recipient' },
              ...RECIPIENT_VIEWS.map((v) => ({ value: v, label: VIEW_LABELS[v] })),
            ]}
            onChange={(v) => {
              setTrail([]);
              setReason('');
              onView((v || null) as RecipientView | null);
            }}
          />
          {reasons.length > 0 && (
            <SelectField
              label="Reason"
              value={reason}
              controls={regionId}
              options={[
                { value: '', label: 'Any reason' },
                ...reasons.map((r) => ({ value: r, label: REASON_LABELS[r] })),
              ]}
              onChange={(r) => {
                setTrail([]);
                setReason(r as RecipientReason | '');
              }}
            />
          )}
          <button type="button" className="button" onClick={exportCsv} disabled={exported?.done === false}>
            {exported?.done === false ? `Exporting… ${count(exported.rows)}` : 'Export CSV'}
          </button>
        </div>
      </div>
      <div aria-live="polite">
        {exported?.error && <Alert>The export stopped: {exported.error}</Alert>}
        {exported?.done && !exported.error && (
          <p className="muted small">Exported {count(exported.rows)} recipients.</p>
        )}
      </div>
      {page.data && !page.isPlaceholderData && trail.length === 0 && (
        <p className="muted small" aria-live="polite">
          {view ? `${VIEW_LABELS[view]}: ` : ''}
          {count(page.data.total)} recipient{page.data.total === 1 ? '' : 's'}
        </p>
      )}
      <div id={regionId} className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<TableSkeleton label="Loading recipients…" columns={COLUMNS} rows={5} />}
          isEmpty={(found) => found.data.length === 0}
          empty={<EmptyState title={view ? 'No recipient here' : 'No recipients yet'} />}
        >
          {(found) => (
            <div className="table-scroll">
              <table className={page.isPlaceholderData ? 'table is-stale' : 'table'}>
                <caption className="visually-hidden">Recipients</caption>
                <TableHead columns={COLUMNS} />
                <tbody>
                  {found.data.map((r) => (
                    <tr key={r.contactId}>
                      <td className="cell-email">
                        {r.email ? (
                          <Link to={`/contacts/${r.contactId}`}>{r.email}</Link>
                        ) : (
                          <span className="muted">Deleted contact</span>
                        )}
                      </td>
                      <td>
                        <span className={badgeClass(OUTCOME_TONES[r.outcome])}>{OUTCOME_LABELS[r.outcome]}</span>
                        {r.reason && <span className="small recipient-reason"> {REASON_LABELS[r.reason]}</span>}
                        {r.detail && <span className="muted small recipient-detail">{r.detail}</span>}
                      </td>
                      <td>
                        {r.emailId && r.sentAt ? (
                          <Link to={`/emails/${r.emailId}`}>{formatDateTime(r.sentAt)}</Link>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </QueryView>
      </div>
      {page.data && (
        <CursorPager
          label="Pages of recipients"
          page={trail.length + 1}
          busy={page.isPlaceholderData}
          onPrevious={trail.length ? () => setTrail(trail.slice(0, -1)) : undefined}
          next={page.data.hasMore ? page.data.cursor : null}
          onNext={(c) => setTrail([...trail, c])}
        />
      )}
    </section>
  );
}
