import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventually, type TestProject, useTestServer } from '../support/server.js';

function track(p: TestProject, key: string, body: unknown = { email: 'idem@example.com', event: 'purchased' }) {
  return p.api.request('POST', '/v1/track', { body, key: p.publicKey, headers: { 'idempotency-key': key } });
}

async function countEvents(p: TestProject, name = 'purchased'): Promise<number> {
  const res = await p.api.get(`/events?name=${name}`);
  expect(res.status).toBe(200);
  return res.body.total;
}

describe('Idempotency-Key on /v1/track', () => {
  const server = useTestServer();

  it('refuses a reused key with 409 and the original request, and performs the request once', async () => {
    const p = await server.project();
    const key = randomUUID();
    const first = await track(p, key);
    expect(first.status).toBe(200);

    const second = await track(p, key);
    expect(second.status).toBe(409);
    expect(second.body.success).toBe(false);
    const error = second.body.error;
    expect(error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(error.statusCode).toBe(409);
    expect(error.details.key).toBe(key);
    expect(error.details.originalRequest).toMatchObject({ method: 'POST', path: '/v1/track' });
    expect(error.details.originalRequestAt).toBe(first.body.data.timestamp);
    expect(error.details.originalStatusCode).toBe(200);
    // The first answer's data, so a client whose first attempt timed out learns the ids it created.
    expect(error.details.data).toEqual(first.body.data);
    expect(typeof error.suggestion).toBe('string');
    expect(error.suggestion.trim()).not.toBe('');

    expect(await countEvents(p)).toBe(1);
  });

  it('refuses the key even when the second request differs', async () => {
    const p = await server.project();
    const key = randomUUID();
    expect((await track(p, key)).status).toBe(200);
    const other = await track(p, key, { email: 'someone-else@example.com', event: 'purchased' });
    expect(other.status).toBe(409);
    expect(await countEvents(p)).toBe(1);
    expect((await p.api.get('/contacts')).body.total).toBe(1);
  });

  it('shares the key space between /v1/track and /events/track of one project', async () => {
    const p = await server.project();
    const key = randomUUID();
    expect((await track(p, key)).status).toBe(200);
    const dashboard = await p.api.request('POST', '/events/track', {
      body: { email: 'idem@example.com', event: 'purchased' },
      headers: { 'idempotency-key': key },
    });
    expect(dashboard.status).toBe(409);
    expect(dashboard.body.error.details.originalRequest.path).toBe('/v1/track');
    expect(await countEvents(p)).toBe(1);
  });

  it('keeps keys of different projects independent', async () => {
    const a = await server.project();
    const b = await server.project();
    const key = randomUUID();
    expect((await track(a, key)).status).toBe(200);
    expect((await track(b, key)).status).toBe(200);
    expect((await track(b, key)).status).toBe(409);
    expect(await countEvents(a)).toBe(1);
    expect(await countEvents(b)).toBe(1);
  });

  it('accepts every printable ASCII character and 255 characters', async () => {
    const p = await server.project();
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i))
      .join('')
      .trim();
    for (const key of [printable, 'k'.repeat(255), 'x']) {
      const res = await track(p, key);
      expect(res.status, key).toBe(200);
    }
    expect(await countEvents(p)).toBe(3);
  });

  it('answers 400 for an invalid key and performs nothing', async () => {
    const p = await server.project();
    for (const key of ['k'.repeat(256), '', 'caf\u00e9', 'tab\there']) {
      const res = await track(p, key);
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.statusCode).toBe(400);
    }
    expect(await countEvents(p)).toBe(0);
  });

  it('answers 400 for an invalid key before looking at the body', async () => {
    const p = await server.project();
    const res = await track(p, 'k'.repeat(300), { event: 'email.opened' });
    expect(res.status).toBe(400);
  });

  it('does not consume the key when the request fails validation', async () => {
    const p = await server.project();
    const key = randomUUID();
    const invalid = await track(p, key, { email: 'not-an-email', event: 'purchased' });
    expect(invalid.status).toBe(422);
    const reserved = await track(p, key, { email: 'idem@example.com', event: 'email.opened' });
    expect(reserved.status).toBe(422);
    expect(await countEvents(p)).toBe(0);

    const valid = await track(p, key);
    expect(valid.status).toBe(200);
    expect((await track(p, key)).status).toBe(409);
    expect(await countEvents(p)).toBe(1);
  });

  it('lets exactly one of 20 concurrent requests with one key through', async () => {
    const p = await server.project();
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 20 }, () => track(p, key)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of responses.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await countEvents(p)).toBe(1);
  });
});

describe('Idempotency-Key expiry', () => {
  const TTL_MS = 0.0005 * 3_600_000;
  const server = useTestServer({ IDEMPOTENCY_TTL_HOURS: '0.0005' });

  it('frees the key once its retention has passed', async () => {
    const p = await server.project();
    const key = randomUUID();
    const sentAt = Date.now();
    const first = await track(p, key);
    expect(first.status).toBe(200);
    const retry = await track(p, key);
    // Only meaningful while the key is certainly still retained; a stalled machine skips it.
    if (Date.now() - sentAt < TTL_MS / 2) expect(retry.status).toBe(409);

    const reused = await eventually(
      async () => {
        const res = await track(p, key);
        if (res.status === 200) return res;
        expect(res.status).toBe(409);
        return undefined;
      },
      15_000,
      200,
    );
    expect(Date.parse(reused.body.data.timestamp) - Date.parse(first.body.data.timestamp)).toBeGreaterThanOrEqual(
      TTL_MS,
    );
    expect(await countEvents(p)).toBe(2);
  });
});
