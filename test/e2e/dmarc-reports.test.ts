import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Domain } from '../../src/api.js';
import type { DmarcSummary } from '../../src/modules/dmarc/schemas.js';
import { run } from '../../src/platform/db/client.js';
import {
  type Attachment,
  day,
  daysAgo,
  gz,
  mailReport as mailTo,
  plain,
  today,
  reportXml as xmlOf,
  zip,
} from '../support/dmarc-reports.js';
import { projectAndDomain, useMailServer } from '../support/mail-server.js';
import { UNKNOWN_ID } from '../support/sending.js';
import { expectBody, expectErrorEnvelope, type TestProject } from '../support/server.js';

// DMARC aggregate reports mailed, as receivers mail them, to the address in the domain's DMARC
// record; they reach the service through its real inbound SMTP listener and are read back through
// GET /domains/{id}/dmarc.

const DOMAIN = 'dmarc.reports.test';
const REPORT_ADDRESS = `dmarc@bounces.${DOMAIN}`;

let main: TestProject;
let other: TestProject;
let domain: Domain;

const mail = useMailServer({ INBOUND_SMTP_PORT: '0' });

beforeAll(async () => {
  [main, domain] = await projectAndDomain(mail, 'dmarc-main', DOMAIN);
  other = await mail.server.project('dmarc-other');
  mail.dns.set('5.113.0.203.in-addr.arpa', 'PTR', ['relay.postbox.test']);
});

/** A report about DOMAIN unless it says otherwise. */
const reportXml = (o: Omit<Parameters<typeof xmlOf>[0], 'domain'> & { domain?: string }) =>
  xmlOf({ ...o, domain: o.domain ?? DOMAIN });

const mailReport = (file: Attachment, to = REPORT_ADDRESS) => mailTo(mail.server.service.inboundSmtpPort!, to, file);

async function summary(query = '', project: TestProject = main): Promise<DmarcSummary> {
  return expectBody(project.api.get(`/domains/${domain.id}/dmarc${query}`));
}

const storedReports = async () =>
  (
    await run(
      mail.server.service.ctx.db,
      sql`select count(*)::int as n from dmarc_reports where domain_id = ${domain.id}`,
    )
  ).rows[0].n as number;

