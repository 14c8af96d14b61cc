import { describe, expect, it } from 'vitest';
import { hasChromium, useDashboard } from '../support/browser.js';

/**
 * The Signup forms page in Debian's Chromium against the real service: empty at first, a form
 * created with a field of its own, a refusal shown beside its field, the embed code copied, and
 * the form deleted.
 */
describe.skipIf(!hasChromium)('signup forms in the dashboard', () => {
  const d = useDashboard();
  const dialog = () => d.page.getByRole('dialog');

  it('starts empty and creates a form with a field', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Signup forms' }).click();
    await d.page.getByRole('heading', { name: 'No signup forms yet' }).waitFor();
    await d.expectAccessible('forms-empty');

    await d.page.getByRole('button', { name: 'New form' }).first().click();
    await dialog().getByLabel('Name').fill('Newsletter');
    await dialog().getByRole('button', { name: 'Create form' }).click();
    // Double opt-in is on by default and needs a sender: said beside the field.
    await expect.poll(() => dialog().getByLabel('Confirmation email sender').getAttribute('aria-invalid')).toBe('true');

    await dialog().getByLabel('Confirmation email sender').fill('news@example.com');
    await dialog().getByRole('button', { name: 'Add a field' }).click();
    await dialog().getByLabel('Label of field 1').fill('First name');
    await dialog().getByLabel('Key of field 1').fill('firstName');
    await dialog().getByLabel('Required').check();
    await dialog().getByLabel('Consent text (optional)').fill('I agree to receive the newsletter.');
    await d.expectAccessible('forms-new');
    await dialog().getByRole('button', { name: 'Create form' }).click();
    await dialog().waitFor({ state: 'hidden' });
    const row = d.page.getByRole('table', { name: 'Signup forms' }).getByRole('row').filter({ hasText: 'Newsletter' });
    await row.getByText('Double opt-in').waitFor();
    await d.expectAccessible('forms-list');

    const forms = (await d.api().get('/forms')).body;
    expect(forms.data[0]).toMatchObject({
      name: 'Newsletter',
      senderEmail: 'news@example.com',
      fields: [{ key: 'firstName', type: 'string', required: true, label: { en: 'First name' } }],
      consentText: { en: 'I agree to receive the newsletter.' },
    });
  });

  it('copies the embed code, saves a change and deletes the form', async () => {
    await d.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.service.url });
    await d.page.getByRole('button', { name: 'Newsletter', exact: true }).click();
    await dialog().getByRole('button', { name: 'Copy the embed code of Newsletter' }).click();
    const code = await d.page.evaluate(() => navigator.clipboard.readText());
    expect(code).toContain('<form class="postbox-form"');
    expect(code).toContain('/f/script.js');
    await d.expectAccessible('forms-edit');

    await dialog().getByLabel('Name').fill('Monthly letter');
    await dialog().getByRole('button', { name: 'Save changes' }).click();
    await dialog().waitFor({ state: 'hidden' });
    await d.page.getByRole('button', { name: 'Monthly letter', exact: true }).click();
    await dialog().getByRole('button', { name: 'Delete this form' }).click();
    await d.page.getByRole('heading', { name: 'No signup forms yet' }).waitFor();
  });
});
