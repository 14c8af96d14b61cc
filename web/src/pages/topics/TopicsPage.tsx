import { useState } from 'react';
import type { Topic } from '../../../../src/api.js';
import { useTopicList } from '../../api/topics.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { TopicDialog } from './TopicDialog.js';
import './topics.css';

const count = new Intl.NumberFormat();

export default function TopicsPage() {
  usePageTitle('Topics');
  const project = useCurrentProject();
  const topics = useTopicList(project.id);
  const [editing, setEditing] = useState<Topic | 'new' | null>(null);

  return (
    <section aria-labelledby="topics-title" className="stack">
      <div className="page-heading-row">
        <div className="page-heading">
          <h1 id="topics-title">Topics</h1>
          <p className="muted">
            What your marketing mail is about. Contacts choose their topics in the preference center; a campaign about a
            topic reaches only the contacts that receive it, and its unsubscribe link leaves only that topic.
          </p>
        </div>
        <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
          New topic
        </button>
      </div>

      <div className="table-region" aria-busy={topics.isFetching || undefined}>
        <QueryView
          query={topics}
          loading={<p className="region-message">Loading topics…</p>}
          isEmpty={(found) => found.length === 0}
          empty={
            <EmptyState title="No topics yet">
              <p className="muted">
                Create one for each kind of mail you send, such as a newsletter or product news, so that readers keep
                what they want instead of leaving everything.
              </p>
              <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
                New topic
              </button>
            </EmptyState>
          }
        >
          {(found) => <TopicsTable topics={found} onOpen={setEditing} />}
        </QueryView>
      </div>

      <TopicDialog
        projectId={project.id}
        topic={editing === 'new' ? undefined : (editing ?? undefined)}
        open={editing !== null}
        onClose={() => setEditing(null)}
      />
    </section>
  );
}

function TopicsTable({ topics, onOpen }: { topics: readonly Topic[]; onOpen: (topic: Topic) => void }) {
  return (
    <div className="table-scroll">
      <table className="table table-cards topics-table">
        <caption className="visually-hidden">Topics</caption>
        <TableHead columns={['Name', 'Shown to contacts', 'New contacts', 'Subscribers']} />
        <tbody>
          {topics.map((t) => (
            <tr key={t.id}>
              <td>
                <button type="button" className="button button-link topic-name" onClick={() => onOpen(t)}>
                  {t.name}
                </button>
                {t.description && <div className="muted topic-description">{t.description}</div>}
              </td>
              <td>
                <span className={`badge ${t.public ? 'badge-ok' : ''}`}>{t.public ? 'Public' : 'Internal'}</span>
              </td>
              <td>{t.defaultOn ? 'On' : 'Off'}</td>
              <td className="cell-number">{count.format(t.subscribers)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
