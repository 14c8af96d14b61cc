import { describe, expect, it } from 'vitest';
import type { ActivityStats, Contact, EmailRecord } from '../../src/api.js';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { client, expectBody, pollUntil } from '../support/server.js';

/**
 * The overview, activity and events pages in Debian's Chromium against the real service (its own
 * process, without SMTP_URL, so mail is captured and counts as sent): a fresh project first, then
 * three emails sent with the printed secret key, one opened and one clicked through their tracking
 * links, and four events tracked with the public key. The pages must show those numbers, in the
 * tiles, in each chart's table, in the feed with working links, and in the event names.
 */

describe.skipIf(!hasChromium)('the overview, activity and events pages in a browser', () => {
  const d = useDashboard();
  const main = () => d.page.getByRole('main');
  const emailIds: string[] = [];

  async function send(to: string, subject: string) {
    const answer = await expectBody(
      d.api().post('/v1/send', {
        to,
        from: 'hello@example.com',
        subject,
        body: `<p>Hello</p><p><a href="https://example.org/start">Start here</a></p>`,
      }),
    );
    emailIds.push(answer.data.emails[0].email as string);
  }
  async function contactId(email: string): Promise<string> {
    const res = await d.api().get(`/contacts?search=${encodeURIComponent(email)}`);
    return (res.body.data as Contact[]).find((c) => c.email === email)!.id;
  }
  /** The tracking URLs of a sent email, as its stored HTML has them. */
  async function trackingLinks(emailId: string) {
    const { html } = await expectBody(d.api().get(`/emails/${emailId}/content`));
    const open = /\/t\/open\/[^"'\s]+/.exec(html)![0];
    const click = /\/t\/click\/[^"'\s]+/.exec(html)![0].replaceAll('&amp;', '&');
    return { open: `${d.service.url}${open}`, click: `${d.service.url}${click}` };
  }
  const stats = async () => (await expectBody(d.api().get('/activity/stats'))) as ActivityStats;

  it('a fresh project says what to do first, not a page of zeros', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await d.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await d.page.getByRole('heading', { name: 'First steps' }).waitFor();
    await d.page.getByRole('heading', { name: 'Coming up' }).waitFor();
    await main().getByText('Nothing scheduled.').waitFor();
    expect(await d.page.getByRole('figure').count()).toBe(0);
    await d.expectAccessible('overview-empty');

    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
    await d.page.getByRole('heading', { name: 'No activity yet' }).waitFor();
    await d.expectAccessible('activity-empty');

    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    await d.page.getByRole('heading', { name: 'No events yet' }).waitFor();
    await main().getByText('No events in the last 30 days.').waitFor();
    await d.expectAccessible('events-empty');
  });

  it('shows what was sent, opened and clicked in the tiles and in each chart’s table', async () => {
    await send('ada@example.com', 'Welcome, Ada');
    await send('bob@example.com', 'Welcome, Bob');
    await send('ada@example.com', 'Your receipt');
    await pollUntil(
      async () => (await expectBody(d.api().get('/emails'))).data as EmailRecord[],
      (emails) => emails.length === 3 && emails.every((e) => e.status === 'sent'),
    );
    // Ada opens her welcome and clicks its link; the public key tracks what people did.
    const links = await trackingLinks(emailIds[0]!);
    expect((await fetch(links.open)).status).toBe(200);
    expect((await fetch(links.click, { redirect: 'manual' })).status).toBe(302);
    const pub = client(d.service.url, d.keys().publicKey);
    for (const [email, event] of [
      ['ada@example.com', 'signed_up'],
      ['bob@example.com', 'signed_up'],
      ['ada@example.com', 'upgraded'],
      // A long name must not widen the page at 375 px (the name filter lists it).
      ['bob@example.com', 'checkout_completed_from_the_spring_campaign_landing_page'],
    ]) {
      await expectBody(pub.post('/v1/track', { email, event, data: { plan: 'pro' } }));
    }
    // The daily counts follow the events as they are dispatched.
    await pollUntil(stats, (s) => s.sent === 3 && s.opened === 1 && s.clicked === 1);

    await d.page.goto(`${d.service.url}/app/overview`);
    const tile = (label: string) => main().locator('.stat-tile', { has: d.page.getByText(label, { exact: true }) });
    await expect.poll(() => tile('Sent').locator('.stat-value').textContent()).toBe('3');
    expect(await tile('Opened').locator('.stat-value').textContent()).toBe('1');
    expect(await tile('Opened').textContent()).toContain('33.3% of sent');
    expect(await tile('Clicked').locator('.stat-value').textContent()).toBe('1');
    expect(await tile('Bounced').locator('.stat-value').textContent()).toBe('0');

    // Each chart is a figure named by its title; its SVG is an image with the same name.
    const sending = d.page.getByRole('figure', { name: 'Sending' });
    await sending.getByRole('img', { name: 'Sending' }).waitFor();
    await d.page.getByRole('figure', { name: 'Opens and clicks' }).getByRole('img').waitFor();
    // Nothing bounced: said in words instead of a flat line.
    await d.page.getByRole('figure', { name: 'Bounces and complaints' }).getByText('No bounces').waitFor();

    // The text alternative: the numbers per day, 30 of them, today's with the three sends.
    await sending.getByText('Numbers per day').click();
    const table = sending.getByRole('table', { name: 'Sending per day' });
    const rows = table.getByRole('row');
    expect(await rows.count()).toBe(1 + 30 + 1);
    expect(await rows.nth(30).getByRole('cell').allTextContents()).toEqual(['3', '0']);
    expect(await rows.nth(31).textContent()).toMatch(/^Total\s*3\s*0$/);
    const engagement = d.page.getByRole('figure', { name: 'Opens and clicks' });
    await engagement.getByText('Numbers per day').click();
    expect(
      await engagement.getByRole('table', { name: 'Opens and clicks per day' }).getByRole('row').last().textContent(),
    ).toMatch(/^Total\s*1\s*1$/);
    await d.expectAccessible('overview');

    // The range is in the address; the table follows it.
    await d.page.getByLabel('Range').selectOption('7d');
    await expect.poll(() => new URL(d.page.url()).searchParams.get('range')).toBe('7d');
    // The table stays open as the figures change under it.
    await expect.poll(() => table.getByRole('row').count()).toBe(1 + 7 + 1);
    expect(await tile('Sent').locator('.stat-value').textContent()).toBe('3');
    await d.page.reload();
    expect(await d.page.getByLabel('Range').inputValue()).toBe('7d');
  });

  it('recent activity tells each event in words, linked to the contact and the email', async () => {
    const recent = d.page.getByRole('list', { name: 'Recent activity, newest first' });
    await recent.waitFor();
    const items = recent.getByRole('listitem');
    // Three sends, one open, one click.
    await expect.poll(() => items.count()).toBe(5);
    const texts = await items.allTextContents();
    expect(texts[0]).toContain('ada@example.com clicked a link in “Welcome, Ada”');
    expect(texts[0]).toContain('https://example.org/start');
    expect(texts[1]).toContain('ada@example.com opened “Welcome, Ada”');
    expect(texts.filter((t) => t.includes('was sent to'))).toHaveLength(3);

    await items.first().getByRole('link', { name: 'ada@example.com' }).click();
    await expect.poll(() => new URL(d.page.url()).pathname).toBe(`/app/contacts/${await contactId('ada@example.com')}`);
    await d.page.getByRole('heading', { name: 'ada@example.com', level: 1 }).waitFor();
  });

  it('the activity page filters by kind and contact in the address, and links to the email', async () => {
    await d.page.goto(`${d.service.url}/app/activity`);
    const feed = d.page.getByRole('list', { name: 'Activity, newest first' });
    await expect.poll(() => feed.getByRole('listitem').count()).toBe(5);
    await d.expectAccessible('activity');

    await d.page.getByLabel('Kind').selectOption('email.opened');
    await expect.poll(() => feed.getByRole('listitem').count()).toBe(1);
    expect(new URL(d.page.url()).searchParams.get('type')).toBe('email.opened');
    await feed.getByRole('link', { name: '“Welcome, Ada”' }).click();
    await expect.poll(() => new URL(d.page.url()).pathname).toBe(`/app/emails/${emailIds[0]}`);
    await d.page.getByRole('heading', { name: 'Welcome, Ada', level: 1 }).waitFor();

    // A link with a contact: only theirs, the chip naming them.
    const bob = await contactId('bob@example.com');
    await d.page.goto(`${d.service.url}/app/activity?contactId=${bob}`);
    await expect.poll(() => feed.getByRole('listitem').count()).toBe(1);
    expect(await feed.textContent()).toContain('“Welcome, Bob” was sent to bob@example.com');
    await d.page.getByRole('button', { name: 'Show the activity of every contact' }).click();
    await expect.poll(() => feed.getByRole('listitem').count()).toBe(5);
    expect(new URL(d.page.url()).search).toBe('');
  });

  it('the events page lists the names with their counts, their events, and where each is used', async () => {
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    const names = d.page.getByRole('table', { name: 'Event names, the last 30 days' });
    const row = (name: string) => names.getByRole('row').filter({ has: d.page.getByRole('link', { name }) });
    await expect
      .poll(() => row('signed_up').getByRole('cell').allTextContents())
      .toEqual(['2', '2', expect.any(String)]);
    expect(await row('upgraded').getByRole('cell').first().textContent()).toBe('1');
    expect(await row('email.sent').getByRole('cell').first().textContent()).toBe('3');
    expect(await row('email.sent').textContent()).toContain('built in');
    const events = d.page.getByRole('table', { name: 'Events, newest first' });
    // Four tracked, three sent, an open and a click.
    await expect.poll(() => events.getByRole('row').count()).toBe(1 + 9);
    await d.expectAccessible('events');

    await row('signed_up').getByRole('link', { name: 'signed_up' }).click();
    expect(new URL(d.page.url()).searchParams.get('name')).toBe('signed_up');
    await d.page.getByRole('heading', { name: 'Where signed_up is used' }).waitFor();
    await main().getByText('No segment, campaign or workflow refers to this event yet.').waitFor();
    await expect.poll(() => events.getByRole('row').count()).toBe(1 + 2);
    expect(await d.page.getByLabel('Event name', { exact: true }).inputValue()).toBe('signed_up');
    expect(await events.getByRole('row').nth(1).textContent()).toContain('plan: pro');
    await events.getByRole('link', { name: 'bob@example.com' }).click();
    await expect.poll(() => new URL(d.page.url()).pathname).toBe(`/app/contacts/${await contactId('bob@example.com')}`);
  });

  it('ranks the campaigns by opens, with what each delivered', async () => {
    for (const email of ['carl@example.com', 'dora@example.com']) {
      await expectBody(d.api().post('/contacts', { email, subscribed: true }), 201);
    }
    const campaign = await expectBody(
      d.api().post('/campaigns', {
        name: 'Spring news',
        subject: 'What is new this spring',
        body: '<p>News</p><p><a href="https://example.org/spring">Read more</a></p>',
        from: 'news@example.com',
        audienceType: 'ALL',
      }),
      201,
    );
    await expectBody(d.api().post(`/campaigns/${campaign.data.id}/send`));
    await pollUntil(
      async () => (await expectBody(d.api().get(`/campaigns/${campaign.data.id}`))).status as string,
      (status) => status === 'SENT',
    );
    const sent = (await expectBody(d.api().get(`/emails?campaignId=${campaign.data.id}`))).data as EmailRecord[];
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect((await fetch((await trackingLinks(sent[0]!.id)).open)).status).toBe(200);
    const [top] = await pollUntil(
      async () => (await expectBody(d.api().get('/analytics/top-campaigns'))) as { name: string; opened: number }[],
      (campaigns) => campaigns[0]?.opened === 1,
    );
    expect(top!.name).toBe('Spring news');

    await d.page.goto(`${d.service.url}/app/overview`);
    const ranking = d.page.getByRole('table', { name: 'Top campaigns by opens' });
    const openRate = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 }).format(
      1 / sent.length,
    );
    await expect
      .poll(() => ranking.getByRole('row').nth(1).textContent())
      .toMatch(new RegExp(`^Spring news\\s*${sent.length} delivered\\s*${openRate}\\s*0%$`));
    await d.expectAccessible('overview-campaigns');
  });

  it('fits 375 px without sideways scrolling, light and dark, the pages behind a menu button', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    // Each scan covers 1280 px light and 375 px dark; the overflow is measured in both schemes here.
    for (const [path, ready] of [
      ['overview', () => d.page.getByRole('figure', { name: 'Sending' }).getByRole('img').waitFor()],
      ['activity', () => d.page.getByRole('list', { name: 'Activity, newest first' }).waitFor()],
      ['events', () => d.page.getByRole('table', { name: 'Events, newest first' }).waitFor()],
    ] as const) {
      await d.page.goto(`${d.service.url}/app/${path}`);
      await ready();
      for (const scheme of ['light', 'dark'] as const) {
        await d.page.emulateMedia({ colorScheme: scheme });
        expect(await sidewaysOverflow(d.page), `${path} ${scheme}`).toBeLessThanOrEqual(0);
      }
      await d.expectAccessible(`${path}-narrow-dark`);
    }
    // The links hide behind the menu button, which opens them in a drawer that closes on the way.
    const nav = d.page.getByRole('navigation', { name: 'Main' });
    const menu = d.page.getByRole('button', { name: /Menu/ });
    expect(await nav.count()).toBe(0);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await sidewaysOverflow(d.page)).toBeLessThanOrEqual(0);
    await d.expectAccessible('nav-menu-narrow');
    await nav.getByRole('link', { name: 'Overview' }).click();
    await d.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');

    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'dark' });
    await d.page.goto(`${d.service.url}/app/overview`);
    await d.page.getByRole('figure', { name: 'Sending' }).getByRole('img').waitFor();
    expect(await menu.isVisible()).toBe(false);
    await d.expectAccessible('overview-dark');
  });
});
