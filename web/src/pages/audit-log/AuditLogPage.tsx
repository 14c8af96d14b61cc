import { useId } from 'react';
import { Link } from 'react-router-dom';
import type { AuditEntry } from '../../../../src/api.js';
import { TrailPager } from '../../components/CursorPager.js';
import type { ListPosition } from '../../components/cursor-trail.js';
import { EmptyState } from '../../components/EmptyState.js';
import { Field } from '../../components/Field.js';
import { FilterChip } from '../../components/FilterChip.js';
import { QueryView } from '../../components/QueryView.js';
import { SelectField } from '../../components/SelectField.js';
import { TableHead, TableSkeleton } from '../../components/TableHead.js';
import { useListPosition } from '../../components/useListPosition.js';
import { formatDateTime } from '../../format/dates.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { useAuditPage } from './audit-api.js';
import {
  ALL_ENTRIES,
  type AuditFilters,
  actionLabel,
  auditApiQuery,
  auditFiltersToQuery,
  changesText,
  isNarrowed,
  parseAuditFilters,
  TARGET_TYPES,
  targetPath,
  withCriteria,
} from './audit-filters.js';
import './audit-log.css';

const PAGE_SIZE = 50;
const COLUMNS = ['When', 'Who', 'What', 'Target', 'Changes', 'From'];

export default function AuditLogPage() {
  usePageTitle('Audit log');
  const project = useCurrentProject();
  const { filters, trail, go } = useListPosition(parseAuditFilters, auditFiltersToQuery);
  const page = useAuditPage(project.id, auditApiQuery(filters, PAGE_SIZE));
  const regionId = useId();
  const turnPage = (to: ListPosition<AuditFilters>) => {
    go(to);
    window.scrollTo({ top: 0 });
  };
  const shown = page.data && !filters.cursor ? page.data.total : null;

  return (
    <section aria-labelledby="audit-title" className="stack">
      <div className="page-heading">
        <h1 id="audit-title">Audit log</h1>
        <p className="muted">
          Every change to this project, newest first: who made it, from where, and what changed. Entries are kept for a
          year and cannot be edited.
        </p>
      </div>

      <search className="toolbar audit-toolbar" aria-label="Audit log">
        <SelectField
          label="Target"
          value={filters.targetType ?? ''}
          controls={regionId}
          options={[{ value: '', label: 'Everything' }, ...TARGET_TYPES]}
          onChange={(v) => go(withCriteria(filters, { targetType: v || null, targetId: null }))}
        />
        <Field
          label="From"
          type="date"
          value={filters.from ?? ''}
          aria-controls={regionId}
          onChange={(e) => go(withCriteria(filters, { from: e.target.value || null }))}
        />
        <Field
          label="To"
          type="date"
          value={filters.to ?? ''}
          aria-controls={regionId}
          onChange={(e) => go(withCriteria(filters, { to: e.target.value || null }))}
        />
        {filters.actor && (
          <FilterChip
            removeLabel="Show changes by everyone"
            onRemove={() => go(withCriteria(filters, { actor: null }))}
          >
            By <code>{filters.actor}</code>
          </FilterChip>
        )}
        {filters.action && (
          <FilterChip removeLabel="Show every action" onRemove={() => go(withCriteria(filters, { action: null }))}>
            {actionLabel(filters.action)}
          </FilterChip>
        )}
        {filters.targetId && (
          <FilterChip removeLabel="Show every target" onRemove={() => go(withCriteria(filters, { targetId: null }))}>
            Target <code>{filters.targetId}</code>
          </FilterChip>
        )}
        {shown !== null && shown > 0 && (
          <p className="muted small audit-total" aria-live="polite">
            {shown.toLocaleString()}
            {page.data?.totalCapped ? '+' : ''} {shown === 1 ? 'entry' : 'entries'}
          </p>
        )}
      </search>

      <div id={regionId} className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<TableSkeleton label="Audit log" columns={COLUMNS} rows={8} />}
          isEmpty={(found) => found.data.length === 0}
          empty={<NoEntries filters={filters} onClear={() => go({ filters: ALL_ENTRIES, trail: [] })} />}
        >
          {(found) => (
            <AuditTable
              entries={found.data}
              stale={page.isPlaceholderData}
              narrow={(change) => go(withCriteria(filters, change))}
            />
          )}
        </QueryView>
      </div>

      {page.data && (
        <TrailPager
          label="Pages of the audit log"
          position={{ filters, trail }}
          busy={page.isPlaceholderData}
          next={page.data.hasMore ? page.data.cursor : null}
          onTurn={turnPage}
        />
      )}
    </section>
  );
}

