import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/api.js';
import { expectEmptyFilterCleared, hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { expectBody, pollUntil } from '../support/server.js';

/**
 * The dashboard's emails pages in Debian's Chromium against the real service (its own process,
 * without SMTP_URL, so mail is captured locally): mail sent with the printed secret key, found in
 * the list by status and recipient, opened with its HTML in a sandboxed frame, its delivery told in
 * words, and its captured .eml downloaded.
 */

let welcomeId: string;
let skippedId: string;

describe.skipIf(!hasChromium)('the emails pages in a browser', () => {
  const d = useDashboard();
  const rows = () => d.page.getByRole('table', { name: 'Emails' }).getByRole('row');
  const messageFrame = () => d.page.frameLocator('iframe.email-frame');
  async function send(to: string, subject: string, body: string, extra: Record<string, unknown> = {}) {
    const answer = await expectBody(
      d.api().post('/v1/send', { to, from: 'hello@example.com', subject, body, ...extra }),
    );
    return answer.data.emails[0].email as string;
  }

  it('starts empty, saying how to send one', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Emails' }).click();
    await d.page.getByRole('heading', { name: 'No emails yet' }).waitFor();
    await d.page.getByText('Send one with the API').waitFor();
    await d.expectAccessible('emails-empty');
  });

  it('lists the mail newest first, with its status in words', async () => {
    welcomeId = await send(
      'ada@example.com',
      'Welcome, Ada',
      '<h1>Hello Ada</h1><p>Your account is ready.</p><p><a href="https://example.org/start">Start here</a></p>',
      { reply: 'support@example.com', headers: { 'X-Order-Ref': 'A-1001' } },
    );
    await send('bob@example.com', 'Receipt 1', '<p>Thanks, Bob</p>');
    await send('bob@example.com', 'Receipt 2', '<p>Thanks again, Bob</p>');
    await expectBody(d.api().post('/suppressions', { email: 'carl@example.com' }), 201);
    skippedId = await send('carl@example.com', 'Not for Carl', '<p>Held back</p>');
    // The delivery worker captures them in the outbox.
    await pollUntil(
      async () => (await expectBody(d.api().get('/emails'))).data as EmailRecord[],
      (emails) => emails.length === 4 && emails.every((e) => e.status !== 'queued'),
    );

    await d.page.reload();
    // A header row and four emails, newest first.
    await expect.poll(() => rows().count()).toBe(5);
    expect(await rows().nth(1).textContent()).toContain('carl@example.com');
    expect(await rows().nth(1).textContent()).toContain('Not sent');
    expect(await rows().nth(4).textContent()).toContain('Welcome, Ada');
    expect(await rows().nth(4).textContent()).toContain('Sent');
    await d.expectAccessible('emails');
  });

  it('filters by status and by recipient, the filters in the address', async () => {
    await d.page.getByLabel('Status').selectOption('skipped');
    await expect.poll(() => rows().count()).toBe(2);
    expect(await rows().nth(1).textContent()).toContain('Not for Carl');
    expect(new URL(d.page.url()).searchParams.get('status')).toBe('skipped');

    await d.page.getByLabel('Status').selectOption('sent');
    await expect.poll(() => rows().count()).toBe(4);

    // Not a whole address: said beside the field, the list stays.
    await d.page.getByLabel('Recipient').fill('bob');
    await d.page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => d.page.getByLabel('Recipient').getAttribute('aria-invalid')).toBe('true');
    await d.page.getByText('Enter a whole address').waitFor();

    await d.page.getByLabel('Recipient').fill('bob@example.com');
    await d.page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows().count()).toBe(3);
    const url = new URL(d.page.url());
    expect(url.searchParams.get('to')).toBe('bob@example.com');
    expect(url.searchParams.get('status')).toBe('sent');
    await d.expectAccessible('emails-filtered');

    // Shared as a link, the filters come back.
    const elsewhere = await d.browser.newContext({ storageState: await d.page.context().storageState() });
    const again = await elsewhere.newPage();
    await again.goto(d.page.url());
    await expect.poll(() => again.getByRole('table', { name: 'Emails' }).getByRole('row').count()).toBe(3);
    expect(await again.getByLabel('Recipient').inputValue()).toBe('bob@example.com');
    await elsewhere.close();

    await expectEmptyFilterCleared(d.page, {
      filter: 'Status',
      value: 'failed',
      empty: 'No emails match',
      clear: 'Clear filters',
      rows,
      count: 5,
    });
  });

  it('opens an email: its HTML in a sandboxed frame, the envelope, the delivery in words', async () => {
    await d.page.getByRole('link', { name: 'Welcome, Ada' }).click();
    await d.page.getByRole('heading', { name: 'Welcome, Ada', level: 1 }).waitFor();
    expect(new URL(d.page.url()).pathname).toBe(`/app/emails/${welcomeId}`);

    const frame = d.page.locator('iframe.email-frame');
    // Sandboxed with no permission at all: no scripts, no same-origin, no forms, no popups.
    expect(await frame.getAttribute('sandbox')).toBe('');
    expect(await frame.getAttribute('title')).toContain('Welcome, Ada');
    await expect.poll(() => messageFrame().locator('h1').textContent()).toBe('Hello Ada');
    // The message is in the frame only, never in the page itself.
    expect(await d.page.locator('main h1', { hasText: 'Hello Ada' }).count()).toBe(0);
    // Its link points at its target, untracked, and its open pixel is left out.
    expect(await messageFrame().getByRole('link', { name: 'Start here' }).getAttribute('href')).toBe(
      'https://example.org/start',
    );
    const stored = await expectBody(d.api().get(`/emails/${welcomeId}/content`));
    expect(stored.html).toContain(`/t/open/${welcomeId}/`);
    expect(await messageFrame().locator('img[src*="/t/open/"]').count()).toBe(0);

    const message = d.page.getByRole('region', { name: 'Message' });
    await message.getByText('hello@example.com').waitFor();
    await message.getByText('support@example.com').waitFor();
    const headers = message.getByRole('table', { name: 'Extra headers' });
    expect(await headers.getByRole('row', { name: /X-Order-Ref/ }).textContent()).toContain('A-1001');

    const delivery = d.page.getByRole('region', { name: 'Delivery' });
    await delivery.getByText('Accepted and queued').waitFor();
    await delivery.getByText('Sent', { exact: true }).waitFor();
    await delivery.getByText("Relay's answer").waitFor();
    await d.page.getByRole('region', { name: 'Opens and clicks' }).getByText('Opens', { exact: true }).waitFor();

    const record = (await expectBody(d.api().get(`/emails/${welcomeId}`))) as EmailRecord;
    expect(
      await d.page
        .getByRole('region', { name: 'Related' })
        .getByRole('link', { name: 'ada@example.com' })
        .getAttribute('href'),
    ).toBe(`/app/contacts/${record.contactId}`);
    // Looking at it counted no open.
    expect(record.openCount).toBe(0);
    await d.expectAccessible('email');
  });

  it('downloads the captured .eml', async () => {
    const [download, response] = await Promise.all([
      d.page.waitForEvent('download'),
      d.page.waitForResponse((r) => r.url().endsWith(`/emails/${welcomeId}/raw`)),
      d.page.getByRole('button', { name: 'Download .eml' }).click(),
    ]);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toContain('message/rfc822');
    expect(download.suggestedFilename()).toBe('welcome-ada.eml');
    const eml = fs.readFileSync(await download.path(), 'utf8');
    expect(eml).toMatch(/^Subject: Welcome, Ada\r?$/m);
    expect(eml).toMatch(/^To: ada@example.com\r?$/m);
    expect(eml).toMatch(/^X-Order-Ref: A-1001\r?$/m);
  });

  it('a held-back email says why, and has no file', async () => {
    await d.page.goto(`${d.service.url}/app/emails/${skippedId}`);
    await d.page.getByRole('heading', { name: 'Not for Carl', level: 1 }).waitFor();
    const delivery = d.page.getByRole('region', { name: 'Delivery' });
    await delivery.getByText('Not sent', { exact: true }).waitFor();
    await delivery.getByText('the address is on the suppression list').waitFor();
    expect(await d.page.getByRole('button', { name: 'Download .eml' }).count()).toBe(0);
    await d.expectAccessible('email-skipped');

    await d.page.goto(`${d.service.url}/app/emails/00000000-0000-4000-8000-000000000000`);
    await d.page.getByRole('heading', { name: 'Email not found' }).waitFor();
  });

  it('fits 375 px without sideways scrolling, light and dark', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    const fits = async (what: string) => {
      for (const colorScheme of ['light', 'dark'] as const) {
        await d.page.emulateMedia({ colorScheme });
        expect(await sidewaysOverflow(d.page), `${what} ${colorScheme}`).toBeLessThanOrEqual(0);
      }
    };
    // Each scan covers 1280 px light and 375 px dark.
    await d.page.goto(`${d.service.url}/app/emails`);
    // The header row is hidden at this width: each email is a card of its own.
    await expect.poll(() => rows().count()).toBe(4);
    await fits('emails');
    await d.expectAccessible('emails-narrow-dark');
    await d.page.goto(`${d.service.url}/app/emails/${welcomeId}`);
    await expect.poll(() => messageFrame().locator('h1').textContent()).toBe('Hello Ada');
    await fits('email');
    await d.expectAccessible('email-narrow-dark');
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'light' });
  });
});
