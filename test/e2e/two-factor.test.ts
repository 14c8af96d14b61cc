import { sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/modules/accounts/service.js';
import { run } from '../../src/platform/db/client.js';
import { Agent } from '../support/agent.js';
import { movableClock } from '../support/clock.js';
import { type ApiResponse, startTestServer, type TestServer } from '../support/server.js';

/**
 * Two-factor sign-in over HTTP, against codes the test computes from the enrolment secret with the
 * same RFC 6238 library an authenticator app follows. The service's clock runs ahead on demand, so a
 * fresh code (the next 30-second step) needs no waiting.
 */

const PASSWORD = 'two-factor-correct-horse';
const clock = movableClock();
/** Moves the service's clock to the next time step: the codes used so far are old. */
const nextStep = () => clock.advance(30_000);
const codeAt = (secret: string, at = clock.now()) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at.getTime() });
/** A code of the current step that is not `code` (a wrong one). */
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status, message: expect.any(String) } });
}

let server: TestServer;
let projectId: string;
let ip = 0;
/** A new browser with an address of its own (sign-in attempts are counted per address). */
const browser = () => new Agent(server.url, `10.0.0.${++ip}`);
const ids: Record<string, string> = {};

async function signInWithPassword(email: string, agent = browser()) {
  const res = await agent.post('/auth/login', { email, password: PASSWORD });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { agent, res };
}

/** Enrols `email` from a new browser: its secret and recovery codes. */
async function enrol(email: string) {
  const { agent } = await signInWithPassword(email);
  const started = await agent.post('/users/@me/two-factor');
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const confirmed = await agent.post('/users/@me/two-factor/confirm', { code: codeAt(started.body.secret) });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return { agent, secret: started.body.secret as string, recoveryCodes: confirmed.body.recoveryCodes as string[] };
}

