/**
 * The service at scale, on the PostgreSQL server with `events` partitioned by month: one project with
 * BENCH_CONTACTS (1,000,000) contacts and BENCH_EVENTS (10,000,000) events over the last year, loaded
 * set-wise by bench/seed.ts (the month partitions made first, indexes built once the rows are in),
 * `event_daily_counts` filled by the migration's backfill. Then, over HTTP to the service (`all`)
 * in this process, one request at a time after warm-ups:
 * - the count of the three-condition segment of bench/segment-count.ts (the compiled statement);
 * - GET /contacts?search= for a rare and a common term (first page, with its total);
 * - the Overview page's requests (activity stats and timeseries of 30 days, upcoming, top campaigns)
 *   and the activity feed's first page, unfiltered and by type;
 * - POST /v1/track under load (bench/track.ts's load), alternating between the loaded database and
 *   an empty one, BENCH_TRACK_ROUNDS (2) times BENCH_TRACK_SECONDS (10) each;
 * - the disk used by every partition of `events` with its indexes, per million events.
 *
 *   npx tsx bench/scale.ts    # prints one JSON line
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS, BENCH_EVENTS,
 * BENCH_REPEAT (20), BENCH_TRACK_SECONDS, BENCH_TRACK_ROUNDS.
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { generateKey, hashKey } from '../src/domain/api-keys.js';
import { compileCondition } from '../src/domain/filters/index.js';
import { fieldTypes } from '../src/modules/contacts/repo.js';
import { createProject, updateProject } from '../src/modules/projects/service.js';
import type { AppContext } from '../src/platform/context.js';
import { run } from '../src/platform/db/client.js';
import { startService } from '../src/start.js';
import { admin } from '../test/support/global-setup.js';
import { migratedScratch, PG_SERVER_URL, runTrackLoad, scratchDatabase, scratchDataDir } from './lib.js';
import { type Cleanup, log, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';
import { DAY_MS, type EventKinds, rollupBackfill, seedContactsAndEvents } from './seed.js';
import { EVENT_KINDS, threeConditions } from './segment-data.js';

/**
 * The segment benchmark's event kinds (its `purchase` events unchanged), with its `email_opened`
 * share split into the email events the Overview and activity feed read: email.sent 8 %,
 * email.opened 4 %, email.clicked 2 %.
 */
const SCALE_KINDS: EventKinds = {
  ...EVENT_KINDS,
  name: `case when r.kind < 0.45 then 'page_view' when r.kind < 0.63 then 'login'
               when r.kind < 0.71 then 'email.sent' when r.kind < 0.75 then 'email.opened'
               when r.kind < 0.77 then 'email.clicked' when r.kind < 0.85 then 'add_to_cart'
               when r.kind < 0.97 then 'purchase' else 'subscription_renewed' end`,
};

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);
const TRACK_SECONDS = Number(process.env.BENCH_TRACK_SECONDS ?? 10);
const TRACK_ROUNDS = Number(process.env.BENCH_TRACK_ROUNDS ?? 2);
const WARMUP = 2;
/** As bench/lib.ts's scratch services: silent, rate limits out of reach. */
const benchEnv = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '1000000000',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000000',
};
const GOALS = { segmentMs: 1000, searchP99Ms: 100, pageP95Ms: 1000, trackRatio: 0.9 };

function stats(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1)!),
  };
}

async function timed(repeat: number, once: () => Promise<void>) {
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return stats(times);
}

