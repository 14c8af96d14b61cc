import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type ChildServer, client, pollUntil, printedKeys, spawnService } from '../support/server.js';

/**
 * The dashboard's templates pages in Debian's Chromium against the real service (its own process,
 * without SMTP_URL, so mail is captured locally): write a template with a live preview, break it and
 * fix it, save it, send a test and find the email through the API with the printed secret key.
 */

const OWNER = { email: 'owner@example.com', password: 'owner-correct-horse' };
/** The smallest PNG: one transparent pixel. */
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

let db: TestDatabase;
let service: ChildServer;
let browser: Browser;
let page: Page;

const api = () => client(service.url, printedKeys(service.output()).secretKey);
const setupToken = () => /setup token:\n\s+(\S+)/.exec(service.output())![1]!;

const editor = () => page.locator('.cm-content');
const previewFrame = () => page.frameLocator('iframe[title="Email preview"]');

/** Replaces the whole body in the code editor, as typing would. */
async function typeBody(text: string) {
  await editor().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/**
 * The serious and critical violations axe finds, as test/support/browser.ts counts them, leaving out
 * the preview frame: it holds the email being written, not the dashboard, and a frame that may run
 * no script (`sandbox=""`) cannot run axe either (the scan would wait for it forever).
 */
async function expectAccessible(name: string) {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
    .exclude('iframe[sandbox]')
    .analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(serious, name).toEqual([]);
}

describe.skipIf(!hasChromium)('the templates pages in a browser', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    service = await spawnService({ ...db.env, REDIS_URL: '' });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(10_000);
    // The owner, signed in through the API; the browser keeps the session cookie.
    const res = await page.request.post(`${service.url}/auth/setup`, { data: { token: setupToken(), ...OWNER } });
    expect(res.status(), await res.text()).toBe(201);
    // A contact whose data fields the editor offers as completions.
    const contact = await api().post('/contacts', { email: 'ada@example.com', data: { firstName: 'Ada' } });
    expect(contact.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.kill();
    await db?.drop();
  });

  it('the list starts empty and leads to a new template', async () => {
    await page.goto(`${service.url}/app/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('heading', { name: 'No templates yet' }).waitFor();
    await expectAccessible('templates-empty');
    await page.getByRole('link', { name: 'New template' }).first().click();
    await page.getByRole('heading', { name: 'New template' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/templates/new');
  });

  it('previews the body as it is typed, and shows a render error with its line until it is fixed', async () => {
    await editor().waitFor();
    await typeBody('<h1>Hello {{ firstName }}</h1>\n<p>First version</p>');
    // The sample data names Ada.
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hello Ada');
    await typeBody('<h1>Hi {{ firstName }}!</h1>\n<p>Second version</p>');
    await expect.poll(() => previewFrame().locator('p').first().textContent()).toBe('Second version');
    expect(await previewFrame().locator('h1').textContent()).toBe('Hi Ada!');

    await page.getByLabel('Sample data (JSON)').fill('{"firstName": "Grace"');
    await page.getByText(/Not valid JSON/).waitFor();
    await page.getByLabel('Sample data (JSON)').fill('{"firstName": "Grace"}');
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Grace!');

    await typeBody('<h1>Hi {{ firstName }}!</h1>\n<p>{% if %}</p>');
    const renderError = page.locator('.render-error');
    await renderError.waitFor();
    expect(await renderError.textContent()).toMatch(/^Line 2: /);
    expect(await editor().getAttribute('aria-invalid')).toBe('true');
    await page.locator('.cm-line-error').waitFor();
    // The last preview that rendered stays.
    expect(await previewFrame().locator('p').first().textContent()).toBe('Second version');

    await typeBody('<h1>Hi {{ firstName }}!</h1>\n<p>Fixed</p>');
    await expect.poll(() => previewFrame().locator('p').first().textContent()).toBe('Fixed');
    await renderError.waitFor({ state: 'detached' });

    // The text version and the rendered subject.
    await page.getByLabel('Subject').fill('Welcome, {{ firstName }}');
    await expect.poll(() => page.getByTestId('preview-subject').textContent()).toBe('Welcome, Grace');
    await page.getByRole('radio', { name: 'Text' }).check();
    await expect.poll(() => page.getByTestId('preview-text').textContent()).toContain('Fixed');
    await page.getByRole('radio', { name: 'HTML' }).check();

    // As a contact of the project, found by email, instead of the sample (Grace).
    await page.getByRole('radio', { name: 'A contact' }).check();
    await page.getByLabel('Find a contact by email').fill('ada@');
    await page.getByRole('button', { name: 'ada@example.com' }).click();
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Ada!');
    await page.getByRole('radio', { name: 'Sample data' }).check();
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Grace!');
  });

  it('offers the contact fields as completions and uploads a dropped or chosen image', async () => {
    await editor().click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.insertText('\n<p>{{ fir');
    await page.keyboard.press('Control+Space');
    await page.locator('.cm-tooltip-autocomplete').getByText('firstName').waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('<h1>Hi {{ firstName }}!</h1>\n');

    const fileInput = page.locator('input[type=file]');
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
    await page.getByText(/The image was not uploaded: Only .* images are accepted/).waitFor();
  });

  it('saves with the errors next to the fields, and the saved template comes back after a reload', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Welcome');
    await page.getByLabel('From', { exact: true }).fill('not-an-address');
    await page.getByRole('button', { name: 'Create template' }).click();
    await expect.poll(() => page.getByLabel('From', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('From', { exact: true }).fill('hello@example.com');
    await page.getByLabel('From name').fill('Example Team');
    await page.getByLabel('Type').selectOption('TRANSACTIONAL');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByText('All changes saved').waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/templates\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    expect(await page.getByLabel('Subject').inputValue()).toBe('Welcome, {{ firstName }}');
    expect(await page.getByLabel('From name').inputValue()).toBe('Example Team');
    expect(await page.getByLabel('Type').inputValue()).toBe('TRANSACTIONAL');
    await expect.poll(() => editor().textContent()).toContain('Hi {{ firstName }}!');
    await page.getByText('Not used by any campaign or workflow.').waitFor();
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Ada!');
    await expectAccessible('template-editor');
  });

  it('sends a test to the signed-in user and says where it went', async () => {
    expect(await page.getByLabel('Send to').inputValue()).toBe(OWNER.email);
    await page.getByRole('button', { name: 'Send test' }).click();
    const id = (await page.getByTestId('test-email-id').textContent())!;
    await page.getByText(/Captured locally for owner@example.com/).waitFor();

    const email = await pollUntil(
      () => api().get(`/emails/${id}`),
      (res) => res.status === 200,
    );
    expect(['queued', 'sent']).toContain(email.body.status);
    expect(email.body).toMatchObject({ to: OWNER.email, from: 'hello@example.com', subject: 'Welcome, Ada' });
  });

  it('lists, filters and searches templates with the state in the address; duplicates and deletes', async () => {
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { name: 'Welcome (copy)' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByText('Not used by any campaign or workflow.').waitFor();
    await page.getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('heading', { name: 'Templates', exact: true }).waitFor();

    const rows = page.getByRole('table', { name: 'Templates' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain('Welcome');
    await expectAccessible('templates');

    await page.getByLabel('Type').selectOption('MARKETING');
    await page.getByRole('heading', { name: 'No templates match' }).waitFor();
    expect(new URL(page.url()).searchParams.get('type')).toBe('MARKETING');
    await page.getByLabel('Type').selectOption('TRANSACTIONAL');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('Search templates').fill('nothing like it');
    await page.getByRole('heading', { name: 'No templates match' }).waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('nothing like it');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(2);
  });

  it('is usable at 375 px wide without sideways scrolling, light and dark', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.getByRole('link', { name: 'Welcome' }).click();
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await editor().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible('template-editor-narrow-dark');
    await page.goto(`${service.url}/app/templates`);
    await page.getByRole('table', { name: 'Templates' }).waitFor();
    await expectAccessible('templates-narrow-dark');
  });
});