beforeAll(async () => {
  server = await startTestServer({ REDIS_URL: '', TRUST_PROXY: 'true' }, { clock });
  projectId = server.service.defaultProject!.id;
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin']) {
    const user = await createUser(server.service.ctx.db, `${name}@example.com`, PASSWORD, new Date());
    ids[name] = user!.id;
  }
  // Bob is a member of Alice's project (the default one, which she owns as the first user).
  await run(
    server.service.ctx.db,
    sql`insert into project_members (project_id, user_id, role, created_at) values (${projectId}, ${ids.bob}, 'member', now())`,
  );
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('two-factor sign-in', () => {
  const alice: { secret: string; recoveryCodes: string[] } = { secret: '', recoveryCodes: [] };

  it('enrols with a QR code and a confirming code, and shows ten recovery codes once', async () => {
    const { agent, res } = await signInWithPassword('alice@example.com');
    expect(res.body).toMatchObject({ email: 'alice@example.com', twoFactorEnabled: false, twoFactorRequired: false });
    // An owner cannot require of others what their own account lacks.
    expectError(
      await agent.patch(`/users/@me/projects/${projectId}`, { requireTwoFactor: true }),
      409,
      'TWO_FACTOR_NOT_ENABLED',
    );

    const started = await agent.post('/users/@me/two-factor');
    expect(started.status).toBe(201);
    const { secret, uri, qrCode } = started.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(new URL(uri).protocol).toBe('otpauth:');
    expect(new URL(uri).searchParams.get('secret')).toBe(secret);
    expect(new URL(uri).searchParams.get('issuer')).toBe('Postbox');
    expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(qrCode.split(',')[1], 'base64').toString()).toContain('<svg');
    // Not on until a code confirms it: signing in still takes the password alone.
    expect((await agent.get('/users/@me/two-factor')).body).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });
    expect(
      (await browser().post('/auth/login', { email: 'alice@example.com', password: PASSWORD })).body,
    ).toMatchObject({
      twoFactorEnabled: false,
    });

    const code = codeAt(secret);
    expectError(
      await agent.post('/users/@me/two-factor/confirm', { code: wrongCode(code) }),
      403,
      'INVALID_TWO_FACTOR_CODE',
    );
    expectError(await agent.post('/users/@me/two-factor/confirm', { code: 'abcdef' }), 403, 'INVALID_TWO_FACTOR_CODE');
    expect((await agent.get('/users/@me/two-factor')).body.enabled).toBe(false);

    const confirmed = await agent.post('/users/@me/two-factor/confirm', {
      code: `${code.slice(0, 3)} ${code.slice(3)}`,
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const codes: string[] = confirmed.body.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[2-9A-HJ-KMNP-Z]{5}-[2-9A-HJ-KMNP-Z]{5}$/);
    // Stored hashed: no code appears in the database.
    const stored = await run<{ code_hash: string }>(
      server.service.ctx.db,
      sql`select code_hash from user_recovery_codes where user_id = ${ids.alice}`,
    );
    expect(stored.rows).toHaveLength(10);
    for (const row of stored.rows) for (const c of codes) expect(row.code_hash).not.toContain(c.replace('-', ''));

    expect((await agent.get('/users/@me/two-factor')).body).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    expect((await agent.get('/users/@me')).body.twoFactorEnabled).toBe(true);
    // Enrolling again is refused while it is on; the codes are shown nowhere else.
    expectError(await agent.post('/users/@me/two-factor'), 409, 'TWO_FACTOR_ENABLED');
    expect(JSON.stringify((await agent.get('/users/@me/two-factor')).body)).not.toContain(codes[0]);
    Object.assign(alice, { secret, recoveryCodes: codes });
  });

  it('then asks for a code after the password: a wrong one is refused, a used one cannot be replayed', async () => {
    nextStep();
    const agent = browser();
    const first = await agent.post('/auth/login', { email: 'alice@example.com', password: PASSWORD });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ secondFactorRequired: true });
    // No session yet: only the short-lived challenge, which opens nothing.
    expect(agent.cookies.has('postbox_session')).toBe(false);
    expect(agent.cookies.has('postbox_sign_in')).toBe(true);
    expectError(await agent.get('/users/@me'), 401, 'UNAUTHENTICATED');
    const challenge = agent.cookies.get('postbox_sign_in')!;
    expectError(await agent.get('/users/@me', { cookie: `postbox_session=${challenge}` }), 401, 'UNAUTHENTICATED');

    const code = codeAt(alice.secret);
    const wrong = await agent.post('/auth/login/second-factor', { code: wrongCode(code) });
    expectError(wrong, 401, 'INVALID_TWO_FACTOR_CODE');
    expect(wrong.body.error.errors).toEqual([expect.objectContaining({ field: 'code' })]);
    expect(agent.cookies.has('postbox_session')).toBe(false);
    expectError(await agent.post('/auth/login/second-factor', {}), 422, 'VALIDATION_ERROR');
    expectError(
      await agent.post('/auth/login/second-factor', { code, recoveryCode: alice.recoveryCodes[0] }),
      422,
      'VALIDATION_ERROR',
    );

    const ok = await agent.post('/auth/login/second-factor', { code });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ id: ids.alice, twoFactorEnabled: true });
    expect(agent.cookies.has('postbox_sign_in')).toBe(false);
    expect((await agent.get('/users/@me')).status).toBe(200);
    expect((await agent.get('/contacts', { 'x-project-id': projectId })).status).toBe(200);

    // The same code, seen by someone else, is worth nothing now, even with the password.
    const thief = browser();
    expect((await thief.post('/auth/login', { email: 'alice@example.com', password: PASSWORD })).status).toBe(200);
    expectError(await thief.post('/auth/login/second-factor', { code }), 401, 'INVALID_TWO_FACTOR_CODE');
    expect(thief.cookies.has('postbox_session')).toBe(false);
    // Without the password first, there is nothing to give a code to.
    expectError(
      await browser().post('/auth/login/second-factor', { code: codeAt(alice.secret) }),
      401,
      'SIGN_IN_EXPIRED',
    );
    // And the second step does not wait for ever.
    const late = browser();
    await late.post('/auth/login', { email: 'alice@example.com', password: PASSWORD });
    clock.advance(6 * 60_000);
    expectError(await late.post('/auth/login/second-factor', { code: codeAt(alice.secret) }), 401, 'SIGN_IN_EXPIRED');
  });

  it('takes a recovery code instead, once', async () => {
    const agent = browser();
    await agent.post('/auth/login', { email: 'alice@example.com', password: PASSWORD });
    // Typed in lower case without the dash, as people do.
    const typed = alice.recoveryCodes[0]!.replace('-', '').toLowerCase();
    const ok = await agent.post('/auth/login/second-factor', { recoveryCode: typed });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await agent.get('/users/@me/two-factor')).body.recoveryCodesLeft).toBe(9);

    const again = browser();
    await again.post('/auth/login', { email: 'alice@example.com', password: PASSWORD });
    const reused = await again.post('/auth/login/second-factor', { recoveryCode: alice.recoveryCodes[0] });
    expectError(reused, 401, 'INVALID_TWO_FACTOR_CODE');
    expect(reused.body.error.errors).toEqual([expect.objectContaining({ field: 'recoveryCode' })]);
    expectError(
      await again.post('/auth/login/second-factor', { recoveryCode: 'AAAAA-AAAAA' }),
      401,
      'INVALID_TWO_FACTOR_CODE',
    );
    expect(again.cookies.has('postbox_session')).toBe(false);
  });

  it('throttles guessing: per address like passwords, and per account from every address', async () => {
    const carol = await enrol('carol@example.com');
    nextStep();
    const guesser = browser();
    await guesser.post('/auth/login', { email: 'carol@example.com', password: PASSWORD });
    const right = codeAt(carol.secret);
    const answers: number[] = [];
    for (let i = 0; i < 12; i++) {
      answers.push((await guesser.post('/auth/login/second-factor', { code: wrongCode(right) })).status);
    }
    // Some wrong guesses are answered as such, then every further one is refused unheard.
    const refusedFrom = answers.indexOf(429);
    expect(refusedFrom).toBeGreaterThan(4);
    expect(answers.slice(0, refusedFrom).every((s) => s === 401)).toBe(true);
    expect(answers.slice(refusedFrom).every((s) => s === 429)).toBe(true);
    const refused = await guesser.post('/auth/login/second-factor', { code: right });
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');

    // From another address, even with the password and the right code, the account waits too.
    const elsewhere = browser();
    expect((await elsewhere.post('/auth/login', { email: 'carol@example.com', password: PASSWORD })).status).toBe(200);
    expectError(await elsewhere.post('/auth/login/second-factor', { code: right }), 429, 'RATE_LIMIT_EXCEEDED');
    expect(elsewhere.cookies.has('postbox_session')).toBe(false);
    // Turning it off from a signed-in session counts against the same budget.
    expectError(await carol.agent.post('/users/@me/two-factor/disable', { code: right }), 429, 'RATE_LIMIT_EXCEEDED');
    expect((await carol.agent.get('/users/@me/two-factor')).body.enabled).toBe(true);
  });

  it('turns off only with a fresh code', async () => {
    const erin = await enrol('erin@example.com');
    const used = codeAt(erin.secret);
    expectError(
      await erin.agent.post('/users/@me/two-factor/disable', { code: wrongCode(used) }),
      403,
      'INVALID_TWO_FACTOR_CODE',
    );
    // The code that confirmed enrolment was used: it does not turn it off.
    expectError(await erin.agent.post('/users/@me/two-factor/disable', { code: used }), 403, 'INVALID_TWO_FACTOR_CODE');
    expectError(await erin.agent.post('/users/@me/two-factor/disable', {}), 422, 'VALIDATION_ERROR');
    expect((await erin.agent.get('/users/@me/two-factor')).body.enabled).toBe(true);

    nextStep();
    const off = await erin.agent.post('/users/@me/two-factor/disable', { code: codeAt(erin.secret) });
    expect(off.status, JSON.stringify(off.body)).toBe(204);
    expect((await erin.agent.get('/users/@me/two-factor')).body).toMatchObject({
      enabled: false,
      recoveryCodesLeft: 0,
    });
    const again = await browser().post('/auth/login', { email: 'erin@example.com', password: PASSWORD });
    expect(again.body).toMatchObject({ email: 'erin@example.com', twoFactorEnabled: false });
    expect(again.headers.getSetCookie().join()).toContain('postbox_session=');
  });

  it('lets an owner require it: a member without it is asked to enrol and kept out of the project until then', async () => {
    const bob = (await signInWithPassword('bob@example.com')).agent;
    expect((await bob.get('/contacts', { 'x-project-id': projectId })).status).toBe(200);
    expectError(await bob.patch(`/users/@me/projects/${projectId}`, { requireTwoFactor: true }), 403, 'FORBIDDEN_ROLE');

    nextStep();
    const owner = browser();
    await owner.post('/auth/login', { email: 'alice@example.com', password: PASSWORD });
    await owner.post('/auth/login/second-factor', { code: codeAt(alice.secret) });
    const required = await owner.patch(`/users/@me/projects/${projectId}`, { requireTwoFactor: true });
    expect(required.status, JSON.stringify(required.body)).toBe(200);
    expect(required.body.requireTwoFactor).toBe(true);
    // The owner, signed in with the code, keeps working.
    expect((await owner.get('/contacts', { 'x-project-id': projectId })).status).toBe(200);

    // Bob's session has no second factor: the project's data and members are refused to it.
    expectError(await bob.get('/contacts', { 'x-project-id': projectId }), 403, 'TWO_FACTOR_REQUIRED');
    expectError(await bob.get(`/projects/${projectId}/members`), 403, 'TWO_FACTOR_REQUIRED');
    // At his next sign-in he is told to enrol.
    const next = await signInWithPassword('bob@example.com');
    expect(next.res.body).toMatchObject({ twoFactorEnabled: false, twoFactorRequired: true });
    expect((await next.agent.get('/users/@me/two-factor')).body.requiredBy).toEqual([
      { id: projectId, name: 'Default project' },
    ]);
    expectError(await next.agent.get('/contacts', { 'x-project-id': projectId }), 403, 'TWO_FACTOR_REQUIRED');

    // Enrolling from that session lets it in at once.
    const started = await next.agent.post('/users/@me/two-factor');
    await next.agent.post('/users/@me/two-factor/confirm', { code: codeAt(started.body.secret) });
    expect((await next.agent.get('/contacts', { 'x-project-id': projectId })).status).toBe(200);
    // While the project requires it, he cannot turn it off.
    nextStep();
    const off = await next.agent.post('/users/@me/two-factor/disable', { code: codeAt(started.body.secret) });
    expectError(off, 409, 'TWO_FACTOR_REQUIRED_BY_PROJECT');

    // The members list shows who signs in with two factors.
    const members = await owner.get(`/projects/${projectId}/members`);
    expect(members.body.map((m: { email: string; twoFactor: boolean }) => [m.email, m.twoFactor])).toEqual([
      ['alice@example.com', true],
      ['bob@example.com', true],
    ]);
    // Dave, outside the project, is not concerned.
    expect((await signInWithPassword('dave@example.com')).res.body).toMatchObject({ twoFactorRequired: false });
  });
});
