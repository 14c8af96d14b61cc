import { describe, expect, it } from 'vitest';
import { hasChromium, OWNER, useDashboard } from '../support/browser.js';

/**
 * The Audit log page in Debian's Chromium against the real service: a change made in the browser
 * and one made with the secret key each show once, with their actor; the filters narrow the list
 * through the API, and a target links to its page.
 */
describe.skipIf(!hasChromium)('the audit log in a browser', () => {
  const d = useDashboard();
  const table = () => d.page.getByRole('table', { name: 'Audit log, newest first' });

  it('shows a change made in the browser and one made with the secret key, each once, with its actor', async () => {
    // A change through the browser: a suppression added on its page.
    await d.page.goto(`${d.service.url}/app/suppressions`);
    await d.page.getByRole('button', { name: 'Add address' }).first().click();
    const dialog = d.page.getByRole('dialog');
    await dialog.getByLabel('Email address').fill('blocked@example.com');
    await dialog.getByRole('button', { name: 'Suppress address' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // And one through the API.
    const contact = await d.api().post('/contacts', { email: 'ada@example.com' });
    expect(contact.status).toBe(201);

    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await d.page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const added = table().getByRole('row').filter({ hasText: 'Suppression created' });
    await expect.poll(() => added.count()).toBe(1);
    expect(await added.textContent()).toContain(OWNER.email);
    const created = table().getByRole('row').filter({ hasText: 'Contact created' });
    expect(await created.count()).toBe(1);
    expect(await created.textContent()).toContain('Secret key');
    await d.expectAccessible('audit-log');
  });

  it('narrows by target, and links a target to its page', async () => {
    await d.page.getByLabel('Target').selectOption('contact');
    await expect.poll(() => d.page.url()).toContain('targetType=contact');
    await expect.poll(() => table().getByRole('row').filter({ hasText: 'Suppression created' }).count()).toBe(0);
    const row = table().getByRole('row').filter({ hasText: 'Contact created' });
    await row.getByRole('link').first().click();
    await expect.poll(() => d.page.url()).toMatch(/\/app\/contacts\/[0-9a-f-]{36}$/);
  });

  it('says so when nothing matches, and clears the filters', async () => {
    await d.page.goto(`${d.service.url}/app/audit-log?targetType=webhook`);
    await d.page.getByRole('heading', { name: 'Nothing matches' }).waitFor();
    await d.page.getByRole('button', { name: 'Show the whole log' }).click();
    await expect.poll(() => table().getByRole('row').count()).toBeGreaterThan(2);
  });
});
