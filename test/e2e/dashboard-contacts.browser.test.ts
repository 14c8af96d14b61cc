import { beforeAll, describe, expect, it } from 'vitest';
import type { Contact, EmailRecord } from '../../src/api.js';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { client, expectBody, pollUntil } from '../support/server.js';

/**
 * The contacts pages in Debian's Chromium against the real service: a CSV imported and followed to
 * the end, a contact opened, edited, unsubscribed and deleted, its events shown, and the list's
 * bulk actions; each new page scanned with axe, wide and light, narrow and dark.
 */

const ROWS = 200;
const person = (i: number) => `person${String(i).padStart(3, '0')}@example.com`;

/** 200 good rows, one without an email and one with an address that is not one. */
function peopleCsv(): Buffer {
  const lines = ['email,first_name,plan,seats'];
  for (let i = 1; i <= ROWS; i++) {
    lines.push(`${person(i)},Person ${i},${i % 2 ? 'free' : 'pro'},${i}`);
    if (i === 50) lines.push(',Nobody,free,1');
    if (i === 120) lines.push('not-an-address,Broken,free,1');
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

describe.skipIf(!hasChromium)('the contacts pages in a browser', () => {
  const d = useDashboard();
  beforeAll(() => d.page.goto(`${d.service.url}/app/contacts`));
  async function contactByEmail(email: string): Promise<Contact> {
    const res = await d.api().get(`/contacts?search=${encodeURIComponent(email)}`);
    return (res.body.data as Contact[]).find((c) => c.email === email)!;
  }

  it('imports a CSV: the mapping first, then live progress to the end, with the rows it refused', async () => {
    await d.page.getByRole('link', { name: 'Import CSV' }).click();
    await d.page.getByRole('heading', { name: 'Import contacts' }).waitFor();
    await d.expectAccessible('import-empty');

    // Too big is refused before anything is uploaded.
    await d.page.getByLabel('Choose a CSV file').setInputFiles({
      name: 'huge.csv',
      mimeType: 'text/csv',
      buffer: Buffer.alloc(5 * 1024 * 1024 + 1, 'a'),
    });
    await d.page.getByRole('alert').getByText('a CSV may be at most 5 MB').waitFor();

    await d.page.getByLabel('Choose another CSV file').setInputFiles({
      name: 'people.csv',
      mimeType: 'text/csv',
      buffer: peopleCsv(),
    });
    const columns = d.page.getByRole('table', { name: 'How each column is imported' });
    await columns.waitFor();
    expect(await columns.getByRole('row').allTextContents()).toEqual([
      expect.stringMatching(/Column\s*Becomes\s*Type/),
      expect.stringMatching(/email\s*Email address/),
      expect.stringMatching(/first_name\s*Data field first_name\s*Text \(new field\)/),
      expect.stringMatching(/plan\s*Data field plan\s*Text \(new field\)/),
      expect.stringMatching(/seats\s*Data field seats\s*Number \(new field\)/),
    ]);
    await d.page.getByText('people.csv · 202 rows').waitFor();
    expect(await d.page.getByRole('table', { name: 'First rows of the file' }).getByRole('row').count()).toBe(11);
    await d.page.getByRole('heading', { name: '2 rows will not be imported' }).waitFor();
    await d.page.getByText('Row 52: email is empty').waitFor();
    await d.page.getByText('Row 123: "not-an-address" is not a valid email address').waitFor();
    await expect
      .poll(() => d.page.getByRole('region', { name: 'What the import will do' }).locator('dl').textContent())
      .toBe('New200Updated0Refused2');
    await d.expectAccessible('import-preview');

    // Every progress text the page showed, until the job ended.
    const seen: string[] = [];
    const progress = d.page.getByRole('progressbar', { name: 'Import progress' });
    await d.page.getByRole('button', { name: 'Import 202 rows' }).click();
    await progress.waitFor();
    expect(new URL(d.page.url()).searchParams.get('job')).toMatch(/^[0-9a-f-]{36}$/);
    const finished = d.page.getByRole('heading', { name: 'Import finished' });
    await expect
      .poll(
        async () => {
          // Finished first, then the value: the last one read is then what the finished page shows.
          const done = await finished.isVisible();
          seen.push(await progress.getAttribute('value').then((v) => v ?? ''));
          return done;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    expect(await progress.getAttribute('value')).toBe('100');
    expect(seen.at(-1)).toBe('100');
    await d.page.getByText('Done: 202 rows, 200 new, 0 updated, 2 failed').waitFor();
    const counts = d.page.locator('.job-counts');
    expect(await counts.textContent()).toMatch(/New\s*200\s*Updated\s*0\s*Failed\s*2/);
    const refused = d.page.getByRole('table', { name: 'Rows not imported' }).getByRole('row');
    await expect.poll(() => refused.count()).toBe(3);
    expect(await refused.nth(1).textContent()).toMatch(/52\s*—\s*email is empty/);
    expect(await refused.nth(2).textContent()).toMatch(/123\s*not-an-address\s*"not-an-address" is not a valid email/);
    await d.expectAccessible('import-done');

    await d.page.getByRole('link', { name: 'Go to contacts' }).click();
    await d.page.getByText('200 contacts').waitFor();
    const first = await d.api().get('/contacts?limit=1');
    expect(first.body.total).toBe(200);
  });

  it('opens a contact from the list, edits its data and sees it saved', async () => {
    await d.page.getByLabel('Search by email').fill('person007');
    const rows = d.page.getByRole('table', { name: 'Contacts' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(2);
    await d.page.getByRole('link', { name: person(7) }).click();
    await d.page.getByRole('heading', { name: person(7), level: 1 }).waitFor();
    const data = d.page.getByRole('table', { name: 'Data fields', exact: true });
    expect(await data.getByRole('row').allTextContents()).toEqual([
      expect.stringMatching(/Field\s*Value\s*Type/),
      expect.stringMatching(/first_name\s*Person 7\s*Text/),
      expect.stringMatching(/plan\s*free\s*Text/),
      expect.stringMatching(/seats\s*7\s*Number/),
    ]);
    await d.expectAccessible('contact');

    await d.page.getByRole('button', { name: 'Edit data' }).click();
    await d.page.getByLabel('Value of plan').fill('enterprise');
    await d.page.getByLabel('Value of seats').fill('many');
    await d.page.getByRole('button', { name: 'Add field' }).click();
    await d.page.getByLabel('Name of field 4').fill('company');
    await d.page.getByLabel('Value of company').fill('Acme Ltd');
    await d.page.getByRole('button', { name: 'Remove first_name' }).click();
    await d.page.getByRole('button', { name: 'Save data' }).click();
    // Refused in the page, beside the field, before anything is sent.
    await expect.poll(() => d.page.getByLabel('Value of seats').getAttribute('aria-invalid')).toBe('true');
    await d.page.getByText('Enter a number').waitFor();
    await d.expectAccessible('contact-editing');

    await d.page.getByLabel('Value of seats').fill('12');
    await d.page.getByRole('button', { name: 'Save data' }).click();
    await expect
      .poll(() => data.getByRole('row').allTextContents())
      .toEqual([
        expect.stringMatching(/Field\s*Value\s*Type/),
        expect.stringMatching(/company\s*Acme Ltd\s*Text/),
        expect.stringMatching(/plan\s*enterprise\s*Text/),
        expect.stringMatching(/seats\s*12\s*Number/),
      ]);
    const saved = await contactByEmail(person(7));
    expect(saved.data).toEqual({ company: 'Acme Ltd', plan: 'enterprise', seats: 12 });
  });

  it('unsubscribes the contact, and shows it and a tracked event in its timeline', async () => {
    await d.page.getByRole('button', { name: 'Unsubscribe' }).click();
    const subscription = d.page.getByRole('region', { name: 'Subscription' });
    await subscription.getByText('Unsubscribed', { exact: true }).waitFor();
    expect((await contactByEmail(person(7))).subscribed).toBe(false);
    const timeline = d.page.getByRole('list', { name: 'Events, newest first' });
    await timeline.getByText('contact.unsubscribed').waitFor();

    const tracked = await client(d.service.url, d.keys().publicKey).post('/v1/track', {
      email: person(7),
      event: 'trial.started',
      data: { source: 'pricing-page' },
    });
    expect(tracked.status).toBe(200);
    await d.page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => timeline.getByRole('listitem').first().textContent()).toMatch(/trial\.started/);
    expect(await timeline.getByRole('listitem').first().textContent()).toContain('pricing-page');
    await d.expectAccessible('contact-events');

    await d.page.getByRole('button', { name: 'Subscribe' }).click();
    await subscription.getByText('Subscribed', { exact: true }).waitFor();
    await d.page.getByRole('button', { name: 'Snooze' }).click();
    await subscription.getByText('Snoozed', { exact: true }).waitFor();
    const snoozed = await contactByEmail(person(7));
    expect(snoozed.subscribed).toBe(false);
    expect(Date.parse(snoozed.snoozedUntil!) - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);
  });

  it('bulk-unsubscribes a selection and bulk-deletes after a confirmation', async () => {
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).click();
    await d.page.getByText('200 contacts').waitFor();
    const selectAll = d.page.getByLabel('Select all contacts on this page');
    await selectAll.check();
    await d.page.getByText('50 selected').waitFor();
    await selectAll.uncheck();
    await expect.poll(() => d.page.getByText('50 selected').count()).toBe(0);

    // Rows of the page, whichever they are, but for the contacts later tests open.
    const links = d.page.getByRole('table', { name: 'Contacts' }).getByRole('link');
    const kept = [person(7), person(8)];
    const [a, b, c, fourth, fifth] = (await links.allTextContents()).filter((email) => !kept.includes(email));
    const chosen = [a!, b!, c!];
    for (const email of chosen) await d.page.getByLabel(`Select ${email}`).check();
    expect(await selectAll.evaluate((el: HTMLInputElement) => el.indeterminate)).toBe(true);
    const bar = d.page.getByRole('region', { name: 'Bulk actions' });
    await bar.getByText('3 selected').waitFor();
    await d.expectAccessible('contacts-selected');
    await bar.getByRole('button', { name: 'Unsubscribe' }).click();
    const running = d.page.getByRole('region', { name: 'Bulk action' });
    await running.getByText('Unsubscribed 3 contacts').waitFor();
    expect(await running.getByRole('progressbar').getAttribute('value')).toBe('100');
    for (const email of chosen) expect((await contactByEmail(email)).subscribed).toBe(false);
    await expect.poll(() => d.page.getByRole('row', { name: a }).textContent()).toContain('Unsubscribed');
    await running.getByRole('button', { name: 'Dismiss' }).click();

    await d.page.getByLabel(`Select ${fourth}`).check();
    await d.page.getByLabel(`Select ${fifth}`).check();
    await d.page.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Delete…' }).click();
    const confirm = d.page.getByRole('dialog', { name: 'Delete 2 contacts?' });
    await confirm.waitFor();
    await d.expectAccessible('contacts-bulk-delete');
    await confirm.getByRole('button', { name: 'Delete 2 contacts' }).click();
    await d.page.getByText('Deleted 2 contacts').waitFor();
    await d.page.getByText('198 contacts').waitFor();
    expect(await contactByEmail(fourth!)).toBeUndefined();
    expect(await contactByEmail(fifth!)).toBeUndefined();
  });

  it('adds a contact with data, then deletes it after a confirmation', async () => {
    await d.page.getByRole('button', { name: 'Dismiss' }).click();
    await d.page.getByRole('button', { name: 'New contact' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'New contact' });
    await dialog.getByLabel('Email').fill(person(7));
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    // An existing address is opened, not overwritten.
    await dialog.getByText('A contact with this email already exists').waitFor();
    await dialog.getByLabel('Email').fill('new.person@example.com');
    await dialog.getByRole('button', { name: 'Add field' }).click();
    await dialog.getByLabel('Name of field 1').fill('plan');
    await dialog.getByLabel('Value of plan').fill('pro');
    await d.expectAccessible('contact-new');
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    await d.page.getByRole('heading', { name: 'new.person@example.com', level: 1 }).waitFor();
    expect((await contactByEmail('new.person@example.com')).data).toEqual({ plan: 'pro' });

    await d.page.getByRole('button', { name: 'Delete contact' }).click();
    const confirm = d.page.getByRole('dialog', { name: 'Delete this contact?' });
    await confirm.getByRole('button', { name: 'Delete contact' }).click();
    await d.page.getByRole('heading', { name: 'Contacts', exact: true }).waitFor();
    expect(await contactByEmail('new.person@example.com')).toBeUndefined();
    const id = (await contactByEmail(person(8))).id;
    await d.page.goto(`${d.service.url}/app/contacts/${id}`);
    await d.page.getByRole('heading', { name: person(8), level: 1 }).waitFor();
    await d.api().delete(`/contacts/${id}`);
    await d.page.reload();
    await d.page.getByRole('heading', { name: 'Contact not found' }).waitFor();
  });

  it('sorts the list by email both ways, the order kept in the address', async () => {
    const byEmail = async (dir: string) =>
      ((await expectBody(d.api().get(`/contacts?sort=email&dir=${dir}&limit=3`))).data as Contact[]).map(
        (c) => c.email,
      );
    const [ascending, descending] = [await byEmail('asc'), await byEmail('desc')];
    expect(ascending[0]! < ascending[1]!).toBe(true);
    await d.page.goto(`${d.service.url}/app/contacts`);
    const links = d.page.getByRole('table', { name: 'Contacts' }).getByRole('link');
    await d.page.getByLabel('Sort by').selectOption('email:asc');
    await expect.poll(async () => (await links.allTextContents()).slice(0, 3)).toEqual(ascending);
    expect(new URL(d.page.url()).search).toBe('?sort=email&dir=asc');
    await d.page.getByLabel('Sort by').selectOption('email:desc');
    await expect.poll(async () => (await links.allTextContents()).slice(0, 3)).toEqual(descending);
    await d.page.reload();
    await expect.poll(() => d.page.getByLabel('Sort by').inputValue()).toBe('email:desc');
    await expect.poll(async () => (await links.allTextContents()).slice(0, 3)).toEqual(descending);
  });

  it('shows the segments a contact is in, by condition and by hand', async () => {
    const id = (await contactByEmail(person(7))).id;
    await d.page.goto(`${d.service.url}/app/contacts/${id}`);
    const card = d.page.getByRole('region', { name: 'Segments' });
    await card.getByText('This contact is in no segment.').waitFor();
    const bySeats = { field: 'data.seats', operator: 'greaterThan', value: 10 };
    await expectBody(
      d.api().post('/segments', { name: 'Large teams', condition: { logic: 'AND', groups: [{ filters: [bySeats] }] } }),
      201,
    );
    const vip = await expectBody(d.api().post('/segments', { name: 'VIP', type: 'STATIC' }), 201);
    await expectBody(d.api().post(`/segments/${vip.id}/members`, { emails: [person(7)] }));
    await d.page.reload();
    const items = card.getByRole('list', { name: 'Segments of this contact' }).getByRole('listitem');
    await expect
      .poll(() => items.allTextContents())
      .toEqual([
        expect.stringMatching(/^Large teams\s*matches its condition$/),
        expect.stringMatching(/^VIP\s*listed by hand$/),
      ]);
  });

  it('shows the emails a contact received, with their status', async () => {
    const id = (await contactByEmail(person(7))).id;
    await d.page.goto(`${d.service.url}/app/contacts/${id}`);
    const card = d.page.getByRole('region', { name: 'Emails' });
    await card.getByText('No email has been sent to this contact.').waitFor();
    await expectBody(
      d
        .api()
        .post('/v1/send', { to: person(7), from: 'hello@example.com', subject: 'Your invoice', body: '<p>Hi</p>' }),
    );
    await pollUntil(
      async () => (await expectBody(d.api().get(`/emails?to=${person(7)}`))).data as EmailRecord[],
      (emails) => emails.length === 1 && emails[0]!.status === 'sent',
    );
    await d.page.reload();
    const item = card.getByRole('list', { name: 'Emails to this contact, newest first' }).getByRole('listitem');
    await expect.poll(() => item.textContent()).toMatch(/Your invoice\s*Sent/);
    await item.getByRole('link', { name: 'Your invoice' }).click();
    await d.page.getByRole('heading', { name: 'Your invoice', level: 1 }).waitFor();
  });

  it('lists the fields with type and coverage, their top values and users, and deletes one', async () => {
    await expectBody(
      d.api().post('/segments', {
        name: 'Pro plans',
        condition: {
          logic: 'AND',
          groups: [{ logic: 'AND', filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
        },
      }),
      201,
    );
    await d.page.goto(`${d.service.url}/app/contacts`);
    await d.page.getByRole('link', { name: 'Fields' }).click();
    await d.page.getByRole('heading', { name: 'Contact fields', level: 1 }).waitFor();
    const table = d.page.getByRole('table', { name: 'Contact fields' });
    // Person 7 lost first_name and gained company; some contacts were deleted above.
    const total = (await expectBody(d.api().get('/contacts?limit=1'))).total as number;
    await expect
      .poll(() => table.getByRole('row', { name: /^company/ }).textContent())
      .toMatch(/company\s*Text\s*0\.5%/);
    // The counts beside the coverage come from a second request: wait for them too.
    await expect
      .poll(() => table.getByRole('row', { name: /^seats/ }).textContent())
      .toMatch(new RegExp(`seats\\s*Number\\s*100%\\s*·\\s*${total} of ${total} contacts`));
    expect(await table.getByRole('row', { name: /^email/ }).textContent()).toMatch(/email\s*standard\s*Text/);
    await d.expectAccessible('fields');

    await d.page.getByRole('button', { name: 'Details of plan' }).click();
    const values = d.page.getByRole('table', { name: 'Top values of plan' });
    await expect
      .poll(() => values.getByRole('row').allTextContents())
      .toEqual([
        expect.stringMatching(/Value\s*Contacts/),
        expect.stringMatching(/^(free|pro)\s*\d+$/),
        expect.stringMatching(/^(free|pro)\s*\d+$/),
        expect.stringMatching(/^enterprise\s*1$/),
      ]);
    await d.page.getByText('Pro plans').waitFor();
    expect(new URL(d.page.url()).searchParams.get('field')).toBe('data.plan');

    await d.page.getByRole('button', { name: 'Delete plan…' }).click();
    const confirm = d.page.getByRole('dialog', { name: 'Delete the field plan?' });
    await confirm.getByText('Used by 1 segment.').waitFor();
    await d.expectAccessible('fields-delete');
    await confirm.getByRole('button', { name: 'Delete field' }).click();
    await d.page.getByText(`Deleted plan: removed from ${total} contacts.`).waitFor();
    await expect.poll(() => table.getByRole('row', { name: /^plan/ }).count()).toBe(0);
    expect((await contactByEmail(person(7))).data).toEqual({ company: 'Acme Ltd', seats: 12, source: 'pricing-page' });
  });

  it('fits 375 px wide, light and dark, without sideways scrolling', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    const id = (await contactByEmail(person(7))).id;
    const pages = [
      { url: `/app/contacts/${id}`, heading: person(7), name: 'contact' },
      { url: '/app/contacts/import', heading: 'Import contacts', name: 'import' },
      { url: '/app/contacts/fields', heading: 'Contact fields', name: 'fields' },
      { url: '/app/contacts', heading: 'Contacts', name: 'contacts' },
    ];
    // Each scan covers 1280 px light and 375 px dark; the overflow is measured in both schemes here.
    for (const p of pages) {
      await d.page.goto(`${d.service.url}${p.url}`);
      await d.page.getByRole('heading', { name: p.heading, exact: true, level: 1 }).waitFor();
      if (p.name === 'import') {
        await d.page
          .getByLabel('Choose a CSV file')
          .setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: peopleCsv() });
        await d.page.getByRole('table', { name: 'How each column is imported' }).waitFor();
      }
      if (p.name === 'contacts') await d.page.getByRole('checkbox').nth(1).check();
      for (const scheme of ['light', 'dark'] as const) {
        await d.page.emulateMedia({ colorScheme: scheme });
        expect(await sidewaysOverflow(d.page), `${p.name} ${scheme}`).toBeLessThanOrEqual(0);
      }
      await d.expectAccessible(`${p.name}-narrow-dark`);
    }
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'light' });
  });
});
