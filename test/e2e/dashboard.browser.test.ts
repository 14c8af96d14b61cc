import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Domain } from '../../src/api.js';
import { hasChromium, OWNER, screenshot, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { publishRecords } from '../support/domains.js';

/**
 * The dashboard in Debian's Chromium against the real service (its own process, as `npm start`
 * runs it) and a loopback DNS server: what a new user does in their first minutes, by role and
 * label as a person (or a screen reader) finds things.
 */

describe.skipIf(!hasChromium)('the dashboard in a browser', () => {
  let dns: DnsServer;
  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns?.stop());
  const d = useDashboard({ env: () => ({ DNS_SERVERS: dns.address }), signedIn: false });
  const defaultProjectId = async (): Promise<string> =>
    (await d.page.evaluate(async () => (await fetch('/users/@me/projects')).json()))[0].id;

  it('first run: / leads to the owner setup, which needs the printed token, then to Overview', async () => {
    await d.page.goto(`${d.service.url}/`);
    expect(new URL(d.page.url()).pathname).toMatch(/^\/app\//);
    await d.page.getByRole('heading', { name: 'Create the owner account' }).waitFor();
    await d.expectAccessible('setup');

    await d.page.getByLabel('Setup token').fill('not-the-token');
    await d.page.getByLabel('Email').fill(OWNER.email);
    await d.page.getByLabel('Password').fill(OWNER.password);
    await d.page.getByRole('button', { name: 'Create account' }).click();
    // The server's refusal, next to the field it is about.
    await expect.poll(() => d.page.getByLabel('Setup token').getAttribute('aria-invalid')).toBe('true');
    await d.page.getByText('Not the setup token printed by npm start').waitFor();

    await d.page.getByLabel('Setup token').fill(d.setupToken());
    await d.page.getByRole('button', { name: 'Create account' }).click();
    await d.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).click();
    await d.page.getByRole('heading', { name: 'No contacts yet' }).waitFor();
    await d.expectAccessible('contacts-empty');
  });

  it('contacts: a page at a time, searched on the server, the search in the address', async () => {
    const c = d.api();
    for (let i = 1; i <= 60; i++) {
      const res = await c.post('/contacts', { email: `person${String(i).padStart(2, '0')}@example.com` });
      expect(res.status).toBe(201);
    }
    await d.page.reload();
    const rows = d.page.getByRole('table', { name: 'Contacts' }).getByRole('row');
    // A header row and a page of 50, newest first.
    await expect.poll(() => rows.count()).toBe(51);
    await expect.poll(() => rows.nth(1).textContent()).toContain('person60@example.com');
    await d.expectAccessible('contacts');

    await d.page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => rows.count()).toBe(11);
    await expect.poll(() => rows.nth(10).textContent()).toContain('person01@example.com');

    await d.page.getByLabel('Search by email').fill('person42');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain('person42@example.com');
    expect(new URL(d.page.url()).searchParams.get('q')).toBe('person42');
    // Shared as a link, the search comes back.
    const elsewhere = await d.browser.newContext({ storageState: await d.page.context().storageState() });
    const again = await elsewhere.newPage();
    await again.goto(d.page.url());
    await expect.poll(() => again.getByRole('table', { name: 'Contacts' }).getByRole('row').count()).toBe(2);
    await elsewhere.close();

    await d.page.getByLabel('Search by email').fill('nobody-like-this');
    await d.page.getByRole('heading', { name: 'No contacts match' }).waitFor();
  });

  it('Ctrl-K jumps to a contact by email and to a page by name', async () => {
    await d.page.keyboard.press('Control+K');
    const search = d.page.getByRole('combobox', { name: 'Go to a page, contact, template or campaign' });
    await search.fill('person33');
    const option = d.page.getByRole('option', { name: /person33@example\.com/ });
    await option.waitFor();
    await d.expectAccessible('palette');
    await search.press('Enter');
    await d.page.getByRole('heading', { name: 'person33@example.com' }).waitFor();
    expect(new URL(d.page.url()).pathname).toMatch(/^\/app\/contacts\/[0-9a-f-]{36}$/);

    await d.page.keyboard.press('Control+K');
    await search.fill('dom');
    await search.press('Enter');
    await d.page.getByRole('heading', { name: 'Domains', exact: true }).waitFor();
    await d.page.keyboard.press('Control+K');
    await search.press('Escape');
    await expect.poll(() => search.count()).toBe(0);
  });

  it('domains: added, its records shown, verified against DNS once they are published', async () => {
    await d.page.getByRole('heading', { name: 'No domains yet' }).waitFor();
    await d.expectAccessible('domains-empty');

    await d.page.getByLabel('Domain name').fill('not a domain');
    await d.page.getByRole('button', { name: 'Add domain' }).click();
    await expect.poll(() => d.page.getByLabel('Domain name').getAttribute('aria-invalid')).toBe('true');

    await d.page.getByLabel('Domain name').fill('news.example.org');
    await d.page.getByRole('button', { name: 'Add domain' }).click();
    const records = d.page.getByRole('table', { name: 'DNS records for news.example.org' });
    await records.waitFor();
    await d.page.getByText('Not checked yet: add the records below, then verify').waitFor();
    // In the order to publish them, each with what it is for.
    await expect
      .poll(() => records.getByRole('row').nth(1).textContent())
      .toContain('Proves that this project controls the domain.');
    await records.getByText('Tells receivers what to do with mail that fails', { exact: false }).waitFor();
    await d.expectAccessible('domains');
    await screenshot(d.page, 'domains-records');

    const [domain] = (await d.api().get(`/domains/project/${await defaultProjectId()}`)).body as Domain[];
    publishRecords(dns, domain!);
    await d.page.getByRole('button', { name: 'Verify now: news.example.org' }).click();
    await d.page.getByText('Verified: ready to send').waitFor();
    expect(await records.getByText('Found', { exact: true }).count()).toBe(domain!.records.length);
  });

  it('signs out for real, and back in with the password', async () => {
    const cookies = await d.page.context().cookies();
    await d.page.getByRole('button', { name: 'Sign out' }).click();
    await d.page.getByRole('heading', { name: 'Sign in to Postbox' }).waitFor();
    await d.expectAccessible('sign-in');
    // The cookie from before signing out no longer opens anything.
    const session = cookies.find((c) => c.name === 'postbox_session')!;
    const res = await fetch(`${d.service.url}/users/@me`, { headers: { cookie: `postbox_session=${session.value}` } });
    expect(res.status).toBe(401);

    await d.page.getByLabel('Email').fill(OWNER.email);
    await d.page.getByLabel('Password').fill('wrong-password');
    await d.page.getByRole('button', { name: 'Sign in' }).click();
    await d.page.getByRole('alert').getByText('Wrong email or password').waitFor();
    await d.page.getByLabel('Password').fill(OWNER.password);
    await d.page.getByRole('button', { name: 'Sign in' }).click();
    await d.page
      .getByRole('heading', { name: 'Domains', exact: true })
      .or(d.page.getByRole('heading', { name: 'Contacts', exact: true }))
      .waitFor();
  });

  it('is usable at 375 px wide without sideways scrolling, light and dark', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    await d.page.goto(`${d.service.url}/app/contacts`);
    await d.page.getByRole('heading', { name: 'Contacts', exact: true }).waitFor();
    expect(await sidewaysOverflow(d.page)).toBeLessThanOrEqual(0);
    await d.expectAccessible('contacts-narrow');
    // Dark mode follows the system, with the same contrast.
    await d.page.emulateMedia({ colorScheme: 'dark' });
    await d.expectAccessible('contacts-narrow-dark');
    await d.page.goto(`${d.service.url}/app/domains`);
    await d.page.getByRole('heading', { name: 'Domains', exact: true }).waitFor();
    await d.expectAccessible('domains-narrow-dark');
    // Three accessibility scans, two of a page of 50 contacts: over a minute on a loaded machine.
  });
});
