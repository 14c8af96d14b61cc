/**
 * POST /v1/track throughput and latency, on the PostgreSQL server and on the embedded PostgreSQL
 * that the service starts itself in DATA_DIR, each next to a bare
 * Fastify route doing one INSERT through the same driver: the ratio shows what the service's own
 * work (auth, validation, rate limit, contact upsert, event, transaction) costs over the floor that
 * HTTP plus one write already sets on this machine.
 *
 *   npx tsx bench/track.ts            # prints one JSON line
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_DURATION (seconds per target, 12),
 * BENCH_WARMUP (seconds, 3), BENCH_ONLY (postgres | embedded).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createProject } from '../src/modules/projects/service.js';
import { startEmbeddedPostgres } from '../src/platform/db/embedded.js';
import { startService } from '../src/start.js';
import { type LoadResult, runTrackLoad, scratchDatabase, scratchDataDir } from './lib.js';
import { type Cleanup, machineInfo, printResult, round, runBench, waitForQuiet } from './run.js';

const CONNECTIONS = 50;
const DISTINCT_EMAILS = 20_000;
const EVENT_NAME = 'page_viewed';
const DURATION = Number(process.env.BENCH_DURATION ?? 12);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const GOAL_RATIO = 0.8;
const GOAL_P99_MS = 50;

type Kind = 'postgres' | 'embedded';

interface Target {
  url: string;
  headers: Record<string, string>;
}

async function measure(target: Target): Promise<LoadResult & { busyBeforePct: number | null }> {
  const busyBeforePct = await waitForQuiet(60_000);
  const load = { ...target, connections: CONNECTIONS, distinctEmails: DISTINCT_EMAILS, eventName: EVENT_NAME };
  // A single request first, so a broken setup fails loudly instead of as a run of errors.
  const probe = await fetch(target.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: JSON.stringify({ email: 'probe@bench.example.com', event: EVENT_NAME, data: { plan: 'free', step: 0 } }),
  });
  if (!probe.ok) throw new Error(`probe ${target.url} answered ${probe.status}: ${await probe.text()}`);
  await runTrackLoad({ ...load, durationSeconds: WARMUP });
  return { ...(await runTrackLoad({ ...load, durationSeconds: DURATION })), busyBeforePct };
}

interface Insert {
  query(text: string, params: unknown[]): Promise<unknown>;
}

const BARE_TABLE = `
  create table if not exists bench_track (
    id uuid primary key default gen_random_uuid(),
    email text not null,
    event text not null,
    data jsonb not null default '{}',
    created_at timestamptz not null default now()
  )`;

/** The floor: Fastify with its default JSON parsing, no auth, no validation, one INSERT. */
async function startBare(db: Insert): Promise<{ app: FastifyInstance; url: string }> {
  await db.query(BARE_TABLE, []);
  const app = Fastify({ logger: false });
  app.post('/track', async (req) => {
    const body = req.body as { email: string; event: string; data?: unknown };
    await db.query('insert into bench_track (email, event, data) values ($1, $2, $3::jsonb)', [
      body.email,
      body.event,
      JSON.stringify(body.data ?? {}),
    ]);
    return { success: true };
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `${address}/track` };
}

async function benchKind(kind: Kind, cleanup: Cleanup) {
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000000',
  };
  env.DATA_DIR = scratchDataDir(cleanup, `track-${kind}`);
  if (kind === 'postgres') env.DATABASE_URL = (await scratchDatabase(cleanup, 'track')).url;

  const service = await startService(loadConfig(env), 'all');
  let serviceResult: Awaited<ReturnType<typeof measure>>;
  try {
    const project = await createProject(service.ctx.db, 'bench');
    serviceResult = await measure({
      url: `${service.url}/v1/track`,
      headers: { authorization: `Bearer ${project.publicKey}` },
    });
  } finally {
    await service.stop();
  }

  // Same database, same driver, same pool size as the service uses.
  const cluster = kind === 'embedded' ? await startEmbeddedPostgres(env.DATA_DIR) : undefined;
  const pool = new pg.Pool({ connectionString: cluster?.url ?? env.DATABASE_URL, max: 20 });
  pool.on('error', () => {});
  const bare = await startBare(pool);
  let bareResult: Awaited<ReturnType<typeof measure>>;
  try {
    bareResult = await measure({ url: bare.url, headers: {} });
  } finally {
    await bare.app.close();
    await pool.end();
    await cluster?.release();
  }

  const ratio = serviceResult.rps / bareResult.rps;
  return {
    service: {
      rps: round(serviceResult.rps),
      p50: serviceResult.p50,
      p99: serviceResult.p99,
      errors: serviceResult.errors,
      timeouts: serviceResult.timeouts,
      non2xx: serviceResult.non2xx,
      requests: serviceResult.total,
      cpuBusyBeforePct: serviceResult.busyBeforePct,
    },
    bare: {
      rps: round(bareResult.rps),
      p50: bareResult.p50,
      p99: bareResult.p99,
      errors: bareResult.errors + bareResult.non2xx,
      cpuBusyBeforePct: bareResult.busyBeforePct,
    },
    ratio: round(ratio, 3),
    goals: {
      ratioAtLeast: GOAL_RATIO,
      ratioMet: ratio >= GOAL_RATIO,
      p99AtMostMs: GOAL_P99_MS,
      p99Met: serviceResult.p99 <= GOAL_P99_MS,
    },
  };
}

async function main(cleanup: Cleanup) {
  const kinds: Kind[] = process.env.BENCH_ONLY ? [process.env.BENCH_ONLY as Kind] : ['postgres', 'embedded'];
  const results: Record<string, unknown> = {};
  for (const kind of kinds) results[kind] = await benchKind(kind, cleanup);
  printResult({
    bench: 'track',
    connections: CONNECTIONS,
    distinctEmails: DISTINCT_EMAILS,
    durationSeconds: DURATION,
    ...results,
    machine: machineInfo(),
  });
}

runBench(main);
