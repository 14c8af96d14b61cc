import { Link } from 'react-router-dom';
import type { Template } from '../../../../src/api.js';
import { TableHead, TableSkeleton } from '../../components/TableHead.js';
import { formatDate, formatDateTime } from '../../format/dates.js';
import { TYPE_LABELS } from './template-list.js';

const COLUMNS = ['Name', 'Subject', 'Type', 'Updated'] as const;

export function TemplatesTable({ templates, stale }: { templates: readonly Template[]; stale: boolean }) {
  return (
    <div className="table-scroll">
      <table className={stale ? 'table table-cards templates-table is-stale' : 'table table-cards templates-table'}>
        <caption className="visually-hidden">Templates</caption>
        <TableHead columns={COLUMNS} />
        <tbody>
          {templates.map((t) => (
            <tr key={t.id}>
              <td className="cell-template-name">
                <Link to={`/templates/${t.id}`}>{t.name}</Link>
                {t.description && <span className="muted small template-description">{t.description}</span>}
              </td>
              <td className="cell-subject">{t.subject}</td>
              <td className="cell-type">
                <span className={`badge badge-type-${t.type.toLowerCase()}`}>{TYPE_LABELS[t.type]}</span>
              </td>
              <td className="cell-updated">
                <time dateTime={t.updatedAt} title={formatDateTime(t.updatedAt)}>
                  {formatDate(t.updatedAt)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TemplatesTableSkeleton() {
  return <TableSkeleton label="Loading templates…" columns={COLUMNS} rows={6} />;
}
