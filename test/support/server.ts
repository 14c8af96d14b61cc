import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createUser } from '../../src/modules/accounts/service.js';
import { createProject, type ProjectWithKeys } from '../../src/modules/projects/service.js';
import type { Clock } from '../../src/platform/clock.js';
import { freePort } from '../../src/platform/free-port.js';
import { type RunningService, startService } from '../../src/start.js';
import { createTestDatabase } from './database.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Client {
  request<T = any>(
    method: string,
    path: string,
    options?: { body?: unknown; raw?: BodyInit; headers?: Record<string, string>; key?: string | null },
  ): Promise<ApiResponse<T>>;
  get<T = any>(path: string, key?: string | null): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, key?: string | null): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body?: unknown, key?: string | null): Promise<ApiResponse<T>>;
  delete<T = any>(path: string, key?: string | null): Promise<ApiResponse<T>>;
}

/** An HTTP client for one project: secret key by default; pass `key` to use another (or null for none). */
export function client(baseUrl: string, defaultKey: string): Client {
  const request: Client['request'] = async (method, p, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? defaultKey : options.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let body: BodyInit | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(baseUrl + p, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as any };
  };
  return {
    request,
    get: (p, key) => request('GET', p, { key }),
    post: (p, body, key) => request('POST', p, { body, key }),
    patch: (p, body, key) => request('PATCH', p, { body, key }),
    delete: (p, key) => request('DELETE', p, { key }),
  };
}

export interface TestServer {
  url: string;
  service: RunningService;
  /** Creates a project and returns its keys and a client using its secret key. */
  project(name?: string): Promise<ProjectWithKeys & { api: Client }>;
  stop(): Promise<void>;
}

/**
 * A dashboard session of a user made for the test (the first user owns the projects made without
 * an owner): a client that sends its cookie and no API key.
 */
export async function ownerSession(server: TestServer, owner: { email: string; password: string }): Promise<Client> {
  await createUser(server.service.ctx.db, owner.email, owner.password, server.service.ctx.clock.now());
  const login = await fetch(`${server.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(owner),
  });
  expect(login.status, await login.clone().text()).toBe(200);
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const c = client(server.url, '');
  const asOwner = (options: { body?: unknown } = {}) => ({ ...options, key: null, headers: { cookie } });
  return {
    request: (method, p, options) =>
      c.request(method, p, { ...options, key: null, headers: { ...options?.headers, cookie } }),
    get: (p) => c.request('GET', p, asOwner()),
    post: (p, body) => c.request('POST', p, asOwner({ body })),
    patch: (p, body) => c.request('PATCH', p, asOwner({ body })),
    delete: (p) => c.request('DELETE', p, asOwner()),
  };
}

/** A project of a test server, with its keys and a client using its secret key. */
export type TestProject = Awaited<ReturnType<TestServer['project']>>;

/** The whole service (API and worker) in this process, on a fresh database and a free port. */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { clock?: Clock } = {},
): Promise<TestServer> {
  const database = await createTestDatabase();
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...passthroughEnv(),
    ...database.env,
    ...env,
  });
  const service = await startService(config, 'all', options);
  const url = service.url!;
  let n = 0;
  return {
    url,
    service,
    async project(name = `project-${++n}`) {
      const p = await createProject(service.ctx.db, name);
      return { ...p, api: client(url, p.secretKey) };
    },
    async stop() {
      await service.stop();
      await database.drop();
    },
  };
}

/** Settings of the suite's run that every server shares (Redis, when the run has one). */
function passthroughEnv(): Record<string, string> {
  return process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
}

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ChildServer {
  url: string;
  process: ChildProcess;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** How Node is told to run the service: its TypeScript sources through tsx, as `npm start` does. */
export const FROM_SOURCE = ['--import', 'tsx', 'src/main.ts'];

/**
 * The service as its own process (`node src/main.ts`, or another `entry` such as a build's
 * main.js), for tests that kill it or read its output.
 */
export async function spawnService(
  env: Record<string, string>,
  args: string[] = ['all'],
  port = 0,
  entry: string[] = FROM_SOURCE,
): Promise<ChildServer> {
  const chosen = port || (await freePort());
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...passthroughEnv(), LOG_LEVEL: 'warn', PORT: String(chosen), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${chosen}`;
  // A worker serves no HTTP: its caller waits for what it prints.
  const deadline = args[0] === 'worker' ? 0 : Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited early:\n${out}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    process: child,
    output: () => out,
    kill: (signal = 'SIGKILL') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** The default project's keys, which a service printed on the first start of its database. */
export function printedKeys(output: string): { publicKey: string; secretKey: string } {
  const publicKey = /public key: (pk_\S+)/.exec(output)?.[1];
  const secretKey = /secret key: (sk_\S+)/.exec(output)?.[1];
  if (!publicKey || !secretKey) throw new Error(`no keys in output:\n${output}`);
  return { publicKey, secretKey };
}

/** Polls until `check` returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  // Checks once more after the deadline: a process that was not scheduled for a while gets its answer.
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}

/** Polls `read` until `done` holds of what it returns, and returns that. */
export function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  return eventually(
    async () => {
      const value = await read();
      return done(value) ? value : undefined;
    },
    timeoutMs,
    everyMs,
  );
}

/** Awaits a request that must answer `status` (the body is shown when it does not); returns its body. */
export async function expectBody<T = any>(request: Promise<ApiResponse<T>>, status = 200): Promise<T> {
  const res = await request;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

/** The standard error envelope, with this status and code, a message, a request id and a timestamp. */
export function expectErrorEnvelope(res: Pick<ApiResponse, 'status' | 'body'>, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status } });
  expect(typeof res.body.error.message).toBe('string');
  expect(typeof res.body.error.requestId).toBe('string');
  expect(Number.isNaN(Date.parse(res.body.timestamp))).toBe(false);
}

/** A test server for the tests of the current scope: started (with `env`) before them, stopped after them. */
export function useTestServer(env: Record<string, string> = {}): TestServer {
  const server = {} as TestServer;
  beforeAll(async () => {
    Object.assign(server, await startTestServer(env));
  });
  afterAll(() => server.stop?.());
  return server;
}
