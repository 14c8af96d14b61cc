import fs from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { accessibilityViolations, hasChromium, OWNER, useDashboard } from '../support/browser.js';

const MEMBER = { email: 'member@example.com', password: 'member-correct-horse' };

/**
 * Two-factor sign-in in Debian's Chromium against the real service: the owner enrols from Account
 * → Security with the QR code's key (read off the page, as a phone would read the code), saves the
 * recovery codes shown once, then signs in again in two steps; and sees where they are signed in.
 */

const code = (secret: string) => TOTP.generate({ secret: Secret.fromBase32(secret) });
/** Waits for the authenticator's next 30-second step, so its code is one the service has not taken yet. */
const nextStep = () => new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 250));

describe.skipIf(!hasChromium)('account security in a browser', () => {
  const d = useDashboard();
  let secret = '';
  let enrolmentCode = '';
  let recoveryCodes: string[] = [];

  it('enrols with the QR code and a code, and shows the recovery codes once', async () => {
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('link', { name: OWNER.email }).click();
    await d.page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
    await d.page.getByRole('table', { name: 'Sessions' }).getByText('This browser').waitFor();
    await d.page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    await d.expectAccessible('account-security');

    await d.page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const qr = d.page.getByRole('img', { name: 'QR code to add Postbox to an authenticator app' });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    secret = ((await d.page.locator('.enrolment-secret code').textContent()) ?? '').replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await d.expectAccessible('account-enrolment');

    // A wrong code is said beside the field, and nothing is turned on.
    const field = d.page.getByLabel('Code from the app');
    await field.fill(String((Number(code(secret)) + 1) % 1_000_000).padStart(6, '0'));
    await d.page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    await d.page.getByText('Wrong, expired or already used').waitFor();

    enrolmentCode = code(secret);
    await field.fill(enrolmentCode);
    await d.page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const list = d.page.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    recoveryCodes = (await list.getByRole('listitem').allTextContents()).map((c) => c.trim());
    expect(recoveryCodes).toHaveLength(10);
    const [download] = await Promise.all([
      d.page.waitForEvent('download'),
      d.page.getByRole('button', { name: 'Download' }).click(),
    ]);
    const saved = fs.readFileSync((await download.path())!, 'utf8');
    for (const c of recoveryCodes) expect(saved).toContain(c);
    await d.expectAccessible('account-recovery-codes');

    await d.page.getByRole('button', { name: 'I have saved them' }).click();
    await d.page.getByText('10 of 10 recovery codes left', { exact: false }).waitFor();
    await d.page.getByRole('button', { name: 'Turn off two-factor sign-in' }).waitFor();
  });

  it('then signs in in two steps: the password, then a code or a recovery code', async () => {
    await d.page.getByRole('button', { name: 'Sign out' }).first().click();
    await d.page.getByRole('heading', { name: 'Sign in to Postbox' }).waitFor();
    await d.page.getByLabel('Email').fill(OWNER.email);
    await d.page.getByLabel('Password').fill(OWNER.password);
    await d.page.getByRole('button', { name: 'Sign in' }).click();
    await d.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    const field = d.page.getByLabel('Code from your authenticator app');
    await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    await d.expectAccessible('sign-in-second-factor');

    // The code that turned it on was used: it does not sign in.
    await field.fill(enrolmentCode);
    await d.page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');

    // A recovery code works instead (once).
    await d.page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await d.page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await d.page.getByRole('button', { name: 'Verify' }).click();
    await d.page.getByRole('link', { name: OWNER.email }).waitFor();

    // And, signed out again, the app's next code does.
    await d.page.getByRole('link', { name: OWNER.email }).click();
    await d.page.getByText('9 of 10 recovery codes left', { exact: false }).waitFor();
    await d.page.getByRole('button', { name: 'Sign out' }).first().click();
    await d.page.getByLabel('Email').fill(OWNER.email);
    await d.page.getByLabel('Password').fill(OWNER.password);
    await d.page.getByRole('button', { name: 'Sign in' }).click();
    await nextStep();
    await d.page.getByLabel('Code from your authenticator app').fill(code(secret));
    await d.page.getByRole('button', { name: 'Verify' }).click();
    await d.page.getByRole('link', { name: OWNER.email }).waitFor();
  }, 90_000);

  it('lets the owner require it of every member, and the members list shows who has it', async () => {
    const nav = (name: string) =>
      d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
    await nav('Settings').click();
    const toggle = d.page.getByRole('checkbox', { name: 'Require two-factor sign-in for every member' });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    // The box shows what the server holds: checked once the change is saved.
    await toggle.click();
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await d.expectAccessible('settings-two-factor');
    const projects = await d.page.request.get(`${d.service.url}/users/@me/projects`);
    expect((await projects.json())[0].requireTwoFactor).toBe(true);

    await nav('Members').click();
    const row = d.page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: OWNER.email });
    await expect.poll(() => row.locator('td[data-label="Two-factor"]').textContent()).toBe('On');
  });

  it('asks a member without it to enrol before anything else, then lets them in', async () => {
    const [project] = await (await d.page.request.get(`${d.service.url}/users/@me/projects`)).json();
    const invite = await d.page.request.post(`${d.service.url}/projects/${project.id}/invites`, {
      data: { email: MEMBER.email, role: 'member' },
    });
    expect(invite.status(), await invite.text()).toBe(201);
    const token = (await invite.json()).url.split('/app/invite/')[1];
    const context = await d.browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const accepted = await page.request.post(`${d.service.url}/invites/${token}/accept`, {
        data: { password: MEMBER.password },
      });
      expect(accepted.status(), await accepted.text()).toBe(200);

      await page.goto(`${d.service.url}/app/`);
      await page.getByRole('heading', { name: 'Turn on two-factor sign-in' }).waitFor();
      const qr = page.getByRole('img', { name: 'QR code to add Postbox to an authenticator app' });
      await qr.waitFor();
      expect(await accessibilityViolations(page, 'enrol-required')).toEqual([]);
      const memberSecret = ((await page.locator('.enrolment-secret code').textContent()) ?? '').replace(/\s/g, '');
      await page.getByLabel('Code from the app').fill(code(memberSecret));
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
      await page.getByRole('list', { name: 'Recovery codes' }).waitFor();
      await page.getByRole('button', { name: 'I have saved them' }).click();
      // In: the project's pages answer this session now.
      await page.getByRole('link', { name: MEMBER.email }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).click();
      await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
    } finally {
      await context.close();
    }
  });
});
