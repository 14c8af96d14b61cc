import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/platform/db/client.js';
import {
  accessibilityViolations,
  BROWSER_TEST_TIMEOUT_MS,
  hasChromium,
  launchChromium,
  screenshot,
  sidewaysOverflow,
} from '../support/browser.js';
import { verifiedDomain } from '../support/domains.js';
import { confirmationLink, publishMailDomain } from '../support/forms.js';
import { sinkMessagesTo, useSinkAndDns } from '../support/sending.js';
import { eventually, startTestServer, type TestProject, type TestServer } from '../support/server.js';

/**
 * A signup form as visitors meet it, in Debian's Chromium against the real service: the hosted page
 * (proof of work solved in the background, the answer shown in the page), the confirmation email at
 * a real SMTP sink whose link confirms in one click, a link scanner that confirms nothing, the page
 * without script, and the embed code pasted into a site of another origin.
 */

const mail = useSinkAndDns();
let server: TestServer;
let p: TestProject;
let browser: Browser;
let page: Page;
let formId: string;
let site: http.Server;
let siteOrigin: string;
let embedCode = '';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

beforeAll(async () => {
  publishMailDomain(mail.dns, 'acme-widgets.dev');
  server = await startTestServer({ SMTP_URL: mail.sink.url, DNS_SERVERS: mail.dns.address, REDIS_URL: '' });
  p = await server.project('hosted forms');
  await verifiedDomain(p.api, mail.dns, 'forms-sender.test');
  site = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      `<!doctype html><html lang="en"><head><title>A shop</title></head><body><main>${embedCode}</main></body></html>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // Another origin than the service's: `localhost` and another port.
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  const created = await p.api.post('/forms', {
    name: 'Newsletter',
    title: { en: 'Our monthly letter', de: 'Unser Monatsbrief' },
    fields: [{ key: 'firstName', type: 'string', required: true, label: { en: 'First name', de: 'Vorname' } }],
    senderEmail: 'news@forms-sender.test',
    consentText: { en: 'I agree to receive the monthly letter. Unsubscribe at any time.' },
    allowedOrigins: [siteOrigin],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  formId = created.body.id;
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
  await server?.stop();
});

const contact = async (email: string) =>
  (
    await run<{ subscribed: boolean; data: Record<string, unknown> }>(
      server.service.ctx.db,
      sql`select subscribed, data from contacts where email = ${email}`,
    )
  ).rows[0];

/** Fills the form as a person does: a few seconds, while the proof of work is solved. */
async function fillIn(target: Page, email: string, firstName: string) {
  await target.getByLabel('Email address').fill(email);
  await target.getByLabel('First name').fill(firstName);
  await target.waitForTimeout(2_100);
  await target.getByRole('button', { name: 'Subscribe' }).click();
}

describe.skipIf(!hasChromium)('the hosted form', () => {
  it('is accessible and fits a phone', async () => {
    await page.goto(`${server.url}/f/${formId}`);
    await page.getByRole('heading', { name: 'Our monthly letter' }).waitFor();
    await page.getByText('I agree to receive the monthly letter').waitFor();
    expect(await accessibilityViolations(page, 'form-hosted')).toEqual([]);
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows a refusal beside its field and stores nothing', async () => {
    await fillIn(page, 'ann@gmial.com', 'Ann');
    await page.getByText('Did you mean ann@gmail.com?').first().waitFor();
    await expect.poll(() => page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'form-refused');
    expect(await contact('ann@gmial.com')).toBeUndefined();
  });

  it('subscribes in one submit and one click: the form, the email, the link', async () => {
    const email = 'ann@acme-widgets.dev';
    await page.goto(`${server.url}/f/${formId}`);
    await fillIn(page, email, 'Ann');
    await page.getByRole('status').getByText(`we sent an email to ${email}`).waitFor();
    // The answer takes the form's place.
    await expect.poll(() => page.getByLabel('Email address').isVisible()).toBe(false);
    await screenshot(page, 'form-sent');
    expect(await contact(email)).toMatchObject({ subscribed: false });

    const message = await eventually(async () => sinkMessagesTo(mail.sink, email)[0]);
    const link = await confirmationLink(message, server.service.ctx.config.publicUrl, server.url);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Subscription confirmed' }).waitFor();
    expect(await accessibilityViolations(page, 'form-confirmed')).toEqual([]);
    expect(await contact(email)).toMatchObject({ subscribed: true, data: { firstName: 'Ann' } });
  });

  it('a scanner fetching the link confirms nothing; without script a button confirms', async () => {
    const email = 'bob@acme-widgets.dev';
    await page.goto(`${server.url}/f/${formId}`);
    await fillIn(page, email, 'Bob');
    await page.getByRole('status').getByText('Almost done').waitFor();
    const message = await eventually(async () => sinkMessagesTo(mail.sink, email)[0]);
    const link = await confirmationLink(message, server.service.ctx.config.publicUrl, server.url);

    const scanned = await fetch(link);
    expect(scanned.status).toBe(200);
    expect(await contact(email)).toMatchObject({ subscribed: false });

    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    await plain.goto(`${server.url}/f/${formId}`);
    await plain.getByText('This form needs JavaScript').waitFor();
    await plain.goto(link);
    await plain.getByRole('heading', { name: 'Confirm your subscription' }).waitFor();
    await screenshot(plain, 'form-confirm-noscript');
    expect(await contact(email)).toMatchObject({ subscribed: false });
    await plain.getByRole('button', { name: 'Confirm my subscription' }).click();
    await plain.getByRole('heading', { name: 'Subscription confirmed' }).waitFor();
    expect(await contact(email)).toMatchObject({ subscribed: true });
    await noScript.close();
  });

  it('speaks the visitor’s language', async () => {
    const german = await browser.newContext({ locale: 'de-DE' });
    const de = await german.newPage();
    await de.goto(`${server.url}/f/${formId}`);
    await de.getByRole('heading', { name: 'Unser Monatsbrief' }).waitFor();
    await de.getByLabel('Vorname').waitFor();
    await de.getByRole('button', { name: 'Abonnieren' }).waitFor();
    await german.close();
  });
});

describe.skipIf(!hasChromium)('the embed code on another site', () => {
  it('signs up from an allowed origin, across origins', async () => {
    embedCode = (await p.api.get(`/forms/${formId}`)).body.embedCode;
    const email = 'cara@acme-widgets.dev';
    await page.goto(siteOrigin);
    await fillIn(page, email, 'Cara');
    await page.getByRole('status').getByText(`we sent an email to ${email}`).waitFor();
    await eventually(async () => sinkMessagesTo(mail.sink, email)[0]);
  });

  it('refuses from a site the form does not allow', async () => {
    await p.api.patch(`/forms/${formId}`, { allowedOrigins: [] });
    await page.goto(siteOrigin);
    await fillIn(page, 'dan@acme-widgets.dev', 'Dan');
    // The browser blocks the answer without CORS headers: the form says it could not send.
    await page.getByText('Please try again later.').waitFor();
    expect(await contact('dan@acme-widgets.dev')).toBeUndefined();
  });
});
