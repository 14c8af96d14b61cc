/**
 * POST /v1/send with a template and variables, delivered into a loopback SMTP sink, next to raw
 * pooled nodemailer sending the same pre-rendered (and DKIM-signed) messages into the same sink.
 *
 *   npx tsx bench/send.ts [--count 20000] [--connections 32]       # embedded database (PGlite)
 *   DATABASE_URL=postgres://… npx tsx bench/send.ts [--count …]      # a fresh database on that server
 *
 * The service runs as child processes, so their RSS and CPU are their own: on PostgreSQL `serve`
 * and `worker` apart, as deployed (BENCH_ROLES=all keeps them in one process); on the embedded
 * database `all`, since only one process can open it. The worker's VmRSS is sampled every 250 ms
 * and the peak reported. The sink, the DNS server and the
 * load generator live in this process (the load generator and the raw sender in worker threads).
 *
 * Order: raw reference first (the service idles), then N `/v1/send` calls from `--connections`
 * concurrent connections (autocannon). Prints one JSON line:
 *   apiRps              N / (first request → last response)
 *   e2eDeliveredPerSec  N / (first request → last message received by the sink)
 *   deliveryPerSec      N / (first → last message received), the delivery rate on its own
 *   rawPerSec           N / (first → last message received) for raw nodemailer, same measure
 *   ratio               deliveryPerSec / rawPerSec (goal ≥ 0.7); workerPeakRssMb (goal < 300)
 *
 * Env: SMTP_MAX_CONNECTIONS (5) and DELIVERY_CONCURRENCY (20) are given to the service, and the raw
 * reference uses the same pool size and window; BENCH_RAW_COUNT (N, at least 5,000);
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the service child into <dir>.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import { startDnsServer, type DnsServer } from '../test/support/dns-server.js';
import { startSmtpSink } from '../test/support/smtp-sink.js';
import { Cleanup, round, scratchDir, waitForQuiet } from './lib.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOMAIN = 'send.bench.example.com';
const SMTP_CONNECTIONS = Number(process.env.SMTP_MAX_CONNECTIONS ?? 5);
const WINDOW = Number(process.env.DELIVERY_CONCURRENCY ?? 20);
const GOAL_RATIO = 0.7;
const GOAL_RSS_MB = 300;
/** Delivery is given up as stuck when the sink has received nothing new for this long. */
const STALL_MS = 90_000;

const now = () => performance.timeOrigin + performance.now();

const TEMPLATE_SUBJECT = 'Order {{ orderId }} is confirmed, {{ firstName ?? "there" }}';
const TEMPLATE_BODY = `<!doctype html>
<html><head><meta charset="utf-8"><title>Your order</title></head>
<body style="font-family: Helvetica, Arial, sans-serif; color: #222; margin: 0; padding: 0">
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table width="600" cellpadding="16" cellspacing="0" style="border: 1px solid #eee">
<tr><td><h1 style="font-size: 22px">Hi {{ firstName ?? "there" }},</h1>
<p>Thank you for your order <strong>#{{ orderId }}</strong>. We have received it and will let you know as soon as
it ships. Here is what you bought:</p>
<table width="100%" cellpadding="6" cellspacing="0" style="border-collapse: collapse">
<tr style="background: #f6f6f6"><th align="left">Item</th><th align="right">Qty</th><th align="right">Price</th></tr>
{% for item in items %}<tr><td>{{ item.name }}</td><td align="right">{{ item.qty }}</td><td align="right">{{ item.price }} EUR</td></tr>
{% endfor %}</table>
<p>Total: <strong>{{ total }} EUR</strong></p>
<p><a href="https://shop.example.com/orders/{{ orderId }}" style="background: #0a6; color: #fff; padding: 10px 16px; text-decoration: none">View your order</a></p>
<p>Questions? Reply to this email or visit our <a href="https://shop.example.com/help">help centre</a>. Returns are free within
30 days of delivery; see <a href="https://shop.example.com/returns">how returns work</a>.</p>
<p style="color: #888; font-size: 12px">Bench Shop · 1 Example Street · 75000 Paris · You receive this email because you placed
an order on shop.example.com.</p>
</td></tr></table></td></tr></table>
</body></html>`;

const PRODUCTS = ['Notebook', 'Fountain pen', 'Ink cartridges (6)', 'Desk lamp', 'Paper clips', 'Stapler', 'Mug'];

