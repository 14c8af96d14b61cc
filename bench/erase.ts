/**
 * Erasing a contact with 100,000 events on the PostgreSQL server while other requests go on: how
 * long the erase takes (POST /contacts/{id}/erase to its job's completion), and the p99 of a steady
 * stream of other requests meanwhile (POST /v1/track and GET /contacts, each from its own
 * connections), next to the same stream without an erase. First, the contact's export
 * (GET /contacts/{id}/export): its time, size, and how much the process's memory grew meanwhile.
 *
 *   npx tsx bench/erase.ts            # prints one JSON line
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_EVENTS (100000), BENCH_CONTACTS
 * (100000 other contacts), BENCH_TRACK_CONNECTIONS (8), BENCH_LIST_CONNECTIONS (2).
 */
import { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { run } from '../src/platform/db/client.js';
import { migratedScratch, startScratchService } from './lib.js';
import { type Cleanup, log, machineInfo, printResult, round, runBench, waitForQuiet } from './run.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const TRACK_CONNECTIONS = Number(process.env.BENCH_TRACK_CONNECTIONS ?? 8);
const LIST_CONNECTIONS = Number(process.env.BENCH_LIST_CONNECTIONS ?? 2);
const GOAL_ERASE_MS = 10_000;
const GOAL_P99_MS = 200;

interface Stream {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
}

/*
 * The steady stream, in a worker thread (off the service's event loop): two autocannon runs, one of
 * /v1/track with rotating addresses and one of GET /contacts, until the parent says stop.
 */
const STREAM_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const autocannon = createRequire(workerData.base)('autocannon');
const o = workerData.options;
let n = 0;
const runs = [];
const results = {};
function start(name, opts) {
  runs.push(new Promise((resolve) => {
    const instance = autocannon({ ...opts, duration: 3600, timeout: 10 }, (err, r) => {
      if (err) { results[name] = { error: String(err) }; return resolve(); }
      const a = autocannon.aggregateResult([r], { url: opts.url, connections: opts.connections });
      results[name] = {
        requests: r.totalCompletedRequests, rps: r.totalCompletedRequests / r.duration,
        p50: a.latency.p50, p99: a.latency.p99, max: a.latency.max, errors: r.errors, non2xx: r.non2xx,
      };
      resolve();
    });
    parentPort.on('message', (m) => { if (m === 'stop') instance.stop(); });
  }));
}
start('track', {
  url: o.base + '/v1/track', connections: o.trackConnections,
  requests: [{ method: 'POST', path: '/v1/track',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + o.publicKey },
    setupRequest: (req) => {
      const i = n++ % 20000;
      req.body = JSON.stringify({ email: 'stream' + i + '@bench.example.com', event: 'page_viewed', data: { step: i % 7 } });
      return req;
    } }],
});
start('contacts', {
  url: o.base + '/contacts?limit=50', connections: o.listConnections,
  headers: { authorization: 'Bearer ' + o.secretKey },
});
parentPort.postMessage({ started: true });
Promise.all(runs).then(() => parentPort.postMessage({ results }));
`;

/** Starts the stream; `stop()` ends it and resolves with each half's figures. */
async function startStream(options: Record<string, unknown>) {
  const worker = new Worker(STREAM_WORKER, { eval: true, workerData: { base: import.meta.filename, options } });
  const results = new Promise<{ track: Stream; contacts: Stream }>((resolve, reject) => {
    worker.on('message', (m: { results?: { track: Stream; contacts: Stream } }) => {
      if (m.results) {
        void worker.terminate();
        resolve(m.results);
      }
    });
    worker.once('error', reject);
  });
  await new Promise((resolve) => worker.once('message', resolve));
  return {
    stop: () => {
      worker.postMessage('stop');
      return results;
    },
  };
}

const figures = (s: Stream) => ({
  requests: s.requests,
  rps: round(s.rps),
  p50: s.p50,
  p99: s.p99,
  max: s.max,
  errors: s.errors + s.non2xx,
});

runBench(async (cleanup: Cleanup) => {
  const scratch = await migratedScratch(cleanup, 'erase');
  const db = scratch.database.db;
  const projectId = scratch.project.id;
  log(`seeding ${CONTACTS} contacts and one with ${EVENTS} events`);
  await run(
    db,
    sql`insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
      select ${projectId}, 'other' || g || '@bench.example.org', true, jsonb_build_object('n', g), now(), now()
      from generate_series(1, ${CONTACTS}::int) g`,
  );
  const target = (
    await run<{ id: string }>(
      db,
      sql`insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
        values (${projectId}, 'erase.me@bench.example.org', true, '{"name":"Erase Me"}', now(), now()) returning id`,
    )
  ).rows[0]!.id;
  // A month of history, a page view every 26 seconds.
  await run(
    db,
    sql`insert into events (id, project_id, contact_id, name, data, created_at)
      select gen_random_uuid(), ${projectId}, ${target}, 'page_viewed',
        jsonb_build_object('path', '/docs/' || g, 'email', 'erase.me@bench.example.org'),
        now() - (g * interval '26 seconds')
      from generate_series(1, ${EVENTS}::int) g`,
  );
  await run(db, sql`analyze`);

  const service = await startScratchService(cleanup, scratch, 'all');
  const streamOptions = {
    base: service.url!,
    publicKey: scratch.project.publicKey,
    secretKey: scratch.project.secretKey,
    trackConnections: TRACK_CONNECTIONS,
    listConnections: LIST_CONNECTIONS,
  };

  // The export of the whole history, read as it streams; the service is in this process, so its
  // resident memory is this process's.
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 20);
  const exportStarted = performance.now();
  const exported = await fetch(`${service.url}/contacts/${target}/export`, {
    headers: { authorization: `Bearer ${scratch.project.secretKey}` },
  });
  let bytes = 0;
  let firstByteMs = 0;
  for await (const chunk of exported.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByteMs = performance.now() - exportStarted;
    bytes += chunk.length;
  }
  const exportMs = performance.now() - exportStarted;
  clearInterval(sampler);
  const exportFigures = {
    status: exported.status,
    ms: round(exportMs),
    firstByteMs: round(firstByteMs),
    mb: round(bytes / 1024 / 1024, 1),
    rssGrowthMb: round((rssPeak - rssBefore) / 1024 / 1024, 1),
  };
  log(`export: ${JSON.stringify(exportFigures)}`);

  // Warm-up, then the stream alone for as long as the erase will take, then the stream with the erase.
  const busyBeforePct = await waitForQuiet(60_000);
  log('warm-up');
  const warm = await startStream(streamOptions);
  await new Promise((r) => setTimeout(r, 3_000));
  await warm.stop();

  log('the stream with the erase');
  const stream = await startStream(streamOptions);
  await new Promise((r) => setTimeout(r, 1_000));
  const started = performance.now();
  const res = await fetch(`${service.url}/contacts/${target}/erase`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scratch.project.secretKey}` },
  });
  const accepted = (await res.json()) as { data: { jobId: string; total: number } };
  if (res.status !== 202) throw new Error(`erase answered ${res.status}: ${JSON.stringify(accepted)}`);
  const answeredMs = performance.now() - started;
  let job: { status: string; processed: number };
  for (;;) {
    job = (
      await run<{ status: string; processed: number }>(
        db,
        sql`select status, processed from contact_jobs where id = ${accepted.data.jobId}`,
      )
    ).rows[0]!;
    if (job.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const eraseMs = performance.now() - started;
  const during = await stream.stop();
  const windowMs = performance.now() - started + 1_000;

  log('the stream alone, as long');
  const alone = await startStream(streamOptions);
  await new Promise((r) => setTimeout(r, windowMs));
  const baseline = await alone.stop();

  const left = (
    await run<{ events: number; contacts: number }>(
      db,
      sql`select (select count(*)::int from events where contact_id = ${target}) as events,
        (select count(*)::int from contacts where id = ${target}) as contacts`,
    )
  ).rows[0]!;
  const worstP99 = Math.max(during.track.p99, during.contacts.p99);
  printResult({
    bench: 'erase',
    events: EVENTS,
    otherContacts: CONTACTS,
    export: exportFigures,
    erase: {
      answeredMs: round(answeredMs),
      totalMs: round(eraseMs),
      rows: accepted.data.total,
      left,
    },
    during: { track: figures(during.track), contacts: figures(during.contacts) },
    alone: { track: figures(baseline.track), contacts: figures(baseline.contacts) },
    goals: {
      eraseUnderMs: GOAL_ERASE_MS,
      eraseMet: eraseMs < GOAL_ERASE_MS,
      p99AtMostMs: GOAL_P99_MS,
      p99Met: worstP99 <= GOAL_P99_MS,
    },
    cpuBusyBeforePct: busyBeforePct,
    machine: machineInfo(),
  });
});
