import { useId } from 'react';
import type { RuleItem } from '../../../../src/api.js';
import { useDomainHealth } from '../../api/domains.js';
import { QueryView } from '../../components/QueryView.js';

const STATUS_WORDS: Record<RuleItem['status'], string> = { pass: 'Met', warn: 'Warning', fail: 'Not met' };
const BADGE: Record<RuleItem['status'], string> = { pass: 'badge-ok', warn: 'badge-pending', fail: 'badge-failed' };

/** Gmail's and Yahoo's rules for bulk senders, item by item, with what to do about each. */
export function BulkSenderChecklist({ projectId, domainId }: { projectId: string; domainId: string }) {
  const health = useDomainHealth(projectId, domainId);
  const titleId = useId();
  return (
    <section className="stack-tight domain-section" aria-labelledby={titleId}>
      <h3 id={titleId}>Gmail and Yahoo bulk-sender rules</h3>
      <QueryView query={health} loading={<p className="muted">Loading the checklist…</p>} retry="small">
        {(h) => (
          <>
            <p className={`status status-${h.met ? 'ok' : 'problem'}`}>
              <span className="status-dot" aria-hidden="true" />
              {h.met
                ? 'Every rule is met (complaints and bounces over the last 7 days).'
                : 'Some rules are not met: mail to Gmail and Yahoo may be refused or filed as spam.'}
            </p>
            <ul className="rule-list">
              {h.items.map((i) => (
                <li key={i.key} className="rule-item">
                  <span className={`badge ${BADGE[i.status]}`}>{STATUS_WORDS[i.status]}</span>
                  <div>
                    <p className="rule-title">{i.title}</p>
                    <p className="small muted">{i.detail}</p>
                    {i.action && <p className="small rule-action">{i.action}</p>}
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
      </QueryView>
    </section>
  );
}
