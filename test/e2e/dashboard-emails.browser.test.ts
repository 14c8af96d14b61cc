import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/api.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { dashboardViolations, emailsScreenshot, sidewaysOverflow } from '../support/dashboard-emails.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type ChildServer, client, expectBody, pollUntil, printedKeys, spawnService } from '../support/server.js';

/**
 * The dashboard's emails pages in Debian's Chromium against the real service (its own process,
 * without SMTP_URL, so mail is captured locally): mail sent with the printed secret key, found in
 * the list by status and recipient, opened with its HTML in a sandboxed frame, its delivery told in
 * words, and its captured .eml downloaded.
 */

const OWNER = { email: 'owner@example.com', password: 'owner-correct-horse' };

let db: TestDatabase;
let service: ChildServer;
let browser: Browser;
let page: Page;

const api = () => client(service.url, printedKeys(service.output()).secretKey);
const setupToken = () => /setup token:\n\s+(\S+)/.exec(service.output())![1]!;
const rows = () => page.getByRole('table', { name: 'Emails' }).getByRole('row');
const messageFrame = () => page.frameLocator('iframe.email-frame');

async function send(to: string, subject: string, body: string, extra: Record<string, unknown> = {}) {
  const answer = await expectBody(api().post('/v1/send', { to, from: 'hello@example.com', subject, body, ...extra }));
  return answer.data.emails[0].email as string;
}

async function expectAccessible(name: string) {
  expect(await dashboardViolations(page), name).toEqual([]);
  await emailsScreenshot(page, name);
}

let welcomeId: string;
let skippedId: string;

