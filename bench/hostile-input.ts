/**
 * How responsive the service stays while it processes hostile input: GET /health is asked every
 * 10 ms (one request at a time) while each input below is sent, and its latencies are reported.
 *
 *   npx tsx bench/hostile-input.ts               # embedded PostgreSQL in a scratch DATA_DIR
 *   DATABASE_URL=postgres://… npx tsx bench/hostile-input.ts
 *   BENCH_ONLY=domainBurst,liquidFilters npx tsx bench/hostile-input.ts   # some of the inputs only
 *
 * The service runs as one child process (`all`: API, inbound SMTP and the delivery worker), so the
 * prober in this process never shares its event loop. Inputs, one after the other:
 *   idle             nothing (the reference)
 *   inboundNested    9.9 MB of nested <div> by SMTP (sanitizing it is quadratic: 554 at the 10 s deadline)
 *   inboundHeader    a 1.1 MB header by SMTP (552)
 *   liquidFilters    six /v1/send at once, each with a filter that escapes liquidjs' render limit (422 at 2 s)
 *   liquidParse9MB   /v1/send with 9 MB of `{{a}}`, minutes to parse (422 at 2 s)
 *   deepHtml         /v1/send with 100,000 nested <div>: its text part cannot be made (email failed, not retried)
 *   attachments50    /v1/send to 50 recipients (49 suppressed) with a 9.5 MB attachment (200; one stored
 *                    copy), until the one message not suppressed reached the sink
 *   domainBurst      30 POST /domains at once (RSA keys behind a queue of 1 + 8: the rest 503 Retry-After)
 *
 * Prints one JSON line: per input its outcome, its duration, /health's n, p50, p99 and max in ms,
 * and the service's own event-loop delay (p99, max in ms; bench/loop-delay.mjs, preloaded, measures
 * it inside the service with monitorEventLoopDelay): the health figures include the machine's
 * scheduling and this process's work, the loop delay only what held the service's event loop.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import {
  apiCall,
  createVerifiedDomain,
  expectApiStatus,
  freePort,
  prepareMailService,
  startServiceChild,
} from './lib.js';
import { type Cleanup, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';

const DOMAIN = 'hostile.bench.example.com';
const FROM = `hello@${DOMAIN}`;
const PROBE_EVERY_MS = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Figures {
  outcome: unknown;
  ms: number;
  health: { n: number; p50: number; p99: number; max: number };
  loopDelay?: { p99: number; max: number };
}

/** The service's event-loop delay since the last call (see bench/loop-delay.mjs). */
class LoopDelay {
  constructor(
    private readonly pid: number,
    private readonly file: string,
  ) {}

  async read(): Promise<{ p99: number; max: number } | undefined> {
    const before = Date.now();
    process.kill(this.pid, 'SIGUSR2');
    for (let i = 0; i < 100; i++) {
      await sleep(20);
      try {
        const seen = JSON.parse(fs.readFileSync(this.file, 'utf8')) as { p99: number; max: number; at: number };
        if (seen.at >= before) return { p99: seen.p99, max: seen.max };
      } catch {}
    }
    return undefined;
  }
}

