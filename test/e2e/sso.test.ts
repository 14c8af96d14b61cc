import { sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/modules/accounts/service.js';
import { createInvite } from '../../src/modules/members/service.js';
import { run } from '../../src/platform/db/client.js';
import { freePort } from '../../src/platform/free-port.js';
import { Agent } from '../support/agent.js';
import { movableClock } from '../support/clock.js';
import {
  providerEnv,
  SignInBrowser,
  startOidcProvider,
  type TestProvider,
  UNVERIFIED,
} from '../support/oidc-provider.js';
import { type Client, expectErrorEnvelope, ownerSession, startTestServer, type TestServer } from '../support/server.js';

/**
 * Single sign-on over HTTP against a real OpenID Connect provider on loopback: the browser's steps
 * are taken one by one, so each refusal is seen where it happens, and the database shows what was
 * (not) created.
 */

const OWNER = { email: 'owner@company.test', password: 'owner-correct-horse' };
const clock = movableClock();
const codeAt = (secret: string) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.now().getTime() });
let provider: TestProvider;
let server: TestServer;
let marketingId: string;
/** The first user: owner of the projects, instance admin. */
let owner: Client;

const db = () => server.service.ctx.db;
const userCount = async () => (await run(db(), sql`select count(*)::int as n from users`)).rows[0].n as number;
const userByEmail = async (email: string) =>
  (await run(db(), sql`select id from users where email = ${email}`)).rows[0] as { id: string } | undefined;
const rolesOf = async (email: string) =>
  (
    await run(
      db(),
      sql`select p.name, m.role from project_members m join users u on u.id = m.user_id
        join projects p on p.id = m.project_id where u.email = ${email} order by p.name`,
    )
  ).rows;

/** Where a callback (or a start) sent the browser, and whether it opened a session. */
async function outcome(browser: SignInBrowser, url: string) {
  const res = await browser.open(url);
  return {
    status: res.status,
    location: res.headers.get('location') ?? '',
    session: browser.cookies.has('postbox_session'),
  };
}

beforeAll(async () => {
  const [port, providerPort] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(providerPort, [`${publicUrl}/auth/oidc/callback`]);
  server = await startTestServer(
    {
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      ...providerEnv(provider.issuer, {
        OIDC_PROVIDER_NAME: 'Company SSO',
        OIDC_ALLOWED_DOMAINS: 'company.test, subsidiary.test',
        OIDC_PROJECT: 'Marketing',
        OIDC_ROLE: 'admin',
      }),
    },
    { clock },
  );
  owner = await ownerSession(server, OWNER);
  marketingId = (await owner.post('/users/@me/projects', { name: 'Marketing' })).body.id;
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await provider?.stop();
});

