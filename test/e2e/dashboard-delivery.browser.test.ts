import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedInvite, DeliverySettings, Project } from '../../src/api.js';
import {
  accessibilityViolations,
  hasChromium,
  screenshot,
  sidewaysOverflow,
  useDashboard,
} from '../support/browser.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { expectBody } from '../support/server.js';

/**
 * The delivery page in Debian's Chromium against the real service: empty at first; a warm-up for a
 * verified sender domain and a recipient domain's limit made through the page and read back from
 * the API; the API's refusal of a domain name shown beside its field; the default in flight; a
 * member's read-only view; 375 px, light and dark.
 */

const SENDER = 'news.delivery-dash.test';
const UNVERIFIED = 'pending.delivery-dash.test';
const MEMBER = { email: 'member@example.com', password: 'member-correct-horse' };
const DAY_MS = 86_400_000;

describe.skipIf(!hasChromium)('the delivery page in a browser', () => {
  let dns: DnsServer;
  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns?.stop());
  const d = useDashboard({ env: () => ({ DNS_SERVERS: dns.address }) });
  let other: BrowserContext | undefined;
  afterAll(() => other?.close());

  const dialog = () => d.page.getByRole('dialog');
  const settings = async () => (await expectBody(d.api().get('/delivery-settings'))) as DeliverySettings;
  const limitRows = () => d.page.getByRole('table', { name: 'Recipient domain limits' }).getByRole('row');
  const settled = async (page: Page) => {
    await page.getByRole('heading', { name: 'Delivery', level: 1 }).waitFor();
    await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
  };

  it('starts empty', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Delivery' }).click();
    await settled(d.page);
    expect(new URL(d.page.url()).pathname).toBe('/app/delivery');
    await d.page.getByRole('heading', { name: 'No warm-ups' }).waitFor();
    await d.page.getByRole('heading', { name: 'No recipient domain limits' }).waitFor();
    await d.expectAccessible('delivery-empty');
  });

  it('adds a warm-up for a verified sender domain, checked beside the fields first', async () => {
    await verifiedDomain(d.api(), dns, SENDER);
    await expectBody(d.api().post('/domains', { domain: UNVERIFIED }), 201);
    await d.page.reload();
    await d.page.getByRole('button', { name: 'Add warm-up' }).click();
    await dialog().getByRole('heading', { name: 'Add a warm-up' }).waitFor();
    // Only verified domains send mail, so only they are offered.
    const domain = dialog().getByLabel('Sender domain');
    await expect.poll(() => domain.locator('option').allTextContents()).toEqual([SENDER]);
    expect(await dialog().getByLabel('Start date').inputValue()).toBe(new Date().toISOString().slice(0, 10));

    const first = dialog().getByLabel('Campaign emails on the first day');
    const full = dialog().getByLabel('Full daily volume');
    await first.fill('200');
    await full.fill('150');
    await dialog().getByRole('button', { name: 'Add warm-up' }).click();
    await dialog().getByText('More than the first day’s volume, or there is nothing to warm up.').waitFor();
    expect(await full.getAttribute('aria-invalid')).toBe('true');

    // Started two days ago: today is its third day, 200 × 1.5² allowed.
    const startedOn = new Date(Date.now() - 2 * DAY_MS).toISOString().slice(0, 10);
    await full.fill('100,000');
    await dialog().getByLabel('Daily growth').fill('50');
    await dialog().getByLabel('Start date').fill(startedOn);
    await dialog().getByText('200 a day at first, 50% more each day, until 100,000 a day', { exact: false }).waitFor();
    await d.expectAccessible('delivery-warmup-new');
    await dialog().getByRole('button', { name: 'Add warm-up' }).click();
    await dialog().waitFor({ state: 'hidden' });

    const card = d.page.getByRole('list', { name: 'Warm-ups' }).getByRole('listitem');
    await card.getByText('Day 3 of the warm-up: 0 of 450 campaign emails sent today').waitFor();
    expect(await card.getByRole('heading').textContent()).toBe(SENDER);
    expect((await settings()).warmups).toEqual([
      {
        domain: SENDER,
        startVolume: 200,
        dailyGrowth: 1.5,
        fullVolume: 100_000,
        startedOn,
        today: { day: 3, cap: 450, sent: 0 },
      },
    ]);

    // The one verified domain is warming up: nothing is left to offer.
    await d.page.getByRole('button', { name: 'Add warm-up' }).click();
    await dialog().getByText('No verified sender domain is left to warm up.', { exact: false }).waitFor();
    await dialog().getByRole('button', { name: 'Close' }).click();
    await dialog().waitFor({ state: 'hidden' });
  });

  it('adds a recipient domain limit, showing the API’s refusal beside the field', async () => {
    await d.page.getByRole('button', { name: 'Add limit' }).click();
    const domain = dialog().getByLabel('Recipient domain');
    await domain.fill('gmail');
    await dialog().getByLabel('Messages a minute').fill('600');
    await dialog().getByRole('button', { name: 'Add limit' }).click();
    // The form of the name is the server's to judge (`recipientDomains.0.domain`).
    await dialog().getByText('Must be a full domain name such as example.com').waitFor();
    expect(await domain.getAttribute('aria-invalid')).toBe('true');
    expect(await domain.getAttribute('aria-describedby')).toBeTruthy();
    await d.expectAccessible('delivery-limit-error');

    await domain.fill('GMail.com');
    await dialog().getByLabel('Messages in flight').fill('4');
    await dialog().getByRole('button', { name: 'Add limit' }).click();
    await dialog().waitFor({ state: 'hidden' });
    await expect.poll(() => limitRows().count()).toBe(2);
    expect(await limitRows().nth(1).textContent()).toContain('gmail.com600 a minute4');
    expect((await settings()).recipientDomains).toEqual([{ domain: 'gmail.com', perMinute: 600, concurrency: 4 }]);
  });

  it('adds one by keyboard, edits one, removes one after asking, and sets the default in flight', async () => {
    await d.page.getByRole('button', { name: 'Add limit' }).focus();
    await d.page.keyboard.press('Enter');
    // The dialog takes focus to its first field.
    await expect
      .poll(() =>
        dialog()
          .getByLabel('Recipient domain')
          .evaluate((e) => e === document.activeElement),
      )
      .toBe(true);
    await d.page.keyboard.type('outlook.com');
    await d.page.keyboard.press('Tab');
    await d.page.keyboard.type('300');
    await d.page.keyboard.press('Enter');
    await dialog().waitFor({ state: 'hidden' });
    await expect.poll(() => limitRows().count()).toBe(3);

    await d.page.getByRole('button', { name: 'Edit the limit of gmail.com' }).click();
    expect(await dialog().getByLabel('Messages a minute').inputValue()).toBe('600');
    await dialog().getByLabel('Messages a minute').fill('1,200');
    await dialog().getByRole('button', { name: 'Save limit' }).click();
    await dialog().waitFor({ state: 'hidden' });
    await expect.poll(() => limitRows().nth(1).textContent()).toContain('1,200 a minute');

    await d.page.getByRole('button', { name: 'Remove the limit of outlook.com' }).click();
    await dialog().getByRole('button', { name: 'Remove limit' }).click();
    await dialog().waitFor({ state: 'hidden' });
    await expect.poll(() => limitRows().count()).toBe(2);

    const fallback = d.page.getByLabel('In flight per domain, by default');
    await fallback.fill('0');
    await d.page.getByRole('button', { name: 'Save default' }).click();
    await d.page.getByText('Enter a whole number of at least 1.').waitFor();
    await fallback.fill('8');
    await d.page.getByRole('button', { name: 'Save default' }).click();
    await d.page.getByText('Saved.').waitFor();

    expect(await settings()).toMatchObject({
      defaultConcurrency: 8,
      recipientDomains: [{ domain: 'gmail.com', perMinute: 1200, concurrency: 4 }],
      warmups: [{ domain: SENDER }],
    });
    await d.expectAccessible('delivery');
  });

  it('fits 375 px without sideways scrolling, light and dark', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    await d.page.goto(`${d.service.url}/app/delivery`);
    await settled(d.page);
    // Each scan covers 1280 px light and 375 px dark; the overflow is measured in both schemes here.
    for (const scheme of ['light', 'dark'] as const) {
      await d.page.emulateMedia({ colorScheme: scheme });
      expect(await sidewaysOverflow(d.page), scheme).toBeLessThanOrEqual(0);
      // The limits, one block per row on a phone.
      await d.page.locator('.limits-table tbody tr').first().scrollIntoViewIfNeeded();
      await screenshot(d.page, `delivery-narrow-limits-${scheme}`);
    }
    await d.expectAccessible('delivery-narrow-dark');
    await d.page.getByRole('button', { name: 'Add limit' }).click();
    expect(await sidewaysOverflow(d.page)).toBeLessThanOrEqual(0);
    await d.expectAccessible('delivery-limit-narrow-dark');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'light' });
  });

  it('shows a member the settings without the controls', async () => {
    const [project] = (await (await d.page.request.get(`${d.service.url}/users/@me/projects`)).json()) as Project[];
    const invited = await d.page.request.post(`${d.service.url}/projects/${project!.id}/invites`, {
      data: { email: MEMBER.email, role: 'member' },
    });
    expect(invited.status(), await invited.text()).toBe(201);
    const token = new URL(((await invited.json()) as CreatedInvite).url).pathname.split('/').pop()!;
    other = await d.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const accepted = await other.request.post(`${d.service.url}/invites/${token}/accept`, {
      data: { password: MEMBER.password },
    });
    expect(accepted.status(), await accepted.text()).toBe(200);

    const guest = await other.newPage();
    guest.setDefaultTimeout(20_000);
    await guest.goto(`${d.service.url}/app/delivery`);
    await settled(guest);
    await guest.getByText('only an admin or owner of the project can change them', { exact: false }).waitFor();
    await guest.getByText('Day 3 of the warm-up', { exact: false }).waitFor();
    await guest.getByText('8 in flight at once').waitFor();
    expect(await guest.getByRole('table', { name: 'Recipient domain limits' }).getByRole('row').count()).toBe(2);
    for (const name of ['Add warm-up', 'Add limit', 'Save default', `Remove the warm-up of ${SENDER}`]) {
      expect(await guest.getByRole('button', { name }).count(), name).toBe(0);
    }
    expect(await guest.getByRole('button', { name: /^Edit the limit/ }).count()).toBe(0);
    expect(await accessibilityViolations(guest)).toEqual([]);
    await screenshot(guest, 'delivery-member');
  });

  it('removes the warm-up after asking', async () => {
    await d.page.getByRole('button', { name: `Remove the warm-up of ${SENDER}` }).click();
    await dialog()
      .getByRole('heading', { name: `Remove the warm-up of ${SENDER}?` })
      .waitFor();
    await dialog().getByRole('button', { name: 'Remove warm-up' }).click();
    await d.page.getByRole('heading', { name: 'No warm-ups' }).waitFor();
    expect((await settings()).warmups).toEqual([]);
  });
});