/**
 * The variables of the i-th send: every fifth recipient has no first name, so `??` shows. Plain
 * JavaScript source, because the load generator's worker thread builds the bodies from it too.
 */
const SEND_DATA_SOURCE = `function sendData(i) {
  const products = ${JSON.stringify(PRODUCTS)};
  const items = [0, 1, 2].map((k) => ({ name: products[(i + k) % products.length], qty: 1 + ((i + k) % 3), price: 4 + ((i * 7 + k) % 40) }));
  const data = { orderId: 'B' + (100000 + i), items, total: items.reduce((n, it) => n + it.qty * it.price, 0) };
  if (i % 5 !== 0) data.firstName = 'Ada' + (i % 1000);
  return data;
}`;
const sendData = new Function(`${SEND_DATA_SOURCE}; return sendData;`)() as (i: number) => Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Worker threads: the HTTP load and the raw sender, so neither shares an event loop with the sink.

/** N `/v1/send` calls through autocannon; every response must be a 200. */
const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const autocannon = createRequire(workerData.base)('autocannon');
const o = workerData.options;
const now = () => performance.timeOrigin + performance.now();
${SEND_DATA_SOURCE}
let n = 0, ok = 0, bad = 0;
const samples = [];
const started = now();
let finished = 0;
autocannon({
  url: o.url,
  connections: o.connections,
  amount: o.count,
  timeout: 120,
  requests: [{
    method: 'POST',
    path: '/v1/send',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + o.key },
    setupRequest: (req) => {
      const i = n++;
      req.body = JSON.stringify({ to: 'user' + i + '@r' + (i % 50) + '.example.net', template: o.template, data: sendData(i) });
      return req;
    },
    onResponse: (status, body) => {
      finished = now();
      if (status === 200) ok++;
      else { bad++; if (samples.length < 5) samples.push(status + ' ' + String(body).slice(0, 300)); }
    },
  }],
}, (err, r) => {
  if (err) { parentPort.postMessage({ error: String(err) }); return; }
  parentPort.postMessage({ started, finished: finished || now(), ok, bad, samples, errors: r.errors, timeouts: r.timeouts, issued: n });
});
`;

interface LoadOutcome {
  started: number;
  finished: number;
  ok: number;
  bad: number;
  samples: string[];
  errors: number;
  timeouts: number;
  issued: number;
}

/** Raw pooled nodemailer: N copies of one pre-rendered message, DKIM-signed, with a fixed window in flight. */
const RAW_WORKER = `
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
    messageId: '<raw-' + i + '-' + o.stamp + '@' + o.dkim.domainName + '>',
    from: { name: o.fromName, address: o.from },
    to: { name: '', address: to },
    subject: o.subject,
    html: o.html,
    text: o.text,
    envelope: { from: o.from, to: [to] },
    dkim: o.dkim,
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

interface RawOutcome {
  started: number;
  finished: number;
  errors: number;
  samples: string[];
}

function runWorker<T>(source: string, options: unknown): Promise<T> {
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

// ---------------------------------------------------------------------------------------------
// The service as a child process.

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!extra.DATABASE_URL) delete env.DATABASE_URL;
  return env;
}

/** Lines a child writes go to our stderr, prefixed: stdout carries only the result line. */
function forward(child: ChildProcess, label: string): void {
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) process.stderr.write(`[${label}] ${line}\n`);
    });
  }
}

async function createProjectKeys(env: NodeJS.ProcessEnv): Promise<{ id: string; secretKey: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'project:create', '--name', 'bench'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`project:create exited with ${code}: ${err}`);
  const line = out.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as { id: string; secretKey: string };
}

interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function startChild(env: NodeJS.ProcessEnv, port: number, role: 'all' | 'serve' | 'worker', cpuProfDir?: string): Promise<Child> {
  const args = ['--import', 'tsx', ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []), 'src/main.ts', role];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  forward(child, 'service');
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  // A worker serves no HTTP: it is ready once it has started its engines.
  if (role === 'worker') await new Promise((r) => setTimeout(r, 3000));
  for (; role !== 'worker'; ) {
    if (exited !== undefined) throw new Error(`the service exited with ${exited} before it was ready`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('the service did not answer /health within 180 s');
    await new Promise((r) => setTimeout(r, 200));
  }
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

const CLK_TCK = 100;

/** CPU seconds (user + system) a process has used so far, or null when it is gone or unreadable. */
function processCpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

class RssSampler {
  peakKb = 0;
  private timer: NodeJS.Timeout;
  constructor(private readonly pid: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 250);
  }
  sample(): void {
    const kb = statusKb(this.pid, 'VmRSS');
    if (kb !== null && kb > this.peakKb) this.peakKb = kb;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a fresh database on the server of DATABASE_URL, and what it did per message.

async function scratchPg(serverUrl: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `pbx_bench_send_${randomBytes(5).toString('hex')}`;
  const admin = async (text: string) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

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

// ---------------------------------------------------------------------------------------------

async function api(url: string, key: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
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

function expectStatus(r: { status: number; body: unknown }, status: number, what: string): void {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
}

/** POST /domains, the records in the loopback DNS server, GET /domains/{id}/verify (as test/support/domains.ts). */
async function verifiedDomain(url: string, key: string, dns: DnsServer, domain: string): Promise<void> {
  const created = await api(url, key, 'POST', '/domains', { domain });
  expectStatus(created, 201, 'POST /domains');
  for (const record of created.body.records as { type: 'TXT' | 'MX'; name: string; value: string }[]) {
    if (record.type === 'MX') {
      const [priority, exchange] = record.value.split(/\s+/);
      dns.set(record.name, 'MX', [{ priority: Number(priority), exchange: exchange! }]);
    } else dns.set(record.name, 'TXT', [record.value]);
  }
  const checked = await api(url, key, 'GET', `/domains/${created.body.id}/verify`);
  expectStatus(checked, 200, 'GET /domains/{id}/verify');
  if (!checked.body.verified) throw new Error(`domain not verified: ${JSON.stringify(checked.body.records)}`);
}

/** Counts what the sink accepts in the current phase, with the times of the first and last message. */
class Arrivals {
  n = 0;
  first = 0;
  last = 0;
  capture?: (raw: Buffer) => void;
  reset(): void {
    this.n = 0;
    this.first = 0;
    this.last = 0;
  }
  onMessage(raw: Buffer): void {
    const t = now();
    if (this.n === 0) this.first = t;
    this.n++;
    this.last = t;
    if (this.capture) {
      this.capture(raw);
      this.capture = undefined;
    }
  }
  async waitFor(count: number, label: string): Promise<void> {
    let seen = this.n;
    let progressAt = Date.now();
    let reportAt = Date.now() + 10_000;
    while (this.n < count) {
      await new Promise((r) => setTimeout(r, 20));
      if (this.n !== seen) {
        seen = this.n;
        progressAt = Date.now();
      } else if (Date.now() - progressAt > STALL_MS) {
        throw new Error(`${label}: the sink received ${this.n} of ${count} messages, nothing new for ${STALL_MS / 1000} s`);
      }
      if (Date.now() > reportAt) {
        process.stderr.write(`${label}: ${this.n} of ${count} delivered\n`);
        reportAt = Date.now() + 10_000;
      }
    }
  }
}

async function main() {
  const { values } = parseArgs({
    options: { count: { type: 'string', default: '20000' }, connections: { type: 'string', default: '32' } },
  });
  const count = Number(values.count);
  const connections = Number(values.connections);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(connections) || connections < 1) {
    throw new Error('usage: bench/send.ts [--count N] [--connections C]');
  }
  const rawCount = Number(process.env.BENCH_RAW_COUNT ?? Math.max(count, 5000));
  const cleanup = new Cleanup();
  try {
    const arrivals = new Arrivals();
    const sink = await startSmtpSink({ keep: false });
    cleanup.add(() => sink.stop());
    sink.respond((m) => {
      arrivals.onMessage(m.raw);
      return { accept: true };
    });
    const dns = await startDnsServer();
    cleanup.add(() => dns.stop());

    const dir = scratchDir('pbx-bench-send-');
    cleanup.add(dir.remove);
    const env: Record<string, string> = {
      HOST: '127.0.0.1',
      DATA_DIR: dir.dir,
      SMTP_URL: sink.url,
      SMTP_MAX_CONNECTIONS: String(SMTP_CONNECTIONS),
      DELIVERY_CONCURRENCY: String(WINDOW),
      DNS_SERVERS: dns.address,
      RATE_LIMIT_PER_MINUTE: '1000000000',
      LOG_LEVEL: 'warn',
    };
    let scratch: Awaited<ReturnType<typeof scratchPg>> | undefined;
    let stats: pg.Client | undefined;
    if (process.env.DATABASE_URL) {
      scratch = await scratchPg(process.env.DATABASE_URL);
      cleanup.add(() => scratch!.drop());
      env.DATABASE_URL = scratch.url;
    }
    const database = scratch ? 'postgres' : 'pglite';

    const project = await createProjectKeys(childEnv(env));
    const port = await freePort();
    const cpuProfDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
    // On PostgreSQL the API and the worker run as separate processes, as in production; the embedded
    // database can be opened by one process only, so there both roles share one.
    const split = Boolean(scratch) && process.env.BENCH_ROLES !== 'all';
    const childEnvAt = childEnv({ ...env, PORT: String(port), PUBLIC_URL: `http://localhost:${port}` });
    const child = await startChild(childEnvAt, port, split ? 'serve' : 'all', cpuProfDir);
    cleanup.add(() => child.stop());
    const worker = split ? await startChild(childEnvAt, port, 'worker', cpuProfDir) : child;
    if (split) cleanup.add(() => worker.stop());
    const pid = worker.process.pid!;
    const apiPid = child.process.pid!;
    const rss = new RssSampler(pid);
    const rssAtStartKb = statusKb(pid, 'VmRSS');
    cleanup.add(() => rss.stop());
    if (scratch) {
      stats = new pg.Client({ connectionString: scratch.url });
      await stats.connect();
      cleanup.add(() => stats!.end());
    }

    // Project setup through the API: a verified domain and a transactional template.
    await verifiedDomain(child.url, project.secretKey, dns, DOMAIN);
    const template = await api(child.url, project.secretKey, 'POST', '/templates', {
      name: 'Order confirmation',
      subject: TEMPLATE_SUBJECT,
      body: TEMPLATE_BODY,
      from: `orders@${DOMAIN}`,
      fromName: 'Bench Shop',
      type: 'TRANSACTIONAL',
    });
    expectStatus(template, 201, 'POST /templates');
    const templateId = template.body.id as string;

    // One message through the service: the raw reference sends copies of exactly this.
    let sample: Buffer | undefined;
    arrivals.capture = (raw) => (sample = raw);
    const probe = await api(child.url, project.secretKey, 'POST', '/v1/send', {
      to: 'probe@r0.example.net',
      template: templateId,
      data: sendData(1),
    });
    expectStatus(probe, 200, 'probe POST /v1/send');
    await arrivals.waitFor(1, 'probe');
    const parsed = await simpleParser(sample!);
    if (typeof parsed.html !== 'string' || !parsed.text || !parsed.subject) throw new Error('the probe message has no html, text or subject');
    if (!sample!.includes('DKIM-Signature:')) throw new Error('the probe message is not DKIM-signed');
    if (!parsed.html.includes('Ada1') || !parsed.html.includes('Fountain pen')) throw new Error('the probe message is not rendered');

    // Raw reference: same pool size and window as the service, same message, same key size.
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const busyBeforeRawPct = await waitForQuiet(30_000);
    arrivals.reset();
    const raw = await runWorker<RawOutcome>(RAW_WORKER, {
      host: '127.0.0.1',
      port: sink.port,
      connections: SMTP_CONNECTIONS,
      window: WINDOW,
      count: rawCount,
      stamp: randomBytes(4).toString('hex'),
      from: `orders@${DOMAIN}`,
      fromName: 'Bench Shop',
      subject: parsed.subject,
      html: parsed.html,
      text: parsed.text,
      dkim: { domainName: DOMAIN, keySelector: 'bench', privateKey },
    });
    await arrivals.waitFor(rawCount - raw.errors, 'raw');
    const rawPerSec = rawCount / ((arrivals.last - arrivals.first) / 1000);
    const rawWallPerSec = rawCount / ((raw.finished - raw.started) / 1000);

    // Send phase.
    const busyBeforeSendPct = await waitForQuiet(30_000);
    arrivals.reset();
    const pgBefore = stats && scratch ? await pgCounters(stats, scratch.name) : undefined;
    const backendCpu = stats && scratch ? new BackendCpu(stats, scratch.name) : undefined;
    await backendCpu?.start();
    const childCpu0 = processCpuSeconds(pid) ?? 0;
    const apiCpu0 = processCpuSeconds(apiPid) ?? 0;
    const benchCpu0 = process.cpuUsage();
    const load = await runWorker<LoadOutcome>(LOAD_WORKER, {
      url: child.url,
      key: project.secretKey,
      template: templateId,
      connections,
      count,
    });
    const childCpuApi = processCpuSeconds(pid) ?? 0;
    const apiCpu1 = processCpuSeconds(apiPid) ?? 0;
    const deliveredAtApiEnd = arrivals.n;
    if (load.ok !== count) process.stderr.write(`${load.ok} of ${count} calls answered 200 (${load.issued} issued); ${load.samples.join(' | ')}\n`);
    await arrivals.waitFor(load.ok, 'send');
    const childCpu1 = processCpuSeconds(pid) ?? 0;
    const benchCpu1 = process.cpuUsage(benchCpu0);
    const backendCpuUsed = await backendCpu?.stop();
    rss.sample();
    const hwmKb = statusKb(pid, 'VmHWM');

    let db: ReturnType<typeof pgDelta> | undefined;
    if (stats && scratch && pgBefore && backendCpuUsed) {
      await new Promise((r) => setTimeout(r, 1500)); // statistics reach pg_stat_database within a second
      db = pgDelta(pgBefore, await pgCounters(stats, scratch.name), load.ok, backendCpuUsed);
    }

    const apiSeconds = (load.finished - load.started) / 1000;
    const e2eSeconds = (arrivals.last - load.started) / 1000;
    const deliverySeconds = (arrivals.last - arrivals.first) / 1000;
    const deliveryPerSec = load.ok / deliverySeconds;
    const errors = load.bad + load.errors + load.timeouts;
    const result = {
      bench: 'send',
      database,
      count,
      apiRps: round(count / apiSeconds),
      e2eDeliveredPerSec: round(load.ok / e2eSeconds),
      deliveryPerSec: round(deliveryPerSec),
      rawPerSec: round(rawPerSec),
      ratio: round(deliveryPerSec / rawPerSec, 3),
      workerPeakRssMb: round(rss.peakKb / 1024),
      errors,
      details: {
        connections,
        smtpConnections: SMTP_CONNECTIONS,
        deliveryConcurrency: WINDOW,
        rawCount,
        rawErrors: raw.errors,
        rawWallPerSec: round(rawWallPerSec),
        messageBytes: sample!.length,
        apiSeconds: round(apiSeconds, 2),
        e2eSeconds: round(e2eSeconds, 2),
        deliveredWhileApiRan: deliveredAtApiEnd,
        drainSeconds: round((arrivals.last - load.finished) / 1000, 2),
        // Delivery once the API is idle: what the engine does with the process to itself.
        drainPerSec: round((load.ok - deliveredAtApiEnd) / ((arrivals.last - load.finished) / 1000)),
        workerRssAtStartMb: rssAtStartKb === null ? null : round(rssAtStartKb / 1024),
        workerHwmRssMb: hwmKb === null ? null : round(hwmKb / 1024),
        roles: split ? 'serve + worker processes' : 'all in one process',
        // CPU of the measured process (the worker when split) during the API phase and the drain.
        serviceCpuSeconds: { api: round(childCpuApi - childCpu0, 2), drain: round(childCpu1 - childCpuApi, 2) },
        ...(split ? { apiProcessCpuSeconds: round(apiCpu1 - apiCpu0, 2) } : {}),
        benchCpuSeconds: round((benchCpu1.user + benchCpu1.system) / 1e6, 2),
        ...(db ? { db } : {}),
        cpuBusyBeforePct: { raw: busyBeforeRawPct, send: busyBeforeSendPct },
        goals: {
          ratioAtLeast: GOAL_RATIO,
          ratioMet: deliveryPerSec / rawPerSec >= GOAL_RATIO,
          rssBelowMb: GOAL_RSS_MB,
          rssMet: rss.peakKb / 1024 < GOAL_RSS_MB,
        },
        machine: { cpus: os.cpus().length, node: process.version },
      },
    };
    if (load.samples.length) process.stderr.write(`non-200 answers, first ones: ${load.samples.join(' | ')}\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await cleanup.run();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