describe('single sign-on', () => {
  it('tells the sign-in page which provider to offer, password sign-in staying on', async () => {
    const res = await fetch(`${server.url}/auth/sso`);
    expect(await res.json()).toEqual({
      sso: { providerName: 'Company SSO', startUrl: '/auth/oidc/start' },
      passwordSignIn: true,
    });
  });

  it('creates the account at the first sign-in, with the configured role in the configured project', async () => {
    const browser = new SignInBrowser();
    const answer = await browser.providerAnswer(server.url, 'new.person@company.test');
    expect(new URL(answer).searchParams.get('code')).toBeTruthy();
    expect(await outcome(browser, answer)).toEqual({ status: 302, location: `${server.url}/app/`, session: true });
    expect(browser.cookies.has('postbox_sso')).toBe(false);

    expect(await rolesOf('new.person@company.test')).toEqual([{ name: 'Marketing', role: 'admin' }]);
    const me = await browser.open(`${server.url}/users/@me`);
    expect(await me.json()).toMatchObject({ email: 'new.person@company.test', twoFactorEnabled: false });

    // A second sign-in finds the same account.
    const before = await userCount();
    const again = new SignInBrowser();
    expect((await outcome(again, await again.providerAnswer(server.url, 'New.Person@company.test'))).session).toBe(
      true,
    );
    expect(await userCount()).toBe(before);
  });

  it('refuses a replayed answer, even with the cookie of its sign-in', async () => {
    const browser = new SignInBrowser();
    const answer = await browser.providerAnswer(server.url, 'replayed@company.test');
    const startedWith = new Map(browser.cookies);
    expect((await outcome(browser, answer)).session).toBe(true);

    const replay = new SignInBrowser();
    for (const [name, value] of startedWith) if (name !== 'postbox_session') replay.cookies.set(name, value);
    expect(await outcome(replay, answer)).toEqual({
      status: 302,
      location: `${server.url}/app/?sso_error=state`,
      session: false,
    });
  });

  it('refuses an answer whose state is not the browser’s, and creates nothing', async () => {
    const browser = new SignInBrowser();
    const answer = new URL(await browser.providerAnswer(server.url, 'wrong.state@company.test'));
    answer.searchParams.set('state', 'forged-state');
    expect(await outcome(browser, answer.href)).toEqual({
      status: 302,
      location: `${server.url}/app/?sso_error=state`,
      session: false,
    });
    // A browser that never started a sign-in (login CSRF) is refused too.
    const other = new SignInBrowser();
    const stolen = await other.providerAnswer(server.url, 'wrong.state@company.test');
    expect((await outcome(new SignInBrowser(), stolen)).location).toBe(`${server.url}/app/?sso_error=state`);
    expect(await userByEmail('wrong.state@company.test')).toBeUndefined();
  });

  it('refuses an address the provider has not verified, and one outside the allowed domains', async () => {
    const before = await userCount();
    for (const [login, reason] of [
      [`${UNVERIFIED}unverified@company.test`, 'email_unverified'],
      ['someone@elsewhere.test', 'domain_not_allowed'],
      ['someone@company.test.elsewhere.test', 'domain_not_allowed'],
    ]) {
      const browser = new SignInBrowser();
      expect(await outcome(browser, await browser.providerAnswer(server.url, login!)), login).toEqual({
        status: 302,
        location: `${server.url}/app/?sso_error=${reason}`,
        session: false,
      });
    }
    expect(await userCount()).toBe(before);
  });

  it('ends on the sign-in page when the provider refuses, using up the sign-in', async () => {
    const browser = new SignInBrowser();
    const start = await browser.open(`${server.url}/auth/oidc/start`);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const refused = `${server.url}/auth/oidc/callback?error=access_denied&state=${state}`;
    expect((await outcome(browser, refused)).location).toBe(`${server.url}/app/?sso_error=provider`);
  });

  it('signs an existing password account in by its verified address, without a new account', async () => {
    const existing = await createUser(db(), 'has.password@subsidiary.test', 'a-long-password-1', new Date());
    const before = await userCount();
    const browser = new SignInBrowser();
    expect(
      (await outcome(browser, await browser.providerAnswer(server.url, 'has.password@subsidiary.test'))).session,
    ).toBe(true);
    expect(await userCount()).toBe(before);
    expect((await userByEmail('has.password@subsidiary.test'))!.id).toBe(existing!.id);
    // Memberships come with a new account only: the existing one joined nothing.
    expect(await rolesOf('has.password@subsidiary.test')).toEqual([]);
  });

  it('gives an invited address its invitations, beside the configured project', async () => {
    const project = await owner.post('/users/@me/projects', { name: 'Newsletter' });
    expect(project.status, JSON.stringify(project.body)).toBe(201);
    const invite = await owner.post(`/projects/${project.body.id}/invites`, {
      email: 'invited@company.test',
      role: 'member',
    });
    expect(invite.status, JSON.stringify(invite.body)).toBe(201);

    const browser = new SignInBrowser();
    expect((await outcome(browser, await browser.providerAnswer(server.url, 'invited@company.test'))).session).toBe(
      true,
    );
    expect(await rolesOf('invited@company.test')).toEqual([
      { name: 'Marketing', role: 'admin' },
      { name: 'Newsletter', role: 'member' },
    ]);
    const link = await fetch(invite.body.url.replace('/app/invite/', '/invites/'));
    expect((await link.json()).status).toBe('accepted');
  });

  it('asks an account with two-factor sign-in for its code before opening a session', async () => {
    const email = 'two.factor@company.test';
    await createUser(db(), email, 'two-factor-correct-horse', new Date());
    const agent = new Agent(server.url, '10.0.0.1');
    expect((await agent.post('/auth/login', { email, password: 'two-factor-correct-horse' })).status).toBe(200);
    const { secret } = (await agent.post('/users/@me/two-factor')).body;
    expect((await agent.post('/users/@me/two-factor/confirm', { code: codeAt(secret) })).status).toBe(200);

    const browser = new SignInBrowser();
    expect(await outcome(browser, await browser.providerAnswer(server.url, email))).toEqual({
      status: 302,
      location: `${server.url}/app/?sign_in=second-factor`,
      session: false,
    });
    expect((await browser.open(`${server.url}/users/@me`)).status).toBe(401);
    // The enrolment spent this step's code: the next step's is the fresh one.
    clock.advance(30_000);
    const verified = await browser.open(`${server.url}/auth/login/second-factor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: codeAt(secret) }),
    });
    expect(verified.status).toBe(200);
    expect(browser.cookies.has('postbox_session')).toBe(true);
  });

  it('shows instance admins the configuration, never the secret', async () => {
    const owner = await ownerSession(server, { email: 'second.owner@company.test', password: 'second-correct-horse' });
    expectErrorEnvelope(await owner.get('/instance/sso'), 403, 'INSTANCE_ADMIN_REQUIRED');

    const admin = new SignInBrowser();
    const login = await admin.open(`${server.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(OWNER),
    });
    expect(login.status).toBe(200);
    const res = await admin.open(`${server.url}/instance/sso`);
    const text = await res.text();
    expect(text).not.toContain('postbox-client-secret');
    expect(JSON.parse(text)).toEqual({
      enabled: true,
      issuer: provider.issuer,
      providerName: 'Company SSO',
      clientId: 'postbox',
      redirectUri: `${server.url}/auth/oidc/callback`,
      allowedDomains: ['company.test', 'subsidiary.test'],
      projectSetting: 'Marketing',
      project: { id: marketingId, name: 'Marketing' },
      role: 'admin',
      ssoOnly: false,
    });
  });
});

