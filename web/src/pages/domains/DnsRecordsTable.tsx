import type { DnsRecord, Domain } from '../../../../src/api.js';
import { CopyButton } from '../../components/CopyButton.js';
import { TableHead } from '../../components/TableHead.js';
import { PURPOSE_LABELS, recordStatusLabel } from './domain-state.js';

export function DnsRecordsTable({ domain }: { domain: Domain }) {
  const byStep = [...domain.records].sort((a, b) => a.step - b.step);
  return (
    <div className="table-scroll">
      <table className="table dns-table stack-on-narrow">
        <caption className="visually-hidden">DNS records for {domain.domain}, in the order to publish them</caption>
        <TableHead columns={['Step', 'Record', 'Name', 'Value', 'Status']} />
        <tbody>
          {byStep.map((r) => (
            <DnsRecordRow key={`${r.purpose}-${r.name}`} record={r} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DnsRecordRow({ record }: { record: DnsRecord }) {
  const purpose = PURPOSE_LABELS[record.purpose];
  return (
    <tr>
      <td data-label="Step">{record.step}</td>
      <td data-label="Record">
        <span className="record-type">{record.type}</span>
        <span className="muted small record-purpose">
          {purpose}
          {record.required ? '' : ', recommended'}
        </span>
        <p className="small record-description">{record.description}</p>
      </td>
      <td data-label="Name">
        <div className="copyable">
          <code className="dns-text dns-name">{record.name}</code>
          <CopyButton value={record.name} label={`Copy name of the ${purpose} record`} />
        </div>
      </td>
      <td data-label="Value">
        <div className="copyable">
          <code className="dns-text dns-value">{record.value}</code>
          <CopyButton value={record.value} label={`Copy value of the ${purpose} record`} />
        </div>
      </td>
      <td data-label="Status">
        <span className={`badge badge-${record.status === 'verified' ? 'ok' : record.status}`}>
          {recordStatusLabel(record)}
        </span>
        {record.dmarc && (
          <p className="small">
            In force: p={record.dmarc.policy}
            {record.dmarc.percent < 100 ? ` on ${record.dmarc.percent} %` : ''}
          </p>
        )}
        {record.advice && <p className="small muted record-advice">{record.advice}</p>}
      </td>
    </tr>
  );
}
