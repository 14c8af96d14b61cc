import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/platform/free-port.js';

/** Debian's SpamAssassin daemon (`apt-get install spamd`, which .ci/run does). */
export const SPAMD = process.env.SPAMD_PATH ?? '/usr/sbin/spamd';
export const hasSpamd = fs.existsSync(SPAMD);
if (!hasSpamd) console.warn(`Spam check tests skipped: no spamd at ${SPAMD} (apt-get install -y spamassassin spamd)`);

export interface Spamd {
  /** `spamd://127.0.0.1:PORT`, for SPAMD_URL. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A spamd of the test's own on a free loopback port: network tests off (`-L`: no DNS blocklists,
 * which this machine cannot reach), no per-user configuration, its pid file in a temporary folder,
 * its log on stderr. Ready once it answers PING (a second or two, to read its rules and start a child).
 */
export async function startSpamd(): Promise<Spamd> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spamd-'));
  const child = spawn(
    SPAMD,
    [
      '--listen',
      '127.0.0.1',
      '--port',
      String(port),
      '--allowed-ips',
      '127.0.0.1',
      '--pidfile',
      path.join(dir, 'spamd.pid'),
      '--syslog',
      'stderr',
      '--nouser-config',
      '--max-children',
      '2',
      '--local',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (d) => (log += d));
  const stop = () => stopChild(child).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
  const deadline = Date.now() + 30_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`spamd did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `spamd://127.0.0.1:${port}`, stop };
}

/** Whether spamd answers PING with PONG: a child is up and serving, not only the socket bound. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(2_000, () => socket.destroy());
    socket.on('connect', () => socket.end('PING SPAMC/1.5\r\n\r\n'));
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => {});
    socket.on('close', () => resolve(/^SPAMD\/[\d.]+ 0 PONG/.test(answer)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    // spamd ends its children on TERM.
    child.kill('SIGTERM');
  });
}
