import { describe, expect, it } from 'vitest';
import { hasChromium, screenshot, useDashboard } from '../support/browser.js';
import { expectBody } from '../support/server.js';

/**
 * The settings page's tracking card in Debian's Chromium against the real service: a change is
 * saved through the API, survives a reload, and the card passes the accessibility scan.
 */

describe.skipIf(!hasChromium)('the tracking settings in a browser', () => {
  const d = useDashboard();
  const box = (name: string) => d.page.getByRole('checkbox', { name });

  it('shows the defaults, with nothing to save', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await d.page.getByRole('heading', { name: 'Open and click tracking' }).waitFor();
    await box('Clicks of marketing email').waitFor();
    expect(await box('Opens of transactional email').isChecked()).toBe(true);
    expect(await box('Clicks of marketing email').isChecked()).toBe(true);
    expect(await box('Opens of headless email').isChecked()).toBe(false);
    const save = d.page.getByRole('button', { name: 'Save tracking' });
    // Nothing changed, nothing to save.
    expect(await save.isDisabled()).toBe(true);
    await box('Opens of headless email').scrollIntoViewIfNeeded();
    await d.expectAccessible('settings-tracking');
  });

  it('saves a change and keeps it after a reload', async () => {
    const save = d.page.getByRole('button', { name: 'Save tracking' });
    await box('Clicks of marketing email').uncheck();
    await box('Opens of headless email').check();
    await save.click();
    await d.page.getByText('Tracking saved', { exact: false }).waitFor();
    expect(await save.isDisabled()).toBe(true);
    const settings = await expectBody(d.api().get('/tracking-settings'));
    expect(settings).toEqual({
      TRANSACTIONAL: { opens: true, clicks: true },
      MARKETING: { opens: true, clicks: false },
      HEADLESS: { opens: true, clicks: false },
    });

    await d.page.reload();
    await box('Clicks of marketing email').waitFor();
    expect(await box('Clicks of marketing email').isChecked()).toBe(false);
    expect(await box('Opens of headless email').isChecked()).toBe(true);
    expect(await box('Clicks of transactional email').isChecked()).toBe(true);
    await box('Opens of headless email').scrollIntoViewIfNeeded();
    await d.expectAccessible('settings-tracking-saved');
  });

  it('says why a save failed, next to the card, and keeps the choice made', async () => {
    // The service refuses the change: the route answers 503 while the page asks.
    await d.page.route('**/tracking-settings', (route) =>
      route.request().method() === 'PATCH'
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            headers: { 'retry-after': '5' },
            body: JSON.stringify({
              success: false,
              error: { code: 'SERVICE_UNAVAILABLE', statusCode: 503, message: 'The database is unavailable' },
            }),
          })
        : route.continue(),
    );
    await box('Opens of transactional email').uncheck();
    await d.page.getByRole('button', { name: 'Save tracking' }).click();
    await d.page.getByRole('alert').filter({ hasText: 'unavailable' }).waitFor();
    expect(await box('Opens of transactional email').isChecked()).toBe(false);
    await d.page.unroute('**/tracking-settings');
    expect((await expectBody(d.api().get('/tracking-settings'))).TRANSACTIONAL.opens).toBe(true);
  });

  it("the template editor chooses a template's own tracking, or the project's, and keeps it", async () => {
    await d.page.goto(`${d.service.url}/app/templates/new`);
    await d.page.getByRole('heading', { name: 'New template' }).waitFor();
    expect(await d.page.getByLabel('Track opens').inputValue()).toBe('default');
    await d.page.getByLabel('Name', { exact: true }).fill('Receipt');
    await d.page.getByLabel('Subject').fill('Your receipt');
    await d.page.getByLabel('From', { exact: true }).fill('shop@example.com');
    await d.page.getByLabel('Track clicks').selectOption({ label: 'Off' });
    await d.page.getByRole('button', { name: 'Create template' }).click();
    await d.page.getByText('All changes saved').waitFor();
    const id = new URL(d.page.url()).pathname.split('/').pop()!;
    expect(await expectBody(d.api().get(`/templates/${id}`))).toMatchObject({ trackOpens: null, trackClicks: false });

    await d.page.reload();
    await d.page.getByRole('heading', { name: 'Receipt' }).waitFor();
    expect(await d.page.getByLabel('Track clicks').inputValue()).toBe('off');
    expect(await d.page.getByLabel('Track opens').inputValue()).toBe('default');
    await d.expectAccessible('template-tracking');
  });

  it("the campaign composer saves the campaign's own tracking with the rest", async () => {
    await d.page.goto(`${d.service.url}/app/campaigns/new`);
    await d.page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await d.page.getByLabel('Campaign name').fill('Quiet news');
    await d.page.getByLabel('Subject').fill('News');
    await d.page.getByLabel('From', { exact: true }).fill('news@example.com');
    await d.page.getByLabel('Track opens').selectOption({ label: 'Off' });
    await expect.poll(() => d.page.getByTestId('save-state').textContent()).toContain('All changes saved');
    await expect.poll(() => new URL(d.page.url()).pathname).toMatch(/^\/app\/campaigns\/[0-9a-f-]{36}$/);
    const id = new URL(d.page.url()).pathname.split('/').pop()!;
    expect(await expectBody(d.api().get(`/campaigns/${id}`))).toMatchObject({
      trackOpens: false,
      trackClicks: null,
    });
    await d.page.getByLabel('Track opens').scrollIntoViewIfNeeded();
    await screenshot(d.page, 'campaign-tracking');
  });
});
