import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { type SQL, sql } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createProject, type ProjectWithKeys } from '../src/modules/projects/service.js';
import { type Database, type Executor, openDatabase } from '../src/platform/db/client.js';
import { freePort } from '../src/platform/free-port.js';
import { startService } from '../src/start.js';
import { type DnsServer, startDnsServer } from '../test/support/dns-server.js';
import { admin } from '../test/support/global-setup.js';
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from '../test/support/smtp-sink.js';
import { type Cleanup, round, wallNow } from './run.js';

/** The PostgreSQL server the benchmarks create their throwaway databases on. */
export const PG_SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchPg {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new database named `<prefix>_<random>` on `serverUrl` (by default PG_SERVER_URL). */
async function createScratchPg(prefix: string, serverUrl = PG_SERVER_URL): Promise<ScratchPg> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await admin(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

export function scratchDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // As root an embedded cluster in it runs as `postgres`, which must be able to enter the folder.
  fs.chmodSync(dir, 0o755);
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A scratch database `pbx_bench_<name>_<random>` on `serverUrl`, dropped by `cleanup`. */
export async function scratchDatabase(cleanup: Cleanup, name: string, serverUrl = PG_SERVER_URL): Promise<ScratchPg> {
  const db = await createScratchPg(`pbx_bench_${name}`, serverUrl);
  cleanup.add(() => db.drop());
  return db;
}

/** A scratch `DATA_DIR`, removed by `cleanup`. */
export function scratchDataDir(cleanup: Cleanup, name: string): string {
  const dir = scratchDir(`pbx-bench-${name}-`);
  cleanup.add(dir.remove);
  return dir.dir;
}

export interface MigratedScratch {
  db: ScratchPg;
  dataDir: string;
  database: Database;
  project: ProjectWithKeys;
}

/** A scratch database on the PostgreSQL server, migrated and opened in this process, with one project. */
export async function migratedScratch(cleanup: Cleanup, name: string): Promise<MigratedScratch> {
  const db = await scratchDatabase(cleanup, name);
  const dataDir = scratchDataDir(cleanup, name);
  const database = await openDatabase({ databaseUrl: db.url, dataDir });
  cleanup.add(() => database.close());
  await database.migrate();
  return { db, dataDir, database, project: await createProject(database.db, 'bench') };
}

/**
 * The service in this process on a migrated scratch database, on a free port, silent and with rate
 * limits out of the way, stopped by `cleanup`.
 */
export async function startScratchService(
  cleanup: Cleanup,
  scratch: { db: ScratchPg; dataDir: string },
  role: 'serve' | 'all',
) {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000000',
    DATA_DIR: scratch.dataDir,
    DATABASE_URL: scratch.db.url,
  });
  const service = await startService(config, role);
  cleanup.add(() => service.stop());
  return service;
}

/** A client on `url` for the benchmark's own queries, closed by `cleanup`. */
export async function connectPg(cleanup: Cleanup, url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  cleanup.add(() => client.end());
  return client;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  total: number;
  /** The first few answers other than 200: status and the start of the body. */
  samples: string[];
}

/** POSTs of JSON bodies through autocannon's keep-alive connections, for a time or a number of requests. */
export interface Load {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  until: { durationSeconds: number } | { amount: number };
  /**
   * The source of `(n, options) => object`: the body of the n-th request, made in the load's thread
   * (functions cannot cross to it), from `options`, this object.
   */
  body: string;
  /** The number of the first request. */
  first?: number;
  [option: string]: unknown;
}

/*
 * autocannon runs in a worker thread: on the server's own event loop it would compete with the
 * code being measured, and with two cores each side gets one.
 */
