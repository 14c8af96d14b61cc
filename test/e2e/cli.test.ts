import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/platform/free-port.js';
import { useCleanups } from '../support/database.js';
import { UUID } from '../support/sending.js';
import { type ChildServer, client, eventually, spawnService } from '../support/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const { cleanups, database } = useCleanups();

async function start(env: Record<string, string>): Promise<ChildServer> {
  // info level, so the "service ready" line shows when start-up output is complete.
  const child = await spawnService({ ...env, LOG_LEVEL: 'info' });
  cleanups.push(() => child.kill('SIGTERM'));
  await eventually(async () => (child.output().includes('service ready') ? true : undefined), 30_000);
  return child;
}

function cli(args: string[], env: Record<string, string>) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
  });
}

async function expectKeysWork(service: ChildServer, keys: { publicKey: string; secretKey: string }) {
  const url = service.url;
  const secret = await client(url, keys.secretKey).get('/contacts');
  expect(secret.status, `${JSON.stringify(secret.body)}\nservice output:\n${service.output()}`).toBe(200);
  expect(secret.body).toMatchObject({ data: [], total: 0 });
  const track = await client(url, keys.publicKey).post('/v1/track', { email: 'cli@example.com', event: 'cli_check' });
  expect(track.status, JSON.stringify(track.body)).toBe(200);
  expect(track.body.success).toBe(true);
  // Each key only where it belongs.
  expect((await client(url, keys.publicKey).get('/contacts')).status).toBe(401);
  expect((await client(url, keys.secretKey).post('/v1/track', { email: 'cli@example.com', event: 'x' })).status).toBe(
    401,
  );
}

const KEYS_BANNER = /public key: (pk_\S+)\s+secret key: (sk_\S+)/;

describe('project:create', () => {
  it('prints the new project as one JSON line, and its keys work over HTTP', async () => {
    const db = await database();
    const { stdout } = await cli(['project:create', '--name', 'Acme'], db.env);
    expect(stdout.endsWith('\n')).toBe(true);
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const project = JSON.parse(lines[0]!);
    expect(Object.keys(project).sort()).toEqual(['id', 'name', 'publicKey', 'secretKey']);
    expect(project.id).toMatch(UUID);
    expect(project.name).toBe('Acme');
    expect(project.publicKey).toMatch(/^pk_\S{16,}$/);
    expect(project.secretKey).toMatch(/^sk_\S{16,}$/);
    expect(project.publicKey.slice(3)).not.toBe(project.secretKey.slice(3));

    const service = await start(db.env);
    // The database already has a project, so no default one is made and no keys are printed.
    expect(service.output()).not.toMatch(/secret key:/);
    await expectKeysWork(service, project);
  }, 120_000);

  it('creates a distinct project on every call', async () => {
    const db = await database();
    const a = JSON.parse((await cli(['project:create', '--name', 'One'], db.env)).stdout);
    const b = JSON.parse((await cli(['project:create', '--name', 'Two'], db.env)).stdout);
    expect(a.id).not.toBe(b.id);
    expect(a.secretKey).not.toBe(b.secretKey);
    expect(b.name).toBe('Two');
  }, 120_000);

  it('fails without a name and prints nothing on stdout', async () => {
    const db = await database();
    const err = await cli(['project:create'], db.env).then(
      () => undefined,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(err).toBeDefined();
    expect(err!.code).toBe(1);
    expect(err!.stdout).toBe('');
    expect(err!.stderr).toContain('--name');
  }, 60_000);
});

describe('first start', () => {
  it('prints the default project’s keys once, and they keep working after a restart', async () => {
    const db = await database();
    const first = await start(db.env);
    const banner = KEYS_BANNER.exec(first.output());
    expect(banner, first.output()).not.toBeNull();
    expect(first.output().match(/secret key:/g)).toHaveLength(1);
    const keys = { publicKey: banner![1]!, secretKey: banner![2]! };
    await expectKeysWork(first, keys);
    await first.kill('SIGTERM');

    const second = await start(db.env);
    expect(second.output()).not.toMatch(/public key:|secret key:|pk_|sk_/);
    const contacts = await client(second.url, keys.secretKey).get('/contacts');
    expect(contacts.status).toBe(200);
    expect(contacts.body.data.map((c: { email: string }) => c.email)).toEqual(['cli@example.com']);
  }, 180_000);
});

describe('start-up output', () => {
  it('off a terminal: JSON log lines, and the banner says that mail is captured and where', async () => {
    const db = await database();
    const service = await start(db.env);
    const output = service.output();
    expect(output).toContain(
      `mail is captured, not sent. Each message is written to ${path.resolve(db.env.DATA_DIR!, 'outbox')}`,
    );
    expect(output).toContain('GET /emails/{id}/raw');
    const ready = output.split('\n').find((line) => line.includes('service ready'))!;
    expect(JSON.parse(ready)).toMatchObject({ level: 30, msg: 'service ready', role: 'all', url: service.url });
  }, 120_000);

  it('on a terminal: readable log lines, not JSON', async () => {
    const db = await database();
    const port = await freePort();
    // `script` gives the service a pseudo-terminal as its stdout.
    const command = `${process.execPath} --import tsx src/main.ts all`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...db.env, PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    );
    await eventually(async () => (out.includes('service ready') ? true : undefined), 60_000);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour escapes (ESC [ ... m)
    const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
    const ready = plain.split(/\r?\n/).find((line) => line.includes('service ready'))!;
    expect(ready).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: service ready/);
    expect(plain).toContain(`url: "http://127.0.0.1:${port}"`);
    expect(plain).toContain('mail is captured, not sent');
  }, 120_000);
});
