import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedInvite, Member, Project } from '../../src/api.js';
import { createUser } from '../../src/modules/accounts/service.js';
import { run } from '../../src/platform/db/client.js';
import { type ApiResponse, client, eventually, startTestServer, type TestServer } from '../support/server.js';

/**
 * Project members with roles, over HTTP: invitations by link, accepting them, what each role may do
 * (enforced by the API, not only hidden in the dashboard), the last owner, and API keys beside it all.
 */

// Sign-ins are limited per address; in memory, this server has a budget of its own.
const LOCAL = { REDIS_URL: '' };
const PASSWORD = 'members-correct-horse';
const ALICE = 'alice@example.com'; // owner of the default project
const BOB = 'bob@example.com'; // joins as an admin
const CAROL = 'carol@example.com'; // a bystander with an account of her own

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status, message: expect.any(String) } });
}

const sessionCookie = (headers: Headers) => /^postbox_session=([^;]+)/.exec(headers.getSetCookie()[0] ?? '')?.[1];

describe('project members', () => {
  let server: TestServer;
  let projectId: string;
  let secretKey: string;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};

  /** Requests as a signed-in user (or nobody), naming `project` in X-Project-Id when given. */
  const as = (email: string | null, project?: string) => {
    const headers: Record<string, string> = {};
    if (email) headers.cookie = `postbox_session=${tokens[email]}`;
    if (project) headers['x-project-id'] = project;
    const c = client(server.url, '');
    return {
      get: (p: string) => c.request('GET', p, { key: null, headers }),
      post: (p: string, body?: unknown) => c.request('POST', p, { key: null, headers, body }),
      patch: (p: string, body: unknown) => c.request('PATCH', p, { key: null, headers, body }),
      delete: (p: string) => c.request('DELETE', p, { key: null, headers }),
    };
  };
  const tokenOf = (invite: CreatedInvite) => invite.url.split('/app/invite/')[1]!;

  async function signIn(email: string) {
    const res = await client(server.url, '').post('/auth/login', { email, password: PASSWORD }, null);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    tokens[email] = sessionCookie(res.headers)!;
    ids[email] = res.body.id;
  }

  async function invite(by: string, email: string, role: string, project = projectId): Promise<CreatedInvite> {
    const res = await as(by).post(`/projects/${project}/invites`, { email, role });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  /** Invites `email` and accepts as them with a new account, which is then signed in. */
  async function join(email: string, role: string, project = projectId) {
    const res = await as(null).post(`/invites/${tokenOf(await invite(ALICE, email, role, project))}/accept`, {
      password: PASSWORD,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    tokens[email] = sessionCookie(res.headers)!;
    ids[email] = (await as(email).get('/users/@me')).body.id;
  }

  const roleIn = async (email: string, project = projectId) =>
    ((await as(email).get('/users/@me/projects')).body as Project[]).find((p) => p.id === project)?.role;

  beforeAll(async () => {
    server = await startTestServer({ ...LOCAL, PUBLIC_URL: 'https://postbox.example.org' });
    projectId = server.service.defaultProject!.id;
    secretKey = server.service.defaultProject!.secretKey;
    // The first user claims the default project as its owner, as `user:create` does.
    for (const email of [ALICE, BOB, CAROL]) await createUser(server.service.ctx.db, email, PASSWORD, new Date());
    for (const email of [ALICE, BOB, CAROL]) await signIn(email);
  });
  afterAll(() => server?.stop());

  it('lists the owner of a project as its member, and the project with the role of the user', async () => {
    const members = await as(ALICE).get(`/projects/${projectId}/members`);
    expect(members.status).toBe(200);
    expect(members.body).toEqual([
      { userId: ids[ALICE], email: ALICE, role: 'owner', createdAt: expect.any(String), twoFactor: false },
    ]);
    expect(await roleIn(ALICE)).toBe('owner');
    expect((await as(BOB).get('/users/@me/projects')).body).toEqual([]);
  });

  it('invites by a link shown once, says who invites to what, makes the account where it is accepted', async () => {
    const made = await invite(ALICE, ' Dora@Example.com ', 'member');
    expect(made).toEqual({
      id: expect.any(String),
      projectId,
      email: 'dora@example.com',
      role: 'member',
      invitedBy: ALICE,
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      url: expect.stringMatching(/^https:\/\/postbox\.example\.org\/app\/invite\/[\w-]{43}$/),
    });
    expect(Date.parse(made.expiresAt) - Date.parse(made.createdAt)).toBe(7 * 24 * 3600_000);
    const token = tokenOf(made);
    // Only its hash is kept.
    const stored = await run(server.service.ctx.db, sql`select token_hash from project_invites where id = ${made.id}`);
    expect(stored.rows[0].token_hash).not.toContain(token);
    const { url: _url, ...listed } = made;
    expect((await as(ALICE).get(`/projects/${projectId}/invites`)).body).toEqual([listed]);

    // The link alone opens the preview.
    expect((await as(null).get(`/invites/${token}`)).body).toEqual({
      projectName: 'Default project',
      email: 'dora@example.com',
      role: 'member',
      invitedBy: ALICE,
      expiresAt: made.expiresAt,
      status: 'pending',
      accountExists: false,
    });

    const noPassword = await as(null).post(`/invites/${token}/accept`, {});
    expectError(noPassword, 422, 'VALIDATION_ERROR');
    expect(noPassword.body.error.errors).toEqual([expect.objectContaining({ field: 'password' })]);
    expectError(await as(null).post(`/invites/${token}/accept`, { password: 'short' }), 422, 'VALIDATION_ERROR');

    const accepted = await as(null).post(`/invites/${token}/accept`, { password: PASSWORD });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toEqual({ projectId, role: 'member' });
    tokens['dora@example.com'] = sessionCookie(accepted.headers)!;
    expect(tokens['dora@example.com']).toBeTruthy();
    // Signed in at once, and able to sign in again with the password chosen there.
    const dora = as('dora@example.com', projectId);
    expect((await dora.get('/users/@me')).body.email).toBe('dora@example.com');
    expect(await roleIn('dora@example.com')).toBe('member');
    expect((await dora.get('/contacts')).status).toBe(200);
    await signIn('dora@example.com');

    // Once only.
    expectError(await as(null).post(`/invites/${token}/accept`, { password: PASSWORD }), 410, 'INVITE_USED');
    expectError(await as('dora@example.com').post(`/invites/${token}/accept`), 410, 'INVITE_USED');
    expect((await as(null).get(`/invites/${token}`)).body.status).toBe('accepted');
    expect((await as(ALICE).get(`/projects/${projectId}/invites`)).body).toEqual([]);
    expect(
      ((await as(ALICE).get(`/projects/${projectId}/members`)).body as Member[]).map((m) => [m.email, m.role]),
    ).toEqual([
      [ALICE, 'owner'],
      ['dora@example.com', 'member'],
    ]);
    expectError(
      await as(ALICE).post(`/projects/${projectId}/invites`, { email: 'dora@example.com', role: 'admin' }),
      409,
      'ALREADY_MEMBER',
    );
  });

  it('is accepted only by the invited address: another account is refused, an existing one must sign in', async () => {
    const token = tokenOf(await invite(ALICE, BOB, 'admin'));
    expect((await as(null).get(`/invites/${token}`)).body).toMatchObject({ accountExists: true, role: 'admin' });
    const wrong = await as(CAROL).post(`/invites/${token}/accept`);
    expectError(wrong, 403, 'INVITE_EMAIL_MISMATCH');
    expect(wrong.body.error.message).toBe(`This invitation is for ${BOB}; you are ${CAROL}`);
    // Nobody can set the password of an existing account through a link.
    expectError(
      await as(null).post(`/invites/${token}/accept`, { password: 'taken-over-password' }),
      409,
      'ACCOUNT_EXISTS',
    );
    expect(
      (await client(server.url, '').post('/auth/login', { email: BOB, password: 'taken-over-password' }, null)).status,
    ).toBe(401);
    expect(await roleIn(CAROL)).toBeUndefined();

    const accepted = await as(BOB).post(`/invites/${token}/accept`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toEqual({ projectId, role: 'admin' });
    expect(await roleIn(BOB)).toBe('admin');
  });

  it('refuses an expired link, a replaced one, a withdrawn one and one that never was', async () => {
    const expired = await invite(ALICE, 'late@example.com', 'member');
    await run(
      server.service.ctx.db,
      sql`update project_invites set expires_at = now() - interval '1 minute' where id = ${expired.id}`,
    );
    expect((await as(null).get(`/invites/${tokenOf(expired)}`)).body.status).toBe('expired');
    expectError(
      await as(null).post(`/invites/${tokenOf(expired)}/accept`, { password: PASSWORD }),
      410,
      'INVITE_EXPIRED',
    );
    // The refused accept made no account.
    expect((await as(null).get(`/invites/${tokenOf(expired)}`)).body.accountExists).toBe(false);
    expect((await as(ALICE).get(`/projects/${projectId}/invites`)).body).toEqual([]);

    const first = await invite(ALICE, 'twice@example.com', 'member');
    const second = await invite(ALICE, 'twice@example.com', 'admin');
    expectError(await as(null).get(`/invites/${tokenOf(first)}`), 404, 'INVITE_NOT_FOUND');
    expectError(
      await as(null).post(`/invites/${tokenOf(first)}/accept`, { password: PASSWORD }),
      404,
      'INVITE_NOT_FOUND',
    );
    expect((await as(null).get(`/invites/${tokenOf(second)}`)).body.role).toBe('admin');

    const res = await as(ALICE).delete(`/projects/${projectId}/invites/${second.id}`);
    expect(res.status).toBe(204);
    expectError(
      await as(null).post(`/invites/${tokenOf(second)}/accept`, { password: PASSWORD }),
      404,
      'INVITE_NOT_FOUND',
    );
    expectError(await as(null).get('/invites/not-a-real-token'), 404, 'INVITE_NOT_FOUND');
  });

  it('lets a member do the everyday work, and refuses them keys, settings, domains, webhooks and members', async () => {
    const dora = as('dora@example.com', projectId);
    expect((await dora.post('/contacts', { email: 'reader@example.com' })).status).toBe(201);
    expect((await dora.get('/contacts')).status).toBe(200);
    expect((await dora.get(`/domains/project/${projectId}`)).status).toBe(200);
    expect((await dora.get(`/projects/${projectId}/members`)).status).toBe(200);

    const refusals: [string, Promise<ApiResponse>, string][] = [
      ['add a domain', dora.post('/domains', { domain: 'member.example.org' }), 'admin'],
      ['list webhooks', dora.get('/webhooks'), 'admin'],
      [
        'create a webhook',
        dora.post('/webhooks', { url: 'https://hooks.example.org/x', events: ['email.sent'] }),
        'admin',
      ],
      ['regenerate keys', dora.post(`/users/@me/projects/${projectId}/regenerate-keys`), 'owner'],
      ['rename the project', dora.patch(`/users/@me/projects/${projectId}`, { name: 'Mine now' }), 'admin'],
      [
        'set the default time zone',
        dora.patch(`/users/@me/projects/${projectId}`, { timezone: 'Asia/Tokyo' }),
        'admin',
      ],
      ['disable the project', dora.patch(`/users/@me/projects/${projectId}`, { disabled: true }), 'owner'],
      ['invite', dora.post(`/projects/${projectId}/invites`, { email: 'friend@example.com', role: 'member' }), 'admin'],
      ['list invites', dora.get(`/projects/${projectId}/invites`), 'admin'],
      [
        'promote themself',
        dora.patch(`/projects/${projectId}/members/${ids['dora@example.com']}`, { role: 'admin' }),
        'admin',
      ],
      ['remove the owner', dora.delete(`/projects/${projectId}/members/${ids[ALICE]}`), 'owner'],
      ['remove an admin', dora.delete(`/projects/${projectId}/members/${ids[BOB]}`), 'admin'],
    ];
    for (const [what, request, needed] of refusals) {
      const res = await request;
      expectError(res, 403, 'FORBIDDEN_ROLE');
      expect(res.body.error.message, what).toMatch(new RegExp(`^This needs the ${needed} role`));
      expect(res.body.error.message, what).toContain('you are a member');
      expect(res.body.error.details, what).toEqual({ neededRole: needed, role: 'member' });
    }
    // Nothing changed.
    expect((await as(ALICE).get('/users/@me/projects')).body[0]).toMatchObject({
      name: 'Default project',
      disabled: false,
    });
    expect((await client(server.url, secretKey).get('/contacts')).status).toBe(200);
    expect(await roleIn('dora@example.com')).toBe('member');
  });

  it('lets an admin manage members, admins, domains and webhooks, not owners, keys or the project state', async () => {
    const bob = as(BOB, projectId);
    expect((await bob.get('/webhooks')).status).toBe(200);
    expect((await bob.post('/domains', { domain: 'admin.example.org' })).status).toBe(201);
    expect((await bob.patch(`/users/@me/projects/${projectId}`, { name: 'Default project' })).body.role).toBe('admin');
    expect((await bob.patch(`/users/@me/projects/${projectId}`, { timezone: 'UTC' })).body).toMatchObject({
      role: 'admin',
      timezone: 'UTC',
    });

    const dora = `/projects/${projectId}/members/${ids['dora@example.com']}`;
    expect((await bob.patch(dora, { role: 'admin' })).body).toMatchObject({ role: 'admin', email: 'dora@example.com' });
    expect((await bob.patch(dora, { role: 'member' })).body.role).toBe('member');
    const made = await bob.post(`/projects/${projectId}/invites`, { email: 'helper@example.com', role: 'admin' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.invitedBy).toBe(BOB);

    const ownerOnly: [string, Promise<ApiResponse>][] = [
      ['invite an owner', bob.post(`/projects/${projectId}/invites`, { email: 'boss@example.com', role: 'owner' })],
      ['make an owner', bob.patch(dora, { role: 'owner' })],
      ['demote the owner', bob.patch(`/projects/${projectId}/members/${ids[ALICE]}`, { role: 'member' })],
      ['remove the owner', bob.delete(`/projects/${projectId}/members/${ids[ALICE]}`)],
      ['regenerate keys', bob.post(`/users/@me/projects/${projectId}/regenerate-keys`)],
      ['disable the project', bob.patch(`/users/@me/projects/${projectId}`, { disabled: true })],
    ];
    for (const [what, request] of ownerOnly) {
      const res = await request;
      expectError(res, 403, 'FORBIDDEN_ROLE');
      expect(res.body.error.message, what).toBe('This needs the owner role in this project; you are an admin');
    }
    expect((await as(ALICE).get(`/projects/${projectId}/members`)).body[0]).toMatchObject({
      email: ALICE,
      role: 'owner',
    });
    expect((await client(server.url, secretKey).get('/contacts')).status).toBe(200);
  });

  it('keeps API keys as they were: a secret key acts as the project, and reaches no member endpoint', async () => {
    const key = client(server.url, secretKey);
    expect((await key.get('/webhooks')).status).toBe(200);
    expect((await key.post('/domains', { domain: 'key.example.org' })).status).toBe(201);
    expect((await key.post('/webhooks', { url: 'https://hooks.example.org/k', events: ['email.sent'] })).status).toBe(
      201,
    );
    expectError(await key.get(`/projects/${projectId}/members`), 401, 'UNAUTHENTICATED');
    expectError(
      await key.post(`/projects/${projectId}/invites`, { email: 'k@example.com', role: 'owner' }),
      401,
      'UNAUTHENTICATED',
    );
    // An API key wins over a member's cookie, as before.
    const res = await client(server.url, secretKey).request('GET', '/webhooks', {
      headers: { cookie: `postbox_session=${tokens['dora@example.com']}`, 'x-project-id': projectId },
    });
    expect(res.status).toBe(200);
  });

  it('applies a removal or a demotion on the very next request', async () => {
    await join('temp@example.com', 'admin');
    const temp = as('temp@example.com', projectId);
    expect((await temp.get('/webhooks')).status).toBe(200);

    expect(
      (await as(BOB).patch(`/projects/${projectId}/members/${ids['temp@example.com']}`, { role: 'member' })).status,
    ).toBe(200);
    expectError(await temp.get('/webhooks'), 403, 'FORBIDDEN_ROLE');
    expect((await temp.get('/contacts')).status).toBe(200);

    expect((await as(BOB).delete(`/projects/${projectId}/members/${ids['temp@example.com']}`)).status).toBe(200);
    expectError(await temp.get('/contacts'), 401, 'INVALID_API_KEY');
    expectError(await as('temp@example.com').get(`/projects/${projectId}/members`), 404, 'NOT_FOUND');
    expect((await as('temp@example.com').get('/users/@me/projects')).body).toEqual([]);
  });

  it('keeps an owner: the last one cannot leave or be demoted, until another owner exists', async () => {
    // Not an instance admin, Carol creates a project once the instance lets everyone.
    expect((await as(ALICE).patch('/instance/settings', { projectCreation: 'everyone' })).status).toBe(200);
    const created = await as(CAROL).post('/users/@me/projects', { name: 'Carol’s' });
    expect(created.body.role).toBe('owner');
    const solo = created.body.id as string;
    const self = `/projects/${solo}/members/${ids[CAROL]}`;
    for (const res of [await as(CAROL).delete(self), await as(CAROL).patch(self, { role: 'admin' })]) {
      expectError(res, 409, 'LAST_OWNER');
    }
    expect((await as(CAROL).delete(self)).body.error.message).toBe(
      'The last owner cannot leave the project: make another member an owner first',
    );
    // Still the owner, and still in.
    expect(await roleIn(CAROL, solo)).toBe('owner');

    const invited = await as(CAROL).post(`/projects/${solo}/invites`, { email: BOB, role: 'owner' });
    const token = tokenOf(invited.body);
    expect((await as(BOB).post(`/invites/${token}/accept`)).body).toEqual({ projectId: solo, role: 'owner' });
    // With a second owner, the first may step down and leave.
    expect((await as(CAROL).patch(self, { role: 'admin' })).body.role).toBe('admin');
    expect((await as(CAROL).delete(self)).status).toBe(200);
    expectError(await as(CAROL, solo).get('/contacts'), 401, 'INVALID_API_KEY');
    expect(await roleIn(CAROL, solo)).toBeUndefined();
    // Bob is now the last owner of it.
    expectError(await as(BOB).delete(`/projects/${solo}/members/${ids[BOB]}`), 409, 'LAST_OWNER');
  });

  it('lets anyone leave: a member leaving loses the project at once', async () => {
    await join('leaver@example.com', 'member');
    const res = await as('leaver@example.com').delete(`/projects/${projectId}/members/${ids['leaver@example.com']}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ withdrawnInvites: [] });
    expectError(await as('leaver@example.com', projectId).get('/contacts'), 401, 'INVALID_API_KEY');
  });

  it('withdraws the invitations of an admin who is removed, and tells the owner which', async () => {
    await join('eve@example.com', 'admin');
    const asAdmin = await invite('eve@example.com', 'frank@example.com', 'admin');
    const asMember = await invite('eve@example.com', 'gina@example.com', 'member');
    const byOwner = await invite(ALICE, 'hank@example.com', 'member');

    const removed = await as(ALICE).delete(`/projects/${projectId}/members/${ids['eve@example.com']}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const { url: _a, ...frank } = asAdmin;
    const { url: _m, ...gina } = asMember;
    expect(removed.body).toEqual({ withdrawnInvites: [frank, gina] });

    // Their links open nothing, and cannot be accepted, with or without an account.
    for (const made of [asAdmin, asMember]) {
      expectError(await as(null).get(`/invites/${tokenOf(made)}`), 404, 'INVITE_NOT_FOUND');
      expectError(
        await as(null).post(`/invites/${tokenOf(made)}/accept`, { password: PASSWORD }),
        404,
        'INVITE_NOT_FOUND',
      );
    }
    const pending = ((await as(ALICE).get(`/projects/${projectId}/invites`)).body as { email: string }[]).map(
      (i) => i.email,
    );
    expect(pending).not.toContain('frank@example.com');
    expect(pending).toContain('hank@example.com');
    expect((await as(null).get(`/invites/${tokenOf(byOwner)}`)).body.status).toBe('pending');
  });

  it('withdraws, on a demotion, the invitations the new role may not grant', async () => {
    await join('ivan@example.com', 'owner');
    const owner = await invite('ivan@example.com', 'jane@example.com', 'owner');
    const admin = await invite('ivan@example.com', 'karl@example.com', 'admin');
    const demoted = await as(ALICE).patch(`/projects/${projectId}/members/${ids['ivan@example.com']}`, {
      role: 'admin',
    });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    const { url: _o, ...jane } = owner;
    expect(demoted.body).toMatchObject({ email: 'ivan@example.com', role: 'admin', withdrawnInvites: [jane] });
    expectError(await as(null).get(`/invites/${tokenOf(owner)}`), 404, 'INVITE_NOT_FOUND');
    // An admin still grants admin: that link still works.
    const karl = await as(null).post(`/invites/${tokenOf(admin)}/accept`, { password: PASSWORD });
    expect(karl.body).toEqual({ projectId, role: 'admin' });

    const member = await invite('ivan@example.com', 'lena@example.com', 'member');
    const again = await as(ALICE).patch(`/projects/${projectId}/members/${ids['ivan@example.com']}`, {
      role: 'member',
    });
    expect(again.body.withdrawnInvites.map((i: { email: string }) => i.email)).toEqual(['lena@example.com']);
    expectError(await as(null).get(`/invites/${tokenOf(member)}`), 404, 'INVITE_NOT_FOUND');
  });

  it('accepts an invitation only while its inviter may still grant its role', async () => {
    await join('olga@example.com', 'admin');
    const made = await invite('olga@example.com', 'paul@example.com', 'admin');
    // An invitation left over from before withdrawals: its inviter was demoted without it being withdrawn.
    await run(
      server.service.ctx.db,
      sql`update project_members set role = 'member' where user_id = ${ids['olga@example.com']}`,
    );
    expectError(
      await as(null).post(`/invites/${tokenOf(made)}/accept`, { password: PASSWORD }),
      404,
      'INVITE_NOT_FOUND',
    );
    const paul = await run(server.service.ctx.db, sql`select 1 from users where email = 'paul@example.com'`);
    expect(paul.rows).toEqual([]);
    // Made admin again, the inviter grants it once more.
    await run(
      server.service.ctx.db,
      sql`update project_members set role = 'admin' where user_id = ${ids['olga@example.com']}`,
    );
    const accepted = await as(null).post(`/invites/${tokenOf(made)}/accept`, { password: PASSWORD });
    expect(accepted.body).toEqual({ projectId, role: 'admin' });
  });

  it('answers 404 for projects the user is not in, 401 without a session, and refuses other origins', async () => {
    const other = await server.project('Not Carol’s');
    expectError(await as(CAROL).get(`/projects/${other.id}/members`), 404, 'NOT_FOUND');
    expectError(
      await as(CAROL).post(`/projects/${other.id}/invites`, { email: 'x@example.com', role: 'owner' }),
      404,
      'NOT_FOUND',
    );
    expectError(await as(CAROL, other.id).get('/contacts'), 401, 'INVALID_API_KEY');
    expectError(await as(null).get(`/projects/${projectId}/members`), 401, 'UNAUTHENTICATED');
    expectError(
      await as(ALICE).patch(`/projects/${projectId}/members/${ids[BOB]}`, { role: 'king' }),
      422,
      'VALIDATION_ERROR',
    );
    expectError(
      await as(ALICE).post(`/projects/${projectId}/invites`, { email: 'nope', role: 'member' }),
      422,
      'VALIDATION_ERROR',
    );
    expectError(await as(ALICE).delete(`/projects/${projectId}/members/${ids[CAROL]}`), 404, 'NOT_FOUND');

    const evil = await fetch(`${server.url}/projects/${projectId}/invites`, {
      method: 'POST',
      headers: {
        cookie: `postbox_session=${tokens[ALICE]}`,
        origin: 'https://evil.example',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email: 'evil@example.com', role: 'owner' }),
    });
    expect(evil.status).toBe(403);
    expect((await evil.json()).error.code).toBe('CROSS_ORIGIN_REQUEST');
    expect(
      ((await as(ALICE).get(`/projects/${projectId}/invites`)).body as { email: string }[]).map((i) => i.email),
    ).not.toContain('evil@example.com');
  });

  it('emails the link from an address of the project when asked, creating no contact', async () => {
    const res = await as(ALICE).post(`/projects/${projectId}/invites`, {
      email: 'dave@example.com',
      role: 'member',
      sendFrom: 'team@example.com',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const created = res.body as CreatedInvite;
    expect(created.emailId).toMatch(/^[0-9a-f-]{36}$/);
    const api = client(server.url, secretKey);
    const email = await eventually(async () => {
      const e = (await api.get(`/emails/${created.emailId}`)).body;
      return e.status === 'sent' ? e : undefined;
    });
    const project = ((await as(ALICE).get('/users/@me/projects')).body as Project[]).find((p) => p.id === projectId)!;
    expect(email).toMatchObject({
      to: 'dave@example.com',
      from: 'team@example.com',
      subject: `Join ${project.name} on Postbox`,
      type: 'HEADLESS',
      contactId: null,
    });
    const { html } = (await api.get(`/emails/${created.emailId}/content`)).body;
    expect(html).toContain(`href="${created.url}"`);
    expect(html).toContain(`${ALICE} invited you`);
    expect((await api.get('/contacts?search=dave%40example.com')).body.data).toEqual([]);

    expectError(
      await as(ALICE).post(`/projects/${projectId}/invites`, {
        email: 'erin@example.com',
        role: 'member',
        sendFrom: 'x',
      }),
      422,
      'VALIDATION_ERROR',
    );
  });
});