describe('DMARC aggregate reports', () => {
  it('lists the DMARC record with the report address that reaches the listener', () => {
    const record = domain.records.find((r) => r.purpose === 'dmarc')!;
    expect(record.value).toBe(`v=DMARC1; p=none; rua=mailto:${REPORT_ADDRESS}`);
    expect(record.status).toBe('verified');
  });

  it('summarises an empty period, with how to get reports', async () => {
    const empty = await summary();
    expect(empty).toMatchObject({
      domainId: domain.id,
      domain: DOMAIN,
      to: day(today()),
      from: day(daysAgo(29)),
      reports: 0,
      messages: 0,
      passed: 0,
      passRate: null,
      policy: null,
      days: [],
      reporters: [],
      sources: [],
      sourceCount: 0,
      recommendation: { policy: null },
    });
    expect(empty.recommendation.text).toMatch(/^No reports in this period/);
  });

  it('reads .xml.gz, .zip and .xml reports received over SMTP and summarises them, failing sources first', async () => {
    const google1 = reportXml({
      org: 'google.test',
      id: 'g-1',
      begin: daysAgo(2),
      rows: [
        { ip: '203.0.113.5', count: 900, dkim: 'pass', spf: 'pass' },
        { ip: '198.51.100.7', count: 40, dkim: 'fail', spf: 'fail' },
      ],
    });
    const google2 = reportXml({
      org: 'google.test',
      id: 'g-2',
      begin: daysAgo(1),
      rows: [
        { ip: '203.0.113.5', count: 100, dkim: 'pass', spf: 'fail' },
        { ip: '2001:db8::25', count: 10, dkim: 'fail', spf: 'fail', disposition: 'quarantine' },
      ],
    });
    const yahoo = reportXml({
      org: 'Yahoo &amp; Co',
      email: 'dmarc@yahoo.test',
      id: 'y-1',
      begin: daysAgo(1),
      rows: [{ ip: '203.0.113.5', count: 50, dkim: 'fail', spf: 'pass' }],
    });
    expect((await mailReport(gz('google-1', google1))).code).toBe(250);
    expect((await mailReport(zip('google-2', google2))).code).toBe(250);
    expect((await mailReport(plain('yahoo-1', yahoo))).code).toBe(250);
    // Sent again (a receiver retrying): kept once.
    expect((await mailReport(gz('google-1', google1))).code).toBe(250);

    const s = await summary();
    expect(s).toMatchObject({ reports: 3, messages: 1100, passed: 1050, policy: 'none', sourceCount: 3 });
    expect(s.passRate).toBeCloseTo(1050 / 1100, 6);
    expect(s.days).toEqual([
      { day: day(daysAgo(2)), messages: 940, passed: 900 },
      { day: day(daysAgo(1)), messages: 160, passed: 150 },
    ]);
    expect(s.reporters).toEqual([
      { orgName: 'google.test', email: 'noreply-dmarc-support@google.test', reports: 2, messages: 1050, passed: 1000 },
      { orgName: 'Yahoo & Co', email: 'dmarc@yahoo.test', reports: 1, messages: 50, passed: 50 },
    ]);
    // These send as the domain without passing: first.
    expect(s.sources).toEqual([
      {
        sourceIp: '198.51.100.7',
        reverseDns: null,
        messages: 40,
        passed: 0,
        failed: 40,
        dkimAligned: 0,
        spfAligned: 0,
        quarantined: 0,
        rejected: 0,
        reporters: ['google.test'],
      },
      {
        sourceIp: '2001:db8::25',
        reverseDns: null,
        messages: 10,
        passed: 0,
        failed: 10,
        dkimAligned: 0,
        spfAligned: 0,
        quarantined: 10,
        rejected: 0,
        reporters: ['google.test'],
      },
      {
        sourceIp: '203.0.113.5',
        reverseDns: 'relay.postbox.test',
        messages: 1050,
        passed: 1050,
        failed: 0,
        dkimAligned: 1000,
        spfAligned: 950,
        quarantined: 0,
        rejected: 0,
        reporters: ['Yahoo & Co', 'google.test'],
      },
    ]);
    expect(s.recommendation.policy).toBeNull();
    expect(s.recommendation.text).toMatch(/^Keep p=none until at least 98 % pass on each of 14 days/);

    // A narrower range: only the newest day.
    const lastDay = await summary(`?from=${day(daysAgo(1))}&to=${day(daysAgo(1))}`);
    expect(lastDay).toMatchObject({ reports: 2, messages: 160, passed: 150, sourceCount: 2 });
  });

  it('advises moving to quarantine after 14 days at 98 % or more', async () => {
    const [owner, steady] = await projectAndDomain(mail, 'dmarc-steady', 'steady.reports.test');
    for (let i = 1; i <= 14; i++) {
      const xml = reportXml({
        org: 'google.test',
        id: `steady-${i}`,
        begin: daysAgo(i),
        domain: 'steady.reports.test',
        rows: [
          { ip: '203.0.113.5', count: 99, dkim: 'pass', spf: 'pass' },
          { ip: '198.51.100.7', count: 1, dkim: 'fail', spf: 'fail' },
        ],
      });
      expect((await mailReport(gz(`steady-${i}`, xml), 'dmarc@bounces.steady.reports.test')).code).toBe(250);
    }
    const s = (await expectBody(owner.api.get(`/domains/${steady.id}/dmarc`))) as DmarcSummary;
    expect(s.days).toHaveLength(14);
    expect(s.recommendation.policy).toBe('quarantine');
    expect(s.recommendation.text).toMatch(/move the policy from p=none to p=quarantine/);
    // Another project's domain is not this one's.
    expectErrorEnvelope(await main.api.get(`/domains/${steady.id}/dmarc`), 404, 'NOT_FOUND');
  });

  it('answers 404 for another project, an unknown id; 422 for a bad range', async () => {
    expectErrorEnvelope(await other.api.get(`/domains/${domain.id}/dmarc`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.get(`/domains/${UNKNOWN_ID}/dmarc`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.get('/domains/nope/dmarc'), 422, 'VALIDATION_ERROR');
    const backwards = await main.api.get(`/domains/${domain.id}/dmarc?from=${day(today())}&to=${day(daysAgo(3))}`);
    expectErrorEnvelope(backwards, 422, 'VALIDATION_ERROR');
    expect(backwards.body.error.errors[0]).toMatchObject({ field: 'from' });
    for (const notADay of ['2026-02-30', '2026-13-45', '0000-01-01', 'yesterday']) {
      const res = await main.api.get(`/domains/${domain.id}/dmarc?from=${notADay}`);
      expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field: 'from' });
    }
    const tooLong = await main.api.get(`/domains/${domain.id}/dmarc?from=2020-01-01&to=2026-01-01`);
    expectErrorEnvelope(tooLong, 422, 'VALIDATION_ERROR');
  });
});

