import type { DnsRecord, Domain } from '../../../../src/api.js';
import { CopyButton } from '../../components/CopyButton.js';
import { TableHead } from '../../components/TableHead.js';
import { PURPOSE_LABELS, recordStatusLabel } from './domain-state.js';

export function DnsRecordsTable({ domain }: { domain: Domain }) {
  return (
    <div className="table-scroll">
      <table className="table dns-table stack-on-narrow">
        <caption className="visually-hidden">DNS records for {domain.domain}</caption>
        <TableHead columns={['Type', 'Name', 'Value', 'Status']} />
        <tbody>
          {domain.records.map((r) => (
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
      <td data-label="Type">
        <span className="record-type">{record.type}</span>
        <span className="muted small record-purpose">{purpose}</span>
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
      </td>
    </tr>
  );
}
