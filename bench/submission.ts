/**
 * SMTP submission next to POST /v1/send, in one run: the same messages (a 4 KB HTML order
 * confirmation, no template, one distinct recipient each) accepted by the service and delivered into
 * a loopback SMTP sink, first through the API, then over SMTP submission.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/submission.ts [--count 10000] [--connections 16] [--rounds 2]
 *   npx tsx bench/submission.ts [--count …]                     # embedded PostgreSQL
 *
 * The service runs as child processes, `serve` (the API and the submission listener) and `worker`
 * apart, as deployed (BENCH_ROLES=all keeps them in one). The sink and the DNS server live in this
 * process; each load generator runs in a worker thread of it:
 *   api   autocannon, `--connections` keep-alive connections, N `POST /v1/send` calls;
 *   smtp  pooled nodemailer, `--connections` connections authenticated with the secret key (AUTH
 *         PLAIN, no TLS on loopback: the API side has none either), N messages, one per connection
 *         in flight (PIPELINING: the envelope and DATA in one round trip, the message in a second).
 * The two paths take turns, `--rounds` times each; each is reported by its best round. Prints one
 * JSON line:
 *   acceptedPerSec    N / (first request → last answer): 200 for the API, 250 for SMTP
 *   deliveredPerSec   N / (first request → last message received by the sink)
 *   ratio             smtp / api, of each (goal: accepted ≥ 0.8)
 */
import { parseArgs } from 'node:util';
import {
  apiCall,
  createVerifiedDomain,
  DELIVERY_POOL,
  expectApiStatus,
  freePort,
  prepareMailService,
  processCpuSeconds,
  runEvalWorker,
  SinkArrivals,
  startServiceRoles,
} from './lib.js';
import { type Cleanup, log, machineInfo, printResult, round, runBench, waitForQuiet } from './run.js';

const DOMAIN = 'submission.bench.example.com';
const FROM = `orders@${DOMAIN}`;
const GOAL_RATIO = 0.8;
const STALL_MS = 90_000;

const ITEMS = ['Notebook', 'Fountain pen', 'Ink cartridges (6)', 'Desk lamp'];
const HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Your order</title></head>
<body style="font-family: Helvetica, Arial, sans-serif; color: #222; margin: 0; padding: 0">
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table width="600" cellpadding="16" cellspacing="0" style="border: 1px solid #eee">
<tr><td><h1 style="font-size: 22px">Hi Ada,</h1>
<p>Thank you for your order. We have received it and will let you know as soon as it ships. Here is what you bought:</p>
<table width="100%" cellpadding="6" cellspacing="0" style="border-collapse: collapse">
<tr style="background: #f6f6f6"><th align="left">Item</th><th align="right">Qty</th><th align="right">Price</th></tr>
${ITEMS.map((name, i) => `<tr><td>${name}</td><td align="right">${i + 1}</td><td align="right">${7 + i * 3} EUR</td></tr>`).join('\n')}
</table>
<p>Total: <strong>58 EUR</strong></p>
<p><a href="https://shop.example.com/orders/latest" style="background: #0a6; color: #fff; padding: 10px 16px; text-decoration: none">View your order</a></p>
<p>Questions? Reply to this email or visit our <a href="https://shop.example.com/help">help centre</a>. Returns are free within
30 days of delivery; see <a href="https://shop.example.com/returns">how returns work</a>.</p>
<p style="color: #888; font-size: 12px">Bench Shop · 1 Example Street · 75000 Paris · You receive this email because you placed
an order on shop.example.com.</p>
</td></tr></table></td></tr></table>
</body></html>`;

interface LoadOutcome {
  started: number;
  finished: number;
  ok: number;
  bad: number;
  samples: string[];
}

/** N `POST /v1/send` calls through autocannon; a 200 counts as accepted. */
const API_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const autocannon = createRequire(workerData.base)('autocannon');
const o = workerData.options;
const now = () => performance.timeOrigin + performance.now();
let n = 0, ok = 0, bad = 0, finished = 0;
const samples = [];
const started = now();
autocannon({
  url: o.url, connections: o.connections, amount: o.count, timeout: 120,
  requests: [{
    method: 'POST', path: '/v1/send',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + o.key },
    setupRequest: (req) => {
      const i = n++;
      req.body = JSON.stringify({ to: 'api' + i + '@r' + (i % 50) + '.example.net', from: { name: 'Bench Shop', email: o.from }, subject: 'Order B' + (100000 + i) + ' is confirmed', body: o.html });
      return req;
    },
    onResponse: (status, body) => {
      finished = now();
      if (status === 200) ok++;
      else { bad++; if (samples.length < 5) samples.push(status + ' ' + String(body).slice(0, 300)); }
    },
  }],
}, (err) => {
  if (err) parentPort.postMessage({ error: String(err) });
  else parentPort.postMessage({ started, finished: finished || now(), ok, bad, samples });
});
`;

