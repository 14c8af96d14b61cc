import { describe, expect, it } from 'vitest';
import type { Topic } from '../../src/api.js';
import { hasChromium, useDashboard } from '../support/browser.js';
import { expectBody } from '../support/server.js';

/**
 * The Topics page in Debian's Chromium against the real service: empty at first with a way to the
 * first topic, a refusal shown beside its field, the list with subscriber counts, an edit, and a
 * delete; each state scanned for accessibility.
 */
describe.skipIf(!hasChromium)('topics in a browser', () => {
  const d = useDashboard();
  const table = () => d.page.getByRole('table', { name: 'Topics' });

  it('starts empty, with a way to the first topic', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Topics' }).click();
    await d.page.getByRole('heading', { name: 'No topics yet' }).waitFor();
    await d.expectAccessible('topics-empty');
  });

  it('creates a topic, and says beside the field what is wrong with another', async () => {
    await d.page.getByRole('button', { name: 'New topic' }).first().click();
    let dialog = d.page.getByRole('dialog', { name: 'New topic' });
    await dialog.getByLabel('Name').fill('Product news');
    await dialog.getByLabel('Description (optional)').fill('When something new ships');
    await dialog.getByRole('checkbox', { name: /On for new contacts/ }).check();
    await dialog.getByRole('button', { name: 'Create topic' }).click();
    await table().getByRole('button', { name: 'Product news' }).waitFor();

    // The same name again: the server's refusal shows beside the name, and nothing is created.
    await d.page.getByRole('button', { name: 'New topic' }).first().click();
    dialog = d.page.getByRole('dialog', { name: 'New topic' });
    await dialog.getByLabel('Name').fill('product NEWS');
    await dialog.getByRole('button', { name: 'Create topic' }).click();
    await expect.poll(() => dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByText('Another topic of this project has this name').waitFor();
    await d.expectAccessible('topics-new-error');
    await dialog.getByLabel('Name').fill('Events');
    await dialog.getByRole('checkbox', { name: /^Public/ }).uncheck();
    await dialog.getByRole('button', { name: 'Create topic' }).click();
    await table().getByRole('button', { name: 'Events' }).waitFor();
    const topics = (await expectBody(d.api().get('/topics'))).data as Topic[];
    expect(topics.map((t) => [t.name, t.public, t.defaultOn]).sort()).toEqual([
      ['Events', false, false],
      ['Product news', true, true],
    ]);
  });

  it('lists each topic with who receives it, counted', async () => {
    const api = d.api();
    const news = ((await expectBody(api.get('/topics'))).data as Topic[]).find((t) => t.name === 'Product news')!;
    for (const [i, on] of [true, true, false].entries()) {
      await expectBody(api.post('/contacts', { email: `reader${i}@topics.test`, topics: { [news.id]: on } }), 201);
    }
    await d.page.reload();
    const row = table().getByRole('row').filter({ hasText: 'Product news' });
    await expect.poll(() => row.textContent()).toContain('2');
    expect(await row.textContent()).toContain('Public');
    expect(await table().getByRole('row').filter({ hasText: 'Events' }).textContent()).toContain('Internal');
    await d.expectAccessible('topics');
  });

  it("shows and changes a contact's topics on its page", async () => {
    const api = d.api();
    const news = ((await expectBody(api.get('/topics'))).data as Topic[]).find((t) => t.name === 'Product news')!;
    const c = await expectBody(api.post('/contacts', { email: 'card@topics.test' }), 201);
    await d.page.goto(`${d.service.url}/app/contacts/${c.id}`);
    const card = d.page.getByRole('region', { name: 'Subscription' });
    const box = card.getByRole('checkbox', { name: 'Product news' });
    await expect.poll(() => box.isChecked()).toBe(true);
    await card.getByText('(internal)').waitFor();
    // Saved at once: the box follows the contact as the server answers it.
    await box.click();
    await expect.poll(async () => (await expectBody(api.get(`/contacts/${c.id}`))).topics[news.id]).toBe(false);
    await expect.poll(() => box.isChecked()).toBe(false);
    // The change is on the contact's timeline in words, and in its consent history, without a reload.
    await d.page
      .getByRole('region', { name: 'Consent history' })
      .getByText(/Product news/)
      .waitFor();
    const events = d.page.getByRole('region', { name: 'Events' });
    const change = events.getByRole('listitem').filter({ hasText: 'contact.topics_changed' });
    await expect.poll(() => change.textContent()).toContain('Product news: off');
    expect(await change.textContent()).not.toContain('{');
    await d.expectAccessible('contact-topics');
  });

  it('edits and deletes a topic', async () => {
    await d.page.goto(`${d.service.url}/app/topics`);
    await table().getByRole('button', { name: 'Events' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Edit Events' });
    await dialog.getByLabel('Name').fill('Meetups');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await table().getByRole('button', { name: 'Meetups' }).waitFor();
    await table().getByRole('button', { name: 'Meetups' }).click();
    const edit = d.page.getByRole('dialog', { name: 'Edit Meetups' });
    await edit.getByRole('button', { name: 'Delete this topic' }).click();
    await edit.getByRole('button', { name: 'Delete it' }).click();
    await expect.poll(() => table().getByRole('button', { name: 'Meetups' }).count()).toBe(0);
  });
});
