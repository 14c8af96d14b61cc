import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasChromium, screenshot, useDashboard } from '../support/browser.js';
import { client, expectBody } from '../support/server.js';

/**
 * A contact's data downloaded and the contact erased from its page, and the project's retention set
 * on the Settings page, in Debian's Chromium against the real service; each step scanned with axe
 * (wide and light, narrow and dark).
 */

describe.skipIf(!hasChromium)('privacy on the contact page and in Settings', () => {
  const d = useDashboard();

  it('downloads everything held about a contact, then erases it behind a typed confirmation', async () => {
    const email = 'mary.somerville@privacy-browser.test';
    const contact = await expectBody(
      d.api().post('/contacts', { email, data: { firstName: 'Mary', town: 'Jedburgh' } }),
      201,
    );
    const pub = client(d.service.url, d.keys().publicKey);
    for (const event of ['signed_up', 'opened_guide', 'upgraded'])
      await expectBody(pub.post('/v1/track', { email, event, data: { source: 'browser-test' } }));

    await d.page.goto(`${d.service.url}/app/contacts/${contact.id}`);
    const card = d.page.getByRole('region', { name: 'Privacy', exact: true });
    await card.waitFor();
    await d.expectAccessible('contact-privacy');

    const [download] = await Promise.all([
      d.page.waitForEvent('download'),
      card.getByRole('button', { name: 'Download data' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`contact-${contact.id}.json`);
    const doc = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(doc.contact).toMatchObject({ id: contact.id, email, data: { town: 'Jedburgh' } });
    expect(doc.events.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining(['signed_up', 'opened_guide', 'upgraded']),
    );

    await card.getByRole('button', { name: 'Erase…' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Erase this contact?' });
    await dialog.waitFor();
    const erase = dialog.getByRole('button', { name: 'Erase contact' });
    expect(await erase.isDisabled()).toBe(true);
    await dialog.getByLabel('Type the address to confirm').fill('mary@somewhere-else.test');
    expect(await erase.isDisabled()).toBe(true);
    await d.expectAccessible('contact-erase-confirm');
    await dialog.getByLabel('Type the address to confirm').fill(` ${email.toUpperCase()} `);
    expect(await erase.isDisabled()).toBe(false);
    await erase.click();

    const finished = d.page.getByRole('dialog', { name: 'Contact erased' });
    await finished.waitFor();
    await finished.getByText(/^Erased: \d+ rows of history removed\.$/).waitFor();
    await finished.getByText(/salted hash/).waitFor();
    expect(await finished.getByRole('progressbar', { name: 'Erase progress' }).getAttribute('value')).toBe('100');
    await d.expectAccessible('contact-erased');
    await finished.getByRole('button', { name: 'Done' }).click();
    await d.page.waitForURL(/\/app\/contacts$/);

    expect((await d.api().get(`/contacts/${contact.id}`)).status).toBe(404);
    const again = await d.api().post('/contacts', { email });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('ADDRESS_ERASED');
  });

  it('sets how long events, email contents and inbound mail are kept, and whether erased addresses stay out', async () => {
    await d.page.goto(`${d.service.url}/app/settings`);
    const card = d.page.getByRole('region', { name: 'Privacy and retention' });
    await card.getByLabel('Email contents (days)').waitFor();
    await card.scrollIntoViewIfNeeded();
    await d.expectAccessible('settings-privacy');

    await card.getByLabel('Email contents (days)').fill('thirty');
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByText('A whole number of days, or empty to keep for ever.').waitFor();

    await card.getByLabel('Email contents (days)').fill('30');
    await card.getByLabel('Inbound mail (days)').fill('90');
    await card.getByLabel('Keep erased addresses out').uncheck();
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByText('Saved.').waitFor();
    await screenshot(d.page, 'settings-privacy-saved');
    expect(await expectBody(d.api().get('/privacy-settings'))).toMatchObject({
      emailBodyRetentionDays: 30,
      inboundRetentionDays: 90,
      eventRetentionDays: null,
      keepErasedAddresses: false,
      erasedAddresses: 0,
    });
    // With the hashes gone, the erased address may come back.
    expect((await d.api().post('/contacts', { email: 'mary.somerville@privacy-browser.test' })).status).toBe(201);
  });
});
