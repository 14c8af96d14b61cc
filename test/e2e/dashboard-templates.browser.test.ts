import { beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, OWNER, replaceEditorText, useDashboard } from '../support/browser.js';
import { pollUntil } from '../support/server.js';

/**
 * The dashboard's templates pages in Debian's Chromium against the real service (its own process,
 * without SMTP_URL, so mail is captured locally): write a template with a live preview, break it and
 * fix it, save it, send a test and find the email through the API with the printed secret key.
 */

/** The smallest PNG: one transparent pixel. */
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

describe.skipIf(!hasChromium)('the templates pages in a browser', () => {
  const d = useDashboard();
  const editor = () => d.page.locator('.cm-content');
  const previewFrame = () => d.page.frameLocator('iframe[title="Email preview"]');
  const typeBody = (text: string) => replaceEditorText(d.page, text);
  beforeAll(async () => {
    // A contact whose data fields the editor offers as completions.
    const contact = await d.api().post('/contacts', { email: 'ada@example.com', data: { firstName: 'Ada' } });
    expect(contact.status).toBe(201);
  });

  it('the list starts empty and leads to a new template', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).click();
    await d.page.getByRole('heading', { name: 'No templates yet' }).waitFor();
    await d.expectAccessible('templates-empty');
    await d.page.getByRole('link', { name: 'New template' }).first().click();
    await d.page.getByRole('heading', { name: 'New template' }).waitFor();
    expect(new URL(d.page.url()).pathname).toBe('/app/templates/new');
  });

  it('previews the body as it is typed, and shows a render error with its line until it is fixed', async () => {
    await editor().waitFor();
    await typeBody('<h1>Hello {{ firstName }}</h1>\n<p>First version</p>');
    // The project's newest contact, Ada, until another is chosen.
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hello Ada');
    await typeBody('<h1>Hi {{ firstName }}!</h1>\n<p>Second version</p>');
    await expect.poll(() => previewFrame().locator('p').first().textContent()).toBe('Second version');
    expect(await previewFrame().locator('h1').textContent()).toBe('Hi Ada!');

    await d.page.getByRole('radio', { name: 'Sample data' }).check();
    await d.page.getByLabel('Sample data (JSON)').fill('{"firstName": "Grace"');
    await d.page.getByText(/Not valid JSON/).waitFor();
    await d.page.getByLabel('Sample data (JSON)').fill('{"firstName": "Grace"}');
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Grace!');

    await typeBody('<h1>Hi {{ firstName }}!</h1>\n<p>{% if %}</p>');
    const renderError = d.page.locator('.render-error');
    await renderError.waitFor();
    expect(await renderError.textContent()).toMatch(/^Line 2: /);
    expect(await editor().getAttribute('aria-invalid')).toBe('true');
    await d.page.locator('.cm-line-error').waitFor();
    // The last preview that rendered stays.
    expect(await previewFrame().locator('p').first().textContent()).toBe('Second version');

    await typeBody('<h1>Hi {{ firstName }}!</h1>\n<p>Fixed</p>');
    await expect.poll(() => previewFrame().locator('p').first().textContent()).toBe('Fixed');
    await renderError.waitFor({ state: 'detached' });

    // The text version and the rendered subject.
    await d.page.getByLabel('Subject').fill('Welcome, {{ firstName }}');
    await expect.poll(() => d.page.getByTestId('preview-subject').textContent()).toBe('Welcome, Grace');
    await d.page.getByRole('radio', { name: 'Text' }).check();
    await expect.poll(() => d.page.getByTestId('preview-text').textContent()).toContain('Fixed');
    await d.page.getByRole('radio', { name: 'HTML', exact: true }).check();

    // As a contact of the project, found by email, instead of the sample (Grace).
    await d.page.getByRole('radio', { name: 'A contact' }).check();
    await d.page.getByLabel('Find a contact by email').fill('ada@');
    await d.page.getByRole('button', { name: 'ada@example.com' }).click();
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Ada!');
    await d.page.getByRole('radio', { name: 'Sample data' }).check();
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Grace!');
  });

  it('offers the contact fields as completions and uploads a dropped or chosen image', async () => {
    await editor().click();
    await d.page.keyboard.press('ControlOrMeta+End');
    await d.page.keyboard.insertText('\n<p>{{ fir');
    await d.page.keyboard.press('Control+Space');
    await d.page.locator('.cm-tooltip-autocomplete').getByText('firstName').waitFor();
    await d.page.keyboard.press('Escape');
    await d.page.keyboard.press('ControlOrMeta+A');
    await d.page.keyboard.press('Delete');
    await d.page.keyboard.insertText('<h1>Hi {{ firstName }}!</h1>\n');

    const fileInput = d.page.locator('input[type=file]');
    await fileInput.setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: PIXEL_PNG });
    await expect.poll(() => editor().textContent()).toMatch(/<img src="http[^"]+\/uploads\/[^"]+\.png" alt="">/);
    // Dropped on the editor: uploaded and put where it fell.
    await editor().evaluate(
      (el, bytes) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], 'dropped.png', { type: 'image/png' }));
        const box = el.getBoundingClientRect();
        el.dispatchEvent(
          new DragEvent('drop', {
            dataTransfer: transfer,
            clientX: box.x + 5,
            clientY: box.y + 5,
            bubbles: true,
            cancelable: true,
          }),
        );
      },
      [...PIXEL_PNG],
    );
    await expect.poll(async () => (await editor().textContent())!.match(/<img src=/g)?.length).toBe(2);
    await fileInput.setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
    await d.page.getByText(/The image was not uploaded: Only .* images are accepted/).waitFor();
  });

  it('saves with the errors next to the fields, and the saved template comes back after a reload', async () => {
    await d.page.getByLabel('Name', { exact: true }).fill('Welcome');
    await d.page.getByLabel('From', { exact: true }).fill('not-an-address');
    await d.page.getByRole('button', { name: 'Create template' }).click();
    await expect.poll(() => d.page.getByLabel('From', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await d.page.getByLabel('From', { exact: true }).fill('hello@example.com');
    await d.page.getByLabel('From name').fill('Example Team');
    await d.page.getByLabel('Type').selectOption('TRANSACTIONAL');
    await d.page.getByRole('button', { name: 'Create template' }).click();
    await d.page.getByText('All changes saved').waitFor();
    expect(new URL(d.page.url()).pathname).toMatch(/^\/app\/templates\/[0-9a-f-]{36}$/);
    await d.page.getByRole('heading', { name: 'Welcome' }).waitFor();

    await d.page.reload();
    await d.page.getByRole('heading', { name: 'Welcome' }).waitFor();
    expect(await d.page.getByLabel('Subject').inputValue()).toBe('Welcome, {{ firstName }}');
    expect(await d.page.getByLabel('From name').inputValue()).toBe('Example Team');
    expect(await d.page.getByLabel('Type').inputValue()).toBe('TRANSACTIONAL');
    await expect.poll(() => editor().textContent()).toContain('Hi {{ firstName }}!');
    await d.page.getByText('Not used by any campaign or workflow.').waitFor();
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Ada!');
    await d.expectAccessible('template-editor');
  });

  it('sends a test to the signed-in user and says where it went', async () => {
    expect(await d.page.getByLabel('Send to').inputValue()).toBe(OWNER.email);
    await d.page.getByRole('button', { name: 'Send test' }).click();
    const id = (await d.page.getByTestId('test-email-id').textContent())!;
    await d.page.getByText(/Captured locally for owner@example.com/).waitFor();

    const email = await pollUntil(
      () => d.api().get(`/emails/${id}`),
      (res) => res.status === 200,
    );
    expect(['queued', 'sent']).toContain(email.body.status);
    expect(email.body).toMatchObject({ to: OWNER.email, from: 'hello@example.com', subject: 'Welcome, Ada' });
  });

  it('lists, filters and searches templates with the state in the address; duplicates and deletes', async () => {
    await d.page.getByRole('button', { name: 'Duplicate' }).click();
    await d.page.getByRole('heading', { name: 'Welcome (copy)' }).waitFor();
    await d.page.getByRole('button', { name: 'Delete' }).click();
    await d.page.getByRole('dialog').getByText('Not used by any campaign or workflow.').waitFor();
    await d.page.getByRole('button', { name: 'Delete template' }).click();
    await d.page.getByRole('heading', { name: 'Templates', exact: true }).waitFor();

    const rows = d.page.getByRole('table', { name: 'Templates' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain('Welcome');
    await d.expectAccessible('templates');

    await d.page.getByLabel('Type').selectOption('MARKETING');
    await d.page.getByRole('heading', { name: 'No templates match' }).waitFor();
    expect(new URL(d.page.url()).searchParams.get('type')).toBe('MARKETING');
    await d.page.getByLabel('Type').selectOption('TRANSACTIONAL');
    await expect.poll(() => rows.count()).toBe(2);
    await d.page.getByLabel('Search templates').fill('nothing like it');
    await d.page.getByRole('heading', { name: 'No templates match' }).waitFor();
    expect(new URL(d.page.url()).searchParams.get('q')).toBe('nothing like it');
    await d.page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(2);
  });

  it('is usable at 375 px wide without sideways scrolling, light and dark', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    await d.page.getByRole('link', { name: 'Welcome' }).click();
    await d.page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await editor().waitFor();
    const overflow = await d.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await d.page.emulateMedia({ colorScheme: 'dark' });
    await d.expectAccessible('template-editor-narrow-dark');
    await d.page.goto(`${d.service.url}/app/templates`);
    await d.page.getByRole('table', { name: 'Templates' }).waitFor();
    await d.expectAccessible('templates-narrow-dark');
  });
});