describe.skipIf(!hasChromium)('the emails pages in a browser', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    service = await spawnService({ ...db.env, REDIS_URL: '' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const res = await page.request.post(`${service.url}/auth/setup`, { data: { token: setupToken(), ...OWNER } });
    expect(res.status(), await res.text()).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.kill();
    await db?.drop();
  });

  it('starts empty, saying how to send one', async () => {
    await page.goto(`${service.url}/app/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Emails' }).click();
    await page.getByRole('heading', { name: 'No emails yet' }).waitFor();
    await page.getByText('Send one with the API').waitFor();
    await expectAccessible('emails-empty');
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
    await expectBody(api().post('/suppressions', { email: 'carl@example.com' }), 201);
    skippedId = await send('carl@example.com', 'Not for Carl', '<p>Held back</p>');
    // The delivery worker captures them in the outbox.
    await pollUntil(
      async () => (await expectBody(api().get('/emails'))).data as EmailRecord[],
      (emails) => emails.length === 4 && emails.every((e) => e.status !== 'queued'),
    );

    await page.reload();
    // A header row and four emails, newest first.
    await expect.poll(() => rows().count()).toBe(5);
    expect(await rows().nth(1).textContent()).toContain('carl@example.com');
    expect(await rows().nth(1).textContent()).toContain('Not sent');
    expect(await rows().nth(4).textContent()).toContain('Welcome, Ada');
    expect(await rows().nth(4).textContent()).toContain('Sent');
    await expectAccessible('emails');
  });

  it('filters by status and by recipient, the filters in the address', async () => {
    await page.getByLabel('Status').selectOption('skipped');
    await expect.poll(() => rows().count()).toBe(2);
    expect(await rows().nth(1).textContent()).toContain('Not for Carl');
    expect(new URL(page.url()).searchParams.get('status')).toBe('skipped');

    await page.getByLabel('Status').selectOption('sent');
    await expect.poll(() => rows().count()).toBe(4);

    // Not a whole address: said beside the field, the list stays.
    await page.getByLabel('Recipient').fill('bob');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByLabel('Recipient').getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Enter a whole address').waitFor();

    await page.getByLabel('Recipient').fill('bob@example.com');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows().count()).toBe(3);
    const url = new URL(page.url());
    expect(url.searchParams.get('to')).toBe('bob@example.com');
    expect(url.searchParams.get('status')).toBe('sent');
    await expectAccessible('emails-filtered');

    // Shared as a link, the filters come back.
    const elsewhere = await browser.newContext({ storageState: await page.context().storageState() });
    const again = await elsewhere.newPage();
    await again.goto(page.url());
    await expect.poll(() => again.getByRole('table', { name: 'Emails' }).getByRole('row').count()).toBe(3);
    expect(await again.getByLabel('Recipient').inputValue()).toBe('bob@example.com');
    await elsewhere.close();

    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('heading', { name: 'No emails match' }).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows().count()).toBe(5);
    expect(new URL(page.url()).search).toBe('');
  });

  it('opens an email: its HTML in a sandboxed frame, the envelope, the delivery in words', async () => {
    await page.getByRole('link', { name: 'Welcome, Ada' }).click();
    await page.getByRole('heading', { name: 'Welcome, Ada', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/app/emails/${welcomeId}`);

    const frame = page.locator('iframe.email-frame');
    // Sandboxed with no permission at all: no scripts, no same-origin, no forms, no popups.
    expect(await frame.getAttribute('sandbox')).toBe('');
    expect(await frame.getAttribute('title')).toContain('Welcome, Ada');
    await expect.poll(() => messageFrame().locator('h1').textContent()).toBe('Hello Ada');
    // The message is in the frame only, never in the page itself.
    expect(await page.locator('main h1', { hasText: 'Hello Ada' }).count()).toBe(0);
    // Its link points at its target, untracked, and its open pixel is left out.
    expect(await messageFrame().getByRole('link', { name: 'Start here' }).getAttribute('href')).toBe(
      'https://example.org/start',
    );
    const stored = await expectBody(api().get(`/emails/${welcomeId}/content`));
    expect(stored.html).toContain(`/t/open/${welcomeId}/`);
    expect(await messageFrame().locator('img[src*="/t/open/"]').count()).toBe(0);

    const message = page.getByRole('region', { name: 'Message' });
    await message.getByText('hello@example.com').waitFor();
    await message.getByText('support@example.com').waitFor();
    const headers = message.getByRole('table', { name: 'Extra headers' });
    expect(await headers.getByRole('row', { name: /X-Order-Ref/ }).textContent()).toContain('A-1001');

    const delivery = page.getByRole('region', { name: 'Delivery' });
    await delivery.getByText('Accepted and queued').waitFor();
    await delivery.getByText('Sent', { exact: true }).waitFor();
    await delivery.getByText("Relay's answer").waitFor();
    await page.getByRole('region', { name: 'Opens and clicks' }).getByText('Opens', { exact: true }).waitFor();

    const record = (await expectBody(api().get(`/emails/${welcomeId}`))) as EmailRecord;
    expect(
      await page
        .getByRole('region', { name: 'Related' })
        .getByRole('link', { name: 'ada@example.com' })
        .getAttribute('href'),
    ).toBe(`/app/contacts/${record.contactId}`);
    // Looking at it counted no open.
    expect(record.openCount).toBe(0);
    await expectAccessible('email');
  });

  it('downloads the captured .eml', async () => {
    const [download, response] = await Promise.all([
      page.waitForEvent('download'),
      page.waitForResponse((r) => r.url().endsWith(`/emails/${welcomeId}/raw`)),
      page.getByRole('button', { name: 'Download .eml' }).click(),
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
    await page.goto(`${service.url}/app/emails/${skippedId}`);
    await page.getByRole('heading', { name: 'Not for Carl', level: 1 }).waitFor();
    const delivery = page.getByRole('region', { name: 'Delivery' });
    await delivery.getByText('Not sent', { exact: true }).waitFor();
    await delivery.getByText('the address is on the suppression list').waitFor();
    expect(await page.getByRole('button', { name: 'Download .eml' }).count()).toBe(0);
    await expectAccessible('email-skipped');

    await page.goto(`${service.url}/app/emails/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('heading', { name: 'Email not found' }).waitFor();
  });

  it('fits 375 px without sideways scrolling, light and dark', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${service.url}/app/emails`);
      // The header row is hidden at this width: each email is a card of its own.
      await expect.poll(() => rows().count()).toBe(4);
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(`emails-narrow-${scheme}`);
      await page.goto(`${service.url}/app/emails/${welcomeId}`);
      await expect.poll(() => messageFrame().locator('h1').textContent()).toBe('Hello Ada');
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(`email-narrow-${scheme}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${service.url}/app/emails`);
    await expect.poll(() => rows().count()).toBe(5);
    await expectAccessible('emails-dark');
    await page.goto(`${service.url}/app/emails/${welcomeId}`);
    await expect.poll(() => messageFrame().locator('h1').textContent()).toBe('Hello Ada');
    await expectAccessible('email-dark');
  });
});
