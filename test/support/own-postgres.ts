import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/platform/db/embedded.js';
import { eventually } from './server.js';

/**
 * A PostgreSQL cluster of the test's own, which it may restart, stop and freeze without touching
 * the suite's shared server. It keeps its port across restarts, as a real server does.
 */
export interface OwnPostgres {
  url: string;
  dataDir: string;
  postmasterPid(): number | undefined;
  /** Fast shutdown (SIGINT to the postmaster); resolves when it is gone. */
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: connections hang, nothing answers. */
  freeze(): void;
  thaw(): void;
  destroy(): Promise<void>;
}

/** The pid of the postmaster running on the cluster in `dataDir/pg`, or undefined when none is. */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-own-pg-'));
  fs.chmodSync(dataDir, 0o755);
  let cluster = await startEmbeddedPostgres(dataDir);
  const family = () => {
    const pid = postmasterPid(dataDir);
    if (pid === undefined) return [];
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter(Boolean);
    return [pid, ...children];
  };
  const own: OwnPostgres = {
    url: cluster.url,
    dataDir,
    postmasterPid: () => postmasterPid(dataDir),
    async stop() {
      const pid = postmasterPid(dataDir);
      if (pid === undefined) return;
      process.kill(pid, 'SIGINT');
      await eventually(async () => (postmasterPid(dataDir) === undefined ? true : undefined), 30_000, 50);
    },
    async start() {
      cluster = await startEmbeddedPostgres(dataDir);
      if (cluster.url !== own.url) throw new Error(`the restarted cluster moved from ${own.url} to ${cluster.url}`);
    },
    async restart() {
      await own.stop();
      await own.start();
    },
    freeze: () => signalEach(family(), 'SIGSTOP'),
    thaw: () => signalEach(family(), 'SIGCONT'),
    async destroy() {
      own.thaw();
      await own.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return own;
}

/** Signals each process; one that ended since it was listed (a backend closing) is passed over. */
function signalEach(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
}
