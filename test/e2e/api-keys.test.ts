import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/domain/api-keys.js';
import { movableClock } from '../support/clock.js';
import { httpMcpClient } from '../support/mcp.js';
import {
  type Client,
  client,
  eventually,
  expectBody,
  expectErrorEnvelope,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../support/server.js';

/** The service's clock runs ahead on demand, so expiries and overlaps pass without waiting. */
const clock = movableClock();
const MINUTE = 60_000;

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100000' }, { clock });
  p = await server.project();
});
afterAll(() => server?.stop());

async function createKey(body: Record<string, unknown>) {
  return expectBody(p.api.post('/api-keys', body), 201);
}
const as = (key: string): Client => client(server.url, key);

describe('named API keys with scopes', () => {
  it('creates a key whose secret is shown once and listed by its hint', async () => {
    const key = await createKey({ name: 'Checkout', scopes: ['send'] });
    expect(key.key).toMatch(/^rk_[\w-]{43}$/);
    expect(key).toMatchObject({
      name: 'Checkout',
      scopes: ['send'],
      status: 'active',
      hint: `rk_…${key.key.slice(-4)}`,
      createdBy: { kind: 'secret-key', id: null },
      expiresAt: null,
      lastUsedAt: null,
    });
    const listed = await expectBody(p.api.get('/api-keys'));
    expect(listed.find((k: { id: string }) => k.id === key.id)).not.toHaveProperty('key');
  });

  it('a key does what its scopes allow; outside them, 403 naming the scope, and nothing changes', async () => {
    const { key } = await createKey({ name: 'Sender', scopes: ['send'] });
    const sender = as(key);
    const sent = await sender.post('/v1/send', {
      to: 'scoped@example.com',
      from: 'app@keys.test',
      subject: 'Hi',
      body: '<p>Hi</p>',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);

    const read = await sender.get('/contacts');
    expectErrorEnvelope(read, 403, 'MISSING_SCOPE');
    expect(read.body.error.details).toEqual({ scope: 'contacts:read', scopes: ['send'] });
    const write = await sender.post('/contacts', { email: 'intruder@example.com' });
    expectErrorEnvelope(write, 403, 'MISSING_SCOPE');
    const found = await expectBody(p.api.get('/contacts?search=intruder'));
    expect(found.data).toEqual([]);
  });

  it('a track key tracks with POST /v1/track, where the public key is taken', async () => {
    const { key } = await createKey({ name: 'Website', scopes: ['track'] });
    await expectBody(as(key).post('/v1/track', { email: 'visitor@example.com', event: 'viewed' }));
    expectErrorEnvelope(await as(key).post('/v1/send', {}), 403, 'MISSING_SCOPE');
  });

  it('records when and from where a key was last used', async () => {
    const created = await createKey({ name: 'Reporting', scopes: ['analytics'] });
    await expectBody(as(created.key).get('/activity'));
    const used = await eventually(async () => {
      const k = await expectBody(p.api.get(`/api-keys/${created.id}`));
      return k.lastUsedAt ? k : undefined;
    });
    expect(used.lastUsedIp).toMatch(/127\.0\.0\.1/);
  });

  it('rotates without downtime: both secrets work during the overlap, then only the new one', async () => {
    const created = await createKey({ name: 'Worker', scopes: ['contacts:read'] });
    const rotated = await expectBody(p.api.post(`/api-keys/${created.id}/rotate`, { overlapMinutes: 30 }));
    expect(rotated.key).not.toBe(created.key);
    expect(rotated.hint).toBe(`rk_…${rotated.key.slice(-4)}`);
    expect(Date.parse(rotated.previousValidUntil) - clock.now().getTime()).toBeGreaterThan(29 * MINUTE);
    await expectBody(as(created.key).get('/contacts'));
    await expectBody(as(rotated.key).get('/contacts'));

    clock.advance(31 * MINUTE);
    expectErrorEnvelope(await as(created.key).get('/contacts'), 401, 'INVALID_API_KEY');
    await expectBody(as(rotated.key).get('/contacts'));

    const now = await expectBody(p.api.post(`/api-keys/${created.id}/rotate`, { overlapMinutes: 0 }));
    expectErrorEnvelope(await as(rotated.key).get('/contacts'), 401, 'INVALID_API_KEY');
    await expectBody(as(now.key).get('/contacts'));
  });

  it('expires at the time given, and refuses a time in the past', async () => {
    const at = new Date(clock.now().getTime() + 60 * MINUTE).toISOString();
    const created = await createKey({ name: 'Contractor', scopes: ['templates'], expiresAt: at });
    await expectBody(as(created.key).get('/templates'));
    clock.advance(61 * MINUTE);
    expectErrorEnvelope(await as(created.key).get('/templates'), 401, 'INVALID_API_KEY');
    expect((await expectBody(p.api.get(`/api-keys/${created.id}`))).status).toBe('expired');

    const past = await p.api.post('/api-keys', { name: 'Late', scopes: ['send'], expiresAt: '2020-01-01T00:00:00Z' });
    expectErrorEnvelope(past, 422, 'VALIDATION_ERROR');
    expect(past.body.error.errors[0].field).toBe('expiresAt');
  });

  it('revoking stops the key at once and keeps it listed as revoked', async () => {
    const created = await createKey({ name: 'Old', scopes: ['workflows'] });
    await expectBody(as(created.key).get('/workflows'));
    const res = await p.api.delete(`/api-keys/${created.id}`);
    expect(res.status).toBe(204);
    expectErrorEnvelope(await as(created.key).get('/workflows'), 401, 'INVALID_API_KEY');
    expect((await expectBody(p.api.get(`/api-keys/${created.id}`))).status).toBe('revoked');
    expectErrorEnvelope(await p.api.delete(`/api-keys/${created.id}`), 404, 'NOT_FOUND');
  });

  it('refuses bad input with the fields named, and another project’s key is a 404', async () => {
    const bad = await p.api.post('/api-keys', { name: '', scopes: ['send', 'send', 'everything'] });
    expectErrorEnvelope(bad, 422, 'VALIDATION_ERROR');
    const fields = bad.body.error.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['name']));
    expect(fields.some((f: string) => f.startsWith('scopes'))).toBe(true);

    const other = await server.project();
    const theirs = await expectBody(other.api.post('/api-keys', { name: 'Theirs', scopes: ['send'] }), 201);
    expectErrorEnvelope(await p.api.get(`/api-keys/${theirs.id}`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await p.api.post(`/api-keys/${theirs.id}/rotate`, {}), 404, 'NOT_FOUND');
  });

  it('a key with admin manages keys, and says it made them', async () => {
    const admin = await createKey({ name: 'Provisioner', scopes: ['admin'] });
    const made = await expectBody(as(admin.key).post('/api-keys', { name: 'Made', scopes: ['track'] }), 201);
    expect(made.createdBy).toEqual({ kind: 'key', id: admin.id, label: 'Provisioner' });
  });
});