const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const autocannon = createRequire(workerData.base)('autocannon');
const o = workerData.options;
const body = (0, eval)(o.body);
let n = o.first ?? 0;
const samples = [];
autocannon({
  url: o.url,
  connections: o.connections,
  ...o.until,
  timeout: 10,
  requests: [{
    method: 'POST',
    path: new URL(o.url).pathname,
    headers: { 'content-type': 'application/json', ...o.headers },
    setupRequest: (req) => {
      req.body = JSON.stringify(body(n++, o));
      return req;
    },
    onResponse: (status, text) => {
      if (status !== 200 && samples.length < 5) samples.push(status + ' ' + String(text).slice(0, 300));
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
    samples,
  });
});
`;

export function runLoad(load: Load): Promise<LoadResult> {
  return runEvalWorker<LoadResult>(LOAD_WORKER, load);
}

export interface TrackLoad {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  distinctEmails: number;
  eventName: string;
}

/** /v1/track calls over `distinctEmails` contacts, from a random one on. */
export function runTrackLoad({ durationSeconds, ...options }: TrackLoad): Promise<LoadResult> {
  return runLoad({
    ...options,
    until: { durationSeconds },
    first: Math.floor(Math.random() * options.distinctEmails),
    body: `(n, o) => {
      const i = n % o.distinctEmails;
      return { email: 'user' + i + '@bench' + (i % 50) + '.example.com', event: o.eventName,
        data: { plan: ['free', 'pro', 'team'][i % 3], step: i % 7 } };
    }`,
  });
}

// ---------------------------------------------------------------------------------------------
// The service as child processes (`serve`, `worker` or `all`), as bench/send.ts and bench/workflow.ts run it.

export const BENCH_ROOT = path.resolve(import.meta.dirname, '..');

export { freePort };

/**
 * How the service children are run: from the TypeScript sources through tsx, as `npm start` does, or
 * with BENCH_BUILD=1 from the production build in dist/ (`npm run build` first), as `npm run
 * start:prod` does.
 */
export const SERVICE_BUILD = process.env.BENCH_BUILD === '1';
const SERVICE_ENTRY = SERVICE_BUILD ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
if (SERVICE_BUILD && !fs.existsSync(path.join(BENCH_ROOT, 'dist', 'main.js'))) {
  throw new Error('BENCH_BUILD=1 runs dist/main.js: run `npm run build` first');
}

/** This process's environment with `extra` on top; DATABASE_URL only when `extra` names one. */
function serviceEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!extra.DATABASE_URL) delete env.DATABASE_URL;
  return env;
}

export interface ServiceSetup {
  port: number;
  dataDir: string;
  /** The scratch database, or none when the service uses the embedded one in `dataDir`. */
  db?: ScratchPg;
  /** For `createBenchProject` and `startServiceChild`. */
  env: NodeJS.ProcessEnv;
}

/**
 * A scratch DATA_DIR, a scratch database on `pgServerUrl` (without one, the service starts its
 * embedded PostgreSQL in DATA_DIR) and a free port, as a service child's environment. The rate
 * limits are raised out of reach: the benchmarks measure the work, not the limiter's refusals.
 */
export async function prepareService(
  cleanup: Cleanup,
  name: string,
  pgServerUrl: string,
  extra?: Record<string, string>,
): Promise<ServiceSetup & { db: ScratchPg }>;
export async function prepareService(
  cleanup: Cleanup,
  name: string,
  pgServerUrl: string | undefined,
  extra?: Record<string, string>,
): Promise<ServiceSetup>;
export async function prepareService(
  cleanup: Cleanup,
  name: string,
  pgServerUrl: string | undefined,
  extra: Record<string, string> = {},
): Promise<ServiceSetup> {
  const dataDir = scratchDataDir(cleanup, name);
  const db = pgServerUrl ? await scratchDatabase(cleanup, name, pgServerUrl) : undefined;
  const port = await freePort();
  return { port, dataDir, db, env: benchServiceEnv(port, dataDir, { DATABASE_URL: db?.url, ...extra }) };
}

/** A service child's environment on loopback, with `extra` on top. */
export function benchServiceEnv(
  port: number,
  dataDir: string,
  extra: Record<string, string | undefined>,
): NodeJS.ProcessEnv {
  return serviceEnv({
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
    ...extra,
  });
}

/** Lines a child writes go to our stderr, prefixed: stdout carries only the result line. */
function forwardOutput(child: ChildProcess, label: string): void {
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) process.stderr.write(`[${label}] ${line}\n`);
    });
  }
}

export interface BenchProject {
  id: string;
  name: string;
  publicKey: string;
  secretKey: string;
}

/** `main.ts project:create` on the database of `env`: a project and both its keys. */
export async function createBenchProject(env: NodeJS.ProcessEnv, name = 'bench'): Promise<BenchProject> {
  const child = spawn(process.execPath, [...SERVICE_ENTRY, 'project:create', '--name', name], {
    cwd: BENCH_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`project:create exited with ${code}: ${err}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '') as BenchProject;
}

