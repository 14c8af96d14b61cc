import { beforeAll, describe, expect, it } from 'vitest';
import type { Campaign, Contact, DeliverySettings, EmailRecord, TrackedEvent } from '../../src/api.js';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { expectBody, pollUntil } from '../support/server.js';

/**
 * The dashboard's rough edges, in Debian's Chromium against the real service (its own process,
 * without SMTP_URL: capture mode, so any sender will do and every message counts as sent). A
 * campaign "Spring news" goes to three contacts; the pages must name it (and its emails) where
 * they used to print ids, the template preview must render for a real contact and list what prints
 * nothing, the Domains page must say what capture mode does, and the CSV import must say per row
 * what it will create, update and refuse before anything is uploaded.
 */

/** A campaign's or template's content, from a sender whose domain capture mode accepts unverified. */
const content = (name: string, subject: string, body: string) => ({ name, subject, body, from: 'news@polish.example' });

describe.skipIf(!hasChromium)('the dashboard’s finishing touches in a browser', () => {
  const d = useDashboard();
  const main = () => d.page.getByRole('main');
  const go = async (path: string, heading: string) => {
    await d.page.goto(`${d.service.url}/app${path}`);
    await d.page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
  };
  let campaign: Campaign;
  let email: EmailRecord;
  let templateId: string;
  const contacts: Record<string, Contact> = {};
  const create = (path: string, body: unknown) => expectBody(d.api().post(path, body), 201);

  beforeAll(async () => {
    // Oldest first: cy is the project's newest contact, and has no plan.
    for (const [address, data] of [
      ['ada@example.com', { firstName: 'Ada', plan: 'pro' }],
      ['bob@example.com', { firstName: 'Bob', plan: 'team' }],
      ['cy@example.com', { firstName: 'Cy' }],
    ] as const) {
      contacts[address] = await create('/contacts', { email: address, data });
    }
    campaign = (
      await create('/campaigns', {
        ...content('Spring news', 'What is new this spring', '<p>Hello {{ firstName }}</p>'),
        audienceType: 'ALL',
      })
    ).data;
    await expectBody(d.api().post(`/campaigns/${campaign.id}/send`, {}));
    const sent = await pollUntil(
      async () => (await expectBody(d.api().get('/events?name=email.sent'))).data as TrackedEvent[],
      (events) => events.length === 3,
      30_000,
    );
    const ada = sent.find((e) => e.email === 'ada@example.com')!;
    email = await expectBody(d.api().get(`/emails/${ada.data.emailId}`));
    templateId = (
      await create(
        '/templates',
        content(
          'Plan reminder',
          'Your {{ plan }} plan',
          '<p>Hi {{ firstName }}, you are on the {{ plan }} plan in {{ city ?? "your city" }}.</p>',
        ),
      )
    ).id;
  }, 60_000);

  it('events name the campaign and the email they are about, as links, and keep event names whole', async () => {
    await go('/events', 'Events');
    const table = main().getByRole('table', { name: 'Events, newest first' });
    const row = table.getByRole('row').filter({ hasText: 'ada@example.com' }).filter({ hasText: 'email.sent' });
    const campaignLink = row.getByRole('link', { name: 'Spring news' });
    await campaignLink.waitFor();
    expect(await campaignLink.getAttribute('href')).toBe(`/app/campaigns/${campaign.id}`);
    const emailLink = row.getByRole('link', { name: 'What is new this spring' });
    expect(await emailLink.getAttribute('href')).toBe(`/app/emails/${email.id}`);
    expect(await row.textContent()).not.toContain(campaign.id);

    // "email.sent" on one line, not broken inside a word.
    const lines = await row.locator('.cell-event-name').evaluate((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    expect(lines).toBe(1);
    await d.expectAccessible('polish-events');

    await emailLink.click();
    await d.page.getByRole('heading', { name: 'What is new this spring', level: 1 }).waitFor();

    // The same on the contact's Events card.
    await go(`/contacts/${contacts['ada@example.com']!.id}`, 'ada@example.com');
    const card = main().getByRole('region', { name: 'Events' });
    await card.getByRole('link', { name: 'Spring news' }).waitFor();
    expect(await card.getByRole('link', { name: 'What is new this spring' }).getAttribute('href')).toBe(
      `/app/emails/${email.id}`,
    );
  });

  it('an email names its campaign, linked; Top campaigns names look like links on the body’s background', async () => {
    await go(`/emails/${email.id}`, 'What is new this spring');
    const related = main().getByRole('region', { name: 'Related' });
    const link = related.getByRole('link', { name: 'Spring news' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/app/campaigns/${campaign.id}`);
    expect(await related.textContent()).not.toContain(campaign.id);
    await d.expectAccessible('polish-email');

    await go('/overview', 'Overview');
    const top = main().getByRole('table', { name: 'Top campaigns by opens' });
    const name = top.getByRole('link', { name: 'Spring news' });
    await name.waitFor();
    expect(await name.getAttribute('href')).toBe(`/app/campaigns/${campaign.id}`);
    const backgrounds = await top.evaluate((table) => {
      const color = (el: Element) => getComputedStyle(el).backgroundColor;
      return { header: color(table.querySelector('thead th')!), row: color(table.querySelector('tbody th')!) };
    });
    expect(backgrounds.row).not.toBe(backgrounds.header);
    expect(backgrounds.row).toBe('rgba(0, 0, 0, 0)');
    await d.expectAccessible('polish-overview');
  });

  it('the template preview renders for the newest contact and lists what prints nothing, before a send too', async () => {
    await go(`/templates/${templateId}`, 'Plan reminder');
    await main().getByText('Showing the email as cy@example.com would receive it.').waitFor();
    await pollUntil(
      () => d.page.getByTestId('preview-subject').textContent(),
      (subject) => subject === 'Your  plan',
    );
    const preview = main().getByRole('region', { name: 'Preview' });
    const empty = preview.getByRole('list', { name: 'Placeholders that print nothing' });
    await empty.waitFor();
    expect(await empty.getByRole('listitem').allTextContents()).toEqual(['{{ plan }}']);
    await preview.getByText('This placeholder prints nothing for cy@example.com:').waitFor();
    const sendTest = main().getByRole('form', { name: 'Send a test' });
    expect(await sendTest.getByRole('list', { name: 'Placeholders that print nothing' }).textContent()).toBe(
      '{{ plan }}',
    );
    await d.expectAccessible('polish-template-preview');

    // Another contact, who has a plan: nothing is empty any more.
    await main().getByLabel('Find a contact by email').fill('bob@');
    await main().getByRole('button', { name: 'bob@example.com' }).click();
    await preview.getByText('Every placeholder prints something for bob@example.com.').waitFor();
    await pollUntil(
      () => d.page.getByTestId('preview-subject').textContent(),
      (subject) => subject === 'Your team plan',
    );
    expect(await sendTest.getByRole('list').count()).toBe(0);
  });

  it('the Domains page says what capture mode does and how to switch to a relay', async () => {
    const settings = (await expectBody(d.api().get('/delivery-settings'))) as DeliverySettings;
    expect(settings.mode).toBe('capture');
    await go('/domains', 'Domains');
    const notice = main().getByRole('region', { name: 'Capture mode: no mail leaves this service' });
    await notice.waitFor();
    const text = await notice.textContent();
    expect(text).toContain('from any sender address');
    expect(text).toContain('nothing leaves this machine');
    expect(text).toContain('SMTP_URL');
    expect(await main().textContent()).not.toContain('Mail is sent only from verified domains.');
    await d.expectAccessible('polish-domains-capture');
  });

  it('the CSV import says per row and in total what it will create, update and refuse', async () => {
    await go('/contacts/import', 'Import contacts');
    const csv = [
      'email,plan',
      'ADA@example.com,pro',
      'dan@example.com,free',
      'not-an-email,free',
      'dan@example.com,team',
    ];
    await d.page
      .getByLabel('Choose a CSV file')
      .setInputFiles({ name: 'mixed.csv', mimeType: 'text/csv', buffer: Buffer.from(csv.join('\n')) });
    const totals = main().getByRole('region', { name: 'What the import will do' });
    await totals.waitFor();
    await pollUntil(
      () => totals.locator('dl').textContent(),
      (t) => t === 'New1Updated2Refused1',
    );
    const rows = await main().getByRole('table', { name: 'First rows of the file' }).locator('tbody tr').all();
    const cells = await Promise.all(rows.map(async (r) => (await r.locator('td').allTextContents()).join(' ')));
    expect(cells).toEqual([
      expect.stringMatching(/^2 Update ADA@example.com/),
      expect.stringMatching(/^3 New dan@example.com/),
      expect.stringMatching(/^4 Refused: "not-an-email" is not a valid email address not-an-email/),
      expect.stringMatching(/^5 Update dan@example.com/),
    ]);
    // Nothing was uploaded: dan is not a contact yet.
    expect((await expectBody(d.api().get('/contacts?search=dan%40'))).data).toEqual([]);
    await d.expectAccessible('polish-import-preview');
  });

  it('a contact row opens the contact from anywhere in the row, and its address is a link', async () => {
    await go('/contacts', 'Contacts');
    const row = main().getByRole('row').filter({ hasText: 'bob@example.com' });
    const link = row.getByRole('link', { name: 'bob@example.com' });
    expect(await link.evaluate((a) => getComputedStyle(a).color)).not.toBe(
      await row.evaluate((r) => getComputedStyle(r).color),
    );
    await row.locator('.cell-created').click();
    await d.page.getByRole('heading', { name: 'bob@example.com', level: 1 }).waitFor();
  });

  it('fits 375 px and 1280 px, light and dark, with no serious accessibility problem', async () => {
    const pages = [
      { path: '/events', heading: 'Events', name: 'events' },
      { path: `/emails/${email.id}`, heading: 'What is new this spring', name: 'email' },
      { path: '/overview', heading: 'Overview', name: 'overview' },
      { path: `/templates/${templateId}`, heading: 'Plan reminder', name: 'template' },
      { path: '/domains', heading: 'Domains', name: 'domains' },
      { path: '/contacts', heading: 'Contacts', name: 'contacts' },
    ];
    // Each page opened on a phone; its scan covers 1280 px light and 375 px dark.
    await d.page.setViewportSize({ width: 375, height: 900 });
    for (const p of pages) {
      await go(p.path, p.heading);
      await d.page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
      for (const scheme of ['light', 'dark'] as const) {
        await d.page.emulateMedia({ colorScheme: scheme });
        expect(await sidewaysOverflow(d.page), `${p.name} ${scheme}`).toBeLessThanOrEqual(0);
      }
      await d.page.emulateMedia({ colorScheme: 'light' });
      await d.expectAccessible(`polish-${p.name}`);
    }
    await d.page.setViewportSize({ width: 1280, height: 900 });
  });
});
