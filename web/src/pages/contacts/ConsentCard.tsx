import { Link } from 'react-router-dom';
import { type ConsentRecord, useContactConsent } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { useTopicList } from '../../api/topics.js';
import { Alert } from '../../components/Alert.js';
import { formatDateTime } from '../../format/dates.js';
import { changeLabel, howLabel, sourceLink, whoLabel } from './consent-format.js';

/** The contact's consent history (GET /contacts/{id}/consent): what an auditor asks to see. */
export function ConsentCard({ projectId, contactId }: { projectId: string; contactId: string }) {
  const consent = useContactConsent(projectId, contactId);
  const list = consent.data?.pages.flatMap((p) => p.data) ?? [];
  const topics = useTopicList(projectId);
  const topicName = (id: string) => (topics.data ? (topics.data.find((t) => t.id === id)?.name ?? null) : undefined);
  return (
    <section className="card stack" aria-labelledby="consent-title" aria-busy={consent.isFetching || undefined}>
      <h2 id="consent-title">Consent history</h2>
      {consent.isPending ? (
        <p className="muted">Loading the consent history…</p>
      ) : consent.isError && list.length === 0 ? (
        <Alert>{errorMessage(consent.error)}</Alert>
      ) : list.length === 0 ? (
        <p className="muted">
          Nothing on record: this contact was added by a tracked event or a send, and its subscription has not changed
          since.
        </p>
      ) : (
        <ol className="timeline" aria-label="Consent history, newest first">
          {list.map((r) => (
            <ConsentItem key={r.id} record={r} topicName={r.topicId ? topicName(r.topicId) : undefined} />
          ))}
        </ol>
      )}
      {consent.hasNextPage && (
        <button
          type="button"
          className="button"
          onClick={() => consent.fetchNextPage()}
          disabled={consent.isFetchingNextPage}
        >
          {consent.isFetchingNextPage ? 'Loading…' : 'Show older changes'}
        </button>
      )}
      {consent.isFetchNextPageError && <Alert>{errorMessage(consent.error)}</Alert>}
    </section>
  );
}

function ConsentItem({ record: r, topicName }: { record: ConsentRecord; topicName: string | null | undefined }) {
  const link = sourceLink(r);
  return (
    <li className="timeline-item">
      <div className="timeline-head">
        <strong>{changeLabel(r, topicName)}</strong>
        <time dateTime={r.at} className="muted small">
          {formatDateTime(r.at)}
        </time>
      </div>
      <dl className="timeline-data">
        <div>
          <dt>How</dt>
          <dd>
            {howLabel(r)}
            {link && (
              <>
                {' · '}
                <Link to={link.to}>{link.label}</Link>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>By</dt>
          <dd>{whoLabel(r)}</dd>
        </div>
        {r.ip && (
          <div>
            <dt>From</dt>
            <dd>
              {r.ip}
              {r.userAgent && <span className="muted"> · {r.userAgent}</span>}
            </dd>
          </div>
        )}
        {r.consentText && (
          <div>
            <dt>Shown</dt>
            <dd>
              <q>{r.consentText}</q>
            </dd>
          </div>
        )}
      </dl>
    </li>
  );
}