describe('the MCP endpoint with a named key', () => {
  it('offers the tools its scopes cover, and nothing else', async () => {
    const { key } = await createKey({ name: 'Assistant', scopes: ['contacts:read', 'templates'] });
    const mcp = await httpMcpClient(server.url, key);
    try {
      const names = (await mcp.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual([
        'contacts_count',
        'contacts_find',
        'contacts_get',
        'segments_list',
        'templates_create',
        'templates_get',
        'templates_list',
        'templates_preview',
      ]);
    } finally {
      await mcp.close();
    }
  });
});

/** What to put in a path parameter so that the request reaches its route. */
function fill(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === 'email' ? 'nobody%40example.com' : /id$/i.test(name) ? '00000000-0000-4000-8000-000000000000' : 'x',
  );
}

describe('every endpoint a project key reaches needs one scope', () => {
  it('a key lacking the scope gets 403 on each, naming it; no endpoint lacks a scope', async () => {
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    const operations = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path: fill(path) })),
    );
    const lacking = new Map<Scope, Client>();
    for (const scope of SCOPES) {
      const { key } = await createKey({ name: `All but ${scope}`, scopes: SCOPES.filter((s) => s !== scope) });
      lacking.set(scope, as(key));
    }
    const everything = as((await createKey({ name: 'All', scopes: [...SCOPES] })).key);
    const unknown = client(server.url, `rk_${'0'.repeat(43)}`);

    let keyed = 0;
    for (const op of operations) {
      const call = (c: Client) => c.request(op.method, op.path, op.method === 'GET' ? {} : { body: {} });
      // Routes that take no key (sign-in, a signed-in user's own account) ignore one: not what scopes are about.
      const takesKey = (await call(unknown)).body?.error?.code === 'INVALID_API_KEY';
      if (!takesKey) continue;
      keyed++;
      const refusedFor: Scope[] = [];
      for (const [scope, c] of lacking) {
        const res = await call(c);
        if (res.status === 403 && res.body?.error?.code === 'MISSING_SCOPE') {
          expect(res.body.error.details.scope, `${op.method} ${op.path}`).toBe(scope);
          refusedFor.push(scope);
        }
      }
      expect(refusedFor, `${op.method} ${op.path}`).toHaveLength(1);
      const all = await call(everything);
      expect([401, 403], `${op.method} ${op.path} with every scope`).not.toContain(all.status);
    }
    expect(keyed).toBeGreaterThan(100);
  }, 120_000);
});
