import { describe, expect, it } from 'vitest';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';

/**
 * The import page with another product's export, in Debian's Chromium against the real service:
 * the format chosen, each column's fate and the rows per subscription state shown before the
 * upload, then the import run by the same job; scanned with axe wide and light, narrow and dark.
 */

const LISTMONK = Buffer.from(
  [
    'uuid,email,name,attributes,status,created_at,updated_at',
    'u1,ann@listmonk.test,Ann,"{""city"":""Oslo"",""plan"":""pro""}",enabled,2024-01-02 03:04:05+00,2024-01-02 03:04:05+00',
    'u2,off@listmonk.test,Off,{},disabled,2024-01-03 00:00:00+00,2024-01-03 00:00:00+00',
    'u3,spam@listmonk.test,Spam,{},blocklisted,2024-01-04 00:00:00+00,2024-01-04 00:00:00+00',
  ].join('\n'),
);

const MAILCHIMP = Buffer.from(
  [
    '"Email Address","First Name","Last Name",MEMBER_RATING,OPTIN_TIME,LEID,TAGS,CLEAN_TIME,CLEAN_CAMPAIGN_TITLE',
    'gone@mailchimp.test,Gone,Away,1,"2023-01-01 00:00:00",7,"""Old list""","2024-06-01 10:00:00",Summer',
  ].join('\n'),
);

describe.skipIf(!hasChromium)('importing another product’s export in a browser', () => {
  const d = useDashboard();

  it('previews a listmonk export by its own columns and states, then imports it with the preset', async () => {
    await d.page.goto(`${d.service.url}/app/contacts/import`);
    await d.page.getByRole('heading', { name: 'Import contacts' }).waitFor();
    const format = d.page.getByLabel('Exported from');
    await format.selectOption({ label: 'listmonk' });
    await d.page.getByText('blocklisted subscribers are unsubscribed and suppressed').waitFor();
    await d.page
      .getByLabel('Choose a CSV file')
      .setInputFiles({ name: 'subscribers.csv', mimeType: 'text/csv', buffer: LISTMONK });

    const columns = d.page.getByRole('table', { name: 'How each column is imported' });
    await columns.waitFor();
    expect(await columns.getByRole('row').allTextContents()).toEqual([
      expect.stringMatching(/Column\s*Becomes\s*Type/),
      expect.stringMatching(/uuid\s*Ignored: listmonk's own id/),
      expect.stringMatching(/email\s*Email address/),
      expect.stringMatching(/name\s*Data field name\s*Text \(new field\)/),
      expect.stringMatching(/attributes\s*Each of its keys a data field/),
      expect.stringMatching(/status\s*Subscription: enabled subscribes, disabled unsubscribes, blocklisted suppresses/),
      expect.stringMatching(/created_at\s*Data field subscribedAt\s*Date \(new field\)/),
      expect.stringMatching(/updated_at\s*Ignored/),
    ]);
    const states = d.page.getByRole('region', { name: 'Subscriptions after the import' });
    expect(await states.locator('dl').textContent()).toBe('Subscribed1Unsubscribed1Suppressed1');
    await states.scrollIntoViewIfNeeded();
    await d.expectAccessible('import-preset-preview');

    await d.page.getByRole('button', { name: 'Import 3 rows' }).click();
    await d.page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 20_000 });
    await d.page.getByText('Done: 3 rows, 3 new, 0 updated').waitFor();

    const ann = await d.api().get('/contacts?search=ann@listmonk.test');
    expect(ann.body.data[0]).toMatchObject({ subscribed: true, data: { name: 'Ann', city: 'Oslo', plan: 'pro' } });
    const spam = await d.api().get('/suppressions/spam@listmonk.test');
    expect(spam.body).toMatchObject({ reason: 'manual', detail: 'Blocklisted in listmonk' });
  });

  it('re-reads the chosen file when the format changes, and fits 375 px in the dark', async () => {
    await d.page.goto(`${d.service.url}/app/contacts/import`);
    await d.page
      .getByLabel('Choose a CSV file')
      .setInputFiles({ name: 'cleaned.csv', mimeType: 'text/csv', buffer: MAILCHIMP });
    // As a Postbox CSV the file has no "email" column.
    await d.page.getByRole('alert').getByText('The header row has no "email" column').first().waitFor();
    await d.page.getByLabel('Exported from').selectOption({ label: 'Mailchimp' });
    const columns = d.page.getByRole('table', { name: 'How each column is imported' });
    await columns.getByRole('row', { name: /Email Address\s*Email address/ }).waitFor();
    expect(await columns.getByRole('row', { name: /LEID/ }).textContent()).toMatch(
      /Ignored: Mailchimp's own bookkeeping/,
    );
    expect(await columns.getByRole('row', { name: /CLEAN_TIME/ }).textContent()).toMatch(/Suppressed as a bounce/);
    const states = d.page.getByRole('region', { name: 'Subscriptions after the import' });
    expect(await states.locator('dl').textContent()).toBe('Subscribed0Unsubscribed0Suppressed1');

    await d.page.setViewportSize({ width: 375, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await d.page.emulateMedia({ colorScheme: scheme });
      expect(await sidewaysOverflow(d.page), scheme).toBeLessThanOrEqual(0);
    }
    await d.expectAccessible('import-preset-narrow-dark');
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'light' });
  });
});
