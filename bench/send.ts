/**
 * POST /v1/send with a template and variables, delivered into a loopback SMTP sink, next to raw
 * pooled nodemailer sending the same pre-rendered (and DKIM-signed) messages into the same sink.
 *
 *   npx tsx bench/send.ts [--count 20000] [--connections 32]       # embedded PostgreSQL
 *   DATABASE_URL=postgres://… npx tsx bench/send.ts [--count …]      # a fresh database on that server
 *
 * The service runs as child processes, so their RSS and CPU are their own: `serve` and `worker`
 * apart, as deployed (BENCH_ROLES=all keeps them in one process). The worker's VmRSS is sampled every 250 ms
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
import { parseArgs } from 'node:util';
import {
  apiCall,
  connectPg,
  createTemplate,
  createVerifiedDomain,
  DELIVERY_POOL,
  expectApiStatus,
  PgPhase,
  prepareMailService,
  processCpuSeconds,
  processStatusKb,
  rsaKeyPem,
  runEvalWorker,
  runRawSender,
  SinkArrivals,
  startServiceRoles,
  watchPeakRss,
} from './lib.js';
import { type Cleanup, machineInfo, printResult, round, runBench, waitForQuiet } from './run.js';

const DOMAIN = 'send.bench.example.com';
const GOAL_RATIO = 0.7;
const GOAL_RSS_MB = 300;
/** Delivery is given up as stuck when the sink has received nothing new for this long. */
const STALL_MS = 90_000;

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

async function main(cleanup: Cleanup) {
  const { values } = parseArgs({
    options: { count: { type: 'string', default: '20000' }, connections: { type: 'string', default: '32' } },
  });
  const count = Number(values.count);
  const connections = Number(values.connections);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(connections) || connections < 1) {
    throw new Error('usage: bench/send.ts [--count N] [--connections C]');
  }
  const rawCount = Number(process.env.BENCH_RAW_COUNT ?? Math.max(count, 5000));
  const arrivals = new SinkArrivals(STALL_MS);
  const setup = await prepareMailService(cleanup, 'send', process.env.DATABASE_URL, (m) => arrivals.onMessage(m.raw));
  const { mail, port, env, db: scratch, project } = setup;
  const database = scratch ? 'postgres' : 'embedded';

  // The API and the worker run as separate processes, as in production.
  const split = process.env.BENCH_ROLES !== 'all';
  const { api: child, worker } = await startServiceRoles(cleanup, env, port, split);
  const pid = worker.process.pid!;
  const apiPid = child.process.pid!;
  const rss = watchPeakRss(cleanup, pid);
  const rssAtStartKb = processStatusKb(pid, 'VmRSS');
  const stats = scratch ? await connectPg(cleanup, scratch.url) : undefined;

  // Project setup through the API: a verified domain and a transactional template.
  await createVerifiedDomain(child.url, project.secretKey, mail.dns, DOMAIN);
  const templateId = await createTemplate(child.url, project.secretKey, {
    name: 'Order confirmation',
    subject: TEMPLATE_SUBJECT,
    body: TEMPLATE_BODY,
    from: `orders@${DOMAIN}`,
    fromName: 'Bench Shop',
    type: 'TRANSACTIONAL',
  });

  // One message through the service: the raw reference sends copies of exactly this.
  const parsed = await arrivals.probe(async () => {
    const probe = await apiCall(child.url, project.secretKey, 'POST', '/v1/send', {
      to: 'probe@r0.example.net',
      template: templateId,
      data: sendData(1),
    });
    expectApiStatus(probe, 200, 'probe POST /v1/send');
  });
  if (!parsed.html.includes('Ada1') || !parsed.html.includes('Fountain pen'))
    throw new Error('the probe message is not rendered');

  // Raw reference: same pool size and window as the service, same message, same key size.
  const privateKey = rsaKeyPem();
  const busyBeforeRawPct = await waitForQuiet(30_000);
  arrivals.reset();
  const raw = await runRawSender({
    sink: mail.sink,
    count: rawCount,
    domain: DOMAIN,
    privateKey,
    from: `orders@${DOMAIN}`,
    fromName: 'Bench Shop',
    probe: parsed,
  });
  await arrivals.waitFor(rawCount - raw.errors, 'raw');
  const rawPerSec = rawCount / ((arrivals.last - arrivals.first) / 1000);
  const rawWallPerSec = rawCount / ((raw.finished - raw.started) / 1000);

  // Send phase.
  const busyBeforeSendPct = await waitForQuiet(30_000);
  arrivals.reset();
  const pgPhase = stats && scratch ? await PgPhase.start(stats, scratch.name) : undefined;
  const childCpu0 = processCpuSeconds(pid) ?? 0;
  const apiCpu0 = processCpuSeconds(apiPid) ?? 0;
  const benchCpu0 = process.cpuUsage();
  const load = await runEvalWorker<LoadOutcome>(LOAD_WORKER, {
    url: child.url,
    key: project.secretKey,
    template: templateId,
    connections,
    count,
  });
  const childCpuApi = processCpuSeconds(pid) ?? 0;
  const apiCpu1 = processCpuSeconds(apiPid) ?? 0;
  const deliveredAtApiEnd = arrivals.n;
  if (load.ok !== count)
    process.stderr.write(
      `${load.ok} of ${count} calls answered 200 (${load.issued} issued); ${load.samples.join(' | ')}\n`,
    );
  await arrivals.waitFor(load.ok, 'send');
  const childCpu1 = processCpuSeconds(pid) ?? 0;
  const benchCpu1 = process.cpuUsage(benchCpu0);
  await pgPhase?.stopCpu();
  rss.sample();
  const hwmKb = processStatusKb(pid, 'VmHWM');

  const db = await pgPhase?.perMessage(load.ok);

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
      ...DELIVERY_POOL,
      rawCount,
      rawErrors: raw.errors,
      rawWallPerSec: round(rawWallPerSec),
      messageBytes: parsed.raw.length,
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
      machine: machineInfo(),
    },
  };
  if (load.samples.length) process.stderr.write(`non-200 answers, first ones: ${load.samples.join(' | ')}\n`);
  printResult(result);
}

runBench(main);
