import type { Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FilterCondition, Segment } from '../../src/api.js';
import { hasChromium, screenshot, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { addFilter, nestOr, pickField } from '../support/filter-builder.js';
import { expectBody } from '../support/server.js';

/**
 * The segment pages in Debian's Chromium against the real service: a nested segment built by
 * clicks, whose live and exact counts equal the API's count of the same tree; the builder by
 * keyboard alone; a static segment filled by pasting addresses; axe at 1280 px light and 375 px dark.
 */

/** pro AND (seats > 2 OR city contains "on"): what the test builds by clicks. */
const NESTED: FilterCondition = {
  logic: 'AND',
  groups: [
    {
      filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }],
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

/** data, subscribed: four match NESTED, two of them subscribed. */
const PEOPLE: [string, Record<string, unknown>, boolean][] = [
  ['ada@example.com', { plan: 'pro', seats: 5, city: 'Paris' }, true],
  ['grace@example.com', { plan: 'pro', seats: 1, city: 'London' }, true],
  ['alan@example.com', { plan: 'pro', seats: 9, city: 'Boston' }, false],
  ['edsger@example.com', { plan: 'pro', seats: 1, city: 'Paris' }, true],
  ['barbara@example.com', { plan: 'free', seats: 9, city: 'London' }, true],
  ['ken@example.com', { plan: 'pro', seats: 3, city: 'Rome' }, false],
];

describe.skipIf(!hasChromium)('the segment pages in a browser', () => {
  const d = useDashboard();
  const group = (name: string) => d.page.getByRole('region', { name, exact: true });
  const filter = (name: string) => d.page.getByRole('group', { name, exact: true });
  const liveCount = () => d.page.getByTestId('live-count');

  beforeAll(async () => {
    for (const [email, data, subscribed] of PEOPLE) {
      expect((await d.api().post('/contacts', { email, data, subscribed })).status).toBe(201);
    }
  });

  it('lists no segments at first and leads to a new one', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Segments' }).click();
    await d.page.getByRole('heading', { name: 'No segments yet' }).waitFor();
    await d.expectAccessible('segments-empty');
    await d.page.getByRole('link', { name: 'New segment' }).first().click();
    await d.page.getByRole('heading', { name: 'New segment' }).waitFor();
    expect(new URL(d.page.url()).pathname).toBe('/app/segments/new');
  });

  it('builds an OR group inside an AND by clicks; the live and exact counts equal the API’s', async () => {
    await d.page.getByLabel('Name', { exact: true }).fill('Pro teams');
    // The empty tree matches every contact.
    await expect.poll(() => liveCount().textContent()).toBe('6 match · 4 subscribed');

    await group('Group 1').getByRole('button', { name: '+ Filter in group 1', exact: true }).click();
    const plan = filter('Filter 1 of group 1');
    // The new filter's picker is open: fields grouped, with type badges.
    await plan.getByRole('group', { name: 'Custom data' }).getByRole('option', { name: /^plan/ }).waitFor();
    await d.expectAccessible('segment-field-picker');
    await pickField(plan, /^plan/);
    expect(await plan.getByLabel('Operator').inputValue()).toBe('equals');
    // Typed a key at a time with the page's clock held: the count waits for the pause after the
    // last key, so only the whole word is asked about, whatever the machine's speed.
    const asked: unknown[] = [];
    const onRequest = (r: Request) => {
      if (new URL(r.url()).pathname === '/segments/estimate') asked.push(r.postDataJSON().condition);
    };
    d.page.on('request', onRequest);
    await d.page.clock.install();
    await d.page.clock.pauseAt(Date.now() + 1000);
    await plan.getByLabel('Value').pressSequentially('pro');
    expect(asked).toEqual([]);
    await d.page.clock.resume();
    await expect.poll(() => liveCount().textContent()).toBe('5 match · 3 subscribed');
    d.page.off('request', onRequest);
    expect(asked).toEqual([
      { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
    ]);

    await nestOr(d.page, '1');
    const seats = await addFilter(d.page, '1.1', /^seats/, 'is more than', '2');
    await addFilter(d.page, '1.2', /^city/, 'contains', 'on');

    const api = await expectBody(d.api().post('/segments/count', { condition: NESTED }));
    expect(api).toMatchObject({ total: 4, subscribed: 2 });
    await expect.poll(() => liveCount().textContent()).toBe(`${api.total} match · ${api.subscribed} subscribed`);
    await d.page.getByRole('button', { name: 'Count exactly' }).click();
    await expect
      .poll(() => d.page.getByTestId('exact-count').textContent())
      .toBe(`Exactly ${api.total} match · ${api.subscribed} subscribed`);

    // The pill between the nested groups toggles: both at once is Alan alone (9 seats, Boston), unsubscribed.
    await d.page.getByRole('button', { name: /^OR between groups 1.1 and 1.2/ }).click();
    await expect.poll(() => liveCount().textContent()).toBe('1 match · 0 subscribed');
    expect(await d.page.getByTestId('exact-count').textContent()).toBe('');
    await d.page.getByRole('button', { name: /^AND between groups 1.1 and 1.2/ }).click();
    await expect.poll(() => liveCount().textContent()).toBe('4 match · 2 subscribed');

    // The developer view holds exactly the tree the API counted.
    await d.page.getByText('Developer: the condition as JSON').click();
    const json = await d.page.getByRole('region', { name: 'The condition as JSON' }).textContent();
    expect(JSON.parse(json!)).toEqual(NESTED);

    // The drawer previews the matches, newest first.
    await d.page.getByRole('button', { name: 'Preview matching contacts' }).click();
    const drawer = d.page.getByRole('complementary', { name: 'Matching contacts' });
    await expect
      .poll(() => drawer.getByRole('link').allTextContents())
      .toEqual(['ken@example.com', 'alan@example.com', 'grace@example.com', 'ada@example.com']);
    await d.expectAccessible('segment-builder-drawer');
    // Editing beside it keeps the focus where it is, and the preview follows: Ken has 3 seats.
    await seats.getByLabel('Value').fill('4');
    await expect
      .poll(() => drawer.getByRole('link').allTextContents())
      .toEqual(['alan@example.com', 'grace@example.com', 'ada@example.com']);
    expect(await seats.getByLabel('Value').evaluate((el) => el === document.activeElement)).toBe(true);
    await seats.getByLabel('Value').fill('2');
    await expect.poll(() => liveCount().textContent()).toBe('4 match · 2 subscribed');
    await d.page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    // Focus goes back to the button that opened it.
    expect(
      await d.page
        .getByRole('button', { name: 'Preview matching contacts' })
        .evaluate((el) => el === document.activeElement),
    ).toBe(true);

    await d.expectAccessible('segment-builder');
    await d.page.getByRole('button', { name: 'Create segment' }).click();
    await d.page.getByText('All changes saved').waitFor();
    const id = new URL(d.page.url()).pathname.split('/').pop()!;
    const saved: Segment = await expectBody(d.api().get(`/segments/${id}`));
    expect(saved.condition).toEqual(NESTED);
    await expect
      .poll(async () => (await expectBody(d.api().get(`/segments/${id}`))).memberCountUpdatedAt !== null)
      .toBe(true);
    await d.page.getByRole('button', { name: 'Refresh count' }).click();
    await expect.poll(() => d.page.getByTestId('member-count').textContent()).toBe('4');
  });

  it('tracks membership: compute says who entered, and the event names link to the workflows they start', async () => {
    const workflow = await expectBody(
      d.api().post('/workflows', { name: 'Welcome pro teams', triggerConfig: { event: 'segment.pro-teams.entry' } }),
      201,
    );
    await d.page.getByLabel(/Track membership/).check();
    await d.page.getByRole('button', { name: 'Save changes' }).click();
    await d.page.getByText('All changes saved').waitFor();
    await d.page.getByRole('button', { name: 'Compute membership' }).click();
    await expect
      .poll(() => d.page.getByTestId('membership-change').textContent())
      .toBe('4 added · 0 removed · 4 in total');
    const events = d.page.getByRole('list').filter({ hasText: 'segment.pro-teams.entry' });
    expect(await events.getByRole('listitem').first().textContent()).toContain('when a contact enters');
    const link = events.getByRole('link', { name: 'Welcome pro teams' });
    expect(await link.getAttribute('href')).toBe(`/app/workflows/${workflow.id}`);
    expect(await events.getByRole('listitem').nth(1).textContent()).toContain('No workflow uses it yet.');
    await d.expectAccessible('segment-tracked');
  });

  it('shows a wrong value next to its filter and a save error next to the name', async () => {
    await d.page.goto(`${d.service.url}/app/segments/new`);
    await d.page.getByRole('button', { name: '+ Filter in group 1', exact: true }).click();
    const row = filter('Filter 1 of group 1');
    await pickField(row, /^Created/);
    await row.getByLabel('Operator').selectOption({ label: 'is in the last…' });
    expect(await row.getByLabel('Unit').inputValue()).toBe('days');
    await row.getByLabel('How many').fill('0');
    await row.getByText('Must be greater than 0').waitFor();
    expect(await row.getByLabel('How many').getAttribute('aria-invalid')).toBe('true');
    // Changing the operator resets the value and the unit.
    await row.getByLabel('Operator').selectOption({ label: 'is more than … ago' });
    expect(await row.getByLabel('How many').inputValue()).toBe('');
    await row.getByLabel('How many').fill('30');
    await d.page.getByRole('button', { name: 'Create segment' }).click();
    await expect.poll(() => d.page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  });

  it('is usable by keyboard alone: add, pick, compare, nest and toggle', async () => {
    await d.page.goto(`${d.service.url}/app/segments/new`);
    const add = d.page.getByRole('button', { name: '+ Filter in group 1', exact: true });
    await add.focus();
    await d.page.keyboard.press('Enter');
    // The new filter's picker opens with its search box focused.
    await d.page.keyboard.type('seat');
    await d.page.getByRole('option', { name: /^seats/ }).waitFor();
    await d.page.keyboard.press('Enter');
    const row = filter('Filter 1 of group 1');
    await expect.poll(() => row.getByRole('button', { name: /^Field:/ }).textContent()).toContain('seats');
    await d.page.keyboard.press('Tab'); // operator
    await d.page.keyboard.press('ArrowDown'); // equals → notEquals
    await expect.poll(() => row.getByLabel('Operator').inputValue()).toBe('notEquals');
    await d.page.keyboard.press('Tab'); // value
    await d.page.keyboard.type('1');
    await expect.poll(() => liveCount().textContent()).toBe('4 match · 2 subscribed');

    // Tab on to "+ Nested OR groups", open them, and toggle the pill between them from the keyboard.
    const nest = d.page.getByRole('button', { name: '+ Nested OR groups in group 1' });
    for (let i = 0; i < 6 && !(await nest.evaluate((el) => el === document.activeElement)); i++) {
      await d.page.keyboard.press('Tab');
    }
    await d.page.keyboard.press('Enter');
    const pill = d.page.getByRole('button', { name: /between groups 1.1 and 1.2/ });
    await pill.waitFor();
    await pill.focus();
    await d.page.keyboard.press('Space');
    expect(await pill.textContent()).toBe('AND');
    await d.page.keyboard.press('Enter');
    expect(await pill.textContent()).toBe('OR');
    // Escape closes a picker opened by keyboard and gives the focus back to its button.
    await d.page.getByRole('button', { name: '+ Filter in group 1.1', exact: true }).focus();
    await d.page.keyboard.press('Enter');
    const search = d.page.getByRole('combobox', { name: 'Search fields, events and segments' });
    await search.waitFor();
    await d.page.keyboard.press('ArrowDown');
    await d.page.keyboard.press('Escape');
    await search.waitFor({ state: 'detached' });
    expect(
      await filter('Filter 1 of group 1.1')
        .getByRole('button', { name: /^Field:/ })
        .evaluate((el) => el === document.activeElement),
    ).toBe(true);
  });

  it('adds members to a static segment by pasting addresses, and removes one', async () => {
    await d.page.goto(`${d.service.url}/app/segments/new`);
    await d.page.getByLabel('Name', { exact: true }).fill('Beta testers');
    await d.page.getByLabel('Static: a list kept by hand').check();
    await d.page.getByRole('button', { name: 'Create segment' }).click();
    await d.page.getByRole('heading', { name: 'No members yet' }).waitFor();

    await d.page
      .getByLabel('Email addresses')
      .fill('Ada <ada@example.com>, newcomer@example.com\nada@example.com; not-an-address');
    await d.page.getByText('2 addresses found.').waitFor();
    await d.page.getByRole('button', { name: 'Add to segment' }).click();
    await expect
      .poll(() => d.page.getByTestId('members-result').textContent())
      .toBe('2 added · 0 removed · 2 in total · 1 contacts created');
    const members = d.page.getByRole('table', { name: 'Members of Beta testers' });
    await expect
      .poll(async () => (await members.getByRole('link').allTextContents()).sort())
      .toEqual(['ada@example.com', 'newcomer@example.com']);
    await d.expectAccessible('segment-static');

    await members.getByRole('button', { name: 'Remove ada@example.com' }).click();
    await expect
      .poll(() => d.page.getByTestId('members-result').textContent())
      .toBe('0 added · 1 removed · 1 in total');
    await expect.poll(() => members.getByRole('link').allTextContents()).toEqual(['newcomer@example.com']);
  });

  it('lists the segments with type and count, and fits 375 px, light and dark', async () => {
    await d.page.goto(`${d.service.url}/app/segments`);
    const table = d.page.getByRole('table', { name: 'Segments' });
    await table.getByRole('link', { name: 'Pro teams' }).waitFor();
    expect(await table.getByRole('row', { name: /Beta testers/ }).textContent()).toContain('Static');
    await d.expectAccessible('segments-list');

    // The picker offers the other segments with their member counts, never the one being edited.
    await table.getByRole('link', { name: 'Pro teams' }).click();
    await d.page.getByRole('button', { name: '+ Filter in group 1', exact: true }).click();
    const segments = d.page.getByRole('group', { name: 'Segments' });
    await expect.poll(() => segments.getByRole('option').allTextContents()).toEqual(['Beta testers1 member']);
    await d.page.keyboard.press('Escape');
    await d.page.getByRole('button', { name: 'Remove filter 2 of group 1' }).click();
    await d.page.getByText('All changes saved').waitFor();

    // Scanned once each (1280 px light, 375 px dark); every width and scheme fits and is saved when asked.
    let scanned = false;
    for (const scheme of ['light', 'dark'] as const) {
      await d.page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 375]) {
        await d.page.setViewportSize({ width, height: 900 });
        await d.page.goto(`${d.service.url}/app/segments`);
        await table.getByRole('link', { name: 'Pro teams' }).waitFor();
        if (!scanned) await d.expectAccessible('segments-list');
        await screenshot(d.page, `segments-list-${width}-${scheme}`);
        await table.getByRole('link', { name: 'Pro teams' }).click();
        await expect.poll(() => liveCount().textContent()).toBe('4 match · 2 subscribed');
        if (!scanned) await d.expectAccessible('segment-builder');
        scanned = true;
        await screenshot(d.page, `segment-builder-${width}-${scheme}`);
        await d.page.getByRole('group', { name: 'Who is in this segment' }).scrollIntoViewIfNeeded();
        await screenshot(d.page, `segment-tree-${width}-${scheme}`);
        expect(await sidewaysOverflow(d.page), `${width} ${scheme}`).toBeLessThanOrEqual(0);
      }
    }
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'light' });
  });
});
