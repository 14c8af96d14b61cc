import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/modules/accounts/service.js';
import { run } from '../../src/platform/db/client.js';
import { Agent } from '../support/agent.js';
import { type ApiResponse, startTestServer, type TestServer } from '../support/server.js';

/**
 * Dashboard sessions over HTTP: each user lists theirs (device, address, last seen) and ends any of
 * them; an ended session's cookie is refused on its next request; a new password ends the others;
 * an owner signs a member out everywhere.
 */

const PASSWORD = 'sessions-correct-horse';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0';
const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status, message: expect.any(String) } });
}

let server: TestServer;
let projectId: string;
let ip = 0;
const ids: Record<string, string> = {};

async function signIn(email: string, userAgent?: string, password = PASSWORD) {
  const agent = new Agent(server.url, `10.1.0.${++ip}`, userAgent);
  const res = await agent.post('/auth/login', { email, password });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return agent;
}
const signedIn = async (agent: Agent) => (await agent.get('/users/@me')).status === 200;

beforeAll(async () => {
  server = await startTestServer({ REDIS_URL: '', TRUST_PROXY: 'true' });
  projectId = server.service.defaultProject!.id;
  for (const name of ['owner', 'gina', 'hal', 'ivy']) {
    ids[name] = (await createUser(server.service.ctx.db, `${name}@example.com`, PASSWORD, new Date()))!.id;
  }
  // Gina and Hal are members of the owner's project; Ivy is not.
  await run(
    server.service.ctx.db,
    sql`insert into project_members (project_id, user_id, role, created_at)
      values (${projectId}, ${ids.gina}, 'member', now()), (${projectId}, ${ids.hal}, 'admin', now())`,
  );
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('sessions', () => {
  it('lists a user’s sessions with device, address and last seen, and ends any of them', async () => {
    const laptop = await signIn('gina@example.com', FIREFOX_WINDOWS);
    const phone = await signIn('gina@example.com', CHROME_MAC);
    const other = await signIn('ivy@example.com');

    const listed = await laptop.get('/users/@me/sessions');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({ current: true, device: 'Firefox on Windows', ip: laptop.ip, secondFactor: false }),
      expect.objectContaining({ current: false, device: 'Chrome on macOS', ip: phone.ip, userAgent: CHROME_MAC }),
    ]);
    for (const s of listed.body) {
      expect(Object.keys(s).sort()).toEqual(
        ['createdAt', 'current', 'device', 'expiresAt', 'id', 'ip', 'lastSeenAt', 'secondFactor', 'userAgent'].sort(),
      );
    }
    const phoneSession = listed.body[1].id;

    // Someone else's session is not theirs to end, nor to see.
    const ivys = (await other.get('/users/@me/sessions')).body;
    expect(ivys).toHaveLength(1);
    expectError(await laptop.delete(`/users/@me/sessions/${ivys[0].id}`), 404, 'NOT_FOUND');
    expect(await signedIn(other)).toBe(true);
    expectError(await laptop.delete('/users/@me/sessions/not-a-uuid'), 422, 'VALIDATION_ERROR');

    expect((await laptop.delete(`/users/@me/sessions/${phoneSession}`)).status).toBe(204);
    // The phone's cookie is refused on its very next request, for the account and the project alike.
    expectError(await phone.get('/users/@me'), 401, 'UNAUTHENTICATED');
    expectError(await phone.get('/contacts', { 'x-project-id': projectId }), 401, 'INVALID_API_KEY');
    expect((await laptop.get('/users/@me/sessions')).body.map((s: { id: string }) => s.id)).not.toContain(phoneSession);

    // Ending the current one signs out: the cookie is cleared, and a kept copy is refused.
    const copy = laptop.cookies.get('postbox_session')!;
    const current = (await laptop.get('/users/@me/sessions')).body[0].id;
    expect((await laptop.delete(`/users/@me/sessions/${current}`)).status).toBe(204);
    expect(laptop.cookies.has('postbox_session')).toBe(false);
    expectError(await laptop.get('/users/@me', { cookie: `postbox_session=${copy}` }), 401, 'UNAUTHENTICATED');
  });

  it('ends every other session when the password changes, and keeps this one', async () => {
    const here = await signIn('hal@example.com');
    const others = [await signIn('hal@example.com'), await signIn('hal@example.com')];

    const wrong = await here.post('/users/@me/password', {
      currentPassword: 'not-it',
      newPassword: 'hal-new-password',
    });
    expectError(wrong, 403, 'INVALID_CREDENTIALS');
    expect(wrong.body.error.errors).toEqual([expect.objectContaining({ field: 'currentPassword' })]);
    const short = await here.post('/users/@me/password', { currentPassword: PASSWORD, newPassword: 'short' });
    expectError(short, 422, 'VALIDATION_ERROR');
    for (const agent of others) expect(await signedIn(agent)).toBe(true);

    const changed = await here.post('/users/@me/password', {
      currentPassword: PASSWORD,
      newPassword: 'hal-new-password',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toEqual({ endedSessions: 2 });
    for (const agent of others) expect(await signedIn(agent)).toBe(false);
    expect(await signedIn(here)).toBe(true);
    expect((await here.get('/users/@me/sessions')).body).toHaveLength(1);

    const old = await new Agent(server.url, '10.1.1.1').post('/auth/login', {
      email: 'hal@example.com',
      password: PASSWORD,
    });
    expectError(old, 401, 'INVALID_CREDENTIALS');
    await signIn('hal@example.com', undefined, 'hal-new-password');
  });

  it('lets an owner end a member’s sessions, and no one else', async () => {
    const owner = await signIn('owner@example.com');
    const gina = [await signIn('gina@example.com'), await signIn('gina@example.com')];
    const hal = await signIn('hal@example.com', undefined, 'hal-new-password');

    // An admin (Hal) may not: it reaches past the project, into every project of the member.
    expectError(await hal.delete(`/projects/${projectId}/members/${ids.gina}/sessions`), 403, 'FORBIDDEN_ROLE');
    for (const agent of gina) expect(await signedIn(agent)).toBe(true);
    // Someone outside the project is no member of it.
    expectError(await owner.delete(`/projects/${projectId}/members/${ids.ivy}/sessions`), 404, 'NOT_FOUND');

    const ended = await owner.delete(`/projects/${projectId}/members/${ids.gina}/sessions`);
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    expect(ended.body).toEqual({ ended: 2 });
    for (const agent of gina) expect(await signedIn(agent)).toBe(false);
    expect(await signedIn(hal)).toBe(true);
    expect(await signedIn(owner)).toBe(true);
  });
});
