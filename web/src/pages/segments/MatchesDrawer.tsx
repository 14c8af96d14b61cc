import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router-dom';
import type { FilterCondition } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import { pruneEmpty, treeIssues } from '../../components/filter-builder/filter-tree.js';
import type { ExactCount } from '../../components/filter-builder/useLiveCount.js';
import { QueryView } from '../../components/QueryView.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { useDebounced } from '../templates/useDebounced.js';

const PREVIEW_CONTACTS = 20;
const numberFormat = new Intl.NumberFormat();

/**
 * A side panel with the newest contacts matching the tree as it is being edited (`POST
 * /segments/count` with a preview), following the edits once they pause. It does not block the
 * page: the builder stays usable beside it. Escape or the Close button closes it.
 */
export function MatchesDrawer({ condition, onClose }: { condition: FilterCondition; onClose: () => void }) {
  const projectId = useCurrentProject().id;
  const key = useDebounced(JSON.stringify(pruneEmpty(condition)), 400);
  const complete = treeIssues(condition).length === 0;
  const matches = useQuery({
    queryKey: ['segment-preview', projectId, key],
    queryFn: ({ signal }) =>
      api<ExactCount>('POST', '/segments/count', {
        projectId,
        signal,
        body: { condition: JSON.parse(key), preview: PREVIEW_CONTACTS },
      }),
    enabled: complete,
  });
  const closeButton = useRef<HTMLButtonElement>(null);
  const latestClose = useRef(onClose);
  latestClose.current = onClose;
  // Once, on opening: the builder beside it keeps the focus while it is edited.
  useEffect(() => {
    closeButton.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && latestClose.current();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <aside className="matches-drawer" aria-labelledby="matches-title">
      <div className="matches-drawer-head">
        <h2 id="matches-title">Matching contacts</h2>
        <button ref={closeButton} type="button" className="button button-small" onClick={onClose}>
          Close
        </button>
      </div>
      {!complete ? (
        <p className="muted">Finish the filters to see who matches.</p>
      ) : (
        <QueryView query={matches} loading={<p aria-busy="true">Loading…</p>} retry="small">
          {(found) =>
            found.contacts.length === 0 ? (
              <p className="muted">No contact matches.</p>
            ) : (
              <>
                <p className="muted small">
                  The newest {numberFormat.format(found.contacts.length)} of {numberFormat.format(found.total)}
                </p>
                <ul className="matches-list" aria-busy={matches.isFetching || undefined}>
                  {found.contacts.map((c) => (
                    <li key={c.id}>
                      <Link to={`/contacts/${c.id}`}>{c.email}</Link>
                      {!c.subscribed && <span className="badge">unsubscribed</span>}
                    </li>
                  ))}
                </ul>
              </>
            )
          }
        </QueryView>
      )}
    </aside>
  );
}
