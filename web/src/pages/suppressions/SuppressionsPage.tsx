import { type FormEvent, useId, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import type { Suppression, SuppressionReason } from '../../../../src/api.js';
import { isApiError } from '../../api/client.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { EmptyState } from '../../components/EmptyState.js';
import { Field } from '../../components/Field.js';
import { OffsetPager } from '../../components/OffsetPager.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { TableHead } from '../../components/TableHead.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { AddSuppressionDialog, RemoveSuppressionDialog } from './SuppressionDialogs.js';
import {
  addressProblem,
  parseSuppressionList,
  REASON_LABELS,
  REASONS,
  type SuppressionListState,
  suppressionListToQuery,
  suppressionsApiQuery,
} from './suppression-list.js';
import { useSuppression, useSuppressionsPage } from './suppressions-api.js';
import './suppressions.css';
import { formatDateTime } from '../../format/dates.js';

const PAGE_SIZE = 50;
const numberFormat = new Intl.NumberFormat();
const REASON_OPTIONS = [
  { value: '', label: 'All reasons' },
  ...REASONS.map((r) => ({ value: r, label: REASON_LABELS[r] })),
];

export default function SuppressionsPage() {
  usePageTitle('Suppressions');
  const project = useCurrentProject();
  const location = useLocation();
  const navigate = useNavigate();
  const state = parseSuppressionList(location.search);
  const page = useSuppressionsPage(project.id, suppressionsApiQuery(state, PAGE_SIZE));
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Suppression | null>(null);
  const regionId = useId();

  const go = (next: SuppressionListState) => {
    const query = suppressionListToQuery(next);
    navigate({ pathname: location.pathname, search: query ? `?${query}` : '' });
  };
  const total = page.data && !page.isPlaceholderData ? page.data.total : null;

  return (
    <section aria-labelledby="suppressions-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="suppressions-title">Suppressions</h1>
          <p className="muted">
            Addresses no mail goes to: hard bounces and spam complaints are added on their own, others by hand.
            {total !== null && (
              <span aria-live="polite">
                {' '}
                {`${numberFormat.format(total)} ${state.reason ? 'listed for this reason' : 'listed'}.`}
              </span>
            )}
          </p>
        </div>
        <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
          Add address
        </button>
      </div>

      <div className="toolbar suppressions-toolbar">
        <SelectField
          label="Reason"
          value={state.reason ?? ''}
          options={REASON_OPTIONS}
          controls={regionId}
          onChange={(reason) => go({ reason: (reason || null) as SuppressionReason | null, page: 1 })}
        />
        <LookUp projectId={project.id} onRemove={setRemoving} />
      </div>

      <div id={regionId} className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<p className="region-message">Loading suppressions…</p>}
          isEmpty={(found) => found.data.length === 0}
          empty={
            state.reason || state.page > 1 ? (
              <EmptyState title="No suppressions match">
                <p className="muted">Nothing {state.reason ? 'for this reason' : 'on this page'}.</p>
                <button type="button" className="button" onClick={() => go({ reason: null, page: 1 })}>
                  Show every suppression
                </button>
              </EmptyState>
            ) : (
              <EmptyState title="No suppressed addresses">
                <p className="muted">
                  Mail goes to every address. Hard bounces and complaints will be listed here as they come in.
                </p>
              </EmptyState>
            )
          }
        >
          {(found) => <SuppressionsTable rows={found.data} stale={page.isPlaceholderData} onRemove={setRemoving} />}
        </QueryView>
      </div>

      {page.data && (
        <OffsetPager
          label="Pages of suppressions"
          page={state.page}
          totalPages={page.data.totalPages}
          busy={page.isPlaceholderData}
          onPage={(n) => {
            go({ ...state, page: n });
            window.scrollTo({ top: 0 });
          }}
        />
      )}

      <AddSuppressionDialog projectId={project.id} open={adding} onClose={() => setAdding(false)} />
      <RemoveSuppressionDialog projectId={project.id} suppression={removing} onClose={() => setRemoving(null)} />
    </section>
  );
}

function SuppressionsTable({
  rows,
  stale,
  onRemove,
}: {
  rows: readonly Suppression[];
  stale: boolean;
  onRemove: (s: Suppression) => void;
}) {
  return (
    <div className="table-scroll">
      <table className={`table table-cards suppressions-table${stale ? ' is-stale' : ''}`}>
        <caption className="visually-hidden">Suppressed addresses</caption>
        <TableHead columns={['Address', 'Reason', 'Detail', 'Added']} actions="Actions" />
        <tbody>
          {rows.map((s) => (
            <SuppressionRow key={s.email} suppression={s} onRemove={() => onRemove(s)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SuppressionRow({ suppression: s, onRemove }: { suppression: Suppression; onRemove: () => void }) {
  return (
    <tr>
      <td className="cell-suppressed-email">{s.email}</td>
      <td className="cell-reason">
        <span className={`badge${s.reason === 'manual' ? '' : ' badge-failed'}`}>{REASON_LABELS[s.reason]}</span>
      </td>
      <td className={`cell-detail${s.detail || s.emailId ? '' : ' is-empty'}`}>
        {s.detail ?? <span className="muted">—</span>}
        {s.emailId && (
          <>
            {' '}
            <Link to={`/emails/${encodeURIComponent(s.emailId)}`}>The email</Link>
          </>
        )}
      </td>
      <td className="cell-when">
        <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
      </td>
      <td className="cell-actions">
        <button type="button" className="button button-small" aria-label={`Remove ${s.email}`} onClick={onRemove}>
          Remove
        </button>
      </td>
    </tr>
  );
}

/** The list cannot be searched at a million rows; one address is asked for directly. */
function LookUp({ projectId, onRemove }: { projectId: string; onRemove: (s: Suppression) => void }) {
  const [draft, setDraft] = useState('');
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const found = useSuppression(projectId, email);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wrong = addressProblem(draft);
    setProblem(wrong);
    setEmail(wrong ? '' : draft.trim().toLowerCase());
  };
  return (
    <search className="suppression-lookup" aria-label="Look up an address">
      <form className="lookup-form" noValidate onSubmit={submit}>
        <Field
          label="Look up an address"
          type="email"
          autoComplete="off"
          spellCheck={false}
          placeholder="ada@example.com"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          error={problem ?? undefined}
        />
        <button type="submit" className="button">
          Look up
        </button>
      </form>
      <div aria-live="polite" className="lookup-result">
        {email === '' ? null : found.isPending ? (
          <p className="muted small">Looking…</p>
        ) : found.isError ? (
          isApiError(found.error, 404) ? (
            <p className="small">
              <strong>{email}</strong> is not suppressed: mail goes to it.
            </p>
          ) : (
            <Alert>{errorMessage(found.error)}</Alert>
          )
        ) : (
          <p className="small lookup-found">
            <span>
              <strong>{found.data.email}</strong> is suppressed: {REASON_LABELS[found.data.reason].toLowerCase()}, since{' '}
              {formatDateTime(found.data.createdAt)}.
            </span>
            <button type="button" className="button button-small" onClick={() => onRemove(found.data)}>
              Remove
            </button>
          </p>
        )}
      </div>
    </search>
  );
}
