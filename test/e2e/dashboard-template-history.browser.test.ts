import { describe, expect, it } from 'vitest';
import type { Campaign, Template } from '../../src/api.js';
import {
  hasChromium,
  OWNER,
  replaceEditorText,
  screenshot,
  sidewaysOverflow,
  useDashboard,
} from '../support/browser.js';
import { expectBody, pollUntil } from '../support/server.js';

/**
 * A template's history in Debian's Chromium against the real service (its own process, mail
 * captured locally): the template is edited twice in the editor, its versions name who saved them
 * and what changed, an old one is compared with the current and previewed, then restored as a new
 * version by keyboard. A campaign sent with the template's content shows that content in its
 * report after the template changes.
 */

const FROM = 'hello@history.test';

describe.skipIf(!hasChromium)('template history in a browser', () => {
  const d = useDashboard();
  let template: Template;
  const history = () => d.page.getByRole('region', { name: 'History' });

  it('edits a template twice, and lists each save with who made it and what it changed', async () => {
    template = await expectBody(
      d.api().post('/templates', {
        name: 'Welcome',
        subject: 'Welcome aboard',
        body: '<h1>Hello</h1>\n<p>First words</p>\n<p>Sign-off</p>',
        from: FROM,
      }),
      201,
    );
    await d.page.goto(`${d.service.url}/app/templates/${template.id}`);
    await d.page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await d.page.locator('.cm-content').waitFor();

    await d.page.getByLabel('Subject').fill('Welcome back');
    await d.page.getByRole('button', { name: 'Save', exact: true }).click();
    await d.page.getByText('All changes saved').waitFor();
    await replaceEditorText(d.page, '<h1>Hello</h1>\n<p>Second words</p>\n<p>Sign-off</p>');
    await d.page.keyboard.press('ControlOrMeta+S');
    await d.page.getByText('All changes saved').waitFor();

    await d.page.getByRole('button', { name: 'History' }).click();
    const items = history().getByRole('list', { name: 'Versions' }).getByRole('listitem');
    await expect.poll(() => items.count()).toBe(3);
    expect(await items.nth(0).textContent()).toContain('Version 3');
    expect(await items.nth(0).textContent()).toContain('Changed body');
    expect(await items.nth(0).textContent()).toContain(OWNER.email);
    expect(await items.nth(0).textContent()).toContain('Current');
    expect(await items.nth(1).textContent()).toContain('Changed subject');
    expect(await items.nth(2).textContent()).toContain('Created');
    expect(await items.nth(2).textContent()).toContain('API key');
  });

  it('compares an older version with the current one and previews it', async () => {
    // Version 2, the one before the current, is shown first.
    await history().getByRole('heading', { name: 'Version 2' }).waitFor();
    await history().getByTestId('version-1').click();
    await history().getByRole('heading', { name: 'Version 1' }).waitFor();
    const subject = history().getByTestId('subject-diff');
    expect(await subject.locator('del').textContent()).toContain('aboard');
    expect(await subject.locator('ins').textContent()).toContain('back');
    const body = history().getByTestId('body-diff');
    expect(await body.locator('.diff-removed').textContent()).toContain('First words');
    expect(await body.locator('.diff-added').textContent()).toContain('Second words');
    await d.expectAccessible('template-history-diff');
    await screenshot(d.page, 'template-history-diff');

    await history().getByRole('radio', { name: 'Preview' }).check();
    const frame = d.page.frameLocator('iframe[title="Preview of version 1"]');
    await expect.poll(() => frame.locator('p').first().textContent()).toBe('First words');
    expect(await history().getByTestId('preview-subject').textContent()).toBe('Welcome aboard');
    // The same preview panel as the editor's, scanned with the editor's page.
    await screenshot(d.page, 'template-history-preview');
    // The scan covers two widths and two schemes of a long page: slow on a busy machine.
  });

  it('restores version 1 as version 4 by keyboard, and the editor takes its content', async () => {
    await history().getByRole('button', { name: 'Restore this version' }).focus();
    await d.page.keyboard.press('Enter');
    const dialog = d.page.getByRole('dialog', { name: 'Restore version 1?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('saved as version 4');
    await dialog.getByRole('button', { name: 'Restore' }).focus();
    await d.page.keyboard.press('Enter');
    await d.page.getByText('Version 1 restored as version 4.').waitFor();
    expect(await d.page.getByLabel('Subject').inputValue()).toBe('Welcome aboard');
    await expect.poll(() => d.page.locator('.cm-content').textContent()).toContain('First words');
    await d.page.getByText('All changes saved').waitFor();

    const items = history().getByRole('list', { name: 'Versions' }).getByRole('listitem');
    await expect.poll(() => items.count()).toBe(4);
    expect(await items.nth(0).textContent()).toContain('Restored version 1');
    const stored = await expectBody<Template>(d.api().get(`/templates/${template.id}`));
    expect(stored).toMatchObject({ version: 4, subject: 'Welcome aboard' });
    expect(stored.body).toContain('First words');
    expect(await sidewaysOverflow(d.page)).toBe(0);

    await history().getByRole('button', { name: 'Close history' }).focus();
    await d.page.keyboard.press('Enter');
    await history().waitFor({ state: 'detached' });
    expect(await d.page.evaluate(() => document.activeElement?.textContent)).toBe('History');
  });

  it('shows a sent campaign’s content in its report after the template changed', async () => {
    const api = d.api();
    for (const email of ['ann@readers.test', 'ben@readers.test']) {
      await expectBody(api.post('/contacts', { email, subscribed: true }), 201);
    }
    const current = await expectBody<Template>(api.get(`/templates/${template.id}`));
    const created = await expectBody<{ data: Campaign }>(
      api.post('/campaigns', {
        name: 'Welcome wave',
        subject: current.subject,
        body: current.body,
        from: FROM,
        audienceType: 'ALL',
      }),
      201,
    );
    await expectBody(api.post(`/campaigns/${created.data.id}/send`));
    await pollUntil(
      () => expectBody<Campaign>(api.get(`/campaigns/${created.data.id}`)),
      (c) => c.status === 'SENT',
      30_000,
    );
    await expectBody(api.patch(`/templates/${template.id}`, { subject: 'Changed later', body: '<p>New</p>' }));

    await d.page.goto(`${d.service.url}/app/campaigns/${created.data.id}`);
    const sent = d.page.getByRole('region', { name: 'Content as sent' });
    await sent.waitFor();
    expect(await sent.getByTestId('sent-subject').textContent()).toBe('Welcome aboard');
    const frame = d.page.frameLocator('iframe[title="The campaign\'s email as sent"]');
    await expect.poll(() => frame.locator('p').first().textContent()).toBe('First words');
    expect(await d.page.locator('iframe[title="The campaign\'s email as sent"]').getAttribute('sandbox')).toBe('');
    await sent.scrollIntoViewIfNeeded();
    await d.expectAccessible('campaign-content-as-sent');
  });
});
