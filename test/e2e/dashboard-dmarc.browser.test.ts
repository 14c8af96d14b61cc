import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Domain } from '../../src/api.js';
import { freePort } from '../../src/platform/free-port.js';
import { hasChromium, screenshot, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { daysAgo, gz, mailReport, reportXml, zip } from '../support/dmarc-reports.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';

/**
 * The Domains page's bulk-sender checklist and DMARC reports in Debian's Chromium against the real
 * service (its own process): reports mailed to the inbound listener as receivers mail them, then
 * read on the page.
 */

const DOMAIN = 'news.dmarc-dash.test';

describe.skipIf(!hasChromium)('the bulk-sender checklist and DMARC reports on the Domains page', () => {
  let dns: DnsServer;
  let inboundPort: number;
  beforeAll(async () => {
    dns = await startDnsServer();
    inboundPort = await freePort();
  });
  afterAll(() => dns?.stop());
  const d = useDashboard({ env: () => ({ DNS_SERVERS: dns.address, INBOUND_SMTP_PORT: String(inboundPort) }) });
  const card = () => d.page.getByRole('article', { name: DOMAIN });
  const reports = () => card().getByRole('region', { name: 'DMARC reports, last 30 days' });
  const checklist = () => card().getByRole('region', { name: 'Gmail and Yahoo bulk-sender rules' });
  let domain: Domain;

  it('says there are no reports yet, and where they come from', async () => {
    domain = await verifiedDomain(d.api(), dns, DOMAIN);
    await d.page.goto(`${d.service.url}/app/domains`);
    await reports().getByText('No reports yet.', { exact: false }).waitFor();
    const dmarc = card()
      .getByRole('row')
      .filter({ hasText: `_dmarc.${DOMAIN}` });
    await dmarc.getByText(`rua=mailto:dmarc@bounces.${DOMAIN}`, { exact: false }).waitFor();
    // The bulk-sender rules, met: records published, nothing sent yet.
    await checklist().getByText('Every rule is met', { exact: false }).waitFor();
    const items = checklist().getByRole('listitem');
    expect(await items.count()).toBe(6);
    expect(await items.filter({ hasText: 'DMARC published' }).textContent()).toContain('Met');
    await d.expectAccessible('domains-dmarc-empty');
    await screenshot(d.page, 'domains-checklist');
  });

  it('shows the reports received over SMTP: pass rate, failing sources first, reporters', async () => {
    const to = `dmarc@bounces.${DOMAIN}`;
    const rows = (pass: number, fail: number) => [
      { ip: '203.0.113.5', count: pass, dkim: 'pass' as const, spf: 'pass' as const },
      { ip: '198.51.100.7', count: fail, dkim: 'fail' as const, spf: 'fail' as const },
    ];
    const google = reportXml({ org: 'google.test', id: 'g1', begin: daysAgo(2), rows: rows(900, 40), domain: DOMAIN });
    const yahoo = reportXml({
      org: 'yahoo.test',
      email: 'dmarc@yahoo.test',
      id: 'y1',
      begin: daysAgo(1),
      rows: rows(150, 10),
      domain: DOMAIN,
    });
    expect((await mailReport(inboundPort, to, gz('g1', google))).code).toBe(250);
    expect((await mailReport(inboundPort, to, zip('y1', yahoo))).code).toBe(250);

    await d.page.reload();
    const tiles = reports().locator('.stat-tile');
    await expect.poll(() => tiles.filter({ hasText: 'Messages reported' }).textContent()).toContain('1,100');
    expect(await tiles.filter({ hasText: 'Passed DMARC' }).textContent()).toContain('95.5%');
    await reports().getByText('Keep p=none until at least 98 % pass', { exact: false }).waitFor();

    const sources = reports().getByRole('table', { name: `Sources sending as ${DOMAIN}, failing ones first` });
    const first = sources.getByRole('row').nth(1);
    expect(await first.textContent()).toContain('198.51.100.7');
    expect(await first.textContent()).toContain('50');
    const reporters = reports().getByRole('table', { name: 'Receivers that sent reports' });
    await reporters.getByRole('row', { name: /google\.test/ }).waitFor();
    await reporters.getByRole('row', { name: /yahoo\.test/ }).waitFor();

    // The chart's numbers, by keyboard.
    const numbers = reports().getByText('Numbers per day');
    await numbers.focus();
    await d.page.keyboard.press('Enter');
    await reports().getByRole('table', { name: 'Passed and failed messages per day' }).waitFor();

    await d.expectAccessible('domains-dmarc');
    await reports().scrollIntoViewIfNeeded();
    await screenshot(d.page, 'domains-dmarc-reports');
  });

  it('says when the reports and the checklist cannot be loaded, and loads them on “Try again”', async () => {
    let fail = true;
    await d.page.route(`**/domains/${domain.id}/{dmarc,health}*`, (route) =>
      fail
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            headers: { 'retry-after': '1' },
            body: JSON.stringify({
              success: false,
              error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is not answering', statusCode: 503 },
            }),
          })
        : route.continue(),
    );
    await d.page.reload();
    await reports().getByRole('alert').waitFor({ timeout: 30_000 });
    await d.expectAccessible('domains-dmarc-error');
    fail = false;
    await reports()
      .getByRole('button', { name: /Try again/ })
      .click();
    await reports().getByRole('table', { name: 'Receivers that sent reports' }).waitFor();
    await d.page.unroute(`**/domains/${domain.id}/dmarc*`);
  });

  it('is usable at 375 px wide, light and dark', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    await d.page.reload();
    await reports().getByRole('table', { name: 'Receivers that sent reports' }).waitFor();
    expect(await sidewaysOverflow(d.page)).toBeLessThanOrEqual(0);
    await d.page.emulateMedia({ colorScheme: 'dark' });
    await d.expectAccessible('domains-dmarc-narrow-dark');
  });
});
