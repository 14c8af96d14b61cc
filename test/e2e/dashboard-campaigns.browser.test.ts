import fs from 'node:fs';
import { simpleParser } from 'mailparser';
import type { Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Campaign, Contact, FilterCondition } from '../../src/api.js';
import { filterConditionSchema } from '../../src/domain/filters/schema.js';
import { hasChromium, replaceEditorText, screenshot, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { verifiedDomain } from '../support/domains.js';
import { addFilter, nestOr, pickField } from '../support/filter-builder.js';
import { useMailPeers } from '../support/mail-server.js';
import { sinkMessagesTo } from '../support/sending.js';
import { expectBody, pollUntil } from '../support/server.js';

/**
 * The Campaigns pages in Debian's Chromium against the real service (its own process), relaying to a
 * real SMTP sink and verifying its sender domain against a real DNS server: a campaign to a segment
 * made through the API is written in the composer, tested, scheduled, unscheduled and sent with the
 * Send menu (by keyboard), its progress followed to 100 % with every message at the sink once, and
 * a tracked link of a delivered message followed until the report counts the click on its link;
 * a campaign to a condition built by clicks in the composer's audience card, counted as the API
 * counts it and sent to exactly its subscribed matches.
 */

const DOMAIN = 'news.dashboard-campaigns.test';
const FROM = `news@${DOMAIN}`;
const LINK = 'https://example.org/offer?from=campaign';
const MEMBERS = ['ada@readers.test', 'bob@readers.test', 'cy@readers.test'];
const OUTSIDER = 'zed@readers.test';

/** gold AND (seats > 2 OR city contains "on"): the audience the composer builds by clicks. */
const GOLD_TEAMS: FilterCondition = {
  logic: 'AND',
  groups: [
    {
      filters: [{ field: 'data.tier', operator: 'equals', value: 'gold' }],
      conditions: {
        logic: 'OR',
        groups: [
          { filters: [{ field: 'data.seats', operator: 'greaterThan', value: 2 }] },
          { filters: [{ field: 'data.city', operator: 'contains', value: 'on' }] },
        ],
      },
    },
  ],
};

/** email, data, subscribed: three match GOLD_TEAMS, the first two subscribed. */
const GOLD_PEOPLE: [string, Record<string, unknown>, boolean][] = [
  ['gia@gold.test', { tier: 'gold', seats: 5, city: 'Paris' }, true],
  ['hal@gold.test', { tier: 'gold', seats: 1, city: 'London' }, true],
  ['ivo@gold.test', { tier: 'gold', seats: 9, city: 'Boston' }, false],
  ['jo@gold.test', { tier: 'gold', seats: 1, city: 'Paris' }, true],
  ['kim@gold.test', { tier: 'silver', seats: 9, city: 'London' }, true],
];
const GOLD_RECIPIENTS = ['gia@gold.test', 'hal@gold.test'];

describe.skipIf(!hasChromium)('the campaigns pages in a browser', () => {
  const mail = useMailPeers();
  const d = useDashboard({ env: () => mail.env() });
  let segmentId: string;
  let campaignId: string;
  const editor = () => d.page.locator('.cm-content');
  const sendButton = () => d.page.getByRole('button', { name: /^(Send|Sending)$/ });
  const previewFrame = () => d.page.frameLocator('iframe[title="Email preview"]');

  const typeBody = (text: string) => replaceEditorText(d.page, text);

  /** Opens the Send menu from the keyboard and picks `item` with the arrow keys and Enter. */
  async function chooseByKeyboard(item: string) {
    await sendButton().focus();
    await d.page.keyboard.press('Enter');
    const items = d.page.getByRole('menuitem');
    await items.first().waitFor();
    const labels = await items.allTextContents();
    const at = labels.indexOf(item);
    expect(at, labels.join(' | ')).toBeGreaterThanOrEqual(0);
    // The menu opens on its first item; the arrows move from there.
    expect(await d.page.evaluate(() => document.activeElement?.textContent)).toBe(labels[0]);
    for (let i = 0; i < at; i++) await d.page.keyboard.press('ArrowDown');
    expect(await d.page.evaluate(() => document.activeElement?.textContent)).toBe(item);
    await d.page.keyboard.press('Enter');
  }

  const campaign = (): Promise<Campaign> => expectBody(d.api().get(`/campaigns/${campaignId}`));

  /**
   * Accessible (the scan covers 1280 px light and 375 px dark) and without sideways scrolling at
   * 375 px in either scheme; each width and scheme saved as a screenshot when asked.
   */
  async function expectAccessibleEverywhere(name: string) {
    // The screenshots show the page from its top.
    const top = () => d.page.evaluate(() => window.scrollTo(0, 0));
    await top();
    await d.expectAccessible(name);
    for (const scheme of ['light', 'dark'] as const) {
      await d.page.emulateMedia({ colorScheme: scheme });
      await d.page.setViewportSize({ width: 1280, height: 900 });
      await top();
      await screenshot(d.page, `${name}-${scheme}`);
      await d.page.setViewportSize({ width: 375, height: 800 });
      await top();
      await screenshot(d.page, `${name}-375-${scheme}`);
      expect(await sidewaysOverflow(d.page), `${name} at 375 px (${scheme})`).toBeLessThanOrEqual(0);
    }
    await d.page.emulateMedia({ colorScheme: 'light' });
    await d.page.setViewportSize({ width: 1280, height: 900 });
  }

  beforeAll(async () => {
    const api = d.api();
    await verifiedDomain(api, mail.dns, DOMAIN);
    for (const [i, email] of MEMBERS.entries()) {
      await expectBody(
        api.post('/contacts', { email, subscribed: true, data: { team: 'beta', firstName: ['Ada', 'Bob', 'Cy'][i] } }),
        201,
      );
    }
    await expectBody(api.post('/contacts', { email: OUTSIDER, subscribed: true, data: { team: 'alpha' } }), 201);
    const segment = await expectBody(
      api.post('/segments', {
        name: 'Beta testers',
        condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.team', operator: 'equals', value: 'beta' }] }] },
      }),
      201,
    );
    segmentId = segment.id;
  });

  it('starts with an empty list that leads to a new campaign', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
    await d.page.getByRole('heading', { name: 'No campaigns yet' }).waitFor();
    await expectAccessibleEverywhere('campaigns-empty');
    await d.page.getByRole('link', { name: 'New campaign' }).first().click();
    await d.page.getByRole('heading', { name: 'New campaign' }).waitFor();
  });

  it('writes the campaign for the segment with its count, a preview as a member, and saves by itself', async () => {
    // The audience first: the segment, with how many it reaches now.
    await d.page.getByRole('radio', { name: 'A segment' }).check();
    await d.page.getByLabel('Segment', { exact: true }).selectOption(segmentId);
    await expect.poll(() => d.page.getByTestId('audience-count').textContent()).toBe('3 recipients');
    await d.page.getByText('Recounted when it is sent').waitFor();

    await d.page.getByLabel('Campaign name').fill('Beta launch');
    await d.page.getByLabel('Subject').fill('Hello {{ firstName }}, the beta is here');
    await d.page.getByLabel('From', { exact: true }).fill(FROM);
    await editor().waitFor();
    await typeBody(`<h1>Hi {{ firstName }}</h1>\n<p><a href="${LINK}">See the offer</a></p>`);
    // A marketing body without its own unsubscribe link is pointed out.
    await d.page.getByText('has no unsubscribe link of its own').waitFor();
    await typeBody(
      `<h1>Hi {{ firstName }}</h1>\n<p><a href="${LINK}">See the offer</a></p>\n<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>`,
    );
    await d.page.getByText('has no unsubscribe link of its own').waitFor({ state: 'detached' });

    // The first autosave creates it; the address becomes its own.
    await expect.poll(() => d.page.getByTestId('save-state').textContent()).toContain('All changes saved');
    await expect.poll(() => new URL(d.page.url()).pathname).toMatch(/^\/app\/campaigns\/[0-9a-f-]{36}$/);
    campaignId = new URL(d.page.url()).pathname.split('/').pop()!;
    const stored = await campaign();
    expect(stored).toMatchObject({
      name: 'Beta launch',
      status: 'DRAFT',
      audienceType: 'SEGMENT',
      segmentId,
      from: FROM,
      type: 'MARKETING',
    });
    expect(stored.body).toContain(LINK);
    // Saves made while the first one was under way changed it: they made no second campaign.
    expect((await expectBody(d.api().get('/campaigns'))).total).toBe(1);

    // The preview renders as a member of the segment, chosen in "Preview as".
    const previewAs = d.page.getByLabel('Preview as');
    await expect.poll(() => previewAs.locator('option').allTextContents()).toEqual(expect.arrayContaining(MEMBERS));
    await previewAs.selectOption({ label: 'bob@readers.test' });
    await expect.poll(() => previewFrame().locator('h1').textContent()).toBe('Hi Bob');
    await expect.poll(() => d.page.getByTestId('preview-subject').textContent()).toBe('Hello Bob, the beta is here');

    // An edit is saved by itself too.
    await d.page.getByLabel('Subject').fill('{{ firstName ?? "friend" }}, the beta is here');
    await expect.poll(async () => (await campaign()).subject).toBe('{{ firstName ?? "friend" }}, the beta is here');
    await expect.poll(() => d.page.getByTestId('save-state').textContent()).toContain('All changes saved');

    // The send time: 09:00 in each recipient's zone is saved, with the audience's zones and last send time.
    await d.page.getByRole('radio', { name: 'Send at a time of day in each recipient’s time zone' }).check();
    await expect.poll(async () => (await campaign()).localTime).toEqual({ time: '09:00', whenPassed: 'nextDay' });
    await expect.poll(() => d.page.getByTestId('send-times').textContent()).toContain('the last email goes at');
    await d.page.getByTestId('send-times').scrollIntoViewIfNeeded();
    await d.expectAccessible('campaign-send-time');
    // A spread out of range is marked beside its field and not saved; at once again clears both.
    await d.page.getByRole('radio', { name: 'Spread over a number of hours' }).check();
    await d.page.getByRole('spinbutton', { name: 'Hours' }).fill('0');
    await d.page.getByText('A whole number of hours from 1 to 72').waitFor();
    await d.page.getByRole('radio', { name: 'Send at the same moment to everyone' }).check();
    await expect.poll(async () => (await campaign()).localTime).toBeNull();
    expect((await campaign()).spread).toBeNull();
    await expect.poll(() => d.page.getByTestId('save-state').textContent()).toContain('All changes saved');
    await expectAccessibleEverywhere('campaign-composer');
  });

  it('sends a test from the Send menu by keyboard to a member’s address', async () => {
    await chooseByKeyboard('Send a test…');
    const dialog = d.page.getByRole('dialog', { name: 'Send a test' });
    await dialog.waitFor();
    // The signed-in member's address is offered first.
    expect(await dialog.getByLabel('Send to').inputValue()).toBe('owner@example.com');
    await dialog.getByRole('button', { name: 'Send test' }).click();
    await dialog.getByText('A test email is on its way to owner@example.com').waitFor();
    const [test] = await pollUntil(
      async () => sinkMessagesTo(mail.sink, 'owner@example.com'),
      (m) => m.length === 1,
    );
    expect((await simpleParser(test!.raw)).subject).toBe('[Test] friend, the beta is here');
    await d.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // A test is no send: the campaign is still a draft.
    expect((await campaign()).status).toBe('DRAFT');
  });

  it('schedules it with a preset, shows the time back, then unschedules it to draft', async () => {
    await chooseByKeyboard('Schedule…');
    const dialog = d.page.getByRole('dialog', { name: 'Schedule the campaign' });
    await dialog.getByRole('button', { name: 'Tomorrow at 9:00' }).click();
    await expect.poll(() => dialog.getByTestId('schedule-summary').textContent()).toContain('3 recipients');
    await dialog.getByRole('button', { name: 'Schedule', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await d.page.getByText(/^Scheduled for/).waitFor();
    const scheduled = await campaign();
    expect(scheduled.status).toBe('SCHEDULED');
    // Tomorrow at 9:00 on the browser's clocks.
    const at = new Date(scheduled.scheduledFor!);
    const local = await d.page.evaluate((iso) => {
      const t = new Date(iso);
      return { hours: t.getHours(), minutes: t.getMinutes(), day: t.getDate() };
    }, at.toISOString());
    const tomorrow = await d.page.evaluate(() => {
      const t = new Date();
      t.setDate(t.getDate() + 1);
      return t.getDate();
    });
    expect(local).toEqual({ hours: 9, minutes: 0, day: tomorrow });
    await screenshot(d.page, 'campaign-scheduled');

    await chooseByKeyboard('Unschedule…');
    const confirm = d.page.getByRole('dialog', { name: 'Unschedule the campaign?' });
    await confirm.getByText('It goes back to draft').waitFor();
    await confirm.getByRole('button', { name: 'Unschedule' }).click();
    await expect.poll(async () => (await campaign()).status).toBe('DRAFT');
    await d.page.getByText(/^Scheduled for/).waitFor({ state: 'detached' });
  });

  it('sends it now, naming the count, and follows its progress to 100 % with every message at the sink once', async () => {
    await chooseByKeyboard('Send now…');
    const dialog = d.page.getByRole('dialog', { name: 'Send the campaign now?' });
    await dialog.getByText('3 recipients', { exact: false }).first().waitFor();
    await dialog.getByRole('button', { name: 'Send to 3 recipients' }).click();
    // The page becomes the report and reads the progress again by itself.
    const progress = d.page.getByTestId('progress-text');
    await expect.poll(() => progress.textContent(), { timeout: 30_000 }).toMatch(/^100\s?% · 3 of 3 recipients sent/);
    await expect.poll(async () => (await campaign()).status).toBe('SENT');
    for (const member of MEMBERS) expect(sinkMessagesTo(mail.sink, member)).toHaveLength(1);
    expect(sinkMessagesTo(mail.sink, OUTSIDER)).toHaveLength(0);
    await d.page.getByRole('heading', { name: 'Sent', exact: true }).waitFor();
    expect(await d.page.getByTestId('figure-delivered').textContent()).toBe('3');
  });

  it('counts a click on a tracked link of a delivered message on its link, and opens its recipients', async () => {
    const [message] = sinkMessagesTo(mail.sink, 'ada@readers.test');
    const html = (await simpleParser(message!.raw)).html || '';
    const tracked = [...html.matchAll(/href="([^"]+\/t\/click\/[^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(tracked).toHaveLength(1);
    const link = tracked[0]!.replace(/^https?:\/\/[^/]+/, d.service.url);
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(LINK);

    await d.page.reload();
    const row = d.page.getByTestId('link-row');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator('td').allTextContents()).toEqual([LINK, '1', '1']);
    expect(await d.page.getByTestId('figure-clicked').textContent()).toBe('1');
    // A click counts as an open: the chart has its point.
    await d.page.locator('.engagement-chart canvas').first().waitFor();

    await d.page.getByRole('button', { name: /^Clicked\s*1\b/ }).click();
    const recipients = d.page.getByRole('table', { name: 'Recipients' }).getByRole('row');
    await expect.poll(() => recipients.count()).toBe(2);
    expect(await recipients.nth(1).textContent()).toContain('ada@readers.test');
    expect(await d.page.getByLabel('Show', { exact: true }).inputValue()).toBe('clicked');
    await expectAccessibleEverywhere('campaign-report');

    // The export has every recipient of the filter, read a page at a time.
    await d.page.getByLabel('Show', { exact: true }).selectOption('');
    const download = d.page.waitForEvent('download');
    await d.page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await (await download).path();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\r\n');
    expect(lines[0]).toBe('email,contactId,outcome,reason,detail,sentAt,emailId');
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).toEqual([...MEMBERS].sort());
  });

  it('lists the campaign with its figures, duplicates it as a draft and deletes the copy', async () => {
    await d.page.getByRole('button', { name: 'Duplicate' }).click();
    await d.page.getByRole('heading', { name: 'Beta launch (copy)' }).waitFor();
    await d.page.getByRole('button', { name: 'Delete' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Delete the campaign?' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await d.page.getByRole('heading', { name: 'Campaigns', exact: true }).waitFor();
    const rows = d.page.getByRole('table', { name: 'Campaigns' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(2);
    const cells = await rows.nth(1).locator('td').allTextContents();
    expect(cells[0]).toContain('Beta launch');
    expect(cells[1]).toBe('Sent');
    expect(cells[2]).toBe('3 recipients');
    expect(cells[4]).toMatch(/^33(\.3)?\s?%$/);
    await expectAccessibleEverywhere('campaigns');
  });

  it('pauses and resumes a sending campaign from the menu, and says why it cannot be deleted meanwhile', async () => {
    const api = d.api();
    const team = ['dee@readers.test', 'eve@readers.test'];
    for (const email of team) {
      await expectBody(api.post('/contacts', { email, subscribed: true, data: { team: 'gamma' } }), 201);
    }
    const created = await expectBody(
      api.post('/campaigns', {
        name: 'Gamma note',
        subject: 'Note',
        body: '<p>Note</p>',
        from: FROM,
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.team', operator: 'equals', value: 'gamma' }] }],
        },
      }),
      201,
    );
    const id: string = created.data.id;
    // The sink holds its answers, so the campaign stays SENDING until it is let go.
    let release: () => void = () => {};
    const held = new Promise<{ accept: true }>((resolve) => {
      release = () => resolve({ accept: true });
    });
    mail.sink.respond(() => held);
    try {
      await expectBody(api.post(`/campaigns/${id}/send`));
      await d.page.goto(`${d.service.url}/app/campaigns/${id}`);
      await d.page.getByRole('heading', { name: 'Sending', exact: true }).waitFor();

      await d.page.getByRole('button', { name: 'Delete' }).click();
      const remove = d.page.getByRole('dialog', { name: 'Delete the campaign?' });
      await remove.getByRole('button', { name: 'Delete' }).click();
      await remove.getByText('is being sent, so it cannot be deleted. Cancel it first').waitFor();
      await remove.getByRole('button', { name: 'Cancel' }).click();

      await chooseByKeyboard('Pause…');
      await d.page.getByRole('dialog', { name: 'Pause sending?' }).getByRole('button', { name: 'Pause' }).click();
      await d.page
        .getByTestId('pause-reason')
        .getByText(/^Paused by hand/)
        .waitFor();
      expect((await expectBody<Campaign>(api.get(`/campaigns/${id}`))).status).toBe('PAUSED');

      await chooseByKeyboard('Resume…');
      await d.page.getByRole('dialog', { name: 'Resume sending?' }).getByRole('button', { name: 'Resume' }).click();
      await d.page.getByTestId('pause-reason').waitFor({ state: 'detached' });
    } finally {
      release();
      mail.sink.respond(() => ({ accept: true }));
    }
    await expect
      .poll(() => d.page.getByTestId('progress-text').textContent(), { timeout: 30_000 })
      .toMatch(/^100\s?% · 2 of 2 recipients sent/);
    for (const member of team) expect(sinkMessagesTo(mail.sink, member)).toHaveLength(1);
  });

  it('sends to a condition built by clicks in the composer, counted as the API counts it, to each subscribed match once', async () => {
    const api = d.api();
    for (const [email, data, subscribed] of GOLD_PEOPLE) {
      await expectBody(api.post('/contacts', { email, data, subscribed }), 201);
    }
    const liveCount = () => d.page.getByTestId('live-count');
    const saveState = () => d.page.getByTestId('save-state').textContent();
    // Every audience the composer saves, to show that no unfinished tree was ever sent.
    const savedConditions: unknown[] = [];
    const onRequest = (r: Request) => {
      if (/^\/campaigns(\/[^/]+)?$/.test(new URL(r.url()).pathname) && ['POST', 'PUT'].includes(r.method()))
        savedConditions.push(r.postDataJSON().audienceCondition);
    };
    d.page.on('request', onRequest);
    await d.page.goto(`${d.service.url}/app/campaigns/new`);
    await d.page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await d.page.getByLabel('Campaign name').fill('Gold teams');
    await d.page.getByLabel('Subject').fill('For gold teams');
    await d.page.getByLabel('From', { exact: true }).fill(FROM);
    await expect.poll(saveState).toContain('All changes saved');
    await expect.poll(() => new URL(d.page.url()).pathname).toMatch(/^\/app\/campaigns\/[0-9a-f-]{36}$/);
    const id = new URL(d.page.url()).pathname.split('/').pop()!;

    // The condition starts empty: every contact, as the API counts it.
    await d.page.getByRole('radio', { name: /^A condition/ }).check();
    const everyone = await expectBody(
      api.post('/segments/count', { condition: { logic: 'AND', groups: [{ filters: [] }] } }),
    );
    await expect
      .poll(() => liveCount().textContent())
      .toBe(`${everyone.total} match · ${everyone.subscribed} subscribed`);

    // A filter without its field: said next to the builder, never saved, and no sending meanwhile.
    await d.page.getByRole('button', { name: '+ Filter in group 1', exact: true }).click();
    await d.page.getByTestId('condition-incomplete').waitFor();
    await expect.poll(saveState).toContain('it needs a complete condition');
    expect(await sendButton().isDisabled()).toBe(true);
    await d.page.getByText('Finish the audience’s condition first.').waitFor();
    await d.page.getByTestId('condition-incomplete').scrollIntoViewIfNeeded();
    await screenshot(d.page, 'campaign-condition-incomplete');

    const tier = d.page.getByRole('group', { name: 'Filter 1 of group 1', exact: true });
    await pickField(tier, /^tier/);
    await tier.getByLabel('Value').fill('gold');
    await nestOr(d.page, '1');
    await addFilter(d.page, '1.1', /^seats/, 'is more than', '2');
    await addFilter(d.page, '1.2', /^city/, 'contains', 'on');
    await d.page.getByTestId('condition-incomplete').waitFor({ state: 'detached' });

    const counted = await expectBody(api.post('/segments/count', { condition: GOLD_TEAMS }));
    expect(counted).toMatchObject({ total: 3, subscribed: 2 });
    await expect.poll(() => liveCount().textContent()).toBe('3 match · 2 subscribed');
    // A marketing campaign goes to the subscribed ones.
    await expect.poll(() => d.page.getByTestId('audience-count').textContent()).toBe('2 recipients');
    await d.page.getByTestId('audience-count').scrollIntoViewIfNeeded();
    await screenshot(d.page, 'campaign-condition-count');
    await expect.poll(saveState).toContain('All changes saved');
    expect(await expectBody<Campaign>(api.get(`/campaigns/${id}`))).toMatchObject({
      audienceType: 'FILTERED',
      audienceCondition: GOLD_TEAMS,
    });
    d.page.off('request', onRequest);
    expect(savedConditions.length).toBeGreaterThan(0);
    for (const saved of savedConditions) {
      if (saved !== null) expect(filterConditionSchema.safeParse(saved).success, JSON.stringify(saved)).toBe(true);
    }
    await expectAccessibleEverywhere('campaign-composer-condition');

    await chooseByKeyboard('Send now…');
    const dialog = d.page.getByRole('dialog', { name: 'Send the campaign now?' });
    await dialog.getByRole('button', { name: 'Send to 2 recipients' }).click();
    await expect
      .poll(() => d.page.getByTestId('progress-text').textContent(), { timeout: 30_000 })
      .toMatch(/^100\s?% · 2 of 2 recipients sent/);
    // Every contact of the project: the campaign's message reached the subscribed matches once, no one else.
    const contacts: Contact[] = (await expectBody(api.get('/contacts?limit=100'))).data;
    expect(contacts.length).toBeGreaterThan(GOLD_PEOPLE.length);
    const received: Record<string, number> = {};
    for (const c of contacts) {
      const subjects = await Promise.all(
        sinkMessagesTo(mail.sink, c.email).map(async (m) => (await simpleParser(m.raw)).subject),
      );
      const count = subjects.filter((s) => s === 'For gold teams').length;
      if (count > 0) received[c.email] = count;
    }
    expect(received).toEqual(Object.fromEntries(GOLD_RECIPIENTS.map((e) => [e, 1])));
  });
});
