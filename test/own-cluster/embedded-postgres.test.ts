import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { postmasterPid } from '../support/own-postgres.js';
import { type ChildServer, client, eventually, printedKeys, spawnService } from '../support/server.js';

/** The service on its embedded default: no DATABASE_URL, a cluster of its own in DATA_DIR/pg. */

const ROOT = path.resolve(import.meta.dirname, '../..');
const execFileAsync = promisify(execFile);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A DATA_DIR the `postgres` user can reach when the suite runs as root; a server left running in it
 * is stopped before it is removed.
 */
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-embedded-'));
  fs.chmodSync(dir, 0o755);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  stopPostmasterAfterwards(dir);
  return dir;
}

async function start(env: Record<string, string>, role = 'all'): Promise<ChildServer> {
  const child = await spawnService({ LOG_LEVEL: 'info', ...env }, [role]);
  cleanups.push(() => child.kill('SIGKILL'));
  if (role === 'worker')
    await eventually(async () => (child.output().includes('service ready') ? true : undefined), 45_000);
  else expect((await fetch(`${child.url}/health`)).status, child.output()).toBe(200);
  return child;
}

/** Stops a server a test left behind, so no postmaster outlives the suite. */
function stopPostmasterAfterwards(dir: string) {
  cleanups.push(async () => {
    const pid = postmasterPid(dir);
    if (pid === undefined) return;
    process.kill(pid, 'SIGINT');
    await postmasterGone(dir);
  });
}

function postmasterGone(dir: string): Promise<true> {
  return eventually(async () => (postmasterPid(dir) === undefined ? true : undefined), 30_000);
}

describe('the embedded PostgreSQL', () => {
  it('survives a SIGKILL of the service: the next start uses the server left behind, with all the data', async () => {
    const dir = dataDir();
    const first = await start({ DATA_DIR: dir });
    const keys = printedKeys(first.output());
    const tracked = await client(first.url, keys.publicKey).post('/v1/track', {
      email: 'kept@example.com',
      event: 'signed_up',
    });
    expect(tracked.status).toBe(200);
    const pid = postmasterPid(dir);
    expect(pid).toBeDefined();

    await first.kill('SIGKILL');
    // The postmaster is not the service's child: it outlives the kill.
    expect(postmasterPid(dir)).toBe(pid);

    const second = await start({ DATA_DIR: dir });
    expect(second.output()).toContain('Using the PostgreSQL already running');
    expect(postmasterPid(dir)).toBe(pid);
    const contacts = await client(second.url, keys.secretKey).get('/contacts');
    expect(contacts.body.data.map((c: { email: string }) => c.email)).toEqual(['kept@example.com']);

    // A clean stop of the last process stops the server too.
    await second.kill('SIGTERM');
    await postmasterGone(dir);
  }, 180_000);

  it('is shared by `serve` and `worker`; the server stops only when the last of them leaves', async () => {
    const dir = dataDir();
    const api = await start({ DATA_DIR: dir }, 'serve');
    const keys = printedKeys(api.output());
    const worker = await start({ DATA_DIR: dir }, 'worker');
    expect(worker.output()).toContain('Using the PostgreSQL already running');

    // Mail accepted by the API is delivered by the worker into the captured outbox.
    const sent = await client(api.url, keys.secretKey).post('/v1/send', {
      to: 'reader@example.com',
      from: 'hello@nobody-verified.example',
      subject: 'Shared',
      body: '<p>Hello</p>',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const emailId = sent.body.data.emails[0].email as string;
    const delivered = await eventually(async () => {
      const email = await client(api.url, keys.secretKey).get(`/emails/${emailId}`);
      return email.body.status === 'sent' ? true : undefined;
    }, 60_000).catch((err) => `${err}\nAPI:\n${api.output()}\nworker:\n${worker.output()}`);
    expect(delivered).toBe(true);

    await api.kill('SIGTERM');
    expect(postmasterPid(dir), 'the worker still uses the server').toBeDefined();
    await worker.kill('SIGTERM');
    await postmasterGone(dir);
  }, 180_000);

  it('moves a database of the earlier embedded engine (PGlite) aside, saying how to bring it over', async () => {
    const dir = dataDir();
    // What an older version left in DATA_DIR/pg: a PostgreSQL data directory of PGlite's.
    fs.mkdirSync(path.join(dir, 'pg', 'base'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'pg', 'PG_VERSION'), '18\n');
    const service = await start({ DATA_DIR: dir });
    expect(service.output()).toMatch(/earlier embedded engine \(PGlite\); it was moved to \S+pg-pglite-/);
    expect(service.output()).toContain('Bringing over a PGlite database');
    const aside = fs.readdirSync(dir).filter((name) => name.startsWith('pg-pglite-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, aside[0]!, 'PG_VERSION'), 'utf8')).toBe('18\n');
    const keys = printedKeys(service.output());
    expect((await client(service.url, keys.secretKey).get('/contacts')).status).toBe(200);
  }, 180_000);

  it('brings over the data of a PGlite database dumped as docs/operations.md says, with its keys still working', async () => {
    const dir = dataDir();
    // A data-only dump (`pg_dump --data-only --column-inserts`) of an earlier version's PGlite database
    // after one tracked event; its default project's secret key was printed then.
    const dump = path.resolve(import.meta.dirname, '../fixtures/pglite-data.sql');
    const secretKey = 'sk_of9hSuFXyAEwiL4hs1aLUOc6dZcLss58uzO3XQt-A0A';
    await execFileAsync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'migrate'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATA_DIR: dir },
    });
    const imported = await execFileAsync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'db:import', dump], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATA_DIR: dir },
    });
    expect(imported.stdout).toContain('Imported');
    const service = await start({ DATA_DIR: dir });
    expect(service.output()).not.toContain('secret key:');
    const contacts = await client(service.url, secretKey).get('/contacts');
    expect(contacts.status).toBe(200);
    expect(contacts.body.data).toMatchObject([{ email: 'ada@example.com', data: { plan: 'pro' } }]);
    const events = await client(service.url, secretKey).get('/events?name=signed_up');
    expect(events.body.data).toHaveLength(1);
    // A second import is refused: the database holds projects now.
    await service.kill('SIGTERM');
    const again = await execFileAsync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'db:import', dump], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATA_DIR: dir },
    }).catch((e) => e);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds projects');
  }, 180_000);

  it.runIf(process.getuid?.() === 0)(
    'as root, keeps the cluster where the postgres user can reach it when DATA_DIR is below a private directory',
    async () => {
      const privateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-private-'));
      expect(fs.statSync(privateDir).mode & 0o777).toBe(0o700);
      const dir = path.join(privateDir, 'data');
      const link = path.join(dir, 'pg');
      cleanups.push(() => {
        const target = fs.existsSync(link) ? fs.realpathSync(link) : undefined;
        fs.rmSync(privateDir, { recursive: true, force: true });
        if (target) fs.rmSync(target, { recursive: true, force: true });
      });
      stopPostmasterAfterwards(dir);
      const service = await start({ DATA_DIR: dir });
      expect(service.output()).toContain(`cannot enter ${dir}`);
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
      expect(fs.realpathSync(link).startsWith('/var/lib/postbox/clusters/')).toBe(true);
      const keys = printedKeys(service.output());
      const tracked = await client(service.url, keys.publicKey).post('/v1/track', {
        email: 'root@example.com',
        event: 'x',
      });
      expect(tracked.status).toBe(200);
    },
    180_000,
  );
});
