import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';

const server = useTestServer();

describe('GET /health', () => {
  it('answers 200 without a key once the service is ready', async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    const redis = process.env.REDIS_URL ? { redis: 'ok' } : {};
    expect(await res.json()).toEqual({ status: 'ok', dependencies: { database: 'ok', ...redis } });
  });
});
