import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/api.js';
import { loadConfig } from '../../src/config.js';
import { createUser } from '../../src/modules/accounts/service.js';
import { openDatabase, run } from '../../src/platform/db/client.js';
import { instanceSecret } from '../../src/platform/secrets.js';
import { type TestDatabase, useCleanups } from '../support/database.js';
import { UUID } from '../support/sending.js';
import {
  type ApiResponse,
  type ChildServer,
  client,
  eventually,
  printedKeys,
  spawnService,
  startTestServer,
  type TestServer,
} from '../support/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WEEK = 7 * 24 * 3600;
// Logins are limited per IP; through the run's shared Redis every server of the suite (all on
// 127.0.0.1) would count against one budget, so these servers keep their counters in memory.
const LOCAL = { REDIS_URL: '' };

const ALICE = { email: 'alice@example.com', password: 'alice-correct-horse' };
const BOB = { email: 'bob@example.com', password: 'bob-battery-staple' };

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status, message: expect.any(String) } });
}

async function login(url: string, email: string, password: string) {
  const res = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const body = await res.json();
  const cookies = res.headers.getSetCookie();
  const token = /^postbox_session=([^;]*)/.exec(cookies[0] ?? '')?.[1];
  return { status: res.status, headers: res.headers, body, cookies, token };
}

async function signIn(url: string, user: { email: string; password: string }): Promise<string> {
  const res = await login(url, user.email, user.password);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.token!;
}

