/**
 * POST /v1/forms/<id>/submissions with valid proofs of work, next to POST /v1/track on the same
 * service in the same run (issue 26: forms at least 0.5× the track rate, p99 under 100 ms).
 *
 *   npx tsx bench/form-submissions.ts            # prints one JSON line
 *
 * The service runs as child processes, `serve` and `worker` apart as deployed (BENCH_ROLES=all: one
 * `all` process), on a scratch database of the PostgreSQL server; the worker delivers the
 * confirmation emails meanwhile, into a loopback SMTP sink. Both rates are of the same `serve`;
 * the DNS server the address checks ask (NS, MX, A of 50 recipient domains) and the sink live in
 * this process, the load generators in worker threads. The form has double opt-in (the default):
 * every submission is a new address, so each one creates a pending contact, a signup and a
 * confirmation email on the transactional lane, the heaviest path a submission takes.
 *
 * The proofs of work are solved before the clock starts: N challenges are fetched from the form's
 * GET /v1/forms/<id>/challenge (issued and signed by the service, at the difficulty it serves) and
 * solved in two worker threads with Node's SHA-256 (the search altcha-lib's `solveChallenge` does,
 * about 40 times faster than its WebCrypto one), so the figure is the server's work alone. Each
 * solution is used once, as the server demands.
 *
 * The form's rate limits (30 submissions per address and 600 per form per 10 minutes by default)
 * are raised out of reach with FORM_RATE_LIMIT_PER_IP and FORM_RATE_LIMIT_PER_FORM, as the API
 * limits are: every request comes from 127.0.0.1, and the bench measures throughput, not refusals.
 *
 * Env: BENCH_SIGN_CHALLENGES=1 (profiling runs: solutions made with the instance's key instead of solved), BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_SUBMISSIONS (solved challenges, 6000;
 * a tenth is the warm-up), BENCH_DURATION (seconds of track, 10), BENCH_WARMUP (seconds, 3),
 * BENCH_DOUBLE_OPT_IN=0 (a form without double opt-in: each submission subscribes a new contact at
 * once, and no email is sent), BENCH_PAUSE_WORKER=1 (the worker stopped with SIGSTOP while the
 * submissions run and continued before track: what the submissions cost `serve` and the database
 * apart from delivering their confirmations on the same two cores; needs the roles apart).
 */
import os from 'node:os';
import { createChallenge } from 'altcha-lib/v1';
import pg from 'pg';
import type { DnsServer } from '../test/support/dns-server.js';
import {
  apiCall,
  createVerifiedDomain,
  expectApiStatus,
  type LoadResult,
  PG_SERVER_URL,
  prepareMailService,
  runEvalWorker,
  runLoad,
  runTrackLoad,
  startServiceRoles,
} from './lib.js';
import { type Cleanup, log, machineInfo, printResult, round, runBench, waitForQuiet } from './run.js';

const CONNECTIONS = 50;
const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 6000);
const DOUBLE_OPT_IN = process.env.BENCH_DOUBLE_OPT_IN !== '0';
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const DOMAINS = 50;
const SENDER_DOMAIN = 'forms.bench.example.com';
const GOAL_RATIO = 0.5;
const GOAL_P99_MS = 100;
/** `serve` and `worker` as separate processes, as deployed; BENCH_ROLES=all keeps them in one. */
const SPLIT = process.env.BENCH_ROLES !== 'all';
const PAUSE_WORKER = process.env.BENCH_PAUSE_WORKER === '1';
if (PAUSE_WORKER && !SPLIT) throw new Error('BENCH_PAUSE_WORKER=1 needs serve and worker apart (not BENCH_ROLES=all)');

/**
 * For profiling runs only: the solutions are made here with altcha-lib's createChallenge and the
 * instance's key, at a number chosen (the server's verification is the same work), instead of
 * fetched and solved (minutes on two cores).
 */
const SIGN_CHALLENGES = process.env.BENCH_SIGN_CHALLENGES === '1';

