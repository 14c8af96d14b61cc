import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  hasChromium,
  OWNER,
  screenshot,
  sidewaysOverflow,
  useDashboard,
} from '../support/browser.js';

/**
 * Members in Debian's Chromium against the real service: the owner invites someone and copies the
 * link, the invited person opens it in a browser of their own, creates their account there and
 * works in the project; what their role may not do is refused in words, even when the page still
 * offers it because their role changed meanwhile.
 */

const MEMBER = { email: 'member@example.com', password: 'member-correct-horse' };

describe.skipIf(!hasChromium)('members in a browser', () => {
  const d = useDashboard();
  let other: BrowserContext;
  let guest: Page;
  let link: string;
  afterAll(() => other?.close());

  const memberRow = (page: Page, email: string) =>
    page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: email });

  it('the owner invites a member and copies the link, shown once', async () => {
    await d.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.service.url });
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await d.page.getByRole('heading', { name: 'Members', exact: true }).waitFor();
    await expect.poll(() => memberRow(d.page, OWNER.email).textContent()).toContain('Owner');
    await d.expectAccessible('members');

    await d.page.getByLabel('Email').fill('not an address');
    await d.page.getByRole('button', { name: 'Create invitation' }).click();
    await expect.poll(() => d.page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');

    await d.page.getByLabel('Email').fill(MEMBER.email);
    await d.page.getByLabel('Role', { exact: true }).selectOption('member');
    await d.page.getByRole('button', { name: 'Create invitation' }).click();
    const shown = d.page.locator('.invite-link');
    await shown.waitFor();
    await d.page.getByRole('button', { name: `Copy the invitation link for ${MEMBER.email}` }).click();
    link = await d.page.evaluate(() => navigator.clipboard.readText());
    expect(link).toBe(await shown.textContent());
    expect(link).toMatch(/\/app\/invite\/[\w-]{43}$/);
    await d.page.getByRole('table', { name: 'Pending invitations' }).getByText(MEMBER.email).waitFor();
    await d.expectAccessible('members-invited');
  });

  it('the invited person opens the link in another browser, creates their account and sees the project', async () => {
    other = await d.browser.newContext({ viewport: { width: 1280, height: 900 } });
    guest = await other.newPage();
    guest.setDefaultTimeout(20_000);
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'Join Default project' }).waitFor();
    await guest.getByText(`${OWNER.email} invites ${MEMBER.email} to Default project as a member.`).waitFor();
    // The harness's scan, on the other browser's page.
    expect(await accessibilityViolations(guest)).toEqual([]);
    await screenshot(guest, 'invite');

    await guest.getByLabel('Choose a password').fill('short');
    await guest.getByRole('button', { name: 'Create account and join' }).click();
    await expect.poll(() => guest.getByLabel('Choose a password').getAttribute('aria-invalid')).toBe('true');
    await guest.getByLabel('Choose a password').fill(MEMBER.password);
    await guest.getByRole('button', { name: 'Create account and join' }).click();
    await guest.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await guest.getByLabel('Project').inputValue()).toBeTruthy();
    await expect
      .poll(() => guest.getByLabel('Project').locator('option:checked').textContent())
      .toBe('Default project');

    // The account is real: signed out and in again with the password chosen on the invitation.
    await guest.getByRole('button', { name: 'Sign out' }).click();
    await guest.getByRole('heading', { name: 'Sign in to Postbox' }).waitFor();
    // Settled first: the sign-in form may be drawn twice as the session is forgotten, and lose early typing.
    await guest.waitForLoadState('networkidle');
    await guest.getByLabel('Email').fill(MEMBER.email);
    await guest.getByLabel('Password').fill(MEMBER.password);
    await guest.getByRole('button', { name: 'Sign in' }).click();
    await guest.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

    // The link worked once.
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'Invitation already accepted' }).waitFor();
  });

  it('a member sees the members but none of the controls of admins and owners', async () => {
    // The guest stays on the link's host (PUBLIC_URL), where their session cookie is.
    await guest.goto(new URL('/app/members', link).href);
    await guest.getByRole('heading', { name: 'Members', exact: true }).waitFor();
    await expect.poll(() => memberRow(guest, MEMBER.email).textContent()).toContain('Member');
    expect(await guest.getByRole('button', { name: 'Create invitation' }).count()).toBe(0);
    expect(await guest.getByRole('button', { name: `Remove ${OWNER.email}` }).count()).toBe(0);
    expect(await guest.getByRole('combobox', { name: `Role of ${OWNER.email}` }).count()).toBe(0);
    await guest.getByRole('button', { name: 'Leave project' }).waitFor();
  });

  it('an owner-only action the page still offers after a demotion is refused in words', async () => {
    // The owner makes them an owner: their page, loaded now, offers an owner's controls…
    await d.page.reload();
    await d.page.getByRole('combobox', { name: `Role of ${MEMBER.email}` }).selectOption('owner');
    await expect
      .poll(() => d.page.getByRole('combobox', { name: `Role of ${MEMBER.email}` }).inputValue())
      .toBe('owner');
    await guest.reload();
    const removeOwner = guest.getByRole('button', { name: `Remove ${OWNER.email}` });
    await removeOwner.waitFor();

    // …then takes it back while that page stays open.
    await d.page.getByRole('combobox', { name: `Role of ${MEMBER.email}` }).selectOption('member');
    await expect
      .poll(() => d.page.getByRole('combobox', { name: `Role of ${MEMBER.email}` }).inputValue())
      .toBe('member');

    await removeOwner.click();
    const dialog = guest.getByRole('dialog', { name: `Remove ${OWNER.email}?` });
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('This needs the owner role in this project; you are a member');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    // The page now shows what the role allows, and the owner is still there.
    await expect.poll(() => guest.getByRole('button', { name: `Remove ${OWNER.email}` }).count()).toBe(0);
    await expect.poll(() => memberRow(d.page, OWNER.email).textContent()).toContain('Owner');
  });

  it('the last owner is told they cannot leave', async () => {
    await d.page.getByRole('button', { name: 'Leave project' }).click();
    const dialog = d.page.getByRole('dialog', { name: 'Leave Default project?' });
    await dialog.getByRole('button', { name: 'Leave project' }).click();
    await dialog.getByText('The last owner cannot leave the project: make another member an owner first').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('emails the link from an address of the project when one is given, and opens that email', async () => {
    await d.page.getByLabel('Email', { exact: true }).fill('dave@example.com');
    await d.page.getByLabel('Send the link by mail from (optional)').fill('team@example.com');
    await d.page.getByRole('button', { name: 'Create invitation' }).click();
    const notice = d.page.getByRole('status').filter({ hasText: 'Emailed to' });
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Emailed to dave@example.com');
    await d.expectAccessible('members-invite-emailed');
    await notice.getByRole('link', { name: 'the email' }).click();
    await d.page.getByRole('heading', { name: 'Join Default project on Postbox', level: 1 }).waitFor();
  });

  it('removing an admin withdraws the invitations they made, and the owner is told which', async () => {
    await d.page.goto(`${d.service.url}/app/members`);
    await d.page.getByRole('combobox', { name: `Role of ${MEMBER.email}` }).selectOption('admin');
    await expect
      .poll(() => d.page.getByRole('combobox', { name: `Role of ${MEMBER.email}` }).inputValue())
      .toBe('admin');
    // As an admin, they invite someone as an admin.
    const [project] = await (await guest.request.get(new URL('/users/@me/projects', link).href)).json();
    const made = await guest.request.post(new URL(`/projects/${project.id}/invites`, link).href, {
      data: { email: 'newbie@example.com', role: 'admin' },
    });
    expect(made.status(), await made.text()).toBe(201);
    await d.page.reload();
    const pending = d.page.getByRole('table', { name: 'Pending invitations' });
    await pending.getByText('newbie@example.com').waitFor();

    await d.page.getByRole('button', { name: `Remove ${MEMBER.email}` }).click();
    await d.page
      .getByRole('dialog', { name: `Remove ${MEMBER.email}?` })
      .getByRole('button', { name: 'Remove member' })
      .click();
    const notice = d.page.getByRole('status').filter({ hasText: 'Also withdrawn' });
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      `Also withdrawn: the pending invitation ${MEMBER.email} had made, whose links no longer work: newbie@example.com (admin).`,
    );
    await expect.poll(() => d.page.getByText('newbie@example.com', { exact: true }).count()).toBe(0);
    await d.expectAccessible('members-removed-withdrawn');
    await d.page.setViewportSize({ width: 375, height: 800 });
    await d.page.emulateMedia({ colorScheme: 'dark' });
    await notice.scrollIntoViewIfNeeded();
    expect(await sidewaysOverflow(d.page)).toBeLessThanOrEqual(0);
    await d.expectAccessible('members-removed-withdrawn-narrow-dark');
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'light' });
  });

  it('only instance admins see "New project", until the owner lets everyone create projects in Settings', async () => {
    await guest.goto(new URL('/app/', link).href);
    await guest.getByRole('heading', { name: 'You are not in a project yet' }).waitFor();
    expect(await guest.getByRole('button', { name: 'New project' }).count()).toBe(0);
    expect(await guest.getByRole('button', { name: 'Create project' }).count()).toBe(0);
    expect(await accessibilityViolations(guest)).toEqual([]);
    await screenshot(guest, 'no-project-no-creation');

    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const instance = d.page.getByRole('region', { name: 'This instance' });
    const setting = instance.getByLabel('Who may create projects');
    await expect.poll(() => setting.inputValue()).toBe('admins');
    expect(await instance.textContent()).toContain(`Instance admins: ${OWNER.email}.`);
    await instance.scrollIntoViewIfNeeded();
    await d.expectAccessible('settings-instance');
    for (const scheme of ['light', 'dark'] as const) {
      await d.page.setViewportSize({ width: 375, height: 800 });
      await d.page.emulateMedia({ colorScheme: scheme });
      await instance.scrollIntoViewIfNeeded();
      expect(await sidewaysOverflow(d.page), scheme).toBeLessThanOrEqual(0);
    }
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'light' });
    await setting.selectOption('everyone');
    await instance.getByRole('button', { name: 'Save' }).click();
    await instance.getByText('Saved.').waitFor();

    await guest.reload();
    await guest.getByRole('button', { name: 'New project' }).waitFor();
    await guest.getByRole('button', { name: 'Create project' }).waitFor();
  });
});