/** Requests with a session cookie (or none) and no API key. */
function dashboard(url: string, token: string | null) {
  const c = client(url, '');
  const headers: Record<string, string> = token === null ? {} : { cookie: `postbox_session=${token}` };
  return {
    get: (p: string) => c.request('GET', p, { key: null, headers }),
    post: (p: string, body?: unknown) => c.request('POST', p, { key: null, headers, body }),
    patch: (p: string, body: unknown) => c.request('PATCH', p, { key: null, headers, body }),
    delete: (p: string) => c.request('DELETE', p, { key: null, headers }),
  };
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('dashboard accounts', () => {
  let server: TestServer;
  let alice: { id: string };
  let bob: { id: string };
  let aliceToken: string;
  let bobToken: string;
  beforeAll(async () => {
    server = await startTestServer(LOCAL);
    // The same function `user:create` calls; the first user claims the default project.
    alice = (await createUser(server.service.ctx.db, ALICE.email, ALICE.password, new Date()))!;
    bob = (await createUser(server.service.ctx.db, BOB.email, BOB.password, new Date()))!;
    aliceToken = await signIn(server.url, ALICE);
    bobToken = await signIn(server.url, BOB);
  });
  afterAll(() => server?.stop());

  it('stores salted scrypt hashes, never the password, and refuses a taken email', async () => {
    const { rows } = await run<{ email: string; password_hash: string }>(
      server.service.ctx.db,
      sql`select email, password_hash from users order by email`,
    );
    expect(rows.map((r) => r.email)).toEqual([ALICE.email, BOB.email]);
    for (const [row, user] of [
      [rows[0]!, ALICE],
      [rows[1]!, BOB],
    ] as const) {
      expect(row.password_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
      expect(row.password_hash).not.toContain(user.password);
    }
    expect(await createUser(server.service.ctx.db, ALICE.email, 'another-password', new Date())).toBeNull();
  });

  it('signs in with a week-long HttpOnly session cookie', async () => {
    const res = await login(server.url, '  Alice@EXAMPLE.com ', ALICE.password);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'email', 'id', 'twoFactorEnabled', 'twoFactorRequired']);
    expect(res.body).toMatchObject({ id: alice.id, email: ALICE.email });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    expect(res.cookies).toHaveLength(1);
    const attributes = res.cookies[0]!.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/', `max-age=${WEEK}`]));
    expect(attributes).not.toContain('secure');
    expect(decodeProtectedHeader(res.token!).alg).toBe('HS256');
    const claims = decodeJwt(res.token!);
    expect(claims.sub).toBe(alice.id);
    expect(claims.exp! - claims.iat!).toBe(WEEK);

    const me = await dashboard(server.url, res.token!).get('/users/@me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body);
    expect((await dashboard(server.url, bobToken).get('/users/@me')).body).toMatchObject({
      id: bob.id,
      email: BOB.email,
    });
  });

  it('answers a wrong password and an unknown email alike, without a cookie', async () => {
    const wrong = await login(server.url, ALICE.email, BOB.password);
    const unknown = await login(server.url, 'nobody@example.com', ALICE.password);
    for (const res of [wrong, unknown]) {
      expectError({ status: res.status, headers: res.headers, body: res.body }, 401, 'INVALID_CREDENTIALS');
      expect(res.cookies).toEqual([]);
    }
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
  });

  it('validates the login body', async () => {
    const c = client(server.url, '');
    expectError(await c.post('/auth/login', { email: ALICE.email }, null), 422, 'VALIDATION_ERROR');
    expectError(
      await c.post('/auth/login', { email: 'not-an-email', password: ALICE.password }, null),
      422,
      'VALIDATION_ERROR',
    );
  });

  it('refuses missing, forged, tampered and expired sessions', async () => {
    const now = Math.floor(Date.now() / 1000);
    const realKey = await instanceSecret(server.service.ctx.db, 'session-signing-key');
    // Each token below names a session that exists on the server (until `exp`), so only what the
    // token itself is wrong in refuses it.
    const recorded = async (jti: string, exp: number) => {
      const at = new Date((exp - 3600) * 1000);
      await run(
        server.service.ctx.db,
        sql`insert into user_sessions (id, user_id, created_at, last_seen_at, expires_at, ip, user_agent, second_factor)
          values (${jti}, ${alice.id}, ${at}, ${at}, ${new Date(exp * 1000)}, '127.0.0.1', 'test', false)`,
      );
      return jti;
    };
    const sign = async (key: Uint8Array, iat: number, exp: number) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(alice.id)
        .setJti(await recorded(randomUUID(), Math.max(exp, now + 3600)))
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(key);
    const signClaims = async (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(realKey);

    // The control: a token made with the instance's own key for a recorded session is accepted…
    expect((await dashboard(server.url, await sign(realKey, now, now + 3600)).get('/users/@me')).status).toBe(200);

    const [header, , signature] = aliceToken.split('.');
    const refused: [string, string | null][] = [
      ['no cookie', null],
      ['garbage', 'not-a-jwt'],
      ['another key', await sign(randomBytes(32), now, now + 3600)],
      ['alg none', `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: alice.id, iat: now, exp: now + 3600 })}.`],
      [
        'bob’s claims under alice’s signature',
        `${header}.${b64url({ sub: bob.id, iat: now, exp: now + WEEK })}.${signature}`,
      ],
      // …but not once it has expired, nor without an expiry, an id, or a user id that is one.
      ['expired', await sign(realKey, now - WEEK - 60, now - 60)],
      ['no exp', await signClaims({ sub: alice.id, jti: await recorded(randomUUID(), now + 3600), iat: now })],
      // …nor for a session the server has no record of (never made, or ended)…
      [
        'no session record',
        await new SignJWT({})
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(alice.id)
          .setJti(randomUUID())
          .setIssuedAt(now)
          .setExpirationTime(now + 3600)
          .sign(realKey),
      ],
      // …nor a sign-in's second-factor challenge, signed with the same key.
      [
        'a second-factor challenge',
        await signClaims({ sub: alice.id, jti: randomUUID(), iat: now, exp: now + 300, purpose: 'second-factor' }),
      ],
      ['no jti', await signClaims({ sub: alice.id, iat: now, exp: now + 3600 })],
      ['sub not a uuid', await signClaims({ sub: 'alice', jti: randomUUID(), iat: now, exp: now + 3600 })],
      ['sub a number', await signClaims({ sub: 42, jti: randomUUID(), iat: now, exp: now + 3600 })],
    ];
    for (const [what, token] of refused) {
      const session = dashboard(server.url, token);
      for (const res of [
        await session.get('/users/@me'),
        await session.get('/users/@me/projects'),
        await session.post('/users/@me/projects', { name: 'x' }),
      ]) {
        expect(res.status, what).toBe(401);
        expect(res.body.error.code, what).toBe('UNAUTHENTICATED');
      }
    }
    // Nothing was created by the refused requests.
    expect(
      (await dashboard(server.url, aliceToken).get('/users/@me/projects')).body.map((p: { name: string }) => p.name),
    ).not.toContain('x');
  });

  it('logs out by clearing the cookie and ending the session on the server: a kept copy of the token no longer works', async () => {
    const token = await signIn(server.url, ALICE);
    const other = await signIn(server.url, ALICE);
    expect((await dashboard(server.url, token).get('/users/@me')).status).toBe(200);
    const res = await fetch(`${server.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie: `postbox_session=${token}` },
    });
    expect(res.status).toBe(204);
    const [cleared] = res.headers.getSetCookie();
    expect(cleared).toMatch(/^postbox_session=;/);
    expect(cleared!.toLowerCase()).toContain('max-age=0');
    expect(cleared!.toLowerCase()).toContain('path=/');
    expectError(await dashboard(server.url, token).get('/users/@me'), 401, 'UNAUTHENTICATED');
    // Only that session: the same user's other sign-in goes on.
    expect((await dashboard(server.url, other).get('/users/@me')).status).toBe(200);
  });

  it('refuses signed-in changes sent from another origin, and accepts them from its own', async () => {
    const token = await signIn(server.url, ALICE);
    const [project] = (await dashboard(server.url, token).get('/users/@me/projects')).body as Project[];
    const rename = (origin: string, name: string) =>
      fetch(`${server.url}/users/@me/projects/${project!.id}`, {
        method: 'PATCH',
        headers: { cookie: `postbox_session=${token}`, origin, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    const evil = await rename('https://evil.example', 'from https://evil.example');
    expect(evil.status).toBe(403);
    expect((await evil.json()).error.code).toBe('CROSS_ORIGIN_REQUEST');
    expect((await rename(new URL(server.url).origin, project!.name)).status).toBe(200);
    // Reading is not a change; a login form posted from elsewhere is refused as well.
    const read = await fetch(`${server.url}/users/@me`, {
      headers: { cookie: `postbox_session=${token}`, origin: 'https://evil.example' },
    });
    expect(read.status).toBe(200);
    const login = await fetch(`${server.url}/auth/login`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify(ALICE),
    });
    expect(login.status).toBe(403);
    const names = (await dashboard(server.url, token).get('/users/@me/projects')).body.map(
      (p: { name: string }) => p.name,
    );
    expect(names).not.toContain('from https://evil.example');
  });

  it('lists the projects the user owns: the first user claimed the default project', async () => {
    const mine = await dashboard(server.url, aliceToken).get('/users/@me/projects');
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([
      {
        id: server.service.defaultProject!.id,
        name: 'Default project',
        disabled: false,
        requireTwoFactor: false,
        timezone: 'UTC',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        role: 'owner',
      },
    ]);
    expect((await dashboard(server.url, bobToken).get('/users/@me/projects')).body).toEqual([]);
  });

  it('lets only instance admins create projects once there is a second user, until they let everyone', async () => {
    const alices = dashboard(server.url, aliceToken);
    const bobs = dashboard(server.url, bobToken);
    expect((await alices.get('/users/@me/permissions')).body).toEqual({ instanceAdmin: true, createProjects: true });
    expect((await bobs.get('/users/@me/permissions')).body).toEqual({ instanceAdmin: false, createProjects: false });

    const refused = await bobs.post('/users/@me/projects', { name: 'Side business' });
    expectError(refused, 403, 'PROJECT_CREATION_RESTRICTED');
    const names = await run<{ name: string }>(server.service.ctx.db, sql`select name from projects`);
    expect(names.rows.map((r) => r.name)).not.toContain('Side business');
    // The setting is the instance admins' to read and change.
    expectError(await bobs.get('/instance/settings'), 403, 'INSTANCE_ADMIN_REQUIRED');
    expectError(
      await bobs.patch('/instance/settings', { projectCreation: 'everyone' }),
      403,
      'INSTANCE_ADMIN_REQUIRED',
    );
    expectError(await bobs.post('/instance/admins', { email: BOB.email }), 403, 'INSTANCE_ADMIN_REQUIRED');
    const first = { userId: alice.id, email: ALICE.email, first: true };
    expect((await alices.get('/instance/settings')).body).toEqual({ projectCreation: 'admins', admins: [first] });
    expectError(await alices.patch('/instance/settings', { projectCreation: 'anyone' }), 422, 'VALIDATION_ERROR');
    expectError(await alices.post('/instance/admins', { email: 'nobody@example.com' }), 404, 'USER_NOT_FOUND');
    expect((await alices.post('/users/@me/projects', { name: 'By the admin' })).status).toBe(201);

    // Named an instance admin, Bob may create projects; un-named, no longer. The first stays.
    const named = await alices.post('/instance/admins', { email: BOB.email });
    expect(named.body.admins).toEqual([first, { userId: bob.id, email: BOB.email, first: false }]);
    expect((await bobs.get('/users/@me/permissions')).body).toEqual({ instanceAdmin: true, createProjects: true });
    expectError(await bobs.delete(`/instance/admins/${alice.id}`), 409, 'FIRST_INSTANCE_ADMIN');
    const unnamed = await alices.delete(`/instance/admins/${bob.id}`);
    expect(unnamed.body.admins).toEqual([first]);
    expectError(await bobs.post('/users/@me/projects', { name: 'Side business' }), 403, 'PROJECT_CREATION_RESTRICTED');

    const open = await alices.patch('/instance/settings', { projectCreation: 'everyone' });
    expect(open.body).toEqual({ projectCreation: 'everyone', admins: [first] });
    expect((await bobs.get('/users/@me/permissions')).body).toEqual({ instanceAdmin: false, createProjects: true });
  });

  it('creates a project whose keys work at once, listed for its owner only', async () => {
    const res = await dashboard(server.url, bobToken).post('/users/@me/projects', { name: '  Bob’s shop  ' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      'createdAt',
      'disabled',
      'id',
      'name',
      'publicKey',
      'requireTwoFactor',
      'role',
      'secretKey',
      'timezone',
      'updatedAt',
    ]);
    expect(res.body).toMatchObject({ id: expect.stringMatching(UUID), name: 'Bob’s shop', disabled: false });
    expect(res.body.publicKey).toMatch(/^pk_/);
    expect(res.body.secretKey).toMatch(/^sk_/);

    expect((await client(server.url, res.body.secretKey).get('/contacts')).status).toBe(200);
    const track = await client(server.url, res.body.publicKey).post('/v1/track', {
      email: 'buyer@example.com',
      event: 'signed_up',
    });
    expect(track.status, JSON.stringify(track.body)).toBe(200);
    expect((await client(server.url, res.body.secretKey).get('/contacts')).body.total).toBe(1);

    const { publicKey: _p, secretKey: _s, ...project } = res.body;
    expect((await dashboard(server.url, bobToken).get('/users/@me/projects')).body).toEqual([project]);
    expect(
      (await dashboard(server.url, aliceToken).get('/users/@me/projects')).body.map((p: { id: string }) => p.id),
    ).not.toContain(project.id);
  });

  it('renames and disables a project: its keys get 403 everywhere until it is enabled again', async () => {
    const session = dashboard(server.url, aliceToken);
    const created = (await session.post('/users/@me/projects', { name: 'Toggle' })).body;
    const secret = client(server.url, created.secretKey);
    const pub = client(server.url, created.publicKey);
    expect((await secret.get('/contacts')).status).toBe(200);

    const renamed = await session.patch(`/users/@me/projects/${created.id}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      id: created.id,
      name: 'Renamed',
      disabled: false,
      createdAt: created.createdAt,
    });
    expect(renamed.body.publicKey).toBeUndefined();

    const disabled = await session.patch(`/users/@me/projects/${created.id}`, { disabled: true });
    expect(disabled.body).toMatchObject({ name: 'Renamed', disabled: true });
    expectError(await secret.get('/contacts'), 403, 'PROJECT_DISABLED');
    expectError(await secret.get('/events'), 403, 'PROJECT_DISABLED');
    expectError(
      await secret.post('/v1/send', { from: 'a@example.com', to: 'b@example.com', subject: 's', text: 't' }),
      403,
      'PROJECT_DISABLED',
    );
    expectError(await pub.post('/v1/track', { email: 'x@example.com', event: 'e' }), 403, 'PROJECT_DISABLED');
    expect(
      (await session.get('/users/@me/projects')).body.find((p: { id: string }) => p.id === created.id).disabled,
    ).toBe(true);

    // Keys replaced while disabled are disabled too.
    const fresh = (await session.post(`/users/@me/projects/${created.id}/regenerate-keys`)).body;
    expect(fresh.disabled).toBe(true);
    expectError(await client(server.url, fresh.secretKey).get('/contacts'), 403, 'PROJECT_DISABLED');

    expect((await session.patch(`/users/@me/projects/${created.id}`, { disabled: false })).body.disabled).toBe(false);
    expect((await client(server.url, fresh.secretKey).get('/contacts')).status).toBe(200);
    expect(
      (await client(server.url, fresh.publicKey).post('/v1/track', { email: 'x@example.com', event: 'e' })).status,
    ).toBe(200);
  });

  it('shows and sets the project’s default time zone, refusing a name the server does not know', async () => {
    const session = dashboard(server.url, aliceToken);
    const created = (await session.post('/users/@me/projects', { name: 'Zoned' })).body;
    expect(created.timezone).toBe('UTC');
    const listed = () =>
      session.get('/users/@me/projects').then((r) => r.body.find((p: { id: string }) => p.id === created.id));

    // Stored as the runtime spells it, so the dashboard's list of zones finds it.
    const set = await session.patch(`/users/@me/projects/${created.id}`, { timezone: ' america/sao_paulo ' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ name: 'Zoned', timezone: 'America/Sao_Paulo' });
    expect((await listed()).timezone).toBe('America/Sao_Paulo');

    for (const timezone of ['Mars/Olympus', '', 'Europe/Paris; drop table projects']) {
      const refused = await session.patch(`/users/@me/projects/${created.id}`, { name: 'Not this', timezone });
      expectError(refused, 422, 'VALIDATION_ERROR');
      expect(refused.body.error.errors).toEqual([expect.objectContaining({ field: 'timezone' })]);
    }
    expect(await listed()).toMatchObject({
      name: 'Zoned',
      timezone: 'America/Sao_Paulo',
      updatedAt: set.body.updatedAt,
    });
  });

  it('regenerates keys: the old ones fail at once even when cached, the new ones work', async () => {
    const session = dashboard(server.url, bobToken);
    const created = (await session.post('/users/@me/projects', { name: 'Rotate' })).body;
    // Used just before, so the key cache holds them.
    expect((await client(server.url, created.secretKey).get('/contacts')).status).toBe(200);
    expect(
      (await client(server.url, created.publicKey).post('/v1/track', { email: 'r@example.com', event: 'e' })).status,
    ).toBe(200);

    const res = await session.post(`/users/@me/projects/${created.id}/regenerate-keys`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, name: 'Rotate', disabled: false });
    expect(res.body.secretKey).not.toBe(created.secretKey);
    expect(res.body.publicKey).not.toBe(created.publicKey);

    expectError(await client(server.url, created.secretKey).get('/contacts'), 401, 'INVALID_API_KEY');
    expectError(
      await client(server.url, created.publicKey).post('/v1/track', { email: 'r@example.com', event: 'e' }),
      401,
      'INVALID_API_KEY',
    );
    const contacts = await client(server.url, res.body.secretKey).get('/contacts');
    expect(contacts.status).toBe(200);
    expect(contacts.body.total).toBe(1);
    expect(
      (await client(server.url, res.body.publicKey).post('/v1/track', { email: 'r@example.com', event: 'e' })).status,
    ).toBe(200);
  });

  it('answers 404 for projects the user does not own, and leaves them untouched', async () => {
    const bobs = (await dashboard(server.url, bobToken).post('/users/@me/projects', { name: 'Bob only' })).body;
    const unowned = await server.project('No owner');
    const alices = dashboard(server.url, aliceToken);
    for (const id of [bobs.id, unowned.id, randomUUID()]) {
      expectError(
        await alices.patch(`/users/@me/projects/${id}`, { disabled: true, name: 'Hijacked' }),
        404,
        'NOT_FOUND',
      );
      expectError(await alices.post(`/users/@me/projects/${id}/regenerate-keys`), 404, 'NOT_FOUND');
    }
    expect((await client(server.url, bobs.secretKey).get('/contacts')).status).toBe(200);
    expect((await unowned.api.get('/contacts')).status).toBe(200);
    const listed = (await dashboard(server.url, bobToken).get('/users/@me/projects')).body.find(
      (p: { id: string }) => p.id === bobs.id,
    );
    expect(listed).toMatchObject({ name: 'Bob only', disabled: false });
  });

  it('validates project bodies and ids', async () => {
    const session = dashboard(server.url, aliceToken);
    expectError(await session.post('/users/@me/projects', { name: '   ' }), 422, 'VALIDATION_ERROR');
    expectError(await session.post('/users/@me/projects', {}), 422, 'VALIDATION_ERROR');
    expectError(await session.patch('/users/@me/projects/not-a-uuid', { name: 'x' }), 422, 'VALIDATION_ERROR');
    const id = server.service.defaultProject!.id;
    expectError(await session.patch(`/users/@me/projects/${id}`, { disabled: 'yes' }), 422, 'VALIDATION_ERROR');
  });

  it('keeps API keys and sessions apart', async () => {
    const created = (await dashboard(server.url, aliceToken).post('/users/@me/projects', { name: 'Apart' })).body;
    // An API key is no session…
    expectError(await client(server.url, created.secretKey).get('/users/@me'), 401, 'UNAUTHENTICATED');
    expectError(await client(server.url, created.secretKey).get('/users/@me/projects'), 401, 'UNAUTHENTICATED');
    // …and a session is no API key.
    const cookie = { cookie: `postbox_session=${aliceToken}` };
    expectError(
      await client(server.url, '').request('GET', '/contacts', { key: null, headers: cookie }),
      401,
      'INVALID_API_KEY',
    );
    expectError(
      await client(server.url, '').request('POST', '/v1/track', {
        key: null,
        headers: cookie,
        body: { email: 'a@example.com', event: 'e' },
      }),
      401,
      'INVALID_API_KEY',
    );
  });
});

