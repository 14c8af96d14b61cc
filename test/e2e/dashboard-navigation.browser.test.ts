import { describe, expect, it } from 'vitest';
import type { Project } from '../../src/api.js';
import { NAV_GROUPS, NAV_ITEMS } from '../../web/src/shell/navigation.js';
import { hasChromium, OWNER, screenshot, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { expectBody } from '../support/server.js';

/**
 * The dashboard's shell in Debian's Chromium against the real service: where the owner lands after
 * setup (Overview, with first steps ticked from what the API holds), the sidebar of grouped pages,
 * the drawer that replaces it on a phone (by keyboard), the ⌘K palette's groups, and a not-found
 * page that offers the palette.
 */

describe.skipIf(!hasChromium)('the dashboard’s navigation in a browser', () => {
  const d = useDashboard({ signedIn: false });
  const nav = () => d.page.getByRole('navigation', { name: 'Main' });
  const steps = () => d.page.getByRole('region', { name: 'First steps' }).getByRole('listitem');
  const step = (title: string) => steps().filter({ hasText: title });

  it('after the owner’s setup, lands on Overview with a first-steps checklist of what is not done', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByLabel('Setup token').fill(d.setupToken());
    await d.page.getByLabel('Email').fill(OWNER.email);
    await d.page.getByLabel('Password').fill(OWNER.password);
    await d.page.getByRole('button', { name: 'Create account' }).click();
    await d.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(new URL(d.page.url()).pathname).toBe('/app/overview');

    await expect.poll(() => steps().count()).toBe(4);
    await d.page.getByText('0 of 4 done').waitFor();
    for (const [title, href] of [
      ['Add your sending domain, or try capture', '/app/domains'],
      ['Send a first email', '/app/templates'],
      ['Import your contacts', '/app/contacts/import'],
      ['Invite a member', '/app/members'],
    ] as const) {
      await expect.poll(() => step(title).textContent()).toContain('To do: ');
      expect(await step(title).getByRole('link', { name: title }).getAttribute('href')).toBe(href);
    }
    await d.expectAccessible('overview-first-steps');
  });

  it('ticks a step once the API holds what it asks for', async () => {
    await expectBody(
      d.api().post('/v1/send', { to: 'ada@example.com', from: 'hello@example.com', subject: 'Hi', body: '<p>Hi</p>' }),
    );
    await d.page.reload();
    await d.page.getByText('3 of 4 done').waitFor();
    // Sent while mail is captured (no relay), it tried capture; it made the contact too.
    expect(await step('Send a first email').textContent()).toContain('Done: ');
    expect(await step('Add your sending domain, or try capture').textContent()).toContain('Done: ');
    expect(await step('Import your contacts').textContent()).toContain('Done: ');
    expect(await step('Invite a member').textContent()).toContain('To do: ');
    await d.expectAccessible('overview-first-steps-ticked');

    // A pending invitation is the last step: the list goes away.
    const [project] = (await (await d.page.request.get(`${d.service.url}/users/@me/projects`)).json()) as Project[];
    const invited = await d.page.request.post(`${d.service.url}/projects/${project!.id}/invites`, {
      data: { email: 'bob@example.com', role: 'member' },
    });
    expect(invited.status(), await invited.text()).toBe(201);
    await d.page.reload();
    await d.page.getByRole('heading', { name: 'Coming up' }).waitFor();
    await expect.poll(() => d.page.getByRole('region', { name: 'First steps' }).count()).toBe(0);
  });

  it('the sidebar lists every page in its group, with a description, and marks the current one', async () => {
    for (const group of NAV_GROUPS) {
      const list = group.heading ? nav().getByRole('list', { name: group.heading }) : nav().getByRole('list').first();
      const links = list.getByRole('link');
      expect(await links.allTextContents()).toEqual(group.items.map((i) => i.label));
      for (const item of group.items) {
        const link = list.getByRole('link', { name: item.label, exact: true });
        expect(await link.getAttribute('href')).toBe(`/app${item.to}`);
        expect(await link.getAttribute('title')).toBe(item.description);
      }
    }
    expect(await nav().getByRole('list', { name: 'Messaging' }).getByRole('link').allTextContents()).toEqual([
      'Campaigns',
      'Workflows',
      'Templates',
      'Emails',
      'Inbound',
    ]);
    const current = nav().locator('[aria-current="page"]');
    expect(await current.allTextContents()).toEqual(['Overview']);

    await nav().getByRole('link', { name: 'Contacts', exact: true }).click();
    await d.page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
    expect(await current.allTextContents()).toEqual(['Contacts']);
    // A page below another keeps its parent marked.
    await d.page.getByRole('link', { name: 'Import CSV' }).first().click();
    await d.page.getByRole('heading', { name: 'Import contacts' }).waitFor();
    expect(await current.allTextContents()).toEqual(['Contacts']);
    expect(await d.page.getByRole('button', { name: /Menu/ }).isVisible()).toBe(false);
    await d.expectAccessible('sidebar');
  });

  it('below 768 px the pages are in a drawer: opened by a button, closed by Escape, focus back on the button', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    await d.page.goto(`${d.service.url}/app/overview`);
    await d.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await nav().count()).toBe(0);
    expect(await sidewaysOverflow(d.page)).toBeLessThanOrEqual(0);

    const menu = d.page.getByRole('button', { name: /Menu/ });
    expect(await menu.textContent()).toContain('Overview');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    // From the top of the page: the skip link, then the menu button.
    await d.page.keyboard.press('Tab');
    await d.page.keyboard.press('Tab');
    expect(await menu.evaluate((button) => button === document.activeElement)).toBe(true);
    await d.page.keyboard.press('Enter');
    const drawer = d.page.getByRole('dialog', { name: 'Menu' });
    await drawer.waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await drawer.getByRole('link').count()).toBe(NAV_ITEMS.length);
    expect(await drawer.locator('[aria-current="page"]').allTextContents()).toEqual(['Overview']);
    expect(await drawer.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    expect(await sidewaysOverflow(d.page)).toBeLessThanOrEqual(0);
    await d.expectAccessible('nav-drawer');
    await d.page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(d.page, 'nav-drawer-narrow-dark');
    await d.page.emulateMedia({ colorScheme: 'light' });

    await d.page.keyboard.press('Escape');
    await expect.poll(() => drawer.count()).toBe(0);
    expect(await menu.evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');

    // A link followed by keyboard closes the drawer on the way, and focus comes back to the button.
    await d.page.keyboard.press('Enter');
    await drawer.waitFor();
    const events = drawer.getByRole('link', { name: 'Events', exact: true });
    await events.focus();
    await d.page.keyboard.press('Enter');
    await d.page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    await expect.poll(() => drawer.count()).toBe(0);
    expect(await menu.textContent()).toContain('Events');
    expect(await menu.evaluate((button) => button === document.activeElement)).toBe(true);
    await d.page.setViewportSize({ width: 1280, height: 900 });
  });

  it('⌘K lists every page under its group, the label above the highlighted result, not inside it', async () => {
    await d.page.keyboard.press('Control+K');
    const palette = d.page.getByRole('dialog', { name: 'Go to' });
    await palette.waitFor();
    const groups = palette.getByRole('group');
    expect(await groups.count()).toBe(NAV_GROUPS.length);
    for (const group of NAV_GROUPS) {
      const options = palette.getByRole('group', { name: group.heading ?? group.items[0]!.label }).getByRole('option');
      expect(await options.count()).toBe(group.items.length);
      for (const [i, item] of group.items.entries()) {
        expect(await options.nth(i).textContent()).toBe(`${item.label}${item.description}`);
      }
    }
    const highlighted = palette.getByRole('option', { selected: true });
    expect(await highlighted.textContent()).toBe(`Overview${NAV_ITEMS[0]!.description}`);
    const label = (await palette.getByText('Overview', { exact: true }).first().boundingBox())!;
    const option = (await highlighted.boundingBox())!;
    expect(label.y + label.height).toBeLessThanOrEqual(option.y);
    await d.expectAccessible('palette-pages');

    // A group's name finds its pages.
    const search = palette.getByRole('combobox');
    await search.fill('audience');
    await expect.poll(() => palette.getByRole('option').allTextContents()).toHaveLength(6);
    expect(await palette.getByRole('group').allTextContents()).toEqual([
      expect.stringMatching(/^AudienceContacts.*Segments.*Events.*Signup forms.*Topics.*Suppressions/),
    ]);
    await search.fill('workfl');
    await search.press('Enter');
    await expect.poll(() => new URL(d.page.url()).pathname).toBe('/app/workflows');
  });

  it('an unknown address offers the palette and the pages by group', async () => {
    await d.page.goto(`${d.service.url}/app/no-such-page`);
    await d.page.getByRole('heading', { name: 'Page not found' }).waitFor();
    const groups = d.page.getByRole('navigation', { name: 'Pages by group' });
    expect(await groups.getByRole('heading').allTextContents()).toEqual([
      'Start',
      'Audience',
      'Messaging',
      'Reporting',
      'Setup',
    ]);
    expect(await groups.getByRole('link').count()).toBe(NAV_ITEMS.length);
    await d.expectAccessible('not-found');

    const search = d.page.getByRole('button', { name: /^Search/ });
    await search.focus();
    await d.page.keyboard.press('Enter');
    const combobox = d.page.getByRole('combobox', { name: 'Go to a page, contact, template or campaign' });
    await combobox.waitFor();
    await combobox.fill('ada@');
    await d.page.getByRole('option', { name: /ada@example\.com/ }).waitFor();
    await combobox.press('Enter');
    await d.page.getByRole('heading', { name: 'ada@example.com' }).waitFor();

    await d.page.goto(`${d.service.url}/app/no-such-page`);
    await groups.getByRole('link', { name: 'Suppressions' }).click();
    await d.page.getByRole('heading', { name: 'Suppressions', level: 1 }).waitFor();
  });
});
