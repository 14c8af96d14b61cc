import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../src/modules/projects/service.js';
import { client, startTestServer, type TestServer } from '../support/server.js';

// Replicas share a database only on PostgreSQL, and counters only through Redis.
const shared = Boolean(process.env.REDIS_URL);

describe.skipIf(!shared)('rate limit across API replicas (Redis)', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    first = await startTestServer({ RATE_LIMIT_PER_MINUTE: '6' });
    // A second replica on the first one's database, as behind a load balancer.
    second = await startTestServer({ RATE_LIMIT_PER_MINUTE: '6', DATABASE_URL: first.service.ctx.config.databaseUrl! });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('counts one project across both replicas', async () => {
    const project = await createProject(first.service.ctx.db, 'shared');
    const a = client(first.url, project.secretKey);
    const b = client(second.url, project.secretKey);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await a.get('/contacts')).status);
      statuses.push((await b.get('/contacts')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    const over = await b.get('/contacts');
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await a.get('/contacts')).status).toBe(429);
  });

  it('counts sign-ins per installation: replicas share them, another database on the same Redis does not', async () => {
    const other = await startTestServer();
    try {
      const signIn = (url: string) =>
        fetch(`${url}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'nobody@replicas.test', password: 'not the password at all' }),
        }).then((r) => r.status);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push(await signIn(first.url), await signIn(second.url));
      expect(statuses).toEqual(Array(10).fill(401));
      expect(await signIn(second.url)).toBe(429);
      expect(await signIn(first.url)).toBe(429);
      // Same client address, same Redis, another installation: its own count.
      expect(await signIn(other.url)).toBe(401);
    } finally {
      await other.stop();
    }
  });
});