function actorName(actor: AuditEntry['actor']): string {
  if (actor.kind === 'secret-key') return 'Secret key';
  if (actor.kind === 'system') return 'System';
  if (actor.kind === 'key') return actor.label ? `Key “${actor.label}”` : 'A deleted key';
  if (actor.kind === 'anonymous') return actor.label ?? 'Someone signed out';
  return actor.label ?? 'A deleted user';
}

const actorFilter = (actor: AuditEntry['actor']) =>
  actor.kind === 'user' || actor.kind === 'key' ? `${actor.kind}:${actor.id}` : actor.kind;

function AuditTable({
  entries,
  stale,
  narrow,
}: {
  entries: readonly AuditEntry[];
  stale: boolean;
  narrow: (change: Partial<Omit<AuditFilters, 'cursor'>>) => void;
}) {
  return (
    <div className="table-scroll">
      <table className={`table table-cards audit-table${stale ? ' is-stale' : ''}`}>
        <caption className="visually-hidden">Audit log, newest first</caption>
        <TableHead columns={COLUMNS} />
        <tbody>
          {entries.map((e) => {
            const path = targetPath(e.target.type, e.target.id);
            const targetName = `${e.target.type.replace(/_/g, ' ')}${e.target.id ? ` ${e.target.id}` : ''}`;
            return (
              <tr key={e.id}>
                <td className="cell-when">
                  <time dateTime={e.createdAt}>{formatDateTime(e.createdAt)}</time>
                </td>
                <td className="cell-actor">
                  <button
                    type="button"
                    className="link-button"
                    title="Show only this actor's changes"
                    onClick={() => narrow({ actor: actorFilter(e.actor) })}
                  >
                    {actorName(e.actor)}
                  </button>
                </td>
                <td className="cell-action">
                  <button
                    type="button"
                    className="link-button"
                    title="Show only this action"
                    onClick={() => narrow({ action: e.action })}
                  >
                    {actionLabel(e.action)}
                  </button>
                </td>
                <td className="cell-target">
                  {path ? <Link to={path}>{targetName}</Link> : targetName}{' '}
                  {e.target.id && (
                    <button
                      type="button"
                      className="link-button small"
                      aria-label={`History of ${targetName}`}
                      title="Show only the changes to this target"
                      onClick={() => narrow({ targetType: e.target.type, targetId: e.target.id })}
                    >
                      History
                    </button>
                  )}
                </td>
                <td className="cell-changes">{changesText(e.changes) || <span className="muted">—</span>}</td>
                <td className="cell-origin" title={e.userAgent ?? undefined}>
                  {e.ip ?? <span className="muted">—</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function NoEntries({ filters, onClear }: { filters: AuditFilters; onClear: () => void }) {
  if (isNarrowed(filters)) {
    return (
      <EmptyState title="Nothing matches">
        <p className="muted">No change matches these filters{filters.cursor ? ' on this page' : ''}.</p>
        <button type="button" className="button" onClick={onClear}>
          Show the whole log
        </button>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No changes yet">
      <p className="muted">
        Each change made here or through the API shows up in this log: a contact edited, a campaign sent, a key created.
      </p>
    </EmptyState>
  );
}
