import { policyAdvice } from '../../domain/dmarc-advice.js';
import type { AggregateReport } from '../../domain/dmarc-aggregate.js';
import type { DmarcPolicy } from '../../domain/dmarc-record.js';
import type { AppContext } from '../../platform/context.js';
import { validationError } from '../../platform/http/errors.js';
import { ContentLimitError } from '../../platform/untrusted/pool.js';
import { projectDomain, verifiedDomainsNamed } from '../domains/service.js';
import * as repo from './repo.js';
import type { DmarcSummary } from './schemas.js';

const DAY_MS = 86_400_000;
/** A summary covers at most a year of reports. */
const MAX_DAYS = 366;
/** Sources listed in a summary, each looked up in reverse DNS. */
const MAX_SOURCES = 50;

/** Whether a report about `reported` (its `policy_published` domain) concerns `domain`: the same or a subdomain. */
const concerns = (reported: string, domain: string) => reported === domain || reported.endsWith(`.${domain}`);

/**
 * A message to a domain's DMARC report address (`dmarc@bounces.<domain>`): its report read in the
 * worker pool under its bounds, and stored for each project that verified the domain. A report that
 * breaks a bound, is no aggregate report, or is about another domain is dropped with a line in the
 * log: telling the reporter would change nothing. Database faults throw (the listener answers 451).
 * Returns how many domains stored it.
 */
export async function receiveDmarcReport(ctx: AppContext, domain: string, raw: Buffer): Promise<number> {
  const targets = await verifiedDomainsNamed(ctx, domain);
  if (targets.length === 0) {
    ctx.log.info({ domain }, 'DMARC report dropped: the domain is verified by no project');
    return 0;
  }
  let report: AggregateReport;
  try {
    report = await ctx.untrusted.dmarcReport(raw);
  } catch (err) {
    if (!(err instanceof ContentLimitError)) throw err;
    ctx.log.warn({ domain, reason: err.reason, message: err.message }, 'DMARC report dropped');
    return 0;
  }
  if (!concerns(report.domain, domain)) {
    ctx.log.warn(
      { domain, reported: report.domain, org: report.orgName },
      'DMARC report dropped: about another domain',
    );
    return 0;
  }
  const now = ctx.clock.now();
  let stored = 0;
  for (const target of targets) {
    if (await ctx.db.transaction((tx) => repo.insertReport(tx, target.id, report, now))) stored++;
  }
  ctx.log.info(
    { domain, org: report.orgName, reportId: report.reportId, records: report.records.length, stored },
    'DMARC report received',
  );
  return stored;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

function range(ctx: AppContext, q: { from?: string; to?: string }): { from: string; to: string } {
  const to = q.to ?? day(ctx.clock.now());
  const from = q.from ?? day(new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS));
  if (from > to) throw validationError([{ field: 'from', message: 'from must not be after to', code: 'custom' }]);
  if ((Date.parse(to) - Date.parse(from)) / DAY_MS + 1 > MAX_DAYS)
    throw validationError([{ field: 'from', message: `A range covers at most ${MAX_DAYS} days`, code: 'custom' }]);
  return { from, to };
}

/**
 * What the reports received for a domain say over whole UTC days: volume and pass rate overall, per
 * day and per reporter, and the sources that send as the domain, failing ones first, with their
 * reverse DNS where the resolver answers.
 */
export async function dmarcSummary(
  ctx: AppContext,
  projectId: string,
  domainId: string,
  q: { from?: string; to?: string },
): Promise<DmarcSummary> {
  const domain = await projectDomain(ctx, projectId, domainId);
  const { from, to } = range(ctx, q);
  const r: repo.Range = {
    domainId,
    since: new Date(`${from}T00:00:00Z`),
    until: new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS),
  };
  const [days, reporters, sources, totals] = await Promise.all([
    repo.volumeByDay(ctx.db, r),
    repo.volumeByReporter(ctx.db, r),
    repo.sources(ctx.db, r, MAX_SOURCES),
    repo.totals(ctx.db, r),
  ]);
  const names = await Promise.all(sources.map((s) => ctx.dns.reverse(s.source_ip)));
  const messages = days.reduce((n, d) => n + d.messages, 0);
  const passed = days.reduce((n, d) => n + d.passed, 0);
  const policy = totals.policy as DmarcPolicy | null;
  return {
    domainId,
    domain: domain.domain,
    from,
    to,
    reports: totals.reports,
    messages,
    passed,
    passRate: messages > 0 ? passed / messages : null,
    policy,
    days,
    reporters: reporters.map((x) => ({
      orgName: x.org_name,
      email: x.email,
      reports: x.reports,
      messages: x.messages,
      passed: x.passed,
    })),
    sources: sources.map((s, i) => {
      const name = names[i]!;
      return {
        sourceIp: s.source_ip,
        reverseDns: name.ok && name.records[0] ? name.records[0].replace(/\.$/, '') : null,
        messages: s.messages,
        passed: s.passed,
        failed: s.messages - s.passed,
        dkimAligned: s.dkim_aligned,
        spfAligned: s.spf_aligned,
        quarantined: s.quarantined,
        rejected: s.rejected,
        reporters: s.reporters,
      };
    }),
    sourceCount: totals.sources,
    recommendation: policyAdvice(policy, days, to),
  };
}
