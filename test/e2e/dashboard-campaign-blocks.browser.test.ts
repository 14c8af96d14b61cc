import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Campaign, Contact } from '../../src/api.js';
import * as blocks from '../support/blocks.js';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { verifiedDomain } from '../support/domains.js';
import { sinkMessagesTo, useSinkAndDns } from '../support/sending.js';
import { expectBody } from '../support/server.js';

/**
 * A campaign whose body is written in blocks in the composer, in Debian's Chromium against the real
 * service relaying to an SMTP sink: a contact field with a default and a button whose link carries
 * Liquid reach two contacts with different data as each should; the draft reopens in blocks, an edit
 * as code makes them stale as on the template page, and a template written in blocks opens in blocks
 * when a campaign takes its content.
 */

const DOMAIN = 'blocks.campaigns.test';

const relay = useSinkAndDns();

describe.skipIf(!hasChromium)('a campaign written in blocks', () => {
  const d = useDashboard({ env: () => ({ SMTP_URL: relay.sink.url, DNS_SERVERS: relay.dns.address }) });
  const canvas = () => blocks.blockCanvas(d.page);
  const saveState = () => d.page.getByTestId('save-state').textContent();
  const blocksChosen = () => d.page.getByRole('radio', { name: 'Blocks' }).isChecked();
  let ada: Contact;
  let bob: Contact;
  let campaignId: string;
  const campaign = (): Promise<Campaign> => expectBody(d.api().get(`/campaigns/${campaignId}`));

  beforeAll(async () => {
    const api = d.api();
    await verifiedDomain(api, relay.dns, DOMAIN);
    // Ada has a first name; Bob has none, so he gets the default.
    ada = await expectBody(
      api.post('/contacts', { email: 'ada@example.com', subscribed: true, data: { firstName: 'Ada' } }),
      201,
    );
    bob = await expectBody(
      api.post('/contacts', { email: 'bob@example.com', subscribed: true, data: { plan: 'free' } }),
      201,
    );
  });

  it('writes the body in blocks, and the draft saves the HTML and the blocks’ document', async () => {
    await d.page.goto(`${d.service.url}/app/campaigns/new`);
    await d.page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await d.page.getByLabel('Campaign name').fill('Blocks launch');
    await d.page.getByLabel('Subject').fill('News for {{ firstName ?? "friend" }}');
    await d.page.getByLabel('From', { exact: true }).fill(`news@${DOMAIN}`);

    await blocks.switchToBlocks(d.page);
    await blocks.clearCanvas(d.page);
    await d.page.keyboard.type('Hello ');
    await blocks.insertField(d.page, 'firstName', 'friend');
    await d.page.keyboard.type('!');
    await blocks.insertButton(d.page, blocks.LIQUID_LINK);
    await d.page.getByRole('button', { name: 'Footer' }).click();

    await expect.poll(saveState, { timeout: 20_000 }).toContain('All changes saved');
    await expect.poll(() => new URL(d.page.url()).pathname).toMatch(/^\/app\/campaigns\/[0-9a-f-]{36}$/);
    campaignId = new URL(d.page.url()).pathname.split('/').pop()!;
    // The last edits are saved too, once typing has paused.
    await expect.poll(async () => (await campaign()).body).toContain('{{ unsubscribeUrl }}');
    const stored = await campaign();
    expect(stored.body).toContain('Hello {{ firstName ?? "friend" }}!');
    expect(stored.body).toContain('href="https://x.test/?u={{ id }}&amp;n={{ firstName ?? "friend" }}"');
    expect(stored.body).not.toContain('@@liquid');
    expect(stored.bodySource).toMatchObject({ editor: 'react-email', version: 1 });
    expect(JSON.stringify(stored.bodySource)).toContain('"type":"liquidField"');
    // A body with its own unsubscribe link is not warned about.
    expect(await d.page.getByText('has no unsubscribe link of its own').count()).toBe(0);
  });

  it('reopens the draft in blocks, with nothing left to save', async () => {
    await d.page.reload();
    await canvas().locator('.liquid-chip').getByText('firstName · friend').waitFor();
    expect(await blocksChosen()).toBe(true);
    await expect.poll(saveState).toContain('All changes saved');
  });

  it('marks the blocks stale after an edit as code, and asks with the HTML kept to restore', async () => {
    await blocks.expectStaleRoundTrip(d.page, '<p>Written as code</p>');
    // The restored code is what the draft holds, beside the blocks it made stale.
    await expect.poll(async () => (await campaign()).body).toContain('Written as code');
    expect((await campaign()).bodySource).toMatchObject({ editor: 'react-email' });

    // Back to the blocks, kept this time: what is sent is theirs again.
    await blocks.keepStaleBlocks(d.page);
    await expect.poll(async () => (await campaign()).body).not.toContain('Written as code');
    await expect.poll(saveState).toContain('All changes saved');
  });

  it('is accessible in blocks at 1280 px light and 375 px dark', async () => {
    await canvas().waitFor();
    await canvas().scrollIntoViewIfNeeded();
    await d.expectAccessible('campaign-blocks');
    await d.page.setViewportSize({ width: 375, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await d.page.emulateMedia({ colorScheme: scheme });
      await canvas().scrollIntoViewIfNeeded();
      expect(await sidewaysOverflow(d.page), `375 px (${scheme})`).toBeLessThanOrEqual(0);
    }
    await d.page.emulateMedia({ colorScheme: 'light' });
    await d.page.setViewportSize({ width: 1280, height: 900 });
  });

  it('sends each contact what is theirs: the field or its default, and the button’s link', async () => {
    await d.page.getByRole('button', { name: 'Send', exact: true }).click();
    await d.page.getByRole('menuitem', { name: 'Send now…' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Send the campaign now?' });
    await dialog.getByRole('button', { name: 'Send to 2 recipients' }).click();
    await expect
      .poll(() => d.page.getByTestId('progress-text').textContent(), { timeout: 30_000 })
      .toMatch(/^100\s?% · 2 of 2 recipients sent/);

    const html = async (to: string) => {
      const messages = sinkMessagesTo(relay.sink, to);
      expect(messages).toHaveLength(1);
      return (await simpleParser(messages[0]!.raw)).html || '';
    };
    const adaHtml = await html(ada.email);
    const bobHtml = await html(bob.email);
    blocks.expectPersonalised(adaHtml, ada, 'Ada');
    blocks.expectPersonalised(bobHtml, bob, 'friend');
    expect(adaHtml).not.toContain('Written as code');
  });

  it('takes a template’s blocks with its content, so the campaign opens in blocks', async () => {
    const sent = await campaign();
    await expectBody(
      d.api().post('/templates', {
        name: 'Blocks template',
        subject: 'From blocks',
        from: `news@${DOMAIN}`,
        body: sent.body,
        bodySource: sent.bodySource,
      }),
      201,
    );
    await d.page.goto(`${d.service.url}/app/campaigns/new`);
    await d.page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await d.page.locator('.cm-content').waitFor();
    await d.page.getByLabel('Start from a template').selectOption({ label: 'Blocks template' });
    await d.page.getByRole('button', { name: 'Use its content' }).click();
    await canvas().locator('.liquid-chip').getByText('firstName · friend').waitFor();
    expect(await blocksChosen()).toBe(true);

    await d.page.getByLabel('Campaign name').fill('From a template');
    await expect.poll(saveState, { timeout: 20_000 }).toContain('All changes saved');
    const id = new URL(d.page.url()).pathname.split('/').pop()!;
    const copy = await expectBody<Campaign>(d.api().get(`/campaigns/${id}`));
    expect(copy.body).toBe(sent.body);
    expect(copy.bodySource).toEqual(sent.bodySource);
  });
});
