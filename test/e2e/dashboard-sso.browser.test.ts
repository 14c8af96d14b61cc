import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/platform/free-port.js';
import { accessibilityViolations, hasChromium, OWNER, useDashboard } from '../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { CLIENT, providerEnv, startOidcProvider, type TestProvider, UNVERIFIED } from '../support/oidc-provider.js';
import { type ChildServer, spawnService } from '../support/server.js';

/**
 * Single sign-on in Debian's Chromium against a real OpenID Connect provider (oidc-provider on
 * loopback, its own login page): the first sign-in makes a member of the configured project, an
 * existing account is matched by its address, refusals are explained on the sign-in page, Settings
 * shows the configuration, and an "SSO only" instance goes to the provider by itself.
 */

const PROVIDER_NAME = 'Example SSO';
const SSO = { OIDC_PROVIDER_NAME: PROVIDER_NAME, OIDC_ALLOWED_DOMAINS: 'example.com', OIDC_PROJECT: 'Default project' };

/**
 * Clicks "Sign in with …", the provider's session from a sign-in before ended first: with it, the
 * provider would not ask again.
 */
async function startSignIn(page: Page) {
  await page.context().clearCookies({ name: /^_session/ });
  await page.getByRole('link', { name: `Sign in with ${PROVIDER_NAME}` }).click();
}

/** Signs in on the provider's own login page, which any login and password pass. */
async function signInAtProvider(page: Page, login: string) {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
}