/**
 * N messages over SMTP submission through pooled nodemailer; a 250 with an email id counts as
 * accepted. Each message is written here as MIME text around a body encoded once (nodemailer then
 * only sends it), so that building messages costs the load generator about what building JSON
 * bodies costs autocannon: both share the machine's two cores with the service.
 */
const SMTP_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const nodemailer = createRequire(workerData.base)('nodemailer');
const o = workerData.options;
const now = () => performance.timeOrigin + performance.now();
const transport = nodemailer.createTransport({
  pool: true, maxConnections: o.connections, maxMessages: Infinity, host: '127.0.0.1', port: o.port,
  secure: false, ignoreTLS: true, auth: { user: 'bench', pass: o.key },
});
const body = Buffer.from(o.html).toString('base64').replace(/.{76}/g, '$&\\r\\n');
let next = 0, done = 0, ok = 0, bad = 0, finished = 0;
const samples = [];
const started = now();
function one() {
  if (next >= o.count) return;
  const i = next++;
  const to = 'smtp' + i + '@r' + (i % 50) + '.example.net';
  const raw = 'From: Bench Shop <' + o.from + '>\\r\\nTo: ' + to + '\\r\\nSubject: Order B' + (100000 + i) +
    ' is confirmed\\r\\nMIME-Version: 1.0\\r\\nContent-Type: text/html; charset=utf-8\\r\\n' +
    'Content-Transfer-Encoding: base64\\r\\n\\r\\n' + body + '\\r\\n';
  transport.sendMail({ envelope: { from: o.from, to: [to] }, raw }).then((info) => {
    if (/^250 Accepted: [0-9a-f-]{36}$/.test(info.response)) ok++;
    else { bad++; if (samples.length < 5) samples.push(info.response); }
  }, (err) => { bad++; if (samples.length < 5) samples.push(String(err)); }).finally(() => {
    finished = now();
    if (++done === o.count) { transport.close(); parentPort.postMessage({ started, finished, ok, bad, samples }); }
    else one();
  });
}
for (let k = 0; k < o.connections; k++) one();
`;

interface Phase {
  acceptedPerSec: number;
  deliveredPerSec: number;
  errors: number;
  acceptSeconds: number;
  deliverSeconds: number;
  serveCpuSeconds: number | null;
  workerCpuSeconds: number | null;
  cpuBusyBeforePct: number | null;
}

async function main(cleanup: Cleanup) {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '10000' },
      connections: { type: 'string', default: '16' },
      rounds: { type: 'string', default: '2' },
    },
  });
  const count = Number(values.count);
  const connections = Number(values.connections);
  const roundCount = Number(values.rounds);
  if ([count, connections, roundCount].some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('usage: bench/submission.ts [--count N] [--connections C] [--rounds R]');

  const arrivals = new SinkArrivals(STALL_MS);
  const smtpPort = await freePort();
  const setup = await prepareMailService(
    cleanup,
    'submission',
    process.env.DATABASE_URL,
    (m) => arrivals.onMessage(m.raw),
    {
      SUBMISSION_SMTP_PORT: String(smtpPort),
      SUBMISSION_ALLOW_INSECURE_AUTH: 'true',
    },
  );
  const { mail, port, env, project } = setup;
  const split = process.env.BENCH_ROLES !== 'all';
  const { api, worker } = await startServiceRoles(cleanup, env, port, split);
  await createVerifiedDomain(api.url, project.secretKey, mail.dns, DOMAIN);

  // One message each way first: both must arrive, signed.
  const viaApi = await arrivals.probe(async () => {
    const r = await apiCall(api.url, project.secretKey, 'POST', '/v1/send', {
      to: 'probe-api@r0.example.net',
      from: FROM,
      subject: 'Probe',
      body: HTML,
    });
    expectApiStatus(r, 200, 'probe POST /v1/send');
  });
  const viaSmtp = await arrivals.probe(async () => {
    const r = await runEvalWorker<LoadOutcome>(SMTP_WORKER, {
      port: smtpPort,
      key: project.secretKey,
      from: FROM,
      html: HTML,
      count: 1,
      connections: 1,
    });
    if (r.ok !== 1) throw new Error(`probe over SMTP failed: ${r.samples.join(' | ')}`);
  });

  const cpu = (pid: number | undefined) => (pid === undefined ? null : processCpuSeconds(pid));
  const phase = async (label: string, source: string, options: Record<string, unknown>): Promise<Phase> => {
    const cpuBusyBeforePct = await waitForQuiet(30_000);
    arrivals.reset();
    const serve0 = cpu(api.process.pid);
    const worker0 = split ? cpu(worker.process.pid) : null;
    log(`${label}: ${count} messages from ${connections} connections`);
    const load = await runEvalWorker<LoadOutcome>(source, { ...options, count, connections, from: FROM, html: HTML });
    if (load.bad) process.stderr.write(`${label}: ${load.bad} not accepted; ${load.samples.join(' | ')}\n`);
    await arrivals.waitFor(load.ok, label);
    const serve1 = cpu(api.process.pid);
    const worker1 = split ? cpu(worker.process.pid) : null;
    const acceptSeconds = (load.finished - load.started) / 1000;
    const deliverSeconds = (arrivals.last - load.started) / 1000;
    return {
      acceptedPerSec: round(load.ok / acceptSeconds),
      deliveredPerSec: round(load.ok / deliverSeconds),
      errors: load.bad,
      acceptSeconds: round(acceptSeconds, 2),
      deliverSeconds: round(deliverSeconds, 2),
      serveCpuSeconds: serve0 === null || serve1 === null ? null : round(serve1 - serve0, 2),
      workerCpuSeconds: worker0 === null || worker1 === null ? null : round(worker1 - worker0, 2),
      cpuBusyBeforePct,
    };
  };

  // The paths take turns, so that a disturbance of the shared machine does not fall on one of them
  // only; each is reported by its best round.
  const rounds: { api: Phase; smtp: Phase }[] = [];
  for (let r = 0; r < roundCount; r++) {
    const viaHttp = await phase('api', API_WORKER, { url: api.url, key: project.secretKey });
    const viaSubmission = await phase('smtp', SMTP_WORKER, { port: smtpPort, key: project.secretKey });
    rounds.push({ api: viaHttp, smtp: viaSubmission });
  }
  const best = (path: 'api' | 'smtp') =>
    rounds.map((r) => r[path]).reduce((a, b) => (b.acceptedPerSec > a.acceptedPerSec ? b : a));
  const viaHttp = best('api');
  const viaSubmission = best('smtp');
  const acceptedRatio = viaSubmission.acceptedPerSec / viaHttp.acceptedPerSec;
  printResult({
    bench: 'submission',
    database: setup.db ? 'postgres' : 'embedded',
    count,
    connections,
    rounds: roundCount,
    api: viaHttp,
    smtp: viaSubmission,
    ratio: {
      accepted: round(acceptedRatio, 3),
      delivered: round(viaSubmission.deliveredPerSec / viaHttp.deliveredPerSec, 3),
    },
    details: {
      roles: split ? 'serve + worker processes' : 'all in one process',
      ...DELIVERY_POOL,
      messageBytes: { api: viaApi.raw.length, smtp: viaSmtp.raw.length },
      acceptedPerSecByRound: rounds.map((r) => ({ api: r.api.acceptedPerSec, smtp: r.smtp.acceptedPerSec })),
      goals: { acceptedRatioAtLeast: GOAL_RATIO, met: acceptedRatio >= GOAL_RATIO },
      machine: machineInfo(),
    },
  });
}

runBench(main);
