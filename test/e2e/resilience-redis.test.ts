import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/platform/free-port.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type ChildServer, eventually, printedKeys, spawnService } from '../support/server.js';

/**
 * A Redis of the test's own under the API's rate limiter: stopped or frozen, the API keeps
 * answering at once, counting per process, and shares its counters again once Redis is back.
 */

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
const LIMIT = 40;

let redis: ChildProcess | undefined;
let redisPort: number;
let db: TestDatabase;
let service: ChildServer;
let secretKey: string;

function startRedis(): Promise<void> {
  redis = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  return eventually(ping, 10_000).then(() => {});
}

async function ping(): Promise<true | undefined> {
  return spawnSync('redis-cli', ['-p', String(redisPort), 'ping'], { timeout: 1000 })
    .stdout?.toString()
    .trim() === 'PONG'
    ? true
    : undefined;
}

function stopRedis(): Promise<void> {
  return new Promise((resolve) => {
    if (!redis || redis.exitCode !== null) return resolve();
    redis.once('exit', () => resolve());
    redis.kill('SIGKILL');
  });
}

async function timed(path: string): Promise<{ status: number; ms: number; body: any; limit: string | null }> {
  const started = Date.now();
  const res = await fetch(`${service.url}${path}`, {
    headers: { authorization: `Bearer ${secretKey}` },
    signal: AbortSignal.timeout(10_000),
  });
  const body = await res.json().catch(() => null);
  return { status: res.status, ms: Date.now() - started, body, limit: res.headers.get('ratelimit-limit') };
}

describe.skipIf(!hasRedis)('Redis under the rate limiter', () => {
  beforeAll(async () => {
    redisPort = await freePort();
    await startRedis();
    db = await createTestDatabase();
    service = await spawnService({
      ...db.env,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      LOG_LEVEL: 'info',
    });
    secretKey = printedKeys(service.output()).secretKey;
  }, 60_000);
  afterAll(async () => {
    if (redis?.pid) process.kill(redis.pid, 'SIGCONT');
    await service?.kill('SIGKILL');
    await stopRedis();
    await db?.drop();
  });

  it('stopped: requests are answered at once and still limited, per process; /health says degraded; shared again once it is back', async () => {
    expect((await timed('/contacts')).status).toBe(200);
    await stopRedis();
    const answers = [];
    for (let i = 0; i < LIMIT + 5; i++) answers.push(await timed('/contacts'));
    // One was counted in Redis before it stopped; the per-process count starts from zero.
    expect(answers.slice(0, LIMIT).every((a) => a.status === 200 && a.limit === String(LIMIT))).toBe(true);
    expect(answers.slice(LIMIT).every((a) => a.status === 429)).toBe(true);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(1_000);
    const health = await timed('/health');
    expect(health.body).toEqual({ status: 'degraded', dependencies: { database: 'ok', redis: 'down' } });
    expect(service.output().match(/rate limits are counted per process/g)).toHaveLength(1);

    await startRedis();
    await eventually(async () => ((await timed('/health')).body.status === 'ok' ? true : undefined), 20_000);
    // Counting in Redis again: a fresh window there.
    await eventually(async () => ((await timed('/contacts')).status === 200 ? true : undefined), 10_000);
    // The log line travels over the child's stdout, which may arrive after the HTTP answer.
    await eventually(async () => (service.output().includes('rate limits are shared again') ? true : undefined), 5_000);
  }, 90_000);

  it('frozen (SIGSTOP): no request waits for it, /health answers within 2 s', async () => {
    process.kill(redis!.pid!, 'SIGSTOP');
    try {
      const [health, ...answers] = await Promise.all([
        timed('/health'),
        ...Array.from({ length: 5 }, () => timed('/contacts')),
      ]);
      expect(health.ms).toBeLessThan(2_000);
      expect(health.body.dependencies.redis).toBe('down');
      for (const a of answers) {
        expect([200, 429]).toContain(a.status);
        expect(a.ms).toBeLessThan(2_000);
      }
    } finally {
      process.kill(redis!.pid!, 'SIGCONT');
    }
    await eventually(async () => ((await timed('/health')).body.status === 'ok' ? true : undefined), 20_000);
    expect(service.process.exitCode).toBeNull();
  }, 60_000);
});