async function get(url: string, key: string): Promise<void> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const body = await res.text();
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 300)}`);
}

async function trackRate(url: string, publicKey: string) {
  const load = {
    url: `${url}/v1/track`,
    headers: { authorization: `Bearer ${publicKey}` },
    connections: 50,
    distinctEmails: 20_000,
    eventName: 'page_viewed',
  };
  await runTrackLoad({ ...load, durationSeconds: 3 });
  const result = await runTrackLoad({ ...load, durationSeconds: TRACK_SECONDS });
  if (result.errors + result.non2xx > 0) throw new Error(`track load had failures: ${JSON.stringify(result)}`);
  return result;
}

async function disk(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ events: string; partitions: number; contacts: string }>(
      `select (select sum(pg_total_relation_size(relid)) from pg_partition_tree('events')) as events,
              (select count(*)::int from pg_partition_tree('events') where isleaf) as partitions,
              pg_total_relation_size('contacts') as contacts`,
    );
    return r.rows[0]!;
  } finally {
    await c.end();
  }
}

/**
 * The loaded scratch database: made and seeded, or with BENCH_LOADED_DB the one an earlier run
 * left behind (its project gets fresh keys; it is dropped at the end like a new one).
 */
async function loaded(cleanup: Cleanup, now: Date) {
  const reuse = process.env.BENCH_LOADED_DB;
  if (!reuse) {
    const scratch = await migratedScratch(cleanup, 'scale');
    const seedMs = await seedContactsAndEvents(
      scratch.db.url,
      scratch.project.id,
      { contacts: CONTACTS, events: EVENTS, now },
      SCALE_KINDS,
    );
    const c = new pg.Client({ connectionString: scratch.db.url });
    await c.connect();
    await c.query(rollupBackfill());
    await c.query('vacuum analyze event_daily_counts');
    await c.end();
    return { db: scratch.db, dataDir: scratch.dataDir, projectId: scratch.project.id, seedMs };
  }
  const url = new URL(PG_SERVER_URL);
  url.pathname = `/${reuse}`;
  const db = {
    name: reuse,
    url: url.toString(),
    drop: () => admin(PG_SERVER_URL, `drop database if exists ${reuse} with (force)`),
  };
  cleanup.add(() => db.drop());
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const projectId = (await c.query<{ id: string }>(`select id from projects where name = 'bench'`)).rows[0]!.id;
  await c.end();
  return { db, dataDir: scratchDataDir(cleanup, 'scale'), projectId, seedMs: null };
}

/** Fresh keys for the project, so a reused database's project can be called. */
async function keysFor(ctx: AppContext, projectId: string) {
  const publicKey = generateKey('public');
  const secretKey = generateKey('secret');
  await updateProject(
    ctx.db,
    projectId,
    { keyHashes: { public: hashKey(publicKey), secret: hashKey(secretKey) } },
    new Date(),
  );
  return { publicKey, secretKey };
}

async function main(cleanup: Cleanup) {
  const now = new Date();
  const scratch = await loaded(cleanup, now);
  log(`${CONTACTS.toLocaleString('en')} contacts, ${EVENTS.toLocaleString('en')} events`);
  const size = await disk(scratch.db.url);

  // One service at a time: the PostgreSQL server is shared, and its connections are counted.
  const service = await startService(
    loadConfig({ ...benchEnv, DATA_DIR: scratch.dataDir, DATABASE_URL: scratch.db.url }),
    'all',
  );
  let stopped = false;
  cleanup.add(async () => {
    if (!stopped) await service.stop();
  });
  const { db } = service.ctx;
  const project = { id: scratch.projectId, ...(await keysFor(service.ctx, scratch.projectId)) };
  const key = project.secretKey;
  const base = service.url!;
  const busyBeforePct = await waitForQuiet(60_000);

  const types = Object.fromEntries((await fieldTypes(db, project.id)).map((f) => [f.key, f.type]));
  const where = compileCondition(threeConditions(), {
    projectId: project.id,
    fieldTypes: types,
    now,
    segments: () => undefined,
  });
  let members = 0;
  const segment = await timed(Math.min(REPEAT, 10), async () => {
    const r = await run<{ n: number }>(db, sql`select count(*)::int as n from contacts c where ${where}`);
    members = r.rows[0]!.n;
  });
  log(`segment count ${members}: ${JSON.stringify(segment)}`);

  const search: Record<string, unknown> = {};
  for (const term of [`user${Math.floor(CONTACTS / 3)}`, 'example7.com']) {
    search[term] = await timed(REPEAT, () => get(`${base}/contacts?search=${encodeURIComponent(term)}`, key));
    log(`search ${term}: ${JSON.stringify(search[term])}`);
  }

  const since30 = new Date(now.getTime() - 30 * DAY_MS).toISOString();
  const pages: Record<string, string> = {
    'overview: /activity/stats 30 days': `/activity/stats?since=${since30}`,
    'overview: /analytics/timeseries 30 days': `/analytics/timeseries?since=${since30}`,
    'overview: /activity/upcoming': '/activity/upcoming',
    'overview: /analytics/top-campaigns': '/analytics/top-campaigns?limit=5',
    'activity: /activity': '/activity',
    'activity: /activity?type=email.clicked': '/activity?type=email.clicked',
    'activity: /activity 30 days': `/activity?since=${since30}`,
  };
  const requests: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(pages)) {
    requests[name] = await timed(REPEAT, () => get(`${base}${path}`, key));
    log(`${name}: ${JSON.stringify(requests[name])}`);
  }

  await service.stop();
  stopped = true;

  // The empty database: a fresh scratch one, its own service, the same load, in turns with the loaded one.
  const empty = { db: await scratchDatabase(cleanup, 'scale_empty'), dataDir: scratchDataDir(cleanup, 'scale_empty') };
  const loadedRates: number[] = [];
  const emptyRates: number[] = [];
  for (let i = 0; i < TRACK_ROUNDS; i++) {
    for (const [target, rates] of [
      [empty, emptyRates],
      [scratch, loadedRates],
    ] as const) {
      const s = await startService(
        loadConfig({ ...benchEnv, DATA_DIR: target.dataDir, DATABASE_URL: target.db.url }),
        'all',
      );
      const p =
        target === empty
          ? await createProject(s.ctx.db, `bench-${i}`)
          : { publicKey: (await keysFor(s.ctx, project.id)).publicKey };
      try {
        await waitForQuiet(30_000);
        rates.push((await trackRate(s.url!, p.publicKey)).rps);
      } finally {
        await s.stop();
      }
    }
    log(`track round ${i + 1}: empty ${round(emptyRates.at(-1)!)}/s, loaded ${round(loadedRates.at(-1)!)}/s`);
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const trackRatio = mean(loadedRates) / mean(emptyRates);

  const worstPage = Math.max(...Object.values(requests).map((r) => (r as { p95: number }).p95));
  const worstSearch = Math.max(...Object.values(search).map((r) => (r as { p99: number }).p99));
  printResult({
    bench: 'scale',
    contacts: CONTACTS,
    events: EVENTS,
    repeat: REPEAT,
    seedSeconds: scratch.seedMs === null ? null : round(scratch.seedMs / 1000),
    eventPartitions: size.partitions,
    eventsMB: round(Number(size.events) / 1048576),
    eventsMBPerMillion: round(Number(size.events) / 1048576 / (EVENTS / 1_000_000)),
    contactsMB: round(Number(size.contacts) / 1048576),
    segmentCountMs: { ...segment, members },
    contactsSearchMs: search,
    pagesMs: requests,
    track: {
      emptyRps: emptyRates.map((x) => round(x)),
      loadedRps: loadedRates.map((x) => round(x)),
      ratio: round(trackRatio, 3),
      seconds: TRACK_SECONDS,
    },
    goals: {
      segmentMet: segment.max < GOALS.segmentMs,
      searchMet: worstSearch < GOALS.searchP99Ms,
      pagesMet: worstPage < GOALS.pageP95Ms,
      trackMet: trackRatio >= GOALS.trackRatio,
    },
    cpuBusyBeforePct: busyBeforePct,
    machine: machineInfo(),
  });
}

runBench(main);