describe('SSO only, with the provider down', () => {
  let only: TestServer;
  let ownerId: string;
  beforeAll(async () => {
    only = await startTestServer({
      OIDC_ISSUER: `http://127.0.0.1:${await freePort()}`,
      OIDC_CLIENT_ID: 'postbox',
      OIDC_CLIENT_SECRET: 'secret',
      OIDC_ALLOWED_DOMAINS: '*',
      OIDC_ONLY: 'true',
    });
  }, 60_000);
  afterAll(() => only?.stop());

  it('refuses password sign-in, and says so to the sign-in page', async () => {
    ownerId = (await createUser(only.service.ctx.db, OWNER.email, OWNER.password, new Date()))!.id;
    const res = await fetch(`${only.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(OWNER),
    });
    const body = await res.json();
    expectErrorEnvelope({ status: res.status, body }, 403, 'PASSWORD_SIGN_IN_DISABLED');
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await (await fetch(`${only.url}/auth/sso`)).json()).toMatchObject({ passwordSignIn: false });
  });

  it('refuses to make an account with a password from an invitation', async () => {
    const invite = await createInvite(only.service.ctx, ownerId, only.service.defaultProject!.id, {
      email: 'invited@company.test',
      role: 'member',
    });
    const token = invite.url.split('/').pop();
    const res = await fetch(`${only.url}/invites/${token}/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'a-long-password-1' }),
    });
    expectErrorEnvelope({ status: res.status, body: await res.json() }, 403, 'PASSWORD_SIGN_IN_DISABLED');
    const made = await run(only.service.ctx.db, sql`select 1 from users where email = 'invited@company.test'`);
    expect(made.rows).toEqual([]);
  });

  it('sends the browser back to the sign-in page when the provider cannot be reached', async () => {
    const browser = new SignInBrowser();
    expect(await outcome(browser, `${only.url}/auth/oidc/start`)).toEqual({
      status: 302,
      location: `${only.url}/app/?sso_error=unavailable`,
      session: false,
    });
    expect(browser.cookies.has('postbox_sso')).toBe(false);
    const started = await run(only.service.ctx.db, sql`select count(*)::int as n from sso_sign_ins`);
    expect(started.rows[0].n).toBe(0);
  });
});
