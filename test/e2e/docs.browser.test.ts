import { describe, expect, it } from 'vitest';
import { hasChromium, screenshot, useDashboard } from '../support/browser.js';

/**
 * The API docs under their content security policy (dashboard-auth.test.ts checks the header): the
 * Swagger UI must still render in a real browser, its scripts and styles all coming from the service.
 */
describe.skipIf(!hasChromium)('the API docs', () => {
  const d = useDashboard({ signedIn: false });

  it('renders the Swagger UI with its operations, with nothing refused by the policy', async () => {
    const refused: string[] = [];
    d.page.on('console', (m) => {
      if (/content security policy/i.test(m.text())) refused.push(m.text());
    });
    await d.page.goto(`${d.service.url}/docs`);
    await d.page.getByRole('heading', { name: /Email platform API/ }).waitFor();
    await d.page.locator('.opblock').first().waitFor();
    // Its stylesheet applies: the method badges are coloured.
    const badge = await d.page
      .locator('.opblock-summary-method')
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(badge).not.toBe('rgba(0, 0, 0, 0)');
    // An operation opens and shows its parameters: the UI's scripts run.
    await d.page.locator('.opblock-summary').first().click();
    await d.page.locator('.opblock-body').first().waitFor();
    await screenshot(d.page, 'docs');
    expect(refused).toEqual([]);
  });
});
