/**
 * A workflow run by a burst of events, on PostgreSQL: N contacts (BENCH_CONTACTS, 10,000) are
 * tracked with `signed_up` and enter one workflow
 *
 *   SEND_EMAIL (welcome) → DELAY 1 second → CONDITION data.plan equals "pro"
 *     ├─ yes → SEND_EMAIL (pro tips)
 *     └─ no  → EXIT
 *
 * Half the contacts are on "pro": each of them must receive exactly two messages (welcome, then pro
 * tips), every other contact exactly one (welcome). Every execution takes four steps.
 *
 *   npx tsx bench/workflow.ts                     # prints one JSON line; progress on stderr
 *   BENCH_CONTACTS=1000 npx tsx bench/workflow.ts
 *   BENCH_RATE=200 npx tsx bench/workflow.ts      # the events paced at 200 per second
 *
 * The service runs as child processes on a fresh database: `serve` and `worker` apart, as deployed
 * (BENCH_ROLES=all keeps them in one). The loopback SMTP sink, the DNS server and the HTTP load (a
 * worker thread, BENCH_CONNECTIONS=50 keep-alive connections) live in this process. Measured:
 *
 *   stepsPerSec              4N / (first track request → the last execution finished)
 *   eventToFirstMessageMs    per contact, the welcome message's arrival at the sink − the start of
 *                            its track request: p50, p90, p99, max
 *   engineStepsPerSec        4N / (first execution started → last finished), from the rows' times
 *   messagesPerSec           messages / (first → last arrival at the sink)
 *   worker / serve peak RSS  VmRSS sampled every 250 ms
 *   order                    how closely the welcome messages kept the order of their events
 *   queueLatency             the API process's /metrics scraped every second: the peak age of the
 *                            oldest due item of each queue the events go through, and due counts
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS, BENCH_CONNECTIONS,
 * BENCH_RATE=<events/s> paces the burst (default: as fast as the API answers), BENCH_ROLES=all,
 * SMTP_MAX_CONNECTIONS (5) and DELIVERY_CONCURRENCY (20) for the service, BENCH_CPU_PROF=<dir>
 * writes V8 CPU profiles of the service children into <dir>.
 */

import type pg from 'pg';
import {
  apiCall,
  connectPg,
  createTemplate,
  createVerifiedDomain,
  expectApiStatus,
  freePort,
  PG_SERVER_URL,
  PgPhase,
  prepareMailService,
  processCpuSeconds,
  processStatusKb,
  runEvalWorker,
  startWatchedRoles,
} from './lib.js';
import { MetricsWatch } from './metrics-watch.js';
import type { Cleanup } from './run.js';
import {
  log,
  machineCpu,
  machineInfo,
  percentile,
  reportVerified,
  round,
  runBench,
  waitForQuiet,
  wallNow,
} from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SPLIT = process.env.BENCH_ROLES !== 'all';
/** Events per second the burst is paced at; 0 sends as fast as the API answers. */
const RATE = Number(process.env.BENCH_RATE ?? 0);
const DOMAIN = 'workflow.bench.example.com';
const EVENT = 'signed_up';
/** SEND_EMAIL, DELAY, CONDITION, then SEND_EMAIL (pro) or EXIT (the others). */
const STEPS_PER_EXECUTION = 4;
const GOAL_STEPS_PER_SEC = 1000;
const GOAL_P99_MS = 2000;
/** Given up as stuck when neither the sink nor the executions have moved for this long. */
const STALL_MS = 90_000;

const WELCOME_SUBJECT = 'Welcome to Bench, {{ firstName ?? "friend" }}';
const PRO_SUBJECT = 'Pro tips for your Bench account';
const WELCOME_BODY = `<!doctype html><html><body style="font-family: Helvetica, Arial, sans-serif">
<h1>Welcome, {{ firstName ?? "friend" }}!</h1>
<p>Thanks for signing up for the {{ plan }} plan. Here is how to get started:</p>
<ol><li>Create your first project</li><li>Invite your team</li><li>Connect your domain</li></ol>
<p><a href="https://bench.example.com/start">Open the getting-started guide</a></p>
<p style="color: #888; font-size: 12px">Bench · 1 Example Street · 75000 Paris</p>
</body></html>`;
const PRO_BODY = `<!doctype html><html><body style="font-family: Helvetica, Arial, sans-serif">
<h1>Make the most of Pro, {{ firstName ?? "friend" }}</h1>
<p>Your plan includes priority support and unlimited projects.</p>
<p><a href="https://bench.example.com/pro">See what Pro can do</a></p>
</body></html>`;

