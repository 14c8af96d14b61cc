import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { ApiKey } from '../../../../src/api.js';
import { roleAtLeast } from '../../../../src/domain/roles.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { formatDate, formatDateTime } from '../../format/dates.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { useApiKeys } from './api-keys-api.js';
import { NewKeyDialog, RevokeKeyDialog, RotateKeyDialog } from './KeyDialogs.js';
import { creatorLabel, STATUS_LABEL } from './key-form.js';
import './api-keys.css';

type Opened = { kind: 'new' } | { kind: 'rotate' | 'revoke'; key: ApiKey } | null;

export default function ApiKeysPage() {
  usePageTitle('API keys');
  const project = useCurrentProject();
  const admin = roleAtLeast(project.role, 'admin');
  const keys = useApiKeys(project.id, admin);
  const [opened, setOpened] = useState<Opened>(null);
  const close = () => setOpened(null);
  const newButton = (
    <button type="button" className="button button-primary" onClick={() => setOpened({ kind: 'new' })}>
      New key
    </button>
  );

  return (
    <section aria-labelledby="api-keys-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="api-keys-title">API keys</h1>
          <p className="muted">
            Give each integration a key of its own that can do only what it needs: a checkout that sends receipts needs{' '}
            <em>send</em>, a website that tracks sign-ups needs <em>track</em>. The project’s own pair stays in{' '}
            <Link to="/settings">Settings</Link>.
          </p>
        </div>
        {admin && newButton}
      </div>

      {admin ? (
        <div className="table-region" aria-busy={keys.isPending || undefined}>
          <QueryView
            query={keys}
            loading={<p className="region-message">Loading keys…</p>}
            isEmpty={(found) => found.length === 0}
            empty={
              <EmptyState title="No keys yet">
                <p className="muted">Make one for each service that calls the API, with the scopes it needs.</p>
                {newButton}
              </EmptyState>
            }
          >
            {(found) => (
              <KeysTable
                keys={found}
                onRotate={(key) => setOpened({ kind: 'rotate', key })}
                onRevoke={(key) => setOpened({ kind: 'revoke', key })}
              />
            )}
          </QueryView>
        </div>
      ) : (
        <p className="notice">Only admins and owners of the project see and manage its API keys.</p>
      )}

      <NewKeyDialog projectId={project.id} open={opened?.kind === 'new'} onClose={close} />
      <RotateKeyDialog projectId={project.id} apiKey={opened?.kind === 'rotate' ? opened.key : null} onClose={close} />
      <RevokeKeyDialog projectId={project.id} apiKey={opened?.kind === 'revoke' ? opened.key : null} onClose={close} />
    </section>
  );
}

function KeysTable({
  keys,
  onRotate,
  onRevoke,
}: {
  keys: readonly ApiKey[];
  onRotate: (key: ApiKey) => void;
  onRevoke: (key: ApiKey) => void;
}) {
  return (
    <div className="table-scroll">
      <table className="table stack-on-narrow api-keys-table">
        <caption className="visually-hidden">API keys</caption>
        <TableHead columns={['Key', 'Scopes', 'Created', 'Last used', 'Expires', 'Actions']} />
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} className={k.status === 'active' ? undefined : 'api-key-ended'}>
              <td data-label="Key">
                <span className="api-key-name">{k.name}</span> <code className="muted small">{k.hint}</code>
                {k.status !== 'active' && <span className="badge">{STATUS_LABEL[k.status]}</span>}
                {k.previousValidUntil && (
                  <span className="muted small api-key-note">
                    The replaced secret works until {formatDateTime(k.previousValidUntil)}
                  </span>
                )}
              </td>
              <td data-label="Scopes">
                <ul className="api-key-scopes" aria-label={`Scopes of ${k.name}`}>
                  {k.scopes.map((s) => (
                    <li key={s} className="badge">
                      {s}
                    </li>
                  ))}
                </ul>
              </td>
              <td data-label="Created">
                <time dateTime={k.createdAt}>{formatDate(k.createdAt)}</time>
                <span className="muted small api-key-note">by {creatorLabel(k)}</span>
              </td>
              <td data-label="Last used">
                {k.lastUsedAt ? (
                  <>
                    <time dateTime={k.lastUsedAt}>{formatDateTime(k.lastUsedAt)}</time>
                    {k.lastUsedIp && <span className="muted small api-key-note">from {k.lastUsedIp}</span>}
                  </>
                ) : (
                  <span className="muted">Never</span>
                )}
              </td>
              <td data-label="Expires">
                {k.expiresAt ? (
                  <time dateTime={k.expiresAt}>{formatDate(k.expiresAt)}</time>
                ) : (
                  <span className="muted">Never</span>
                )}
              </td>
              <td data-label="Actions">
                {k.status === 'active' && (
                  <div className="api-key-actions">
                    <button type="button" className="button button-small" onClick={() => onRotate(k)}>
                      Rotate <span className="visually-hidden">{k.name}</span>
                    </button>
                    <button type="button" className="button button-small button-danger" onClick={() => onRevoke(k)}>
                      Revoke <span className="visually-hidden">{k.name}</span>
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
