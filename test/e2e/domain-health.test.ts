import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Domain, DomainHealth } from '../../src/api.js';
import { run } from '../../src/platform/db/client.js';
import { projectAndDomain, useMailServer } from '../support/mail-server.js';
import { deliveredMessage, recordWhen, sendInbound, sendOk, UNKNOWN_ID } from '../support/sending.js';
import { expectBody, expectErrorEnvelope, type TestProject } from '../support/server.js';

// GET /domains/{id}/health: the bulk-sender rules of Gmail and Yahoo for a sender domain, from its
// DNS records as checked against the loopback DNS server and its mail of the last 7 days. The
// week's history is seeded in the emails table; one complaint arrives as a real abuse report.

const mail = useMailServer({ INBOUND_SMTP_PORT: '0' });
let main: TestProject;

beforeAll(async () => {
  main = await mail.server.project('health-other');
});

async function health(project: TestProject, domain: Domain): Promise<DomainHealth> {
  return expectBody(project.api.get(`/domains/${domain.id}/health`));
}
const statuses = (h: DomainHealth) => Object.fromEntries(h.items.map((i) => [i.key, i.status]));

/** `count` emails of the project from `from`, created `daysAgo` days ago, in the given outcome. */
async function seed(
  projectId: string,
  from: string,
  count: number,
  o: { daysAgo?: number; complained?: boolean; hardBounced?: boolean } = {},
) {
  const at = new Date(Date.now() - (o.daysAgo ?? 1) * 86_400_000);
  await run(
    mail.server.service.ctx.db,
    sql`
    insert into emails (id, project_id, type, status, from_email, to_email, subject, html, message_id,
      sent_at, complained_at, bounce_type, created_at, updated_at)
    select gen_random_uuid(), ${projectId}, 'MARKETING', ${o.hardBounced ? 'bounced' : 'sent'}, ${from},
      'r' || i || '@rcpt.health.test', 'News', '<p>News</p>', '<' || gen_random_uuid() || '@x>',
      ${at}, ${o.complained ? at : null}, ${o.hardBounced ? 'hard' : null}, ${at}, ${at}
    from generate_series(1, ${count}) i`,
  );
}

