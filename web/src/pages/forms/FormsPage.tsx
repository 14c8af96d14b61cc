import { useState } from 'react';
import type { Form } from '../../../../src/api.js';
import { CursorPager } from '../../components/CursorPager.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { formatDate } from '../../format/dates.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { FormDialog } from './FormDialog.js';
import { FormStatsPanel } from './FormStats.js';
import { useForms } from './forms-api.js';
import './forms.css';

export default function FormsPage() {
  usePageTitle('Signup forms');
  const project = useCurrentProject();
  // The cursors of the pages before this one, to go back.
  const [trail, setTrail] = useState<(string | null)[]>([]);
  const cursor = trail.at(-1) ?? null;
  const forms = useForms(project.id, cursor);
  const [editing, setEditing] = useState<Form | 'new' | null>(null);
  const [statsOf, setStatsOf] = useState<string | null>(null);
  // The statistics shown: of the form chosen, else of the newest one.
  const shown = forms.data?.data.find((f) => f.id === statsOf) ?? forms.data?.data[0];

  return (
    <section aria-labelledby="forms-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="forms-title">Signup forms</h1>
          <p className="muted">
            Forms that grow your list from your website: a hosted page or a snippet to paste, protected from bots
            without a third party, with a confirmation email that proves consent.
          </p>
        </div>
        <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
          New form
        </button>
      </div>

      <div className="table-region" aria-busy={forms.isFetching || undefined}>
        <QueryView
          query={forms}
          loading={<p className="region-message">Loading forms…</p>}
          isEmpty={(found) => found.data.length === 0}
          empty={
            <EmptyState title="No signup forms yet">
              <p className="muted">Create one, then link to its page or paste its code into your site.</p>
              <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
                New form
              </button>
            </EmptyState>
          }
        >
          {(found) => (
            <FormsTable forms={found.data} onOpen={setEditing} shown={shown?.id} onStats={(f) => setStatsOf(f.id)} />
          )}
        </QueryView>
      </div>

      {forms.data && (
        <CursorPager
          label="Pages of forms"
          page={trail.length + 1}
          busy={forms.isPlaceholderData}
          onPrevious={trail.length > 0 ? () => setTrail(trail.slice(0, -1)) : undefined}
          next={forms.data.hasMore ? forms.data.cursor : null}
          onNext={(next) => setTrail([...trail, next])}
        />
      )}

      {shown && <FormStatsPanel projectId={project.id} form={shown} />}

      <FormDialog
        projectId={project.id}
        form={editing === 'new' ? undefined : (editing ?? undefined)}
        open={editing !== null}
        onClose={() => setEditing(null)}
      />
    </section>
  );
}

function FormsTable({
  forms,
  onOpen,
  shown,
  onStats,
}: {
  forms: readonly Form[];
  onOpen: (form: Form) => void;
  shown?: string;
  onStats: (form: Form) => void;
}) {
  return (
    <div className="table-scroll">
      <table className="table table-cards forms-table">
        <caption className="visually-hidden">Signup forms</caption>
        <TableHead columns={['Name', 'Confirmation', 'Page', 'Statistics', 'Created']} />
        <tbody>
          {forms.map((f) => (
            <tr key={f.id}>
              <td>
                <button type="button" className="button button-link form-name" onClick={() => onOpen(f)}>
                  {f.name}
                </button>
              </td>
              <td>
                <span className={`badge ${f.doubleOptIn ? 'badge-ok' : ''}`}>
                  {f.doubleOptIn ? 'Double opt-in' : 'Subscribed at once'}
                </span>
              </td>
              <td className="cell-form-url">
                <a href={f.url} target="_blank" rel="noreferrer">
                  Open the page<span className="visually-hidden"> of {f.name}</span>
                </a>
              </td>
              <td>
                <button
                  type="button"
                  className="button button-small"
                  aria-pressed={f.id === shown}
                  onClick={() => onStats(f)}
                >
                  Statistics<span className="visually-hidden"> of {f.name}</span>
                </button>
              </td>
              <td className="cell-when">
                <time dateTime={f.createdAt}>{formatDate(f.createdAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
