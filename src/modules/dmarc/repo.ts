import { sql } from 'drizzle-orm';
import type { AggregateReport } from '../../domain/dmarc-aggregate.js';
import { type Executor, run } from '../../platform/db/client.js';

/** Every query on `dmarc_reports` and `dmarc_report_rows` lives here. */

/**
 * Stores a report for a domain with its rows; false when the reporter sent this report already
 * (same organisation and report id), which then stays as first stored.
 */
export async function insertReport(
  ex: Executor,
  domainId: string,
  report: AggregateReport,
  receivedAt: Date,
): Promise<boolean> {
  const r = await run<{ id: string }>(
    ex,
    sql`
    insert into dmarc_reports (domain_id, org_name, reporter_email, report_id, begins_at, ends_at, policy, received_at)
    values (${domainId}, ${report.orgName}, ${report.reporterEmail}, ${report.reportId},
      ${new Date(report.begins)}, ${new Date(report.ends)}, ${report.policy}, ${receivedAt})
    on conflict (domain_id, org_name, report_id) do nothing
    returning id`,
  );
  const id = r.rows[0]?.id;
  if (!id) return false;
  if (report.records.length === 0) return true;
  // One statement for all rows (up to 10,000): the rows travel as one JSON parameter.
  await run(
    ex,
    sql`
    insert into dmarc_report_rows (report_id, source_ip, count, disposition, dkim_aligned, spf_aligned, header_from, dkim, spf)
    select ${id}, x."sourceIp", x.count, x.disposition, x."dkimAligned", x."spfAligned", x."headerFrom", x.dkim, x.spf
      from jsonb_to_recordset(${JSON.stringify(report.records)}::jsonb) as x("sourceIp" text, count int,
        disposition text, "dkimAligned" boolean, "spfAligned" boolean, "headerFrom" text, dkim jsonb, spf jsonb)`,
  );
  return true;
}

export interface Range {
  domainId: string;
  /** Reports whose period begins in [since, until). */
  since: Date;
  until: Date;
}

const inRange = (q: Range) =>
  sql`r.domain_id = ${q.domainId} and r.begins_at >= ${q.since} and r.begins_at < ${q.until}`;

export interface DayRow {
  day: string;
  messages: number;
  passed: number;
}

export async function volumeByDay(ex: Executor, q: Range): Promise<DayRow[]> {
  const r = await run<DayRow>(
    ex,
    sql`
    select to_char(r.begins_at at time zone 'UTC', 'YYYY-MM-DD') as day,
           coalesce(sum(x.count), 0)::int as messages,
           coalesce(sum(x.count) filter (where x.dkim_aligned or x.spf_aligned), 0)::int as passed
      from dmarc_reports r left join dmarc_report_rows x on x.report_id = r.id
     where ${inRange(q)}
     group by 1 order by 1`,
  );
  return r.rows;
}

export interface ReporterRow {
  org_name: string;
  email: string | null;
  reports: number;
  messages: number;
  passed: number;
}

export async function volumeByReporter(ex: Executor, q: Range): Promise<ReporterRow[]> {
  const r = await run<ReporterRow>(
    ex,
    sql`
    with reports as (
      select r.id, r.org_name, r.reporter_email from dmarc_reports r where ${inRange(q)}
    )
    select reports.org_name, max(reports.reporter_email) as email, count(distinct reports.id)::int as reports,
           coalesce(sum(x.count), 0)::int as messages,
           coalesce(sum(x.count) filter (where x.dkim_aligned or x.spf_aligned), 0)::int as passed
      from reports left join dmarc_report_rows x on x.report_id = reports.id
     group by reports.org_name
     order by messages desc, reports.org_name
     limit 100`,
  );
  return r.rows;
}

export interface SourceRow {
  source_ip: string;
  messages: number;
  passed: number;
  dkim_aligned: number;
  spf_aligned: number;
  quarantined: number;
  rejected: number;
  reporters: string[];
}

/** The sources with failures first, then by volume. */
export async function sources(ex: Executor, q: Range, limit: number): Promise<SourceRow[]> {
  const r = await run<SourceRow>(
    ex,
    sql`
    select x.source_ip,
           sum(x.count)::int as messages,
           coalesce(sum(x.count) filter (where x.dkim_aligned or x.spf_aligned), 0)::int as passed,
           coalesce(sum(x.count) filter (where x.dkim_aligned), 0)::int as dkim_aligned,
           coalesce(sum(x.count) filter (where x.spf_aligned), 0)::int as spf_aligned,
           coalesce(sum(x.count) filter (where x.disposition = 'quarantine'), 0)::int as quarantined,
           coalesce(sum(x.count) filter (where x.disposition = 'reject'), 0)::int as rejected,
           array_agg(distinct r.org_name order by r.org_name) as reporters
      from dmarc_reports r join dmarc_report_rows x on x.report_id = r.id
     where ${inRange(q)}
     group by x.source_ip
     order by sum(x.count) - coalesce(sum(x.count) filter (where x.dkim_aligned or x.spf_aligned), 0) desc,
              sum(x.count) desc, x.source_ip
     limit ${limit}`,
  );
  return r.rows;
}

export async function totals(
  ex: Executor,
  q: Range,
): Promise<{ reports: number; sources: number; policy: string | null }> {
  const r = await run<{ reports: number; sources: number; policy: string | null }>(
    ex,
    sql`
    select (select count(*)::int from dmarc_reports r where ${inRange(q)}) as reports,
           (select count(distinct x.source_ip)::int from dmarc_reports r join dmarc_report_rows x on x.report_id = r.id
             where ${inRange(q)}) as sources,
           (select r.policy from dmarc_reports r where ${inRange(q)} order by r.begins_at desc, r.received_at desc
             limit 1) as policy`,
  );
  return r.rows[0]!;
}
