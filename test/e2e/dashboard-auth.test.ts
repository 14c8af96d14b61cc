import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/api.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type ChildServer, spawnService } from '../support/server.js';

/**
 * A fresh instance claimed from the browser with the setup token `npm start` prints, and the
 * dashboard's requests: the session cookie plus the project it names in X-Project-Id.
 */

const OWNER = { email: 'owner@example.com', password: 'owner-correct-horse' };

let db: TestDatabase;
let service: ChildServer;

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${service.url}${path}`, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

const printedSetupToken = () => /setup token:\n\s+(\S+)/.exec(service.output())?.[1];
const sessionOf = (headers: Headers) => /^postbox_session=([^;]+)/.exec(headers.getSetCookie()[0] ?? '')?.[1];

beforeAll(async () => {
  db = await createTestDatabase();
  // Sign-in attempts are counted per address; in memory, this server has a budget of its own.
  service = await spawnService({ ...db.env, REDIS_URL: '' });
}, 60_000);
afterAll(async () => {
  await service?.kill();
  await db?.drop();
});

describe('first run', () => {
  it('prints a setup token while no user exists, and another token creates nobody', async () => {
    expect(printedSetupToken()).toMatch(/^[\w-]{40,}$/);
    expect((await call('/auth/setup')).body).toEqual({ required: true });

    const wrong = await call('/auth/setup', { method: 'POST', body: { ...OWNER, token: 'guessed' } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toMatchObject({ code: 'INVALID_SETUP_TOKEN', errors: [{ field: 'token' }] });
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const short = await call('/auth/setup', {
      method: 'POST',
      body: { ...OWNER, password: 'short', token: printedSetupToken() },
    });
    expect(short.status).toBe(422);
    expect(short.body.error.errors).toEqual([expect.objectContaining({ field: 'password' })]);
    expect((await call('/auth/setup')).body).toEqual({ required: true });
  });

  it('creates the owner, signed in at once and owning the default project; only once', async () => {
    const res = await call('/auth/setup', { method: 'POST', body: { ...OWNER, token: printedSetupToken() } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.any(String), email: OWNER.email });
    expect(res.headers.getSetCookie()[0]).toMatch(/HttpOnly/i);
    expect(res.headers.getSetCookie()[0]).toMatch(/SameSite=Lax/i);
    const cookie = `postbox_session=${sessionOf(res.headers)}`;
    const projects = await call('/users/@me/projects', { headers: { cookie } });
    expect(projects.body.map((p: Project) => p.name)).toEqual(['Default project']);

    expect((await call('/auth/setup')).body).toEqual({ required: false });
    const again = await call('/auth/setup', {
      method: 'POST',
      body: { email: 'intruder@example.com', password: 'intruder-password', token: printedSetupToken() },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_SET_UP');
    const intruder = await call('/auth/login', {
      method: 'POST',
      body: { email: 'intruder@example.com', password: 'intruder-password' },
    });
    expect(intruder.status).toBe(401);
  });
});

describe('dashboard requests', () => {
  let cookie: string;
  let project: Project;
  beforeAll(async () => {
    const res = await call('/auth/login', { method: 'POST', body: OWNER });
    cookie = `postbox_session=${sessionOf(res.headers)}`;
    [project] = (await call('/users/@me/projects', { headers: { cookie } })).body;
  });

  it('act on the project named in X-Project-Id with the session cookie, as its secret key would', async () => {
    const headers = { cookie, 'x-project-id': project.id };
    const created = await call('/contacts', { method: 'POST', headers, body: { email: 'ann@example.com' } });
    expect(created.status).toBe(201);
    const list = await call('/contacts?search=ann', { headers });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { email: string }) => c.email)).toEqual(['ann@example.com']);
  });

  it('refuse the cookie alone: a page on another site can make the browser send it, not the header', async () => {
    const res = await call('/contacts', { method: 'POST', headers: { cookie }, body: { email: 'csrf@example.com' } });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'INVALID_API_KEY', message: expect.stringMatching(/X-Project-Id/) });
    const list = await call('/contacts?search=csrf', { headers: { cookie, 'x-project-id': project.id } });
    expect(list.body.data).toEqual([]);
    // No CORS grant that would let another origin send the header.
    const preflight = await call('/contacts', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-headers': 'x-project-id' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("refuse a project that is not the user's, a malformed id, and a session that signed out", async () => {
    const other = await call('/contacts', { headers: { cookie, 'x-project-id': crypto.randomUUID() } });
    expect(other.status).toBe(401);
    const malformed = await call('/contacts', { headers: { cookie, 'x-project-id': 'not-a-uuid' } });
    expect(malformed.status).toBe(401);

    const res = await call('/auth/login', { method: 'POST', body: OWNER });
    const leaving = `postbox_session=${sessionOf(res.headers)}`;
    const headers = { cookie: leaving, 'x-project-id': project.id };
    expect((await call('/contacts', { headers })).status).toBe(200);
    expect((await call('/auth/logout', { method: 'POST', headers: { cookie: leaving } })).status).toBe(204);
    expect((await call('/contacts', { headers })).status).toBe(401);
  });
});

describe('the web app', () => {
  it('sends a browser at / to /app/; API clients keep their JSON answer', async () => {
    const page = await call('/', { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/app/');
    const api = await call('/', { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect(api.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it('serves the page for every path under /app/ with a content security policy, without a key', async () => {
    for (const path of ['/app/', '/app/contacts', '/app/domains/123']) {
      const res = await call(path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.body).toMatch(/<div id="root">/);
      expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
      expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    }
    expect((await call('/app/assets/no-such-chunk.js')).status).toBe(404);
  });

  it('sends nosniff everywhere, keeps the invitation link out of Referer, and lets nobody frame the docs', async () => {
    const signedIn = await call('/auth/login', { method: 'POST', body: OWNER });
    const cookie = `postbox_session=${sessionOf(signedIn.headers)}`;
    const [project] = (await call('/users/@me/projects', { headers: { cookie } })).body as Project[];
    const invite = await call(`/projects/${project!.id}/invites`, {
      method: 'POST',
      headers: { cookie },
      body: { email: 'guest@example.com', role: 'member' },
    });
    const invitePage = new URL(invite.body.url).pathname;
    expect(invitePage).toMatch(/^\/app\/invite\/[\w-]+$/);

    const html = { accept: 'text/html' };
    const answers = {
      app: await call('/app/', { headers: html }),
      invite: await call(invitePage, { headers: html }),
      api: await call('/users/@me/projects', { headers: { cookie } }),
      refused: await call('/contacts'),
      docs: await call('/docs', { headers: html }),
      docsScript: await call('/docs/static/swagger-ui-bundle.js'),
      openapi: await call('/openapi.json'),
      tracking: await call('/t/open/00000000-0000-4000-8000-000000000000/bad'),
      unsubscribe: await call('/unsubscribe/nonsense', { headers: html }),
      missing: await call('/no-such-route'),
      malformed: await call('/contacts/%E0%A4%A'),
    };
    expect(answers.api.status).toBe(200);
    expect(answers.docs.status).toBe(200);
    expect(answers.docs.body).toContain('swagger-ui-bundle.js');
    for (const [name, res] of Object.entries(answers)) {
      expect(res.headers.get('x-content-type-options'), name).toBe('nosniff');
    }
    for (const res of [answers.app, answers.invite]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
    const docsPolicy = answers.docs.headers.get('content-security-policy') ?? '';
    expect(docsPolicy).toMatch(/frame-ancestors 'none'/);
    expect(docsPolicy).toMatch(/script-src 'self'(;|$)/);
  });
});