const recipientDomain = (i: number) => `readers${i % DOMAINS}.dev`;

/** A domain that receives mail, as the address checks want it: NS, MX and an address. */
function publishMailDomain(dns: DnsServer, name: string) {
  dns.set(name, 'NS', [`ns1.${name}`]);
  dns.set(name, 'MX', [{ exchange: `mx1.${name}`, priority: 10 }]);
  dns.set(name, 'A', ['192.0.2.10']);
}

interface Challenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

/** Solves challenges (SHA-256 of salt + n, as altcha-lib's solveChallenge) and returns their payloads. */
const SOLVER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
function solveAll() {
  const out = [];
  for (const c of workerData.options) {
    let n = 0;
    while (createHash('sha256').update(c.salt + n).digest('hex') !== c.challenge) {
      if (++n > c.maxnumber) return { error: 'challenge without solution' };
    }
    out.push(Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature })).toString('base64'));
  }
  return out;
}
parentPort.postMessage(solveAll());
`;

/** One submission per payload, each a new address. */
function submitEach(url: string, prefix: string, payloads: string[]): Promise<LoadResult> {
  return runLoad({
    url,
    connections: CONNECTIONS,
    until: { amount: payloads.length },
    prefix,
    payloads,
    domains: DOMAINS,
    body: `(i, o) => ({
      email: o.prefix + i + '@readers' + (i % o.domains) + '.dev',
      data: { firstName: 'Reader ' + i },
      altcha: o.payloads[i],
      website: '',
    })`,
  });
}

async function fetchChallenges(url: string, formId: string, count: number): Promise<Challenge[]> {
  const out: Challenge[] = [];
  let next = 0;
  const one = async () => {
    while (next < count) {
      next++;
      const res = await fetch(`${url}/v1/forms/${formId}/challenge`);
      if (!res.ok) throw new Error(`GET challenge answered ${res.status}: ${await res.text()}`);
      out.push(((await res.json()) as { data: Challenge }).data);
    }
  };
  await Promise.all(Array.from({ length: 8 }, one));
  return out;
}

/** Solves every challenge in as many worker threads as there are cores. */
async function solveAll(challenges: Challenge[]): Promise<string[]> {
  const threads = Math.max(1, os.cpus().length);
  const parts = Array.from({ length: threads }, (_, t) => challenges.filter((_, i) => i % threads === t));
  const solved = await Promise.all(parts.map((part) => runEvalWorker<string[]>(SOLVER, part)));
  return solved.flat();
}

async function signedSolutions(dbUrl: string, formId: string, count: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const r = await client.query<{ value: string }>(
    "select value from instance_secrets where name = 'form-challenge-key'",
  );
  await client.end();
  const hmacKey = r.rows[0]!.value;
  const issued = String(Date.now());
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const number = Math.floor(Math.random() * 100_000);
    const c = await createChallenge({
      hmacKey,
      number,
      maxnumber: 100_000,
      expires: new Date(Date.now() + 3_600_000),
      params: { form: formId, issued },
    });
    const { algorithm, challenge, salt, signature } = c;
    out.push(Buffer.from(JSON.stringify({ algorithm, challenge, number, salt, signature })).toString('base64'));
  }
  return out;
}

function summary(r: LoadResult) {
  return {
    rps: round(r.rps),
    p50: r.p50,
    p99: r.p99,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    requests: r.total,
  };
}

async function main(cleanup: Cleanup) {
  const setup = await prepareMailService(cleanup, 'forms', PG_SERVER_URL, () => {}, {
    LOG_LEVEL: 'warn',
    FORM_RATE_LIMIT_PER_IP: '1000000000',
    FORM_RATE_LIMIT_PER_FORM: '1000000000',
    REDIS_URL: '',
  });
  const { api, worker } = await startServiceRoles(cleanup, setup.env, setup.port, SPLIT);
  const key = setup.project.secretKey;
  await createVerifiedDomain(api.url, key, setup.mail.dns, SENDER_DOMAIN);
  for (let i = 0; i < DOMAINS; i++) publishMailDomain(setup.mail.dns, recipientDomain(i));
  const created = await apiCall(api.url, key, 'POST', '/forms', {
    name: 'Bench newsletter',
    fields: [{ key: 'firstName', type: 'string', required: true, label: { en: 'First name' } }],
    senderEmail: `news@${SENDER_DOMAIN}`,
    consentText: { en: 'I agree to receive the newsletter.' },
    doubleOptIn: DOUBLE_OPT_IN,
    workerPausedDuringSubmissions: PAUSE_WORKER,
  });
  expectApiStatus(created, 201, 'POST /forms');
  const formId = created.body.id as string;

  const started = Date.now();
  const payloads = SIGN_CHALLENGES
    ? await signedSolutions(setup.db.url, formId, SUBMISSIONS + 1)
    : await solveAll(await fetchChallenges(api.url, formId, SUBMISSIONS + 1));
  log(
    `${SIGN_CHALLENGES ? 'signed' : 'solved'} ${payloads.length} challenges in ${round((Date.now() - started) / 1000)} s`,
  );
  // The minimum fill time counts from the issue of a challenge. The submissions go first.
  await new Promise((r) => setTimeout(r, 2500));

  const url = `${api.url}/v1/forms/${formId}/submissions`;
  const probe = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'probe@readers0.dev', data: { firstName: 'Probe' }, altcha: payloads.pop() }),
  });
  if (!probe.ok) throw new Error(`probe answered ${probe.status}: ${await probe.text()}`);

  const formBusyBeforePct = await waitForQuiet(60_000);
  const warm = Math.max(300, Math.floor(payloads.length / 10));
  if (PAUSE_WORKER) worker.process.kill('SIGSTOP');
  const warmup = await submitEach(url, 'warm', payloads.slice(0, warm));
  if (warmup.non2xx > 0) log(`warm-up refusals: ${warmup.samples.join(' | ')}`);
  const forms = await submitEach(url, 'reader', payloads.slice(warm));
  if (PAUSE_WORKER) worker.process.kill('SIGCONT');
  if (forms.non2xx > 0) log(`refusals: ${forms.samples.join(' | ')}`);

  // Then /v1/track on the same service, as bench/track.ts measures it: second, because the events a
  // track run leaves (about 50,000) keep the worker and the database busy for a while after it.
  const trackBusyBeforePct = await waitForQuiet(60_000);
  const trackLoad = {
    url: `${api.url}/v1/track`,
    headers: { authorization: `Bearer ${setup.project.publicKey}` },
    connections: CONNECTIONS,
    distinctEmails: 20_000,
    eventName: 'page_viewed',
  };
  await runTrackLoad({ ...trackLoad, durationSeconds: WARMUP });
  const track = await runTrackLoad({ ...trackLoad, durationSeconds: DURATION });

  const ratio = forms.rps / track.rps;
  printResult({
    bench: 'form-submissions',
    database: 'postgres',
    connections: CONNECTIONS,
    roles: SPLIT ? 'serve + worker' : 'all',
    doubleOptIn: DOUBLE_OPT_IN,
    workerPausedDuringSubmissions: PAUSE_WORKER,
    formRateLimits: 'raised (FORM_RATE_LIMIT_PER_IP, FORM_RATE_LIMIT_PER_FORM = 10^9)',
    forms: { ...summary(forms), cpuBusyBeforePct: formBusyBeforePct, refusals: forms.samples },
    track: { ...summary(track), cpuBusyBeforePct: trackBusyBeforePct, durationSeconds: DURATION },
    ratio: round(ratio, 3),
    goals: {
      ratioAtLeast: GOAL_RATIO,
      ratioMet: ratio >= GOAL_RATIO,
      p99AtMostMs: GOAL_P99_MS,
      p99Met: forms.p99 < GOAL_P99_MS,
    },
    machine: machineInfo(),
  });
}

runBench(main);
