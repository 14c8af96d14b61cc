import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { setProjectDisabled } from '../../src/modules/projects/service.js';
import { type ApiResponse, client, useTestServer } from '../support/server.js';

function expectEnvelope(res: ApiResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = res.body;
  expect(Object.keys(body).sort()).toEqual(['error', 'success', 'timestamp']);
  expect(body.success).toBe(false);
  expect(body.error).toMatchObject({
    code,
    message: expect.any(String),
    statusCode: status,
    requestId: expect.any(String),
    details: expect.any(Object),
    suggestion: expect.any(String),
  });
  expect(body.error.message).not.toBe('');
  expect(body.error.suggestion).not.toBe('');
  expect(body.error.requestId).not.toBe('');
  expect(Array.isArray(body.error.details)).toBe(false);
  expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  expect(res.headers.get('x-request-id')).toBe(body.error.requestId);
}

describe('platform', () => {
  const server = useTestServer();

  describe('error envelope', () => {
    it('wraps 401 for a missing key', async () => {
      const res = await client(server.url, '').get('/contacts', null);
      expectEnvelope(res, 401, 'INVALID_API_KEY');
      expect(res.body.error.errors).toBeUndefined();
    });

    it('wraps 404 for a resource of no project', async () => {
      const p = await server.project();
      expectEnvelope(await p.api.get(`/contacts/${randomUUID()}`), 404, 'NOT_FOUND');
    });

    it('wraps 422 with field errors', async () => {
      const p = await server.project();
      const res = await p.api.get('/contacts/not-a-uuid');
      expectEnvelope(res, 422, 'VALIDATION_ERROR');
      expect(res.body.error.errors).toEqual([
        expect.objectContaining({ field: 'id', code: 'invalid_string', message: expect.any(String) }),
      ]);
    });

    it('gives every response its own request id unless the client sends one', async () => {
      const p = await server.project();
      const a = await p.api.get(`/contacts/${randomUUID()}`);
      const b = await p.api.get(`/contacts/${randomUUID()}`);
      expect(a.body.error.requestId).not.toBe(b.body.error.requestId);

      const ok = await p.api.get('/contacts');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-request-id')).toEqual(expect.any(String));
    });

    it('echoes an incoming x-request-id in the header and the envelope', async () => {
      const p = await server.project();
      const id = `trace-${randomUUID()}`;
      const res = await p.api.request('GET', `/contacts/${randomUUID()}`, { headers: { 'x-request-id': id } });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-request-id')).toBe(id);
      expect(res.body.error.requestId).toBe(id);

      const ok = await p.api.request('GET', '/contacts', { headers: { 'x-request-id': id } });
      expect(ok.headers.get('x-request-id')).toBe(id);
    });

    it('replaces an x-request-id that is not a plain token', async () => {
      const p = await server.project();
      const res = await p.api.request('GET', `/contacts/${randomUUID()}`, {
        headers: { 'x-request-id': 'has spaces <and> "quotes"' },
      });
      expect(res.status).toBe(404);
      expect(res.body.error.requestId).not.toContain(' ');
      expect(res.headers.get('x-request-id')).toBe(res.body.error.requestId);
    });

    it('answers an unknown route with the 404 NOT_FOUND envelope, with or without a key', async () => {
      const p = await server.project();
      expectEnvelope(await p.api.get('/no/such/route'), 404, 'NOT_FOUND');
      expectEnvelope(await p.api.request('POST', '/v2/track', { body: {}, key: null }), 404, 'NOT_FOUND');
    });

    it('wraps a path that does not percent-decode as 400', async () => {
      const p = await server.project();
      for (const bad of ['/contacts/%zz', '/events/%E0%A4%A/usage']) {
        const res = await p.api.get(bad);
        expectEnvelope(res, 400, 'BAD_REQUEST');
      }
    });

    it('wraps malformed JSON as 400', async () => {
      const p = await server.project();
      const res = await p.api.request('POST', '/contacts', {
        raw: '{"email":',
        headers: { 'content-type': 'application/json' },
      });
      expectEnvelope(res, 400, 'INVALID_JSON');
    });
  });

  describe('input PostgreSQL cannot store', () => {
    it('answers 422 for NUL in a path, a query or a body, naming the field', async () => {
      const p = await server.project();
      const attempts: [string, string, string | undefined, string][] = [
        ['GET', '/contacts?search=a%00b', undefined, 'search'],
        ['GET', '/events?name=%00', undefined, 'name'],
        ['DELETE', '/events/a%00b', undefined, 'eventName'],
        ['GET', '/contacts/fields/a%00/values', undefined, 'field'],
        ['POST', '/contacts', '{"email":"nul@example.com","data":{"bio":"\\u0000"}}', 'data.bio'],
      ];
      for (const [method, url, raw, field] of attempts) {
        const res = await p.api.request(method, url, {
          raw,
          headers: raw ? { 'content-type': 'application/json' } : {},
        });
        expectEnvelope(res, 422, 'VALIDATION_ERROR');
        expect(res.body.error.errors[0]).toMatchObject({ field, code: 'invalid_string' });
      }
      expect((await p.api.get('/contacts')).body.total).toBe(0);
    });

    it('still answers 401 before looking at the input', async () => {
      const res = await client(server.url, '').request('GET', '/contacts?search=%00', { key: null });
      expectEnvelope(res, 401, 'INVALID_API_KEY');
    });

    it('refuses a CSV upload holding NUL with 400', async () => {
      const p = await server.project();
      const form = new FormData();
      form.append('file', new Blob(['email,name\nnul@example.com,a\u0000b\n'], { type: 'text/csv' }), 'contacts.csv');
      const res = await p.api.request('POST', '/contacts/import', { raw: form });
      expectEnvelope(res, 400, 'INVALID_CSV');
    });
  });

  describe('disabled project', () => {
    it('answers 403 to both keys while disabled and serves again once enabled', async () => {
      const p = await server.project();
      const other = await server.project();
      await setProjectDisabled(server.service.ctx, p.id, true);

      const secret = await p.api.get('/contacts');
      expectEnvelope(secret, 403, 'PROJECT_DISABLED');
      const pub = await p.api.request('POST', '/v1/track', {
        body: { email: 'a@example.com', event: 'x' },
        key: p.publicKey,
      });
      expectEnvelope(pub, 403, 'PROJECT_DISABLED');
      expect((await other.api.get('/contacts')).status).toBe(200);

      // A wrong key on a disabled project is still just a wrong key.
      expect((await p.api.request('POST', '/v1/track', { body: {}, key: p.secretKey })).status).toBe(401);

      await setProjectDisabled(server.service.ctx, p.id, false);
      expect((await p.api.get('/contacts')).status).toBe(200);
      expect((await p.api.get('/events')).body.total).toBe(0);
    });
  });

  describe('OpenAPI and docs', () => {
    it('serves a valid OpenAPI 3 document listing the routes', async () => {
      const res = await fetch(`${server.url}/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const doc = JSON.parse(await res.text());
      expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
      expect(doc.info).toMatchObject({ title: expect.any(String), version: '1.0.0' });
      expect(doc.paths['/v1/track']?.post).toBeDefined();
      expect(doc.paths['/contacts']?.get).toBeDefined();
      expect(doc.paths['/contacts']?.post).toBeDefined();
      expect(doc.paths['/contacts/{id}']?.get).toBeDefined();
      for (const [path, item] of Object.entries<Record<string, { responses?: object; parameters?: unknown[] }>>(
        doc.paths,
      )) {
        expect(path.startsWith('/')).toBe(true);
        for (const [method, op] of Object.entries(item)) {
          expect(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']).toContain(method);
          expect(op.responses, `${method} ${path}`).toBeDefined();
          for (const name of path.match(/\{(\w+)\}/g) ?? []) {
            const param = (op.parameters as { in: string; name: string; required?: boolean }[]).find(
              (x) => x.in === 'path' && `{${x.name}}` === name,
            );
            expect(param?.required, `${method} ${path} ${name}`).toBe(true);
          }
        }
      }
      expect(
        Object.keys(doc.paths).some((p) => p.startsWith('/docs') || p === '/openapi.json' || p === '/health'),
      ).toBe(false);
    });

    it('serves the docs page as HTML without a key', async () => {
      const res = await fetch(`${server.url}/docs/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect((await res.text()).toLowerCase()).toContain('<html');
    });
  });
});

describe('rate limit', () => {
  const server = useTestServer({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PUBLIC_PER_MINUTE: '3' });

  it('answers the sixth request of a project with 429 while another project is still served', async () => {
    const p = await server.project();
    const other = await server.project();
    for (let i = 0; i < 5; i++) {
      const res = await p.api.get('/contacts');
      expect(res.status, `request ${i + 1}`).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
    }
    const limited = await p.api.get('/contacts');
    expectEnvelope(limited, 429, 'RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-limit')).toBe('5');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThan(0);

    // The public key has a bucket of its own, with its own limit.
    const track = () =>
      p.api.request('POST', '/v1/track', { body: { email: 'a@example.com', event: 'x' }, key: p.publicKey });
    for (let i = 0; i < 3; i++) {
      const pub = await track();
      expect(pub.status, `public request ${i + 1}`).toBe(200);
      expect(pub.headers.get('ratelimit-limit')).toBe('3');
    }
    expectEnvelope(await track(), 429, 'RATE_LIMIT_EXCEEDED');

    const served = await other.api.get('/contacts');
    expect(served.status).toBe(200);
    expect(served.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('never lets the public key, which anyone can copy from a web page, use up the secret key’s limit', async () => {
    const p = await server.project();
    for (let i = 0; i < 10; i++)
      await p.api.request('POST', '/v1/track', { body: { email: 'flood@example.com', event: 'x' }, key: p.publicKey });
    const res = await p.api.get('/contacts');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('does not count requests without a project', async () => {
    for (let i = 0; i < 8; i++) expect((await fetch(`${server.url}/health`)).status).toBe(200);
    for (let i = 0; i < 8; i++) expect((await client(server.url, '').get('/contacts', null)).status).toBe(401);
    const p = await server.project();
    const res = await p.api.get('/contacts');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe('4');
  });
});