const isPro = (i: number) => i % 2 === 0;

// ---------------------------------------------------------------------------------------------
// The burst: N POST /v1/track from a worker thread over keep-alive connections, each request's
// start time kept (wall clock, comparable with the sink's arrival times and the rows' times).

const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const o = workerData.options;
const now = () => performance.timeOrigin + performance.now();
const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
const target = new URL(o.url);
const starts = new Float64Array(o.count);
const ends = new Float64Array(o.count);
let next = 0, ok = 0, bad = 0;
const samples = [];
function post(i) {
  const body = JSON.stringify({
    email: 'u' + i + '@c' + (i % 50) + '.example.net',
    event: o.event,
    data: { plan: i % 2 === 0 ? 'pro' : 'free', firstName: 'Ada' + (i % 1000) },
  });
  return new Promise((resolve) => {
    const req = http.request({
      agent, host: target.hostname, port: target.port, method: 'POST', path: '/v1/track',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer ' + o.key },
    }, (res) => {
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(parts).toString() }));
    });
    req.setTimeout(120000, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, text: String(err) }));
    req.end(body);
  });
}
const t0 = now();
async function loop() {
  while (next < o.count) {
    const i = next++;
    // Paced: request i is sent no earlier than i / rate seconds after the first.
    if (o.rate > 0) {
      const wait = t0 + (i * 1000) / o.rate - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    starts[i] = now();
    const r = await post(i);
    ends[i] = now();
    if (r.status === 200) ok++;
    else { bad++; if (samples.length < 5) samples.push(r.status + ' ' + r.text.slice(0, 300)); }
  }
}
Promise.all(Array.from({ length: o.connections }, loop)).then(() => {
  agent.destroy();
  parentPort.postMessage({ starts, ends, ok, bad, samples }, [starts.buffer, ends.buffer]);
});
`;

interface LoadOutcome {
  starts: Float64Array;
  ends: Float64Array;
  ok: number;
  bad: number;
  samples: string[];
}

function runLoad(options: {
  url: string;
  key: string;
  count: number;
  connections: number;
  event: string;
  rate: number;
}): Promise<LoadOutcome> {
  return runEvalWorker<LoadOutcome>(LOAD_WORKER, options);
}

// ---------------------------------------------------------------------------------------------
// What reaches the sink: per contact, the arrival time of each message and which template it was.

class Mailbox {
  /** Arrival of the contact's first message (wall clock ms), 0 while none. */
  readonly firstAt: Float64Array;
  readonly count: Uint8Array;
  /** Bit 0: the first message was the welcome; bit 1: a later one was the pro message; bit 2: anything out of order. */
  readonly flags: Uint8Array;
  total = 0;
  stray = 0;
  firstArrival = 0;
  lastArrival = 0;

  constructor(n: number) {
    this.firstAt = new Float64Array(n);
    this.count = new Uint8Array(n);
    this.flags = new Uint8Array(n);
  }

  onMessage(to: string[], raw: Buffer): void {
    const t = wallNow();
    if (this.total === 0) this.firstArrival = t;
    this.total++;
    this.lastArrival = t;
    const m = /^u(\d+)@/.exec(to[0] ?? '');
    const i = m ? Number(m[1]) : -1;
    if (to.length !== 1 || i < 0 || i >= this.count.length) {
      this.stray++;
      return;
    }
    // The subject is in the headers, before the first blank line; no need to parse the message.
    const head = raw.subarray(0, Math.max(0, raw.indexOf('\r\n\r\n'))).toString('latin1');
    const pro = head.includes('Pro tips for your Bench');
    const n = ++this.count[i]!;
    if (n === 1) {
      this.firstAt[i] = t;
      if (!pro) this.flags[i]! |= 1;
      else this.flags[i]! |= 4;
    } else if (n === 2 && pro) this.flags[i]! |= 2;
    else this.flags[i]! |= 4;
  }
}

// ---------------------------------------------------------------------------------------------

async function buildWorkflow(url: string, key: string, welcomeId: string, proId: string): Promise<string> {
  const created = await apiCall(url, key, 'POST', '/workflows', {
    name: 'Welcome series',
    triggerConfig: { event: EVENT },
  });
  expectApiStatus(created, 201, 'POST /workflows');
  const id = created.body.id as string;
  const step = async (body: unknown) => {
    const r = await apiCall(url, key, 'POST', `/workflows/${id}/steps`, body);
    expectApiStatus(r, 201, 'POST /workflows/{id}/steps');
    return r.body.id as string;
  };
  const welcome = await step({ type: 'SEND_EMAIL', config: { templateId: welcomeId } });
  const delay = await step({ type: 'DELAY', config: { amount: 1, unit: 'seconds' } });
  const condition = await step({
    type: 'CONDITION',
    config: {
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
    },
  });
  const pro = await step({ type: 'SEND_EMAIL', config: { templateId: proId } });
  const exit = await step({ type: 'EXIT', config: {} });
  for (const [fromStepId, toStepId, branch] of [
    [welcome, delay],
    [delay, condition],
    [condition, pro, 'yes'],
    [condition, exit, 'no'],
  ] as const) {
    const r = await apiCall(url, key, 'POST', `/workflows/${id}/transitions`, {
      fromStepId,
      toStepId,
      ...(branch ? { branch } : {}),
    });
    expectApiStatus(r, 201, 'POST /workflows/{id}/transitions');
  }
  expectApiStatus(
    await apiCall(url, key, 'PATCH', `/workflows/${id}`, { enabled: true }),
    200,
    'PATCH /workflows/{id}',
  );
  return id;
}

async function executionTotal(url: string, key: string, workflowId: string, status?: string): Promise<number> {
  const r = await apiCall(
    url,
    key,
    'GET',
    `/workflows/${workflowId}/executions?limit=1${status ? `&status=${status}` : ''}`,
  );
  expectApiStatus(r, 200, 'GET /workflows/{id}/executions');
  return r.body.total as number;
}

const ms = (x: number) => round(x, 0);

function spread(values: number[]) {
  const sorted = values.slice().sort((a, b) => a - b);
  return {
    p50: ms(percentile(sorted, 50)),
    p90: ms(percentile(sorted, 90)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted.at(-1) ?? NaN),
  };
}

/**
 * Whether the welcome messages left in the order their events came: each contact's rank by the
 * start of its track request against its rank by its welcome's arrival. A queue served in order
 * keeps the displacement within what is in flight at once, however long the queue grows.
 */
function arrivalOrder(starts: Float64Array, arrivals: Float64Array) {
  const contacts = Array.from(arrivals.keys()).filter((i) => arrivals[i]! > 0);
  const rankBy = (time: Float64Array) =>
    new Map(
      contacts
        .slice()
        .sort((a, b) => time[a]! - time[b]!)
        .map((i, r) => [i, r]),
    );
  const byEvent = rankBy(starts);
  const byArrival = rankBy(arrivals);
  const displacement = contacts.map((i) => Math.abs(byEvent.get(i)! - byArrival.get(i)!));
  const n = contacts.length;
  const squares = displacement.reduce((sum, d) => sum + d * d, 0);
  const sorted = displacement.slice().sort((a, b) => a - b);
  return {
    // Spearman's rank correlation: 1 when every message left exactly in the order of its event.
    rankCorrelation: round(1 - (6 * squares) / (n * (n * n - 1)), 4),
    displacement: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN },
  };
}

/** The queues a tracked event goes through on its way to the welcome message, as /metrics shows them. */
const QUEUE_GAUGES = {
  outboxOldestDueSeconds: { name: 'postbox_event_outbox_oldest_due_seconds', series: true },
  workflowStepsOldestDueSeconds: { name: 'postbox_workflow_executions_oldest_due_seconds', series: true },
  transactionalEmailsOldestDueSeconds: {
    name: 'postbox_email_queue_oldest_due_seconds',
    labels: { lane: 'transactional' },
    series: true,
  },
  outboxDue: { name: 'postbox_event_outbox', labels: { state: 'due' } },
  workflowStepsDue: { name: 'postbox_workflow_executions', labels: { state: 'due' } },
  transactionalEmailsDue: { name: 'postbox_email_queue', labels: { lane: 'transactional', state: 'due' } },
};

/** What a stuck run left behind: the queued emails and the unfinished executions, grouped. */
async function leftBehind(stats: pg.Client, workflowId: string): Promise<string> {
  const r = await stats.query(
    `select 'emails' as what, json_agg(g) as groups from (
       select campaign_id is null as transactional, locked_by is not null as claimed,
         next_attempt_at <= now() as due, attempts, left(last_error, 200) as last_error, count(*)::int as n,
         min(created_at) as oldest
       from emails where status = 'queued' group by 1, 2, 3, 4, 5) g
     union all
     select 'executions', json_agg(g) from (
       select status, locked_until > now() as leased, next_run_at <= now() as due, attempts,
         left(last_error, 200) as last_error, count(*)::int as n, min(started_at) as oldest
       from workflow_executions where workflow_id = $1 and finished_at is null group by 1, 2, 3, 4, 5) g`,
    [workflowId],
  );
  return JSON.stringify(Object.fromEntries(r.rows.map((row) => [row.what, row.groups])));
}

async function main(cleanup: Cleanup) {
  if (
    !Number.isInteger(CONTACTS) ||
    CONTACTS < 2 ||
    !Number.isInteger(CONNECTIONS) ||
    CONNECTIONS < 1 ||
    !(RATE >= 0)
  ) {
    throw new Error('BENCH_CONTACTS must be an integer ≥ 2, BENCH_CONNECTIONS ≥ 1 and BENCH_RATE ≥ 0');
  }
  const mailbox = new Mailbox(CONTACTS);
  const onMessage = (m: { to: string[]; raw: Buffer }) => mailbox.onMessage(m.to, m.raw);
  const {
    mail,
    port,
    env,
    db: scratch,
    project,
  } = await prepareMailService(cleanup, 'workflow', PG_SERVER_URL, onMessage);
  const metricsPort = await freePort();
  const { api, workerPid, apiPid, workerRss, apiRss } = await startWatchedRoles(cleanup, env, port, SPLIT, {
    METRICS_PORT: String(metricsPort),
  });
  // The queue gauges are the database's, the same from every process: the API's is the one less busy.
  const queueWatch = new MetricsWatch(`http://127.0.0.1:${metricsPort}/metrics`, QUEUE_GAUGES);
  cleanup.add(async () => void (await queueWatch.stop()));
  const stats = await connectPg(cleanup, scratch.url);

  // Setup through the API.
  const sk = project.secretKey;
  await createVerifiedDomain(api.url, sk, mail.dns, DOMAIN);
  const template = (name: string, subject: string, body: string) =>
    createTemplate(api.url, sk, {
      name,
      subject,
      body,
      from: `hello@${DOMAIN}`,
      fromName: 'Bench',
      type: 'TRANSACTIONAL',
    });
  const welcomeId = await template('Welcome', WELCOME_SUBJECT, WELCOME_BODY);
  const proId = await template('Pro tips', PRO_SUBJECT, PRO_BODY);
  const workflowId = await buildWorkflow(api.url, sk, welcomeId, proId);
  log(
    `setup done: workflow ${workflowId}, ${CONTACTS} contacts from ${CONNECTIONS} connections, roles ${SPLIT ? 'serve + worker' : 'all'}`,
  );

  const cpuBusyBeforePct = await waitForQuiet();
  // The machine is shared: what the run's own processes used, against what the whole machine did.
  const machine = machineCpu();
  const pgPhase = await PgPhase.start(stats, scratch.name);
  const benchCpu0 = process.cpuUsage();
  const workerCpu0 = processCpuSeconds(workerPid) ?? 0;
  const apiCpu0 = processCpuSeconds(apiPid) ?? 0;
  const rssAtStartKb = processStatusKb(workerPid, 'VmRSS');

  // Poll the executions' counts through the API until all have finished.
  const expectedPro = Math.ceil(CONTACTS / 2);
  let finishedSeenAt = 0;
  let finishedCount = 0;
  let polling = true;
  let pollError: unknown;
  cleanup.add(() => {
    polling = false;
  });
  const poller = (async () => {
    while (polling) {
      await new Promise((r) => setTimeout(r, 250));
      const [completed, exited] = await Promise.all([
        executionTotal(api.url, sk, workflowId, 'completed'),
        executionTotal(api.url, sk, workflowId, 'exited'),
      ]);
      finishedCount = completed + exited;
      if (finishedCount >= CONTACTS) {
        finishedSeenAt = wallNow();
        return;
      }
    }
  })().catch((err) => {
    pollError = err;
  });

  const started = wallNow();
  queueWatch.start();
  log('burst started');
  const load = await runLoad({
    url: api.url,
    key: project.publicKey,
    count: CONTACTS,
    connections: CONNECTIONS,
    event: EVENT,
    rate: RATE,
  });
  const burstEnd = wallNow();
  const apiCpuBurst = (processCpuSeconds(apiPid) ?? 0) - apiCpu0;
  log(
    `burst done: ${load.ok} of ${CONTACTS} answered 200 in ${round((burstEnd - started) / 1000, 2)} s; ${mailbox.total} messages so far`,
  );
  if (load.bad) throw new Error(`${load.bad} track requests failed: ${load.samples.join(' | ')}`);

  // Wait for every message and every execution.
  const expectedMessages = CONTACTS + expectedPro;
  let seen = -1;
  let progressAt = Date.now();
  let reportAt = Date.now() + 5000;
  while (mailbox.total < expectedMessages || finishedSeenAt === 0) {
    await new Promise((r) => setTimeout(r, 50));
    if (pollError) throw pollError;
    const progress = mailbox.total + finishedCount;
    if (progress !== seen) {
      seen = progress;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > STALL_MS) {
      throw new Error(
        `stuck: ${mailbox.total} of ${expectedMessages} messages, ${finishedCount} of ${CONTACTS} executions finished; ` +
          (await leftBehind(stats, workflowId)),
      );
    }
    if (Date.now() > reportAt) {
      log(`${mailbox.total} of ${expectedMessages} messages, ${finishedCount} of ${CONTACTS} executions finished`);
      reportAt = Date.now() + 5000;
    }
  }
  polling = false;
  await poller;
  const queueLatency = await queueWatch.stop();
  const runSeconds = (wallNow() - started) / 1000;
  const cpuBusyDuringPct = machine.pct();
  await pgPhase.stopCpu();
  const workerCpu = (processCpuSeconds(workerPid) ?? 0) - workerCpu0;
  const apiCpu = (processCpuSeconds(apiPid) ?? 0) - apiCpu0;
  const benchCpu = process.cpuUsage(benchCpu0);
  const benchCpuSeconds = (benchCpu.user + benchCpu.system) / 1e6;
  const databaseCpuSeconds = (await pgPhase.perMessage(expectedMessages)).backendCpuSeconds;
  const ownCpu = workerCpu + (SPLIT ? apiCpu : 0) + databaseCpuSeconds + benchCpuSeconds;
  workerRss.sample();
  apiRss?.sample();
  // A message more than expected would arrive just after the last one: give it a moment.
  await new Promise((r) => setTimeout(r, 1000));
  log(`all ${mailbox.total} messages and ${CONTACTS} executions done`);

  // Verification through the API: every execution finished, pro ones completed, the others exited.
  const [completed, exited, all] = await Promise.all([
    executionTotal(api.url, sk, workflowId, 'completed'),
    executionTotal(api.url, sk, workflowId, 'exited'),
    executionTotal(api.url, sk, workflowId),
  ]);
  const problems: string[] = [];
  if (completed !== expectedPro || exited !== CONTACTS - expectedPro || all !== CONTACTS) {
    problems.push(
      `executions: ${completed} completed (expected ${expectedPro}), ${exited} exited (expected ${CONTACTS - expectedPro}), ${all} in all`,
    );
  }
  // Every contact got exactly its messages, welcome first.
  let wrongCount = 0;
  let wrongOrder = 0;
  for (let i = 0; i < CONTACTS; i++) {
    const want = isPro(i) ? 2 : 1;
    if (mailbox.count[i] !== want) wrongCount++;
    else if (mailbox.flags[i] !== (isPro(i) ? 3 : 1)) wrongOrder++;
  }
  if (wrongCount) problems.push(`${wrongCount} contacts did not get exactly their messages`);
  if (wrongOrder) problems.push(`${wrongOrder} contacts got their messages in the wrong order or the wrong ones`);
  if (mailbox.stray) problems.push(`${mailbox.stray} messages to unexpected recipients`);
  if (mailbox.total !== expectedMessages) problems.push(`${mailbox.total} messages, expected ${expectedMessages}`);

  // The rows' own times (written by the worker, same clock): the steps taken and where the time went.
  const rows = await stats.query<Record<string, string | number | null>>(
    `select
       (select count(*) from workflow_execution_steps s join workflow_executions x on x.id = s.execution_id where x.workflow_id = $1)::int as steps,
       extract(epoch from min(x.started_at)) * 1000 as first_started,
       extract(epoch from max(x.finished_at)) * 1000 as last_finished
     from workflow_executions x where x.workflow_id = $1`,
    [workflowId],
  );
  const r0 = rows.rows[0]!;
  const historySteps = Number(r0.steps);
  if (historySteps !== CONTACTS * STEPS_PER_EXECUTION)
    problems.push(`${historySteps} history rows, expected ${CONTACTS * STEPS_PER_EXECUTION}`);
  const firstStarted = Number(r0.first_started);
  const lastFinished = Number(r0.last_finished);
  const stages = await stats.query<{ event_to_start: number; start_to_email: number; email_to_sent: number }>(
    `select extract(epoch from x.started_at - e.created_at) * 1000 as event_to_start,
            extract(epoch from m.created_at - x.started_at) * 1000 as start_to_email,
            extract(epoch from m.sent_at - m.created_at) * 1000 as email_to_sent
     from workflow_executions x
     join events e on e.id = (x.context->'event'->>'id')::uuid
     join emails m on m.contact_id = x.contact_id and m.template_id = $2
     where x.workflow_id = $1`,
    [workflowId, welcomeId],
  );

  const latencies: number[] = [];
  for (let i = 0; i < CONTACTS; i++) if (mailbox.firstAt[i]) latencies.push(mailbox.firstAt[i]! - load.starts[i]!);
  const trackLatencies = Array.from(load.ends, (e, i) => e - load.starts[i]!);
  const totalSteps = CONTACTS * STEPS_PER_EXECUTION;
  const windowMs = lastFinished - started;
  const e2e = spread(latencies);
  const stepsPerSec = totalSteps / (windowMs / 1000);
  const result = {
    bench: 'workflow',
    database: 'postgres',
    roles: SPLIT ? 'serve + worker' : 'all',
    eventsPerSec: RATE || null,
    contacts: CONTACTS,
    steps: totalSteps,
    stepsPerSec: round(stepsPerSec),
    eventToFirstMessageMs: e2e,
    messages: mailbox.total,
    deliveredPct: round((100 * mailbox.total) / expectedMessages, 2),
    messagesPerSec: round(mailbox.total / ((mailbox.lastArrival - mailbox.firstArrival) / 1000)),
    order: arrivalOrder(load.starts, mailbox.firstAt),
    queueLatency,
    workerPeakRssMb: round(workerRss.peakKb / 1024),
    servePeakRssMb: apiRss ? round(apiRss.peakKb / 1024) : null,
    cpuBusyBeforePct,
    cpuBusyDuringPct,
    // The machine's CPU used by anything but this run's processes (the bench, the service, its
    // database backends) while it ran: other work on the shared machine.
    otherWorkCpuPct:
      cpuBusyDuringPct === null
        ? null
        : round(Math.max(0, cpuBusyDuringPct - (100 * ownCpu) / (runSeconds * machineInfo().cpus))),
    ok: problems.length === 0,
    details: {
      connections: CONNECTIONS,
      rate: RATE || null,
      stepsPerExecution: STEPS_PER_EXECUTION,
      windowSeconds: round(windowMs / 1000, 2),
      // Seen by polling the API every 250 ms (at most that much after the rows' last finishedAt).
      allFinishedSeenSeconds: round((finishedSeenAt - started) / 1000, 2),
      engineStepsPerSec: round(totalSteps / ((lastFinished - firstStarted) / 1000)),
      engineWindowSeconds: round((lastFinished - firstStarted) / 1000, 2),
      burstSeconds: round((burstEnd - started) / 1000, 2),
      trackRps: round(CONTACTS / ((burstEnd - started) / 1000)),
      trackLatencyMs: spread(trackLatencies),
      lastMessageSeconds: round((mailbox.lastArrival - started) / 1000, 2),
      // Per contact, from the rows: event stored → execution started (the event dispatcher),
      // started → welcome email stored (the engine), stored → sent (delivery).
      stagesMs: {
        eventToExecution: spread(stages.rows.map((s) => Number(s.event_to_start))),
        executionToEmail: spread(stages.rows.map((s) => Number(s.start_to_email))),
        emailToSent: spread(stages.rows.map((s) => Number(s.email_to_sent))),
      },
      workerCpuSeconds: round(workerCpu, 2),
      databaseCpuSeconds,
      benchCpuSeconds: round(benchCpuSeconds, 2),
      runSeconds: round(runSeconds, 2),
      serveCpuSeconds: SPLIT ? { burst: round(apiCpuBurst, 2), total: round(apiCpu, 2) } : null,
      workerRssAtStartMb: rssAtStartKb === null ? null : round(rssAtStartKb / 1024),
      goals: {
        stepsPerSecAtLeast: GOAL_STEPS_PER_SEC,
        stepsPerSecMet: stepsPerSec >= GOAL_STEPS_PER_SEC,
        p99BelowMs: GOAL_P99_MS,
        p99Met: e2e.p99 < GOAL_P99_MS,
      },
      problems,
      machine: machineInfo(),
    },
  };
  return reportVerified(result, problems);
}

runBench(main);