/** Runs `work` while /health is asked every 10 ms; its outcome, duration and the health latencies. */
async function probed(url: string, loop: LoopDelay, work: () => Promise<unknown>): Promise<Figures> {
  await loop.read(); // starts the service's measure afresh
  let done = false;
  const latencies: number[] = [];
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${url}/health`);
      await res.text();
      latencies.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
      await sleep(PROBE_EVERY_MS);
    }
  })();
  const started = performance.now();
  let outcome: unknown;
  try {
    outcome = await work();
  } finally {
    done = true;
    await probe;
  }
  const ms = round(performance.now() - started, 0);
  const loopDelay = await loop.read();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    outcome,
    ms,
    health: {
      n: sorted.length,
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted[sorted.length - 1] ?? 0),
    },
    loopDelay,
  };
}

async function smtp(port: number, to: string, raw: string): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    return (await transport.sendMail({ envelope: { from: 'someone@sender.example', to: [to] }, raw })).response;
  } catch (err) {
    return (err as { response?: string }).response ?? String(err);
  } finally {
    transport.close();
  }
}

async function main(cleanup: Cleanup) {
  let arrived = 0;
  const inboundPort = await freePort();
  const { mail, port, env, dataDir, project } = await prepareMailService(
    cleanup,
    'hostile',
    process.env.DATABASE_URL,
    () => arrived++,
    { INBOUND_SMTP_PORT: String(inboundPort), LOG_LEVEL: 'error' },
  );
  const delayFile = path.join(dataDir, 'loop-delay.json');
  const loopDelayMonitor = `--import ${path.join(import.meta.dirname, 'loop-delay.mjs')}`;
  const childEnv = {
    ...env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${loopDelayMonitor}`.trim(),
    BENCH_LOOP_DELAY_FILE: delayFile,
  };
  const child = await startServiceChild(childEnv, port, 'all', { label: 'service' });
  cleanup.add(() => child.stop());
  const loop = new LoopDelay(child.process.pid!, delayFile);
  const api = (method: string, p: string, body?: unknown) => apiCall(child.url, project.secretKey, method, p, body);
  await createVerifiedDomain(child.url, project.secretKey, mail.dns, DOMAIN);
  let n = 0;
  const rcpt = () => `r${++n}@rcpt.bench.example.net`;
  const busyBeforePct = await waitForQuiet(30_000);

  const results: Record<string, Figures> = {};
  const only = process.env.BENCH_ONLY?.split(',');
  const wanted = (name: string) => !only || only.includes(name);
  results.idle = await probed(child.url, loop, () => sleep(2_000));

  const head = [
    'From: deep@sender.example',
    `To: support@${DOMAIN}`,
    'Subject: deep',
    'Content-Type: text/html',
    '',
    '',
  ].join('\r\n');
  const nested = head + '<div>'.repeat(Math.floor((9_900_000 - head.length) / 5));
  if (wanted('inboundNested'))
    results.inboundNested = await probed(child.url, loop, () => smtp(inboundPort, `support@${DOMAIN}`, nested));

  const folded = Array.from({ length: 16_000 }, () => ` ${'x'.repeat(70)}`).join('\r\n');
  const bigHeader = [
    'From: big@sender.example',
    `To: support@${DOMAIN}`,
    'Subject: big',
    `X-Padding:${folded}`,
    '',
    'Hi',
  ].join('\r\n');
  if (wanted('inboundHeader'))
    results.inboundHeader = await probed(child.url, loop, () => smtp(inboundPort, `support@${DOMAIN}`, bigHeader));

  const filters = [
    `{% assign a = (1..3000) %}{{ a | where_exp: "x", "a | where: 'size', x | size" | size }}`,
    `{% assign a = (1..3000) %}{{ a | where_exp: "x", "a | where_exp: 'y', 'y == x' | size" | size }}`,
    `{% assign a = (1..100000) %}{{ a | find_exp: "x", "a | find: 'size', 7" | size }}`,
    `{% assign a = (1..100000) %}{{ a | find_exp: "x", "a | find_exp: 'y', 'y == 0'" }}`,
    `{% assign a = (1..100000) %}{{ a | has_exp: "x", "a | has_exp: 'y', 'y == 0'" }}`,
    `{% assign a = (1..100000) %}{{ a | where_exp: "x", "a | sum" | size }}`,
  ];
  if (wanted('liquidFilters'))
    results.liquidFilters = await probed(child.url, loop, async () => {
      const answers = await Promise.all(
        filters.map((body) => api('POST', '/v1/send', { to: rcpt(), from: FROM, subject: 'Hi', body })),
      );
      return answers.map((a) => `${a.status} ${a.body?.error?.errors?.[0]?.message ?? ''}`);
    });

  const parse9 = '{{a}}'.repeat(1_800_000);
  if (wanted('liquidParse9MB'))
    results.liquidParse9MB = await probed(child.url, loop, async () => {
      const a = await api('POST', '/v1/send', { to: rcpt(), from: FROM, subject: 'Hi', body: parse9 });
      return `${a.status} ${a.body?.error?.errors?.[0]?.message ?? ''}`;
    });

  if (wanted('deepHtml'))
    results.deepHtml = await probed(child.url, loop, async () => {
      const sent = await api('POST', '/v1/send', {
        to: rcpt(),
        from: FROM,
        subject: 'Deep',
        body: `<p>x</p>${'<div>'.repeat(100_000)}`,
      });
      expectApiStatus(sent, 200, 'POST /v1/send (deep HTML)');
      for (;;) {
        const record = await api('GET', `/emails/${sent.body.data.emails[0].email}`);
        if (record.body.status !== 'queued')
          return `${record.body.status} after ${record.body.attempts} attempt(s): ${record.body.lastError}`;
        await sleep(50);
      }
    });

  const recipients = Array.from({ length: 50 }, rcpt);
  for (const email of recipients.slice(1))
    expectApiStatus(await api('POST', '/suppressions', { email }), 201, 'POST /suppressions');
  const attachment = {
    filename: 'big.bin',
    contentType: 'application/octet-stream',
    content: randomBytes(9_500_000).toString('base64'),
  };
  if (wanted('attachments50'))
    results.attachments50 = await probed(child.url, loop, async () => {
      const before = arrived;
      const a = await api('POST', '/v1/send', {
        to: recipients,
        from: FROM,
        subject: 'File',
        body: '<p>Attached</p>',
        attachments: [attachment],
      });
      if (a.status !== 200) return `${a.status} ${JSON.stringify(a.body).slice(0, 200)}`;
      // The one recipient not suppressed: its 13 MB message, DKIM-signed, delivered to the sink.
      for (let i = 0; i < 1200 && arrived === before; i++) await sleep(50);
      return `200 ${a.body.data.emails.length} emails, ${arrived - before} delivered`;
    });

  if (wanted('domainBurst'))
    results.domainBurst = await probed(child.url, loop, async () => {
      const answers = await Promise.all(
        Array.from({ length: 30 }, () =>
          api('POST', '/domains', { domain: `k${randomUUID().slice(0, 8)}.burst.example.com` }),
        ),
      );
      const count = (status: number) => answers.filter((a) => a.status === status).length;
      return { created: count(201), busy503: count(503), other: answers.length - count(201) - count(503) };
    });

  printResult({ bench: 'hostile-input', machine: machineInfo(), busyBeforePct, results });
}

runBench(main);