export interface ServiceChild {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/**
 * `main.ts <role>` as a child process; resolves once `serve`/`all` answers /health (a `worker`
 * serves no HTTP: it is given 3 s to start its engines). `cpuProfDir` adds `--cpu-prof`.
 */
export async function startServiceChild(
  env: NodeJS.ProcessEnv,
  port: number,
  role: 'all' | 'serve' | 'worker',
  options: { cpuProfDir?: string; label?: string } = {},
): Promise<ServiceChild> {
  const prof = options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [];
  // Node or V8 flags to try on the service (`--max-semi-space-size=8`, say), which NODE_OPTIONS does not all accept.
  const flags = process.env.BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...prof, ...flags, ...SERVICE_ENTRY, role], {
    cwd: BENCH_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  forwardOutput(child, options.label ?? role);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  if (role === 'worker') await new Promise((r) => setTimeout(r, 3000));
  for (; role !== 'worker'; ) {
    if (exited !== undefined) throw new Error(`the ${role} process exited with ${exited} before it was ready`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('the service did not answer /health within 180 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  if (exited !== undefined) throw new Error(`the ${role} process exited with ${exited} while starting`);
  return {
    process: child,
    url,
    async stop() {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exit, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
      clearTimeout(timer);
      if (exited === undefined) {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
}

export interface ServiceRoles {
  /** The child that serves HTTP: `serve`, or `all` when not split. */
  api: ServiceChild;
  /** The child that delivers and runs workflows: `worker`, or the `all` child itself. */
  worker: ServiceChild;
}

/**
 * `serve` and `worker` as separate children, as deployed, or one `all` child; stopped by `cleanup`.
 * `apiEnv` goes to the child that serves HTTP only (a METRICS_PORT, say, which two processes cannot
 * share). BENCH_CPU_PROF=<dir> has V8 write their CPU profiles there.
 */
export async function startServiceRoles(
  cleanup: Cleanup,
  env: NodeJS.ProcessEnv,
  port: number,
  split: boolean,
  apiEnv: Record<string, string> = {},
): Promise<ServiceRoles> {
  const cpuProfDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
  const api = await startServiceChild({ ...env, ...apiEnv }, port, split ? 'serve' : 'all', { cpuProfDir });
  cleanup.add(() => api.stop());
  if (!split) return { api, worker: api };
  const worker = await startServiceChild(env, port, 'worker', { cpuProfDir });
  cleanup.add(() => worker.stop());
  return { api, worker };
}

export interface WatchedRoles extends ServiceRoles {
  workerPid: number;
  apiPid: number;
  workerRss: PeakRss;
  /** Only when the API is a process of its own. */
  apiRss?: PeakRss;
}

/** `startServiceRoles`, with the peak RSS of each process watched until `cleanup`. */
export async function startWatchedRoles(
  cleanup: Cleanup,
  env: NodeJS.ProcessEnv,
  port: number,
  split: boolean,
  apiEnv: Record<string, string> = {},
): Promise<WatchedRoles> {
  const { api, worker } = await startServiceRoles(cleanup, env, port, split, apiEnv);
  const workerPid = worker.process.pid!;
  const apiPid = api.process.pid!;
  const workerRss = watchPeakRss(cleanup, workerPid);
  const apiRss = split ? watchPeakRss(cleanup, apiPid) : undefined;
  return { api, worker, workerPid, apiPid, workerRss, apiRss };
}

/** CPU seconds (user + system) a process has used so far, or null when it is gone or unreadable (Linux). */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** A `/proc/<pid>/status` figure in kB (VmRSS now, VmHWM the peak), or null. */
export function processStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Samples a process's VmRSS every 250 ms and keeps the peak. */
class PeakRss {
  peakKb = 0;
  private timer: NodeJS.Timeout;
  constructor(private readonly pid: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 250);
  }
  sample(): void {
    const kb = processStatusKb(this.pid, 'VmRSS');
    if (kb !== null && kb > this.peakKb) this.peakKb = kb;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

/** A PeakRss of `pid` that `cleanup` stops. */
export function watchPeakRss(cleanup: Cleanup, pid: number): PeakRss {
  const rss = new PeakRss(pid);
  cleanup.add(() => rss.stop());
  return rss;
}

export interface ApiAnswer {
  status: number;
  body: any;
}

export async function apiCall(url: string, key: string, method: string, p: string, body?: unknown): Promise<ApiAnswer> {
  const res = await fetch(url + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

export function expectApiStatus(r: ApiAnswer, status: number, what: string): void {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
}

interface DnsRecords {
  set(name: string, type: 'TXT', values: string[]): void;
  set(name: string, type: 'MX', values: { priority: number; exchange: string }[]): void;
}

/** POST /domains, its records in the loopback DNS server, GET /domains/{id}/verify. */
export async function createVerifiedDomain(url: string, key: string, dns: DnsRecords, domain: string): Promise<void> {
  const created = await apiCall(url, key, 'POST', '/domains', { domain });
  expectApiStatus(created, 201, 'POST /domains');
  for (const record of created.body.records as { type: 'TXT' | 'MX'; name: string; value: string }[]) {
    if (record.type === 'MX') {
      const [priority, exchange] = record.value.split(/\s+/);
      dns.set(record.name, 'MX', [{ priority: Number(priority), exchange: exchange! }]);
    } else dns.set(record.name, 'TXT', [record.value]);
  }
  const checked = await apiCall(url, key, 'GET', `/domains/${created.body.id}/verify`);
  expectApiStatus(checked, 200, 'GET /domains/{id}/verify');
  if (!checked.body.verified) throw new Error(`domain not verified: ${JSON.stringify(checked.body.records)}`);
}

/** POST /templates; the new template's id. */
export async function createTemplate(url: string, key: string, template: Record<string, unknown>): Promise<string> {
  const r = await apiCall(url, key, 'POST', '/templates', template);
  expectApiStatus(r, 201, 'POST /templates');
  return r.body.id as string;
}

export interface MailLoopback {
  sink: SmtpSink;
  dns: DnsServer;
  /** For the service's environment: the two servers, and the delivery pool the raw reference copies. */
  env: Record<string, string>;
}

/**
 * The SMTP sink the service delivers to, accepting every message after `onMessage` has seen it
 * (BENCH_RELAY_ANSWER_MS after its last byte, 0 by default), and the DNS server that sender
 * domains are verified against; both stopped by `cleanup`.
 */
export async function startMailLoopback(
  cleanup: Cleanup,
  onMessage: (message: ReceivedMessage) => void,
): Promise<MailLoopback> {
  const sink = await startSmtpSink({ keep: false });
  cleanup.add(() => sink.stop());
  const accept = (m: ReceivedMessage) => {
    onMessage(m);
    return { accept: true } as const;
  };
  // A relay across a network answers the end of a message only after a round trip (and its own queue write).
  const answerMs = Number(process.env.BENCH_RELAY_ANSWER_MS ?? 0);
  sink.respond((m) =>
    answerMs > 0 ? new Promise((resolve) => setTimeout(() => resolve(accept(m)), answerMs)) : accept(m),
  );
  const dns = await startDnsServer();
  cleanup.add(() => dns.stop());
  const env = {
    SMTP_URL: sink.url,
    DNS_SERVERS: dns.address,
    SMTP_MAX_CONNECTIONS: String(SMTP_CONNECTIONS),
    DELIVERY_CONCURRENCY: String(DELIVERY_WINDOW),
  };
  return { sink, dns, env };
}

export interface MailService extends ServiceSetup {
  mail: MailLoopback;
  project: BenchProject;
}

/**
 * The mail loopback, a prepared service that delivers into it (`extra` on top of its environment) and
 * a project on its database, made before any service process starts: the embedded database allows one.
 */
export async function prepareMailService<PgServer extends string | undefined>(
  cleanup: Cleanup,
  name: string,
  pgServerUrl: PgServer,
  onMessage: (message: ReceivedMessage) => void,
  extra: Record<string, string> = {},
): Promise<MailService & (PgServer extends string ? { db: ScratchPg } : unknown)> {
  const mail = await startMailLoopback(cleanup, onMessage);
  const setup = await prepareService(cleanup, name, pgServerUrl, { ...mail.env, ...extra });
  // A scratch database is made exactly when `pgServerUrl` is a string.
  return { ...setup, mail, project: await createBenchProject(setup.env) } as MailService & { db: ScratchPg };
}

// ---------------------------------------------------------------------------------------------
// Delivery into the loopback SMTP sink, as bench/send.ts and bench/campaign.ts measure it.

/** Runs `source` (CommonJS) in a worker thread with `workerData = { base, options }`; resolves with its one message. */
export function runEvalWorker<T>(source: string, options: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { base: import.meta.filename, options } });
    worker.once('message', (m: T | { error: string }) => {
      void worker.terminate();
      if (m && typeof m === 'object' && 'error' in m) reject(new Error(m.error));
      else resolve(m as T);
    });
    worker.once('error', reject);
  });
}

/** Raw pooled nodemailer: N copies of one pre-rendered message, DKIM-signed (unless no key is given), with a fixed window in flight. */
const RAW_SENDER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const nodemailer = createRequire(workerData.base)('nodemailer');
const o = workerData.options;
const now = () => performance.timeOrigin + performance.now();
const transport = nodemailer.createTransport({
  pool: true, maxConnections: o.connections, maxMessages: Infinity, host: o.host, port: o.port, secure: false, ignoreTLS: true,
});
let next = 0, done = 0, errors = 0;
const samples = [];
const started = now();
function one() {
  if (next >= o.count) return;
  const i = next++;
  const to = 'raw' + i + '@r' + (i % 50) + '.example.net';
  transport.sendMail({
    messageId: '<raw-' + i + '-' + o.stamp + '@' + o.domain + '>',
    from: { name: o.fromName, address: o.from },
    to: { name: '', address: to },
    subject: o.subject,
    html: o.html,
    text: o.text,
    ...(o.headers ? { headers: o.headers } : {}),
    envelope: { from: o.from, to: [to] },
    ...(o.dkim ? { dkim: o.dkim } : {}),
  }).catch((err) => { errors++; if (samples.length < 5) samples.push(String(err)); }).finally(() => {
    done++;
    if (done === o.count) {
      const finished = now();
      transport.close();
      parentPort.postMessage({ started, finished, errors, samples });
    } else one();
  });
}
for (let k = 0; k < o.window; k++) one();
`;

/** The service's SMTP pool size and messages in flight; the raw reference uses the same. */
const SMTP_CONNECTIONS = Number(process.env.SMTP_MAX_CONNECTIONS ?? 5);
const DELIVERY_WINDOW = Number(process.env.DELIVERY_CONCURRENCY ?? 20);
/** The same, as the result lines report them. */
export const DELIVERY_POOL = { smtpConnections: SMTP_CONNECTIONS, deliveryConcurrency: DELIVERY_WINDOW };

/** A 2048-bit RSA key as PEM: the service's DKIM key size, given the way nodemailer is normally given one. */
export function rsaKeyPem(): string {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }).privateKey;
}

export interface RawSend {
  sink: { port: number };
  count: number;
  /** The DKIM signing domain, and the key (rsaKeyPem) it signs with; without a key, messages go unsigned. */
  domain: string;
  privateKey?: string;
  from: string;
  fromName: string;
  /** The message the service sent, whose subject, HTML and text every raw message carries. */
  probe: Pick<ProbeMessage, 'subject' | 'html' | 'text'>;
  /** Extra headers (a marketing message's List-Unsubscribe, say). */
  headers?: Record<string, string>;
}

export interface RawOutcome {
  started: number;
  finished: number;
  errors: number;
  samples: string[];
}

/**
 * The raw reference, in a worker thread so it does not share an event loop with the sink, with the
 * service's pool size and window. Recipients are `raw<i>@r<i % 50>.example.net`.
 */
export function runRawSender(options: RawSend): Promise<RawOutcome> {
  const { sink, domain, privateKey, probe, ...message } = options;
  return runEvalWorker<RawOutcome>(RAW_SENDER, {
    ...message,
    subject: probe.subject,
    html: probe.html,
    text: probe.text,
    host: '127.0.0.1',
    port: sink.port,
    connections: SMTP_CONNECTIONS,
    window: DELIVERY_WINDOW,
    // Makes the Message-IDs of this run unique.
    stamp: randomBytes(4).toString('hex'),
    domain,
    dkim: privateKey ? { domainName: domain, keySelector: 'bench', privateKey } : undefined,
  });
}

export interface ProbeMessage {
  raw: Buffer;
  subject: string;
  html: string;
  text: string;
}

/** Counts what the sink accepts in the current phase, with the times of the first and last message (wall clock). */
export class SinkArrivals {
  n = 0;
  first = 0;
  last = 0;
  /** Called with the next message only, then cleared. */
  capture?: (raw: Buffer) => void;

  /** Nothing new for this long while waiting is taken as stuck. */
  constructor(private readonly stallMs = 90_000) {}

  reset(): void {
    this.n = 0;
    this.first = 0;
    this.last = 0;
  }

  onMessage(raw: Buffer): void {
    const t = wallNow();
    if (this.n === 0) this.first = t;
    this.n++;
    this.last = t;
    if (this.capture) {
      this.capture(raw);
      this.capture = undefined;
    }
  }

  /**
   * The next message to arrive, after `send` has had the service send it, parsed: what the raw
   * reference copies. It must be complete and DKIM-signed.
   */
  async probe(send: () => Promise<void>): Promise<ProbeMessage> {
    let raw: Buffer | undefined;
    this.capture = (m) => (raw = m);
    const count = this.n + 1;
    await send();
    await this.waitFor(count, 'probe');
    const parsed = await simpleParser(raw!);
    if (typeof parsed.html !== 'string' || !parsed.text || !parsed.subject) {
      throw new Error('the probe message has no html, text or subject');
    }
    if (!raw!.includes('DKIM-Signature:')) throw new Error('the probe message is not DKIM-signed');
    return { raw: raw!, subject: parsed.subject, html: parsed.html, text: parsed.text };
  }

  /**
   * Resolves once `count` messages have arrived in this phase, or `done` holds (the sender says
   * nothing more will come, and the caller reports what is missing); progress goes to stderr every 10 s.
   */
  async waitFor(count: number, label: string, done: () => boolean = () => false): Promise<void> {
    let seen = this.n;
    let progressAt = Date.now();
    let reportAt = Date.now() + 10_000;
    while (this.n < count && !done()) {
      await new Promise((r) => setTimeout(r, 20));
      if (this.n !== seen) {
        seen = this.n;
        progressAt = Date.now();
      } else if (Date.now() - progressAt > this.stallMs) {
        throw new Error(
          `${label}: the sink received ${this.n} of ${count} messages, nothing new for ${this.stallMs / 1000} s`,
        );
      }
      if (Date.now() > reportAt) {
        process.stderr.write(`${label}: ${this.n} of ${count} delivered\n`);
        reportAt = Date.now() + 10_000;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: what the server did for a phase of a benchmark.

interface PgCounters {
  xacts: number;
  inserted: number;
  updated: number;
  deleted: number;
}

async function pgCounters(client: pg.Client, db: string): Promise<PgCounters> {
  const s = await client.query<{ x: string; i: string; u: string; d: string }>(
    `select xact_commit + xact_rollback as x, tup_inserted as i, tup_updated as u, tup_deleted as d
     from pg_stat_database where datname = $1`,
    [db],
  );
  const r = s.rows[0]!;
  return { xacts: Number(r.x), inserted: Number(r.i), updated: Number(r.u), deleted: Number(r.d) };
}

/**
 * CPU used by the server processes serving the bench database. Pool connections come and go, so
 * the backends are looked up every 500 ms and each one's CPU counted from when it was first seen
 * (from zero for one that started during the phase); one that ends loses at most its last 500 ms.
 */
class BackendCpu {
  private seen = new Map<number, { from: number; last: number }>();
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(
    private readonly client: pg.Client,
    private readonly db: string,
  ) {}

  async start(): Promise<void> {
    await this.sample(true);
    this.timer = setInterval(() => void this.sample(false), 500);
  }

  private async sample(initial: boolean): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const r = await this.client.query<{ pid: number }>(
        `select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
        [this.db],
      );
      for (const { pid } of r.rows) {
        const cpu = processCpuSeconds(pid);
        if (cpu === null) continue;
        const entry = this.seen.get(pid);
        if (entry) entry.last = cpu;
        else this.seen.set(pid, { from: initial ? cpu : 0, last: cpu });
      }
    } catch {
      // the database is going away at the end of the run
    } finally {
      this.busy = false;
    }
  }

  async stop(): Promise<{ seconds: number; backends: number }> {
    clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 10));
    await this.sample(false);
    let seconds = 0;
    for (const { from, last } of this.seen.values()) seconds += last - from;
    return { seconds, backends: this.seen.size };
  }
}

