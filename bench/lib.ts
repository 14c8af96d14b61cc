import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';

/** The PostgreSQL server the benchmarks create their throwaway databases on. */
export const PG_SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchPg {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createScratchPg(prefix: string): Promise<ScratchPg> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(PG_SERVER_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

async function adminQuery(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_SERVER_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

export function scratchDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Cleanups that also run when the benchmark is interrupted, so no database or directory is left behind. */
export class Cleanup {
  private tasks: (() => Promise<void> | void)[] = [];
  private running?: Promise<void>;

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        void this.run().finally(() => process.exit(130));
      });
    }
  }

  add(task: () => Promise<void> | void): void {
    this.tasks.push(task);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const task of this.tasks.reverse()) {
        try {
          await task();
        } catch (err) {
          process.stderr.write(`cleanup failed: ${String(err)}\n`);
        }
      }
    })();
    return this.running;
  }
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  total: number;
}

export interface TrackLoad {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  distinctEmails: number;
  eventName: string;
}

/*
 * autocannon runs in a worker thread: on the server's own event loop it would compete with the
 * code being measured, and with two cores each side gets one. The request body is built inside
 * the worker because functions cannot cross the thread boundary.
 */
const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const autocannon = createRequire(workerData.base)('autocannon');
const o = workerData.options;
let n = Math.floor(Math.random() * o.distinctEmails);
const plans = ['free', 'pro', 'team'];
autocannon({
  url: o.url,
  connections: o.connections,
  duration: o.durationSeconds,
  timeout: 10,
  requests: [{
    method: 'POST',
    path: new URL(o.url).pathname,
    headers: { 'content-type': 'application/json', ...o.headers },
    setupRequest: (req) => {
      const i = n++ % o.distinctEmails;
      req.body = JSON.stringify({
        email: 'user' + i + '@bench' + (i % 50) + '.example.com',
        event: o.eventName,
        data: { plan: plans[i % 3], step: i % 7 },
      });
      return req;
    },
  }],
}, (err, r) => {
  if (err) { parentPort.postMessage({ error: String(err) }); return; }
  // Off the main thread autocannon hands back encoded histograms; its own aggregation decodes them.
  const a = autocannon.aggregateResult([r], { url: o.url, connections: o.connections });
  parentPort.postMessage({
    rps: r.totalCompletedRequests / r.duration,
    p50: a.latency.p50,
    p99: a.latency.p99,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    total: r.totalCompletedRequests,
  });
});
`;

export function runTrackLoad(options: TrackLoad): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_WORKER, { eval: true, workerData: { base: import.meta.filename, options } });
    worker.once('message', (m: LoadResult | { error: string }) => {
      void worker.terminate();
      if ('error' in m) reject(new Error(m.error));
      else resolve(m);
    });
    worker.once('error', reject);
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

function cpuTimes(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Share of the machine's CPU in use over `ms`, or null off Linux. */
export async function cpuBusyPct(ms = 1000): Promise<number | null> {
  const a = cpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes();
  if (!a || !b || b.total === a.total) return null;
  return round((100 * (b.busy - a.busy)) / (b.total - a.total));
}

/*
 * The machine is shared: figures taken while something else keeps the cores busy say little. Waits
 * (a bounded time) for the CPU to settle and reports how busy it was when the run started.
 */
export async function waitForQuiet(maxWaitMs = 60_000, thresholdPct = 20): Promise<number | null> {
  const deadline = Date.now() + maxWaitMs;
  let busy = await cpuBusyPct();
  while (busy !== null && busy > thresholdPct && Date.now() < deadline) busy = await cpuBusyPct(2000);
  return busy;
}