/** An ARF abuse report about a delivered message, as a feedback loop sends it. */
function abuseReport(to: string, domain: string, recipient: string, original: Buffer): string {
  const boundary = `----=_arf_${randomUUID()}`;
  return [
    'From: Feedback Loop <fbl@isp.example.net>',
    `To: ${to}`,
    'Subject: FW: News',
    `Message-ID: <${randomUUID()}@isp.example.net>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset="US-ASCII"',
    '',
    'This is an email abuse report.',
    '',
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: ExampleFBL/2.1',
    'Version: 1',
    `Original-Rcpt-To: <${recipient}>`,
    `Reported-Domain: ${domain}`,
    '',
    `--${boundary}`,
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    original.toString('utf8').replace(/\r\n$/, ''),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

describe('GET /domains/{id}/health', () => {
  it('passes every rule for a domain whose records are published and that sent nothing yet', async () => {
    const [p, domain] = await projectAndDomain(mail, 'health-clean', 'clean.health.test');
    const h = await health(p, domain);
    expect(h).toMatchObject({ domainId: domain.id, domain: 'clean.health.test', met: true });
    expect(h.items.map((i) => i.key)).toEqual([
      'dkim',
      'spf',
      'dmarc',
      'one-click-unsubscribe',
      'complaint-rate',
      'hard-bounce-rate',
    ]);
    expect(statuses(h)).toEqual({
      dkim: 'pass',
      spf: 'pass',
      dmarc: 'pass',
      'one-click-unsubscribe': 'pass',
      'complaint-rate': 'pass',
      'hard-bounce-rate': 'pass',
    });
    expect(h.items.find((i) => i.key === 'spf')!.detail).toContain('return path bounces.clean.health.test');
    expect(h.figures).toEqual({ sent: 0, complained: 0, hardBounced: 0, complaintRate: null, hardBounceRate: null });
    for (const i of h.items) expect(i.action).toBeNull();
  });

  it('fails the DNS rules once the records are gone, each with what to do', async () => {
    const [p, domain] = await projectAndDomain(mail, 'health-dns', 'dns.health.test');
    for (const r of domain.records) mail.dns.remove(r.name);
    await expectBody(p.api.get(`/domains/${domain.id}/verify`));
    const h = await health(p, domain);
    expect(h.met).toBe(false);
    expect(statuses(h)).toMatchObject({ dkim: 'fail', spf: 'fail', dmarc: 'fail' });
    for (const i of h.items.filter((x) => x.status === 'fail')) expect(i.action).toMatch(/^Publish/);
  });

  it('warns from 0.1 % complaints and fails from 0.3 %, over the last 7 days of this domain only', async () => {
    const name = 'rates.health.test';
    const [p, domain] = await projectAndDomain(mail, 'health-rates', name);
    // A week of mail: 998 delivered, 1 complained about (seeded), and one sent now and reported by a feedback loop.
    await seed(p.id, `news@${name}`, 998);
    await seed(p.id, `news@${name}`, 1, { complained: true });
    // Older than 7 days, or from another domain: not counted.
    await seed(p.id, `news@${name}`, 50, { daysAgo: 8, complained: true });
    await seed(p.id, 'news@elsewhere.health.test', 50, { complained: true });

    const data = await sendOk(p.api, {
      to: 'reader@rcpt.health.test',
      from: `news@${name}`,
      subject: 'News',
      body: '<p>News</p>',
      subscribed: true,
    });
    const id = data.emails[0]!.email;
    const message = await deliveredMessage(mail.sink, id);
    await recordWhen(p.api, id, (r) => r.status === 'sent');
    let h = await health(p, domain);
    expect(h.figures).toMatchObject({ sent: 1000, complained: 1, hardBounced: 0 });
    expect(statuses(h)['complaint-rate']).toBe('warn');
    expect(h.met).toBe(true);

    const abuse = `abuse@${name}`;
    await sendInbound(
      mail.server,
      { from: 'fbl@isp.example.net', to: [abuse] },
      abuseReport(abuse, name, 'reader@rcpt.health.test', message.raw),
    );
    await recordWhen(p.api, id, (r) => r.complainedAt !== null);
    h = await health(p, domain);
    expect(h.figures).toMatchObject({ sent: 1000, complained: 2 });
    expect(h.figures.complaintRate).toBeCloseTo(0.002, 6);
    expect(statuses(h)['complaint-rate']).toBe('warn');
    expect(h.items.find((i) => i.key === 'complaint-rate')!.detail).toContain('2 complaints of 1,000 sent');

    await seed(p.id, `news@${name}`, 2, { complained: true });
    h = await health(p, domain);
    expect(h.figures.complained).toBe(4);
    expect(statuses(h)['complaint-rate']).toBe('fail');
    expect(h.items.find((i) => i.key === 'complaint-rate')!.action).toMatch(/^Send only to people/);
    expect(h.met).toBe(false);
  });

  it('warns from 2 % hard bounces and fails from 5 %', async () => {
    const name = 'bounces.health.test';
    const [p, domain] = await projectAndDomain(mail, 'health-bounces', name);
    await seed(p.id, `news@${name}`, 970);
    await seed(p.id, `news@${name}`, 30, { hardBounced: true });
    expect(statuses(await health(p, domain))['hard-bounce-rate']).toBe('warn');
    await seed(p.id, `news@${name}`, 30, { hardBounced: true });
    const h = await health(p, domain);
    expect(h.figures).toMatchObject({ sent: 1030, hardBounced: 60 });
    expect(statuses(h)['hard-bounce-rate']).toBe('fail');
  });

  it("answers 404 for another project's domain or an unknown id, 422 for a non-uuid", async () => {
    const [, domain] = await projectAndDomain(mail, 'health-owner', 'owned.health.test');
    expectErrorEnvelope(await main.api.get(`/domains/${domain.id}/health`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.get(`/domains/${UNKNOWN_ID}/health`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.get('/domains/nope/health'), 422, 'VALIDATION_ERROR');
  });
});
