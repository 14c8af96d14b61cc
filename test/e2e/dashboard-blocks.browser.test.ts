import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Template } from '../../src/api.js';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.js';

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

let sink: SmtpSink;
let dns: DnsServer;
beforeAll(async () => {
  sink = await startSmtpSink();
  dns = await startDnsServer();
});
afterAll(async () => {
  await sink?.stop();
  await dns?.stop();
});

describe.skipIf(!hasChromium)('the block editor in a browser', () => {
  const d = useDashboard({ env: () => ({ SMTP_URL: sink.url, DNS_SERVERS: dns.address }) });
  const canvas = () => d.page.getByRole('textbox', { name: 'Email body in blocks' });
  const previewFrame = () => d.page.frameLocator('iframe[title="Email preview"]');
  let ada: { id: string };
  let bob: { id: string };
  let template: Template;

  beforeAll(async () => {
    await verifiedDomain(d.api(), dns, DOMAIN);
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
    await d.page.getByRole('radio', { name: 'Blocks' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Switch to blocks?' });
    await dialog.getByText('This body was written as HTML').waitFor();
    await dialog.getByRole('button', { name: 'Switch to blocks' }).click();
    await canvas().waitFor();
    expect(scripts.some((s) => s.includes('BlockEditor'))).toBe(true);
  });

  it('builds a body from blocks whose Liquid reaches the stored HTML intact', async () => {
    // Start from an empty canvas.
    await canvas().click();
    await d.page.keyboard.press('ControlOrMeta+A');
    await d.page.keyboard.press('Delete');
    await d.page.keyboard.type('Hello ');
    const personalise = d.page.getByRole('group', { name: 'Personalise' });
    await personalise.getByLabel('Contact field').selectOption('firstName');
    await personalise.getByLabel('Default when empty').fill('friend');
    await personalise.getByRole('button', { name: 'Insert field' }).click();
    await d.page.keyboard.type('!');
    await canvas().locator('.liquid-chip').getByText('firstName · friend').waitFor();

    // A paragraph for pro contacts only.
    await d.page.keyboard.press('Enter');
    await d.page.keyboard.type('Pro members get early access.');
    await personalise.getByLabel('Contact field').selectOption('plan');
    await personalise.getByRole('button', { name: 'Show only when…' }).click();
    const condition = d.page.getByRole('group', { name: 'Condition' });
    await condition.getByLabel('Test').selectOption('equals');
    await condition.getByLabel('Value').fill('pro');
    await canvas().locator('.liquid-condition[data-label="Shown when plan is “pro”"]').waitFor();

    // After the condition, for everyone: a button whose link names the contact, centred and coloured.
    await canvas().locator('p.node-paragraph').last().click();
    await d.page.getByRole('button', { name: 'Button', exact: true }).click();
    const button = d.page.getByRole('group', { name: 'Button' });
    await button.getByLabel('Link').fill('https://x.test/?u={{ id }}&n={{ firstName ?? "friend" }}');
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

    // The preview is the server's rendering of the HTML the blocks made, for the sample data (Ada).
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
    const messages = await sink.waitFor(2, 30_000);
    const byRecipient = new Map<string, string>();
    for (const m of messages) byRecipient.set(m.to[0]!, (await simpleParser(m.raw)).html || '');
    const adaHtml = byRecipient.get('ada@example.com')!;
    const bobHtml = byRecipient.get('bob@example.com')!;

    expect(adaHtml).toContain('Hello Ada!');
    expect(adaHtml).toContain('Pro members get early access.');
    expect(bobHtml).toContain('Hello friend!');
    expect(bobHtml).not.toContain('Pro members');
    // Links are tracked: the target rides in `url=`, with the Liquid rendered for each contact.
    const targets = (html: string) =>
      [...html.matchAll(/href="[^"]*\/t\/click\/[^"]*\?url=([^"]+)"/g)].map((m) =>
        decodeURIComponent(m[1]!.replace(/&amp;/g, '&')),
      );
    expect(targets(adaHtml)).toContain(`https://x.test/?u=${ada.id}&n=Ada`);
    expect(targets(bobHtml)).toContain(`https://x.test/?u=${bob.id}&n=friend`);
    // The footer block's unsubscribe link is the contact's own, so no second footer was added.
    for (const html of [adaHtml, bobHtml]) {
      expect(html.match(/\/unsubscribe\//g)?.length ?? 0, html).toBe(1);
      expect(html).not.toContain('{{');
      expect(html).not.toContain('{%');
    }
  });

  it('reopens in blocks; an edit as code makes them stale, and going back asks and can be undone', async () => {
    await d.page.reload();
    await canvas().locator('.liquid-chip').getByText('firstName · friend').waitFor();
    expect(await d.page.getByRole('radio', { name: 'Blocks' }).isChecked()).toBe(true);
    await d.page.getByText('All changes saved').waitFor();

    await d.page.getByRole('radio', { name: 'HTML code' }).check();
    await d.page.locator('.cm-content').click();
    await d.page.keyboard.press('ControlOrMeta+End');
    await d.page.keyboard.insertText('<p>Written as code</p>');
    await d.page.getByText('The blocks are out of date').waitFor();
    const edited = await d.page.locator('.cm-content').innerText();

    await d.page.getByRole('radio', { name: 'Blocks' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Switch to blocks?' });
    await dialog.getByText('The HTML was changed after the blocks were last edited').waitFor();
    // Cancelling keeps the code.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await d.page.getByRole('radio', { name: 'HTML code' }).isChecked()).toBe(true);

    await d.page.getByRole('radio', { name: 'Blocks' }).click();
    await dialog.getByRole('button', { name: 'Switch to blocks' }).click();
    await canvas().locator('.liquid-chip').waitFor();
    await d.page.getByText('The blocks replaced the HTML').waitFor();
    await d.page.getByRole('button', { name: 'Restore the HTML' }).click();
    await d.page.locator('.cm-content').getByText('Written as code').waitFor();
    expect(await d.page.locator('.cm-content').innerText()).toBe(edited);
    await d.page.getByText('The blocks are out of date').waitFor();
  });

  it('is usable by keyboard, and accessible at 1280 and 375 px, light and dark', async () => {
    await d.page.getByRole('radio', { name: 'Blocks' }).click();
    await d.page
      .getByRole('dialog', { name: 'Switch to blocks?' })
      .getByRole('button', { name: 'Switch to blocks' })
      .click();
    await canvas().waitFor();
    await d.page.getByRole('button', { name: 'Keep the blocks' }).click();
    // The controls are buttons and fields: a heading is inserted from the keyboard, and typed into.
    await canvas().locator('p.node-paragraph').first().click();
    await d.page.keyboard.press('End');
    await d.page.getByRole('button', { name: 'Heading', exact: true }).focus();
    await d.page.keyboard.press('Enter');
    await expect.poll(() => canvas().locator('h2').count()).toBe(1);
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
