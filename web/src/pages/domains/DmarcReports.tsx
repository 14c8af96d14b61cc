import { useId } from 'react';
import type { DmarcSource, DmarcSummary } from '../../../../src/api.js';
import { useDmarcSummary } from '../../api/domains.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { LineChart } from '../overview/LineChart.js';
import '../overview/overview.css';
import { daysOf } from './dmarc-days.js';

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const count = (n: number) => n.toLocaleString();

/** The DMARC aggregate reports of one domain: pass rate, by day, the sources that send as it, the reporters. */
export function DmarcReports({ projectId, domainId, domain }: { projectId: string; domainId: string; domain: string }) {
  const summary = useDmarcSummary(projectId, domainId);
  const titleId = useId();
  return (
    <section className="stack-tight dmarc-reports" aria-labelledby={titleId}>
      <h3 id={titleId}>DMARC reports, last 30 days</h3>
      <QueryView
        query={summary}
        loading={<p className="muted">Loading reports…</p>}
        retry="small"
        isEmpty={(s) => s.reports === 0}
        empty={
          <p className="muted">
            No reports yet. {summary.data?.recommendation.text.replace(/^No reports in this period\. /, '')}
          </p>
        }
      >
        {(s) => <Reports summary={s} domain={domain} />}
      </QueryView>
    </section>
  );
}

function Reports({ summary: s, domain }: { summary: DmarcSummary; domain: string }) {
  const days = daysOf(s);
  const failing = s.sources.filter((x) => x.failed > 0);
  return (
    <>
      <dl className="stat-tiles">
        <Tile label="Messages reported" value={count(s.messages)} note={`in ${count(s.reports)} reports`} />
        <Tile
          label="Passed DMARC"
          value={s.passRate === null ? '–' : percent.format(s.passRate)}
          note={`${count(s.passed)} aligned by DKIM or SPF`}
          problem={s.passRate !== null && s.passRate < 0.98}
        />
        <Tile label="Sources" value={count(s.sourceCount)} note={`${count(failing.length)} failing`} />
        <Tile label="Policy in force" value={s.policy ? `p=${s.policy}` : '–'} note="as the newest report saw it" />
      </dl>
      <p className={s.recommendation.policy ? 'notice' : 'muted'}>{s.recommendation.text}</p>
      <LineChart
        title="Passed and failed messages"
        dates={days.map((d) => d.day)}
        series={[
          { label: 'Passed', tone: 'accent', values: days.map((d) => d.passed) },
          { label: 'Failed', tone: 'danger', values: days.map((d) => d.messages - d.passed) },
        ]}
        empty="No messages reported in these days."
      />
      <SourcesTable sources={s.sources} domain={domain} total={s.sourceCount} />
      <ReportersTable summary={s} />
    </>
  );
}

function Tile({ label, value, note, problem }: { label: string; value: string; note: string; problem?: boolean }) {
  return (
    <div className={`stat-tile${problem ? ' stat-problem' : ''}`}>
      <dt>{label}</dt>
      <dd className="stat-value">{value}</dd>
      <dd className="stat-note muted small">{note}</dd>
    </div>
  );
}

function SourcesTable({ sources, domain, total }: { sources: DmarcSource[]; domain: string; total: number }) {
  return (
    <div className="stack-tight">
      <h4>Sources sending as {domain}</h4>
      <p className="muted small">
        Failing sources come first: they send as your domain without passing DKIM or SPF aligned. Either they are
        services of yours to set up (sign with your domain’s DKIM key, or send through Postbox), or someone else is
        sending as you.
        {total > sources.length ? ` The ${sources.length} most relevant of ${count(total)} are shown.` : ''}
      </p>
      <div className="table-scroll">
        <table className="table stack-on-narrow">
          <caption className="visually-hidden">Sources sending as {domain}, failing ones first</caption>
          <TableHead columns={['Source', 'Messages', 'Failed', 'DKIM aligned', 'SPF aligned', 'Reported by']} />
          <tbody>
            {sources.map((x) => (
              <tr key={x.sourceIp}>
                <td data-label="Source">
                  <code>{x.sourceIp}</code>
                  <span className="muted small dmarc-host">{x.reverseDns ?? 'no reverse DNS'}</span>
                </td>
                <td data-label="Messages">{count(x.messages)}</td>
                <td data-label="Failed">
                  {x.failed > 0 ? <span className="badge badge-failed">{count(x.failed)}</span> : '0'}
                </td>
                <td data-label="DKIM aligned">{count(x.dkimAligned)}</td>
                <td data-label="SPF aligned">{count(x.spfAligned)}</td>
                <td data-label="Reported by">{x.reporters.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function ReportersTable({ summary: s }: { summary: DmarcSummary }) {
  return (
    <div className="stack-tight">
      <h4>Reporters</h4>
      <div className="table-scroll">
        <table className="table stack-on-narrow">
          <caption className="visually-hidden">Receivers that sent reports</caption>
          <TableHead columns={['Receiver', 'Reports', 'Messages', 'Passed']} />
          <tbody>
            {s.reporters.map((r) => (
              <tr key={r.orgName}>
                <td data-label="Receiver">
                  {r.orgName}
                  {r.email && <span className="muted small dmarc-host">{r.email}</span>}
                </td>
                <td data-label="Reports">{count(r.reports)}</td>
                <td data-label="Messages">{count(r.messages)}</td>
                <td data-label="Passed">{r.messages > 0 ? percent.format(r.passed / r.messages) : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
