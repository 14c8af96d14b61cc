import type { Domain } from '../../../../src/api.js';
import { useVerifyDomain } from '../../api/domains.js';
import { errorMessage } from '../../api/errors.js';
import { Alert } from '../../components/Alert.js';
import { formatDateTime } from '../../format/dates.js';
import { BulkSenderChecklist } from './BulkSenderChecklist.js';
import { DmarcReports } from './DmarcReports.js';
import { DnsRecordsTable } from './DnsRecordsTable.js';
import { sendingState } from './domain-state.js';

export function DomainCard({
  projectId,
  domain,
  onDelete,
}: {
  projectId: string;
  domain: Domain;
  /** Absent for a member: deleting a domain takes an admin. */
  onDelete?: () => void;
}) {
  const verify = useVerifyDomain(projectId);
  const verifyText = verify.isPending ? 'Checking…' : 'Verify now';
  const state = sendingState(domain);
  const titleId = `domain-${domain.id}`;
  // With the inbound listener on, the recommended DMARC record names the address reports come to.
  const receivesReports = domain.records.some((r) => r.purpose === 'dmarc' && r.value.includes('rua='));

  return (
    <article className="card domain-card" aria-labelledby={titleId}>
      <div className="domain-card-head">
        <div>
          <h2 id={titleId} className="domain-name">
            {domain.domain}
          </h2>
          <p className={`status status-${state.tone}`}>
            <span className="status-dot" aria-hidden="true" />
            {state.text}
          </p>
          <p className="muted small">
            {domain.checkedAt ? `Last checked ${formatDateTime(domain.checkedAt)}` : 'Never checked'}
          </p>
        </div>
        <div className="domain-actions">
          <button
            type="button"
            className="button"
            onClick={() => verify.mutate(domain.id)}
            disabled={verify.isPending}
            // The name starts with the words on the button, so saying them (voice control) finds it.
            aria-label={`${verifyText}: ${domain.domain}`}
          >
            {verifyText}
          </button>
          {onDelete && (
            <button
              type="button"
              className="button button-danger"
              onClick={onDelete}
              aria-label={`Delete ${domain.domain}`}
            >
              Delete
            </button>
          )}
        </div>
      </div>
      <div aria-live="polite">{verify.isError && <Alert>{errorMessage(verify.error)}</Alert>}</div>
      <BulkSenderChecklist projectId={projectId} domainId={domain.id} />
      <DnsRecordsTable domain={domain} />
      {receivesReports ? (
        <DmarcReports projectId={projectId} domainId={domain.id} domain={domain.domain} />
      ) : (
        <p className="muted small dmarc-reports">
          DMARC reports come to Postbox through its inbound SMTP listener: set <code>INBOUND_SMTP_PORT</code> and the
          DMARC record above names the address that takes them.
        </p>
      )}
    </article>
  );
}
