import { describe, expect, it } from 'vitest';
import { hasChromium, OWNER, useDashboard } from '../support/browser.js';

/**
 * The contact page's consent history in Debian's Chromium against the real service: a contact
 * created with the secret key and unsubscribed in the browser shows both changes, newest first, with
 * how and by whom; a contact a tracked event created says there is nothing on record.
 */
describe.skipIf(!hasChromium)('the consent history on the contact page', () => {
  const d = useDashboard();
  const history = () => d.page.getByRole('list', { name: 'Consent history, newest first' });

  it('shows a change made in the browser above a topic chosen and the creation through the API', async () => {
    const created = await d.api().post('/contacts', { email: 'grace@example.com' });
    expect(created.status).toBe(201);
    const topic = await d.api().post('/topics', { name: 'Weekly news' });
    expect(topic.status).toBe(201);
    const chosen = await d.api().patch(`/contacts/${created.body.id}`, { topics: { [topic.body.id]: true } });
    expect(chosen.status).toBe(200);
    await d.page.goto(`${d.service.url}/app/contacts/${created.body.id}`);
    await history().waitFor();
    await d.page.getByRole('button', { name: 'Unsubscribe', exact: true }).click();

    const items = history().getByRole('listitem');
    await expect.poll(() => items.count()).toBe(3);
    const newest = (await items.nth(0).textContent()) ?? '';
    expect(newest).toContain('Unsubscribed');
    expect(newest).toContain('In the dashboard');
    expect(newest).toContain(OWNER.email);
    const topicChange = (await items.nth(1).textContent()) ?? '';
    expect(topicChange).toContain('Subscribed to “Weekly news”');
    expect(topicChange).toContain('Through the API');
    const first = (await items.nth(2).textContent()) ?? '';
    expect(first).toContain('Subscribed');
    expect(first).toContain('Through the API');
    expect(first).toContain('The secret API key');
    await d.expectAccessible('contact-consent');
  });

  it('says there is nothing on record for a contact a tracked event created', async () => {
    const tracked = await d
      .api()
      .post('/v1/track', { email: 'tracked@example.com', event: 'signed_in' }, d.keys().publicKey);
    expect(tracked.status).toBe(200);
    await d.page.goto(`${d.service.url}/app/contacts/${tracked.body.data.contact}`);
    const card = d.page.getByRole('region', { name: 'Consent history' });
    await card.getByText('Nothing on record').waitFor();
    expect(await history().count()).toBe(0);
  });
});