describe('hostile reports', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Runs `work` while GET /health is asked in turn; every answer must come within a second. */
  async function whileProbingHealth<T>(work: () => Promise<T>): Promise<T> {
    let done = false;
    const latencies: number[] = [];
    const probe = (async () => {
      while (!done) {
        const started = performance.now();
        const res = await fetch(`${mail.server.url}/health`);
        await res.text();
        latencies.push(performance.now() - started);
        expect(res.status).toBe(200);
        await sleep(20);
      }
    })();
    try {
      return await work();
    } finally {
      done = true;
      await probe;
      expect(latencies.length).toBeGreaterThanOrEqual(1);
      expect(Math.max(...latencies), latencies.map(Math.round).join(' ')).toBeLessThan(1_000);
    }
  }

  const valid = (id: string) =>
    reportXml({
      org: 'hostile.test',
      id,
      begin: daysAgo(1),
      rows: [{ ip: '192.0.2.1', count: 1, dkim: 'pass', spf: 'pass' }],
    });

  it.each([
    [
      'an XML bomb (entities defined in a document type)',
      () =>
        plain(
          'bomb',
          `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
            { length: 9 },
            (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
          ).join('')}]><feedback><report_metadata><org_name>&lol9;</org_name></report_metadata></feedback>`,
        ),
    ],
    [
      'a report that expands to 40 MB',
      () => {
        const xml = valid('big');
        const at = xml.indexOf('</feedback>');
        return gz('big', `${xml.slice(0, at)}<!--${' '.repeat(40 * 1024 * 1024)}-->${xml.slice(at)}`);
      },
    ],
    [
      'a truncated zip archive',
      () => {
        const whole = zip('truncated', valid('truncated'));
        return { ...whole, content: whole.content.subarray(0, Math.floor(whole.content.length / 2)) };
      },
    ],
    [
      'a truncated gzip file',
      () => ({ ...gz('cut', valid('cut')), content: gz('cut', valid('cut')).content.subarray(0, 60) }),
    ],
    [
      'a report with more than 10,000 records',
      () =>
        gz(
          'many',
          reportXml({
            org: 'hostile.test',
            id: 'many',
            begin: daysAgo(1),
            rows: Array.from({ length: 10_001 }, () => ({
              ip: '192.0.2.9',
              count: 1,
              dkim: 'pass' as const,
              spf: 'pass' as const,
            })),
          }),
        ),
    ],
    ['XML that is not well-formed', () => plain('broken', '<feedback><report_metadata>')],
    [
      'a report about another domain',
      () =>
        gz(
          'elsewhere',
          reportXml({ org: 'hostile.test', id: 'elsewhere', begin: daysAgo(1), domain: 'victim.test', rows: [] }),
        ),
    ],
  ])('drops %s (250, nothing stored) without stalling /health', async (_name, make) => {
    const before = await storedReports();
    // Made first: the test runs in the server's process, so making it while probing would block both.
    const file = make();
    const answer = await whileProbingHealth(() => mailReport(file));
    expect(answer.code, answer.response).toBe(250);
    expect(await storedReports()).toBe(before);
  });

  it('still takes a good report afterwards', async () => {
    const before = await storedReports();
    expect((await mailReport(gz('after', valid('after')))).code).toBe(250);
    expect(await storedReports()).toBe(before + 1);
  });
});