describe('login rate limit and secure cookies', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ...LOCAL, PUBLIC_URL: 'https://mail.example.com' });
    await createUser(server.service.ctx.db, ALICE.email, ALICE.password, new Date());
  });
  afterAll(() => server?.stop());

  it('marks the cookie Secure behind https, and stops guessing after 10 attempts a minute', async () => {
    const ok = await login(server.url, ALICE.email, ALICE.password);
    expect(ok.status).toBe(200);
    expect(ok.cookies[0]!.split(';').map((a) => a.trim().toLowerCase())).toContain('secure');

    for (let i = 0; i < 9; i++) expect((await login(server.url, ALICE.email, `wrong-password-${i}`)).status).toBe(401);
    // Even the right password is refused now.
    const limited = await login(server.url, ALICE.email, ALICE.password);
    expectError({ status: limited.status, headers: limited.headers, body: limited.body }, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.cookies).toEqual([]);

    // The limit is on logins only: the session and API keys go on working from the same address.
    expect((await dashboard(server.url, ok.token!).get('/users/@me')).status).toBe(200);
    expect((await client(server.url, server.service.defaultProject!.secretKey).get('/contacts')).status).toBe(200);
  });
});

describe('user:create', () => {
  const { cleanups, database } = useCleanups();

  async function start(db: TestDatabase): Promise<ChildServer> {
    const child = await spawnService({ ...db.env, ...LOCAL, LOG_LEVEL: 'info' });
    cleanups.push(() => child.kill('SIGTERM'));
    await eventually(async () => (child.output().includes('service ready') ? true : undefined), 30_000);
    return child;
  }

  /** `npm run user:create -- --email EMAIL`, the password on stdin; the embedded database must be free. */
  function userCreate(
    args: string[],
    stdin: string,
    db: TestDatabase,
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'user:create', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...db.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(stdin);
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  }

  async function projectsOf(url: string, user: { email: string; password: string }) {
    const res = await dashboard(url, await signIn(url, user)).get('/users/@me/projects');
    expect(res.status).toBe(200);
    return res.body as Project[];
  }

  it('creates a user before the first start, who then owns the default project', async () => {
    const db = await database();
    const created = await userCreate(
      ['--email', 'Owner@Example.COM'],
      'owner-password-1\r\nthis line is ignored\n',
      db,
    );
    expect(created.code, created.stderr).toBe(0);
    const lines = created.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const user = JSON.parse(lines[0]!);
    expect(Object.keys(user).sort()).toEqual(['email', 'id']);
    expect(user).toEqual({ id: expect.stringMatching(UUID), email: 'owner@example.com' });

    const failures: [string[], string, RegExp][] = [
      [['--email', 'owner@example.com'], 'another-password\n', /already exists/],
      [['--email', 'not-an-email'], 'long-enough-password\n', /--email/],
      [[], 'long-enough-password\n', /--email/],
      [['--email', 'short@example.com'], 'short\n', /too short/],
      [['--email', 'empty@example.com'], '', /too short/],
    ];
    for (const [args, stdin, message] of failures) {
      const res = await userCreate(args, stdin, db);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(message);
    }

    const service = await start(db);
    const keys = printedKeys(service.output());
    const owner = { email: 'owner@example.com', password: 'owner-password-1' };
    const projects = await projectsOf(service.url, owner);
    expect(projects).toEqual([expect.objectContaining({ name: 'Default project', disabled: false })]);
    // Only the first line was the password; the printed keys belong to the project the owner sees.
    expect((await login(service.url, owner.email, 'owner-password-1\r')).status).toBe(401);
    expect((await client(service.url, keys.secretKey).get('/contacts')).status).toBe(200);
    const session = dashboard(service.url, await signIn(service.url, owner));
    await session.patch(`/users/@me/projects/${projects[0]!.id}`, { disabled: true });
    expectError(await client(service.url, keys.secretKey).get('/contacts'), 403, 'PROJECT_DISABLED');
  }, 240_000);

  it('lets the first user created after the first start claim the default project, and no later one', async () => {
    const db = await database();
    const first = await start(db);
    const keys = printedKeys(first.output());
    await first.kill('SIGTERM');

    const a = { email: 'first@example.com', password: 'first-password' };
    const b = { email: 'second@example.com', password: 'second-password' };
    for (const u of [a, b]) {
      const res = await userCreate(['--email', u.email], `${u.password}\n`, db);
      expect(res.code, res.stderr).toBe(0);
    }

    const database_ = await openDatabase(loadConfig({ ...db.env, LOG_LEVEL: 'silent' }));
    try {
      const users = await run<{ email: string; password_hash: string }>(
        database_.db,
        sql`select email, password_hash from users order by email`,
      );
      expect(users.rows.map((r) => r.email)).toEqual([a.email, b.email]);
      for (const row of users.rows) {
        expect(row.password_hash.startsWith('scrypt$')).toBe(true);
        expect(row.password_hash).not.toContain(row.email === a.email ? a.password : b.password);
      }
      const owners = await run<{ name: string; email: string | null }>(
        database_.db,
        sql`select p.name, u.email from projects p left join users u on u.id = p.owner_id`,
      );
      expect(owners.rows).toEqual([{ name: 'Default project', email: a.email }]);
    } finally {
      await database_.close();
    }

    const second = await start(db);
    expect((await projectsOf(second.url, a)).map((p) => p.name)).toEqual(['Default project']);
    expect(await projectsOf(second.url, b)).toEqual([]);
    expect((await client(second.url, keys.secretKey).get('/contacts')).status).toBe(200);
  }, 240_000);
});