describe.skipIf(!hasChromium)('single sign-on in a browser', () => {
  let providerPort = 0;
  let ssoOnlyPort = 0;
  let provider: TestProvider;
  beforeAll(async () => {
    [providerPort, ssoOnlyPort] = [await freePort(), await freePort()];
  });
  const issuer = () => `http://127.0.0.1:${providerPort}`;
  const d = useDashboard({
    env: () => providerEnv(issuer(), SSO),
  });
  // The service's PUBLIC_URL is http://localhost:<port>, where the provider sends the browser back.
  const app = () => d.service.url.replace('127.0.0.1', 'localhost');
  beforeAll(async () => {
    provider = await startOidcProvider(providerPort, [
      `${app()}/auth/oidc/callback`,
      `http://127.0.0.1:${ssoOnlyPort}/auth/oidc/callback`,
    ]);
  });
  afterAll(() => provider?.stop());

  /** The addresses of the default project's members, as its owner's session sees them. */
  const memberEmails = async () => {
    const projects = await (await d.page.request.get(`${d.service.url}/users/@me/projects`)).json();
    const members = await (await d.page.request.get(`${d.service.url}/projects/${projects[0].id}/members`)).json();
    return members.map((m: { email: string }) => m.email).sort();
  };

  it('offers the provider beside the password; a first sign-in makes a member of the configured project', async () => {
    await d.page.goto(`${app()}/app/`);
    await d.page.getByRole('heading', { name: 'Sign in to Postbox' }).waitFor();
    await d.page.getByLabel('Password').waitFor();
    await d.expectAccessible('sign-in-sso');

    await startSignIn(d.page);
    await signInAtProvider(d.page, 'new.member@example.com');
    await d.page.getByRole('link', { name: 'new.member@example.com' }).waitFor();
    expect(new URL(d.page.url()).search).toBe('');
    const projects = await (await d.page.request.get(`${app()}/users/@me/projects`)).json();
    expect(projects).toEqual([expect.objectContaining({ name: 'Default project', role: 'member' })]);
  });

  it('explains a refused sign-in on the sign-in page, and lets nobody in', async () => {
    await d.page.getByRole('button', { name: 'Sign out' }).first().click();
    const alert = d.page.getByRole('alert');
    const refusals = [
      ['someone@elsewhere.test', 'Your email address is not in a domain allowed to sign in here.'],
      [`${UNVERIFIED}unverified@example.com`, `${PROVIDER_NAME} has not verified your email address`],
    ];
    for (const [login, message] of refusals) {
      await startSignIn(d.page);
      await signInAtProvider(d.page, login!);
      await d.page.getByRole('heading', { name: 'Sign in to Postbox' }).waitFor();
      await expect.poll(() => alert.textContent()).toContain(message);
    }
    await d.expectAccessible('sign-in-sso-refused');
    // An answer this browser did not ask for (or one used before).
    await d.page.goto(`${app()}/auth/oidc/callback?code=made-up&state=made-up`);
    await expect.poll(() => alert.textContent()).toContain('This sign-in had expired, was already used');
    expect(await memberEmails()).toEqual(['new.member@example.com', OWNER.email]);
  });

  it('matches an existing account by its address, and shows the configuration in Settings', async () => {
    await startSignIn(d.page);
    await signInAtProvider(d.page, OWNER.email);
    await d.page.getByRole('link', { name: OWNER.email }).waitFor();
    await d.page.getByRole('link', { name: 'Settings' }).first().click();
    const card = d.page.getByRole('region', { name: 'Single sign-on' });
    await card.getByText(issuer()).waitFor();
    await card.getByText('Join Default project as member').waitFor();
    await card.getByText('On, beside single sign-on').waitFor();
    expect(await card.textContent()).not.toContain(CLIENT.secret);
    await card.scrollIntoViewIfNeeded();
    await d.expectAccessible('settings-sso');
  });

  it('asks an account with two-factor sign-in for its code after the provider', async () => {
    const started = await (await d.page.request.post(`${d.service.url}/users/@me/two-factor`)).json();
    const code = () => TOTP.generate({ secret: Secret.fromBase32(started.secret) });
    const confirmed = await d.page.request.post(`${d.service.url}/users/@me/two-factor/confirm`, {
      data: { code: code() },
    });
    expect(confirmed.status(), await confirmed.text()).toBe(200);

    await d.page.getByRole('button', { name: 'Sign out' }).first().click();
    await startSignIn(d.page);
    await signInAtProvider(d.page, OWNER.email);
    const field = d.page.getByLabel('Code from your authenticator app');
    await field.waitFor();
    expect(await d.page.getByRole('link', { name: OWNER.email }).count()).toBe(0);
    await d.expectAccessible('sign-in-sso-second-factor');
    // The enrolment took this step's code: the next step's is the one the app shows then.
    await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 250));
    await field.fill(code());
    await d.page.getByRole('button', { name: 'Verify' }).click();
    await d.page.getByRole('link', { name: OWNER.email }).waitFor();
    const sessions = await (await d.page.request.get(`${app()}/users/@me/sessions`)).json();
    expect(sessions.find((session: { current: boolean }) => session.current)).toMatchObject({ secondFactor: true });
  });

  describe('SSO only', () => {
    let db: TestDatabase;
    let only: ChildServer;
    const url = () => `http://127.0.0.1:${ssoOnlyPort}`;
    beforeAll(async () => {
      db = await createTestDatabase();
      only = await spawnService(
        {
          ...db.env,
          REDIS_URL: '',
          PUBLIC_URL: url(),
          ...providerEnv(issuer(), { ...SSO, OIDC_ONLY: 'true' }),
        },
        ['all'],
        ssoOnlyPort,
      );
    }, 60_000);
    afterAll(async () => {
      await only?.kill();
      await db?.drop();
    });

    it('goes to the provider by itself, and shows why when it comes back refused', async () => {
      const context = await d.browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      try {
        // A fresh instance is set up with its setup token first, as without single sign-on.
        await page.goto(`${url()}/app/`);
        await page.getByLabel('Setup token').waitFor();
        const setupToken = /setup token:\n\s+(\S+)/.exec(only.output())![1]!;
        const setup = await context.request.post(`${url()}/auth/setup`, { data: { token: setupToken, ...OWNER } });
        expect(setup.status()).toBe(201);
        await context.clearCookies();

        await page.goto(`${url()}/app/`);
        await signInAtProvider(page, 'someone@elsewhere.test');
        await page.getByRole('alert').getByText('not in a domain allowed to sign in here').waitFor();
        expect(await page.getByLabel('Password').count()).toBe(0);
        expect(await accessibilityViolations(page, 'sign-in-sso-only-refused')).toEqual([]);

        await startSignIn(page);
        await signInAtProvider(page, OWNER.email);
        await page.getByRole('link', { name: OWNER.email }).waitFor();

        // An invitation offers the provider instead of a password; signing in there accepts it.
        const projects = await (await context.request.get(`${url()}/users/@me/projects`)).json();
        const invite = await context.request.post(`${url()}/projects/${projects[0].id}/invites`, {
          data: { email: 'invited@example.com', role: 'admin' },
          headers: { origin: url() },
        });
        expect(invite.status(), await invite.text()).toBe(201);
        const invited = await d.browser.newContext({ viewport: { width: 1280, height: 900 } });
        const invitedPage = await invited.newPage();
        invitedPage.setDefaultTimeout(20_000);
        try {
          await invitedPage.goto((await invite.json()).url);
          await invitedPage.getByText('your account is made and joins the project').waitFor();
          expect(await invitedPage.getByLabel('Choose a password').count()).toBe(0);
          expect(await accessibilityViolations(invitedPage, 'invite-sso-only')).toEqual([]);
          await startSignIn(invitedPage);
          await signInAtProvider(invitedPage, 'invited@example.com');
          await invitedPage.getByRole('link', { name: 'invited@example.com' }).waitFor();
          const joined = await (await invited.request.get(`${url()}/users/@me/projects`)).json();
          expect(joined).toEqual([expect.objectContaining({ id: projects[0].id, role: 'admin' })]);
        } finally {
          await invited.close();
        }

        // Signing out stays signed out: the page waits instead of going back to the provider.
        await page.getByRole('button', { name: 'Sign out' }).first().click();
        await page.getByRole('link', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        await page.reload();
        await page.getByRole('link', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        expect(new URL(page.url()).origin).toBe(url());
      } finally {
        await context.close();
      }
    });
  });
});
