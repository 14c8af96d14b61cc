import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Domain } from '../../src/api.js';
import { accessibilityViolations, hasChromium, launchChromium, screenshot } from '../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { publishRecords } from '../support/domains.js';
import { type ChildServer, client, printedKeys, spawnService } from '../support/server.js';

/**
 * The dashboard in Debian's Chromium against the real service (its own process, as `npm start`
 * runs it) and a loopback DNS server: what a new user does in their first minutes, by role and
 * label as a person (or a screen reader) finds things.
 */

const OWNER = { email: 'owner@example.com', password: 'owner-correct-horse' };

let db: TestDatabase;
let dns: DnsServer;
let service: ChildServer;
let browser: Browser;
let page: Page;

const setupToken = () => /setup token:\n\s+(\S+)/.exec(service.output())![1]!;
const api = () => client(service.url, printedKeys(service.output()).secretKey);

async function expectAccessible(name: string) {
  expect(await accessibilityViolations(page), name).toEqual([]);
  await screenshot(page, name);
}

describe.skipIf(!hasChromium)('the dashboard in a browser', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    dns = await startDnsServer();
    service = await spawnService({ ...db.env, REDIS_URL: '', DNS_SERVERS: dns.address });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.kill();
    await dns?.stop();
    await db?.drop();
  });

  it('first run: / leads to the owner setup, which needs the printed token', async () => {
    await page.goto(`${service.url}/`);
    expect(new URL(page.url()).pathname).toMatch(/^\/app\//);
    await page.getByRole('heading', { name: 'Create the owner account' }).waitFor();
    await expectAccessible('setup');

    await page.getByLabel('Setup token').fill('not-the-token');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    // The server's refusal, next to the field it is about.
    await expect.poll(() => page.getByLabel('Setup token').getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Not the setup token printed by npm start').waitFor();

    await page.getByLabel('Setup token').fill(setupToken());
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Contacts', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'No contacts yet' }).waitFor();
    await expectAccessible('contacts-empty');
  });

  it('contacts: a page at a time, searched on the server, the search in the address', async () => {
    const c = api();
    for (let i = 1; i <= 60; i++) {
      const res = await c.post('/contacts', { email: `person${String(i).padStart(2, '0')}@example.com` });
      expect(res.status).toBe(201);
    }
    await page.reload();
    const rows = page.getByRole('table', { name: 'Contacts' }).getByRole('row');
    // A header row and a page of 50, newest first.
    await expect.poll(() => rows.count()).toBe(51);
    await expect.poll(() => rows.nth(1).textContent()).toContain('person60@example.com');
    await expectAccessible('contacts');

    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => rows.count()).toBe(11);
    await expect.poll(() => rows.nth(10).textContent()).toContain('person01@example.com');

    await page.getByLabel('Search by email').fill('person42');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain('person42@example.com');
    expect(new URL(page.url()).searchParams.get('q')).toBe('person42');
    // Shared as a link, the search comes back.
    const elsewhere = await browser.newContext({ storageState: await page.context().storageState() });
    const again = await elsewhere.newPage();
    await again.goto(page.url());
    await expect.poll(() => again.getByRole('table', { name: 'Contacts' }).getByRole('row').count()).toBe(2);
    await elsewhere.close();

    await page.getByLabel('Search by email').fill('nobody-like-this');
    await page.getByRole('heading', { name: 'No contacts match' }).waitFor();
  });

  it('domains: added, its records shown, verified against DNS once they are published', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('heading', { name: 'No domains yet' }).waitFor();
    await expectAccessible('domains-empty');

    await page.getByLabel('Domain name').fill('not a domain');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect.poll(() => page.getByLabel('Domain name').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Domain name').fill('news.example.org');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const records = page.getByRole('table', { name: 'DNS records for news.example.org' });
    await records.waitFor();
    await page.getByText('Not checked yet: add the records below, then verify').waitFor();
    await expectAccessible('domains');

    const [domain] = (await api().get(`/domains/project/${await defaultProjectId()}`)).body as Domain[];
    publishRecords(dns, domain!);
    await page.getByRole('button', { name: 'Verify news.example.org now' }).click();
    await page.getByText('Verified: ready to send').waitFor();
    expect(await records.getByText('Found', { exact: true }).count()).toBe(domain!.records.length);
  });

  it('signs out for real, and back in with the password', async () => {
    const cookies = await page.context().cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Postbox' }).waitFor();
    await expectAccessible('sign-in');
    // The cookie from before signing out no longer opens anything.
    const session = cookies.find((c) => c.name === 'postbox_session')!;
    const res = await fetch(`${service.url}/users/@me`, { headers: { cookie: `postbox_session=${session.value}` } });
    expect(res.status).toBe(401);

    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Wrong email or password').waitFor();
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('heading', { name: 'Domains', exact: true })
      .or(page.getByRole('heading', { name: 'Contacts', exact: true }))
      .waitFor();
  });

  it('is usable at 375 px wide without sideways scrolling, light and dark', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${service.url}/app/contacts`);
    await page.getByRole('heading', { name: 'Contacts', exact: true }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible('contacts-narrow');
    // Dark mode follows the system, with the same contrast.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible('contacts-narrow-dark');
    await page.goto(`${service.url}/app/domains`);
    await page.getByRole('heading', { name: 'Domains', exact: true }).waitFor();
    await expectAccessible('domains-narrow-dark');
  });
});

async function defaultProjectId(): Promise<string> {
  const projects = await page.evaluate(async () => (await fetch('/users/@me/projects')).json());
  return projects[0].id;
}
