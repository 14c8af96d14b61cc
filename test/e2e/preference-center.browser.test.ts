import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Contact, Topic } from '../../src/api.js';
import {
  accessibilityViolations,
  BROWSER_TEST_TIMEOUT_MS,
  hasChromium,
  launchChromium,
  screenshot,
  sidewaysOverflow,
} from '../support/browser.js';
import { expectBody, startTestServer, type TestProject, type TestServer } from '../support/server.js';

/**
 * The preference center (/manage/<token>) in Debian's Chromium: each public topic with its switch,
 * a break and "unsubscribe from everything"; three topics change in one submit; localized; no
 * accessibility violations; fine on a phone.
 */

let server: TestServer;
let p: TestProject;
let browser: Browser;
let page: Page;
const topics: Record<string, Topic> = {};

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project('preference center');
  for (const [key, body] of Object.entries({
    launches: { name: 'Product launches', description: 'When something new ships', defaultOn: true },
    digest: { name: 'Weekly digest', description: 'The week in five links' },
    events: { name: 'Events near you', description: 'Meetups and talks' },
    offers: { name: 'Offers', defaultOn: true },
    internal: { name: 'Beta cohort', public: false },
  })) {
    topics[key] = await expectBody<Topic>(p.api.post('/topics', body), 201);
  }
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(20_000);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const manageUrl = (contactId: string) =>
  `${server.url}/manage/${server.service.ctx.links.subscriberToken({ projectId: p.id, contactId })}`;

const topicsOf = async (id: string) => (await expectBody<Contact>(p.api.get(`/contacts/${id}`))).topics!;

describe.skipIf(!hasChromium)('the preference center', () => {
  it('changes three topics in one submit, and says so', async () => {
    const c = await expectBody<Contact>(
      p.api.post('/contacts', { email: 'reader@prefs.test', topics: { [topics.events!.id]: true } }),
      201,
    );
    await page.goto(manageUrl(c.id));
    await expect.poll(() => page.title()).toBe('Email preferences');
    // Public topics only, each with its state: the internal one is not shown.
    const box = (t: Topic) => page.getByRole('checkbox', { name: t.name });
    await expect.poll(() => box(topics.launches!).isChecked()).toBe(true);
    expect(await box(topics.digest!).isChecked()).toBe(false);
    expect(await box(topics.events!).isChecked()).toBe(true);
    expect(await box(topics.offers!).isChecked()).toBe(true);
    expect(await page.getByText('Beta cohort').count()).toBe(0);
    expect(await accessibilityViolations(page, 'preference-center')).toEqual([]);
    await screenshot(page, 'preference-center');

    await box(topics.launches!).uncheck();
    await box(topics.digest!).check();
    await box(topics.events!).uncheck();
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Your preferences have been saved.');
    expect(await accessibilityViolations(page, 'preference-center-saved')).toEqual([]);

    expect(await topicsOf(c.id)).toEqual({
      [topics.launches!.id]: false,
      [topics.digest!.id]: true,
      [topics.events!.id]: false,
      [topics.offers!.id]: true,
      [topics.internal!.id]: false,
    });
    const after = await expectBody<Contact>(p.api.get(`/contacts/${c.id}`));
    expect(after.subscribed).toBe(true);
    expect(after.snoozedUntil).toBeNull();
    // The page shows what is now stored.
    expect(await box(topics.launches!).isChecked()).toBe(false);
    expect(await box(topics.digest!).isChecked()).toBe(true);
  });

  it('takes a break and leaves everything in the same submit, in the reader’s language, on a phone', async () => {
    const c = await expectBody<Contact>(
      p.api.post('/contacts', { email: 'leser@prefs.test', data: { locale: 'de' } }),
      201,
    );
    const phone = await (await browser.newContext({ viewport: { width: 375, height: 740 } })).newPage();
    await phone.goto(manageUrl(c.id));
    await expect.poll(() => phone.title()).toBe('E-Mail-Einstellungen');
    expect(await sidewaysOverflow(phone)).toBe(0);
    expect(await accessibilityViolations(phone, 'preference-center-de-375')).toEqual([]);
    await screenshot(phone, 'preference-center-de-375');
    await phone.getByRole('radio', { name: '30 Tage' }).check();
    await phone.getByRole('checkbox', { name: 'Weekly digest' }).check();
    await phone.getByRole('button', { name: 'Einstellungen speichern' }).click();
    await expect.poll(() => phone.getByRole('status').textContent()).toBe('Ihre Einstellungen wurden gespeichert.');
    const snoozed = await expectBody<Contact>(p.api.get(`/contacts/${c.id}`));
    expect(snoozed.snoozedUntil).not.toBeNull();
    expect(snoozed.topics![topics.digest!.id]).toBe(true);

    await phone.getByRole('checkbox', { name: 'Von allem abmelden' }).check();
    await phone.getByRole('button', { name: 'Einstellungen speichern' }).click();
    await expect.poll(() => phone.getByRole('status').textContent()).toBe('Ihre Einstellungen wurden gespeichert.');
    const gone = await expectBody<Contact>(p.api.get(`/contacts/${c.id}`));
    expect(gone.subscribed).toBe(false);
    // Everything off keeps the topics as they were, for a return.
    expect(gone.topics![topics.digest!.id]).toBe(true);
    await phone.getByRole('button', { name: 'Wieder anmelden' }).waitFor();
    await phone.close();
  });
});
