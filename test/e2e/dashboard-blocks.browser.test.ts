import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from '../../src/api.js';
import {
  blockCanvas,
  clearCanvas,
  expectPersonalised,
  expectStaleRoundTrip,
  insertButton,
  insertField,
  keepStaleBlocks,
  LIQUID_LINK,
  switchToBlocks,
} from '../support/blocks.js';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { verifiedDomain } from '../support/domains.js';
import { useSinkAndDns } from '../support/sending.js';

/**
 * The block editor of the template page in Debian's Chromium, against the real service relaying to
 * an SMTP sink: a body built from blocks with a contact field (with a default), a condition and a
 * button whose link carries Liquid is saved as Liquid HTML, and two contacts with different data
 * receive what each should. Then the stale document: an edit as code, the question on the way back
 * to blocks and the restored HTML.
 */

const DOMAIN = 'blocks.test';
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

const relay = useSinkAndDns();

describe.skipIf(!hasChromium)('the block editor in a browser', () => {
  const d = useDashboard({ env: () => ({ SMTP_URL: relay.sink.url, DNS_SERVERS: relay.dns.address }) });
  const canvas = () => blockCanvas(d.page);
  const previewFrame = () => d.page.frameLocator('iframe[title="Email preview"]');
  let ada: { id: string };
  let bob: { id: string };
  let template: Template;

  beforeAll(async () => {
    await verifiedDomain(d.api(), relay.dns, DOMAIN);
    // Ada has a first name and the pro plan; Bob has neither, so he gets the default and no pro block.
    const a = await d.api().post('/contacts', {
      email: 'ada@example.com',
      subscribed: true,
      data: { firstName: 'Ada', plan: 'pro' },
    });
    const b = await d.api().post('/contacts', { email: 'bob@example.com', subscribed: true, data: { plan: 'free' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    ada = a.body;
    bob = b.body;
  });

  it('keeps the editor out of the first page, and loads it when blocks are chosen', async () => {
    const scripts: string[] = [];
    d.page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(r.url());
    });
    await d.page.goto(`${d.service.url}/app/templates/new`);
    await d.page.getByRole('heading', { name: 'New template' }).waitFor();
    await d.page.locator('.cm-content').waitFor();
    expect(scripts.filter((s) => s.includes('BlockEditor'))).toEqual([]);

    await d.page.getByLabel('Name', { exact: true }).fill('Blocks welcome');
    await d.page.getByLabel('Subject').fill('Welcome');
    await d.page.getByLabel('From', { exact: true }).fill(`hello@${DOMAIN}`);

    // The starter body is HTML: switching asks first.
    await switchToBlocks(d.page);
    expect(scripts.some((s) => s.includes('BlockEditor'))).toBe(true);
  });

  it('builds a body from blocks whose Liquid reaches the stored HTML intact', async () => {
    // Start from an empty canvas.
    await clearCanvas(d.page);
    await d.page.keyboard.type('Hello ');
    await insertField(d.page, 'firstName', 'friend');
    await d.page.keyboard.type('!');

    // A paragraph for pro contacts only.
    await d.page.keyboard.press('Enter');
    await d.page.keyboard.type('Pro members get early access.');
    const personalise = d.page.getByRole('group', { name: 'Personalise' });
    await personalise.getByLabel('Contact field').selectOption('plan');
    await personalise.getByRole('button', { name: 'Show only when…' }).click();
    const condition = d.page.getByRole('group', { name: 'Condition' });
    await condition.getByLabel('Test').selectOption('equals');
    await condition.getByLabel('Value').fill('pro');
    await canvas().locator('.liquid-condition[data-label="Shown when plan is “pro”"]').waitFor();

    // After the condition, for everyone: a button whose link names the contact, centred and coloured.
    await canvas().locator('p.node-paragraph').last().click();
    const button = await insertButton(d.page, LIQUID_LINK);
    await button.getByRole('radio', { name: 'Centre' }).check();
    await button.getByLabel('Button colour').fill('#aa3300');

    // An image, uploaded as the code editor uploads one; a spacer, a divider, the footer.
    await d.page.locator('.block-insert input[type=file]').setInputFiles({
      name: 'pixel.png',
      mimeType: 'image/png',
      buffer: PIXEL_PNG,
    });
    await canvas().locator('img[src*="/uploads/"]').waitFor();
    await d.page.getByRole('button', { name: 'Spacer' }).click();
    await d.page.getByRole('button', { name: 'Divider' }).click();
    await d.page.getByRole('button', { name: 'Footer' }).click();

    // The preview is the server's rendering of the HTML the blocks made, for the sample data (Ada)
    // rather than the project's newest contact.
    const sample = d.page.getByRole('radio', { name: 'Sample data' });
    // The preview's options are drawn again while the last blocks arrive: a click in between is lost.
    await expect
      .poll(async () => {
        await sample.check().catch(() => undefined);
        return sample.isChecked();
      })
      .toBe(true);
    const previewText = async () => ((await previewFrame().locator('body').textContent()) ?? '').replace(/\s+/g, ' ');
    await expect.poll(previewText).toContain('Hello Ada!');
    await expect.poll(previewText).toContain('You get this email because you signed up.');
    // The sample data has no plan: the condition hides its block.
    expect(await previewText()).not.toContain('Pro members');

    await d.page.getByRole('button', { name: 'Create template' }).click();
    await d.page.waitForURL(/\/app\/templates\/[0-9a-f-]{36}$/);
    await d.page.getByText('All changes saved').waitFor();
    const id = new URL(d.page.url()).pathname.split('/').pop()!;
    template = (await d.api().get(`/templates/${id}`)).body;

    expect(template.body).toContain('{{ firstName ?? "friend" }}');
    expect(template.body).toContain('{% if plan == "pro" %}');
    expect(template.body).toContain('{% endif %}');
    // `&` is written `&amp;` in an attribute, as HTML has it; the Liquid is as typed.
    expect(template.body).toContain('href="https://x.test/?u={{ id }}&amp;n={{ firstName ?? "friend" }}"');
    expect(template.body).toContain('Hello {{ firstName ?? "friend" }}!');
    expect(template.body).toContain('{{ unsubscribeUrl }}');
    expect(template.body).not.toContain('&quot;');
    expect(template.body).not.toContain('@@liquid');
    expect(template.bodySource).toMatchObject({ editor: 'react-email', version: 1 });
    expect(JSON.stringify(template.bodySource)).toContain('"type":"liquidField"');
  });

  it('sends each contact what is theirs: the field or its default, the condition, the link', async () => {
    const res = await d.api().request('POST', '/v1/send', {
      body: { to: ['ada@example.com', 'bob@example.com'], template: template.id },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const messages = await relay.sink.waitFor(2, 30_000);
    const byRecipient = new Map<string, string>();
    for (const m of messages) byRecipient.set(m.to[0]!, (await simpleParser(m.raw)).html || '');
    const adaHtml = byRecipient.get('ada@example.com')!;
    const bobHtml = byRecipient.get('bob@example.com')!;

    expectPersonalised(adaHtml, ada, 'Ada');
    expectPersonalised(bobHtml, bob, 'friend');
    expect(adaHtml).toContain('Pro members get early access.');
    expect(bobHtml).not.toContain('Pro members');
  });

  it('reopens in blocks; an edit as code makes them stale, and going back asks and can be undone', async () => {
    await d.page.reload();
    await canvas().locator('.liquid-chip').getByText('firstName · friend').waitFor();
    expect(await d.page.getByRole('radio', { name: 'Blocks' }).isChecked()).toBe(true);
    await d.page.getByText('All changes saved').waitFor();

    await expectStaleRoundTrip(d.page, '<p>Written as code</p>');
  });

  it('is usable by keyboard, and accessible at 1280 px light and 375 px dark', async () => {
    await keepStaleBlocks(d.page);
    // The controls are buttons and fields: a heading is inserted from the keyboard, and typed into.
    await canvas().locator('p.node-paragraph').first().click();
    await d.page.keyboard.press('End');
    await d.page.getByRole('button', { name: 'Heading', exact: true }).focus();
    await d.page.keyboard.press('Enter');
    await expect.poll(() => canvas().locator('h2').count()).toBe(1);
    // Where the caret is after the button's Enter depends on timing; the heading is typed into from its end.
    await canvas().locator('h2').click();
    await d.page.keyboard.press('End');
    await d.page.keyboard.press('Shift+Home');
    await d.page.keyboard.type('Early access');
    await canvas().locator('h2').getByText('Early access').waitFor();

    await d.page.getByRole('radio', { name: 'Mobile' }).first().check();
    await d.expectAccessible('template-blocks');
    await d.page.emulateMedia({ colorScheme: 'dark' });
    await d.expectAccessible('template-blocks-dark');
    await d.page.setViewportSize({ width: 375, height: 800 });
    await d.page.getByRole('group', { name: 'Insert a block' }).scrollIntoViewIfNeeded();
    await d.page.mouse.wheel(0, 350);
    await d.expectAccessible('template-blocks-narrow-dark');
    await d.page.emulateMedia({ colorScheme: 'light' });
    await d.expectAccessible('template-blocks-narrow');
    expect(await sidewaysOverflow(d.page)).toBeLessThanOrEqual(0);
    await d.page.setViewportSize({ width: 1280, height: 900 });
  });
});
