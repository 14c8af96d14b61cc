import { describe, expect, it } from 'vitest';
import { hasChromium, useDashboard } from '../support/browser.js';
import { client, expectErrorEnvelope } from '../support/server.js';

/**
 * The API keys page in Debian's Chromium against the real service: the owner makes a key that can
 * only send, copies its secret, and the key works for that and nothing else; a rotation shows a new
 * secret while the old one works on for the overlap; a revoked key is refused at once.
 */
describe.skipIf(!hasChromium)('API keys in a browser', () => {
  const d = useDashboard();
  let secret: string;
  const keysTable = () => d.page.getByRole('table', { name: 'API keys' });

  it('starts empty, with a way to the first key', async () => {
    await d.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.service.url });
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await d.page.getByRole('heading', { name: 'No keys yet' }).waitFor();
    expect(await d.page.getByRole('button', { name: 'New key' }).count()).toBe(2);
  });

  it('says what is missing next to each field of a new key', async () => {
    await d.page.getByRole('button', { name: 'New key' }).first().click();
    const dialog = d.page.getByRole('dialog', { name: 'New API key' });
    await dialog.getByRole('checkbox').first().waitFor();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByText('Choose at least one thing the key may do.').waitFor();
    await d.expectAccessible('api-keys-new');
  });

  it('makes a key that can only send, shows its secret once, and the key does just that', async () => {
    const dialog = d.page.getByRole('dialog', { name: 'New API key' });
    await dialog.getByLabel('Name').fill('Checkout');
    await dialog.getByRole('checkbox', { name: /^send / }).check();
    await dialog.getByLabel('Expires').selectOption('30');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const made = d.page.getByRole('dialog', { name: 'Key created' });
    await made.getByRole('button', { name: 'Copy checkout' }).click();
    secret = await d.page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toMatch(/^rk_[\w-]{43}$/);
    expect(await made.locator('code.key-value').textContent()).toBe(secret);
    await made.getByRole('button', { name: 'Done' }).click();

    const row = keysTable().getByRole('row').filter({ hasText: 'Checkout' });
    await expect.poll(() => row.textContent()).toContain(`rk_…${secret.slice(-4)}`);
    expect(await row.textContent()).toContain('send');
    expect(await row.textContent()).toContain('by owner@example.com');
    expect(await row.textContent()).not.toContain(secret);

    const key = client(d.service.url, secret);
    const sent = await key.post('/v1/send', {
      to: 'ada@example.com',
      from: 'shop@keys.test',
      subject: 'Receipt',
      body: '<p>Thanks</p>',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
    expectErrorEnvelope(await key.get('/contacts'), 403, 'MISSING_SCOPE');

    // The use shows on the page: when and from where.
    await expect
      .poll(async () => {
        await d.page.reload();
        return keysTable().getByRole('row').filter({ hasText: 'Checkout' }).textContent();
      })
      .toContain('from 127.0.0.1');
    await d.expectAccessible('api-keys');
  });

  it('rotates with an overlap: the new secret is shown, and both work until the overlap ends', async () => {
    await d.page.getByRole('button', { name: 'Rotate Checkout' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Rotate “Checkout”?' });
    await dialog.getByLabel('The current secret').selectOption('60');
    await dialog.getByRole('button', { name: 'Rotate' }).click();
    const shown = d.page.getByRole('dialog', { name: 'New secret' }).locator('code.key-value');
    const rotated = (await shown.textContent())!;
    expect(rotated).not.toBe(secret);
    await d.page.getByRole('dialog', { name: 'New secret' }).getByRole('button', { name: 'Done' }).click();
    await keysTable()
      .getByText(/The replaced secret works until/)
      .waitFor();

    for (const k of [secret, rotated]) {
      const res = await client(d.service.url, k).post('/v1/send', {
        to: 'ada@example.com',
        from: 'shop@keys.test',
        subject: 'Again',
        body: '<p>Hi</p>',
      });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
    secret = rotated;
  });

  it('revokes after asking; the key is refused at once and listed as revoked', async () => {
    await d.page.getByRole('button', { name: 'Revoke Checkout' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Revoke “Checkout”?' });
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await expect
      .poll(() => keysTable().getByRole('row').filter({ hasText: 'Checkout' }).textContent())
      .toContain('Revoked');
    expect(await d.page.getByRole('button', { name: 'Revoke Checkout' }).count()).toBe(0);
    expectErrorEnvelope(await client(d.service.url, secret).get('/emails'), 401, 'INVALID_API_KEY');
  });
});