/** Per-message figures of a phase: transactions and rows, and the backends' CPU. */
function pgDelta(a: PgCounters, b: PgCounters, n: number, cpu: { seconds: number; backends: number }) {
  return {
    transactionsPerMessage: round((b.xacts - a.xacts) / n, 2),
    rowsInsertedPerMessage: round((b.inserted - a.inserted) / n, 2),
    rowsUpdatedPerMessage: round((b.updated - a.updated) / n, 2),
    rowsDeletedPerMessage: round((b.deleted - a.deleted) / n, 2),
    backendCpuSeconds: round(cpu.seconds, 2),
    backends: cpu.backends,
  };
}

/** One phase on the server: its counters from `start`, and its backends' CPU until `stopCpu`. */
export class PgPhase {
  private cpuUsed = { seconds: 0, backends: 0 };

  private constructor(
    private readonly client: pg.Client,
    private readonly db: string,
    private readonly before: PgCounters,
    private readonly cpu: BackendCpu,
  ) {}

  static async start(client: pg.Client, db: string): Promise<PgPhase> {
    const before = await pgCounters(client, db);
    const cpu = new BackendCpu(client, db);
    await cpu.start();
    return new PgPhase(client, db, before, cpu);
  }

  /** Called when the phase's work is done; the figures can be read later. */
  async stopCpu(): Promise<void> {
    this.cpuUsed = await this.cpu.stop();
  }

  /** The phase's figures per message, for `n` messages. */
  async perMessage(n: number): Promise<ReturnType<typeof pgDelta>> {
    await new Promise((r) => setTimeout(r, 1500)); // statistics reach pg_stat_database within a second
    return pgDelta(this.before, await pgCounters(this.client, this.db), n, this.cpuUsed);
  }
}

/**
 * Runs `work` (repository calls, say) on an executor that runs every statement it is given under
 * EXPLAIN (ANALYZE, BUFFERS) first, then for real, so the plans are those of the statements the
 * service runs; returns them in order. Statements run as named prepared statements bypass it.
 */
export async function explainStatements(ex: Executor, work: (ex: Executor) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  const explaining = {
    execute: async (q: SQL) => {
      const r = (await ex.execute(sql`explain (analyze, buffers) ${q}`)) as unknown as {
        rows: Record<string, string>[];
      };
      plans.push(r.rows.map((row) => row['QUERY PLAN']).join('\n'));
      return ex.execute(q);
    },
  } as unknown as Executor;
  await work(explaining);
  return plans;
}
