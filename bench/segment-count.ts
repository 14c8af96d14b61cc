/**
 * Counting a dynamic segment on PostgreSQL: a `data` number comparison AND a text `contains` AND
 * `triggeredWithin 30 days`, over 1,000,000 contacts and 5,000,000 events in one project. The
 * statement the filter compiler produces is timed against a hand-written query for the same
 * question on the same data; both must count the same contacts. The estimate of the segment builder
 * (POST /segments/estimate: a sample of the table's pages) is timed too, with its error.
 *
 *   npx tsx bench/segment-count.ts                   # prints one JSON line
 *   BENCH_EXPLAIN=1 npx tsx bench/segment-count.ts   # also EXPLAIN (ANALYZE, BUFFERS) of both, on stderr
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS (1000000),
 * BENCH_EVENTS (5000000), BENCH_REPEAT (10).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { FieldType } from '../src/domain/contact-data.js';
import { compileCondition } from '../src/domain/filters/index.js';
import { estimateFromSample, samplePercent } from '../src/domain/sample-estimate.js';
import { fieldTypes } from '../src/modules/contacts/repo.js';
import { MARKETING_RECIPIENT } from '../src/modules/segments/audience.js';
import { contactTableRows, sampleMatching } from '../src/modules/segments/repo.js';
import { type Db, run } from '../src/platform/db/client.js';
import { migratedScratch } from './lib.js';
import { type Cleanup, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';
import { DAY_MS, type Population, seedContactsAndEvents } from './seed.js';
import { AGE_OVER, CITY_PART, EVENT_KINDS, EVENT_NAME, threeConditions, WINDOW_DAYS } from './segment-data.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 10);
const WARMUP = 2;
const GOAL_MS = 500;
const GOAL_RATIO = 1.2;
const GOAL_ESTIMATE_MS = 200;
/** As the service samples (modules/segments/service.ts). */
const ESTIMATE_SAMPLE_ROWS = 20_000;

/** Time windows are measured back from this instant, and the data is generated around it. */
const NOW = new Date('2025-06-15T12:00:00.000Z');

const log = (message: string) => process.stderr.write(`${message}\n`);

const POPULATION: Population = { contacts: CONTACTS, events: EVENTS, now: NOW };

// ---------------------------------------------------------------------------------------------
// The two queries

function compiledCondition(projectId: string, types: Record<string, FieldType>): SQL {
  return compileCondition(threeConditions(), { projectId, fieldTypes: types, now: NOW, segments: () => undefined });
}

/**
 * What one would write by hand for the same question, knowing that every stored age is a number.
 * Events are looked up within the project, as every query of this multi-tenant schema is.
 */
function handQuery(projectId: string): SQL {
  const since = new Date(NOW.getTime() - WINDOW_DAYS * DAY_MS);
  return sql`
    select count(*)::int as n from contacts c
    where c.project_id = ${projectId}::uuid
      and (c.data ->> 'age')::numeric > ${AGE_OVER}
      and c.data ->> 'city' ilike ${`%${CITY_PART}%`}
      and exists (select 1 from events e
                  where e.contact_id = c.id and e.project_id = ${projectId}::uuid and e.name = ${EVENT_NAME}
                    and e.created_at >= ${since.toISOString()}::timestamptz)`;
}

async function count(db: Db, q: SQL): Promise<{ n: number; ms: number }> {
  const started = performance.now();
  const r = await run<{ n: number }>(db, q);
  return { n: r.rows[0]!.n, ms: performance.now() - started };
}

/**
 * The statements of POST /segments/estimate for the same condition (the table's row count, then the
 * sample), REPEAT times after a warm-up: how long, and how far each estimate was from the count.
 */
async function timeEstimates(db: Db, projectId: string, where: SQL, exact: number) {
  const times: number[] = [];
  const errors: number[] = [];
  let within = 0;
  for (let i = 0; i < WARMUP + REPEAT; i++) {
    const started = performance.now();
    const tableRows = await contactTableRows(db);
    const percent = samplePercent(tableRows, ESTIMATE_SAMPLE_ROWS);
    if (percent === null) throw new Error('the table is too small to be sampled');
    const answer = estimateFromSample(
      await sampleMatching(db, projectId, where, MARKETING_RECIPIENT, percent),
      tableRows,
    );
    if (i < WARMUP) continue;
    times.push(performance.now() - started);
    errors.push(Math.abs(answer.estimate - exact) / exact);
    if (Math.abs(answer.estimate - exact) <= answer.margin) within++;
  }
  const sorted = [...errors].sort((x, y) => x - y);
  return {
    ...stats(times),
    errorPct: { p50: round(100 * percentile(sorted, 50), 1), max: round(100 * sorted.at(-1)!, 1) },
    withinMargin: `${within}/${REPEAT}`,
  };
}

async function explain(db: Db, label: string, q: SQL): Promise<void> {
  const r = await run<Record<string, string>>(db, sql`explain (analyze, buffers) ${q}`);
  log(`\n=== ${label} ===\n${r.rows.map((row) => row['QUERY PLAN']).join('\n')}`);
}

function stats(times: number[]) {
  const sorted = [...times].sort((x, y) => x - y);
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), mean: round(mean) };
}

/** Shares of contacts meeting each condition alone, to describe the data. */
async function shares(db: Db, projectId: string) {
  const since = new Date(NOW.getTime() - WINDOW_DAYS * DAY_MS).toISOString();
  const r = await run<Record<string, number>>(
    db,
    sql`
    select count(*) filter (where (data ->> 'age')::numeric > ${AGE_OVER})::float8 / count(*) as age,
           count(*) filter (where data ->> 'city' ilike ${`%${CITY_PART}%`})::float8 / count(*) as city,
           (select count(distinct contact_id) from events
            where name = ${EVENT_NAME} and created_at >= ${since}::timestamptz)::float8 / count(*) as event
    from contacts where project_id = ${projectId}::uuid`,
  );
  const row = r.rows[0]!;
  return { age: round(row.age!, 3), city: round(row.city!, 3), event: round(row.event!, 3) };
}

async function sizes(db: Db) {
  const r = await run<{ name: string; mb: number }>(
    db,
    sql`
    select relname as name,
      round(coalesce((select sum(pg_total_relation_size(relid)) from pg_partition_tree(oid)), pg_total_relation_size(oid)) / 1048576.0)::int as mb
    from pg_class where relname in ('contacts', 'events') and relkind in ('r', 'p')`,
  );
  return Object.fromEntries(r.rows.map((row) => [`${row.name}MB`, row.mb]));
}

async function main(cleanup: Cleanup) {
  const { db: scratch, database, project } = await migratedScratch(cleanup, 'segment');
  const db = database.db;

  const seedMs = await seedContactsAndEvents(scratch.url, project.id, POPULATION, EVENT_KINDS);

  const types = Object.fromEntries((await fieldTypes(db, project.id)).map((f) => [f.key, f.type]));
  const where = compiledCondition(project.id, types);
  const queries = [
    {
      name: 'compiled',
      q: sql`select count(*)::int as n from contacts c where c.project_id = ${project.id}::uuid and (${where})`,
    },
    { name: 'hand', q: handQuery(project.id) },
  ] as const;

  const busyBeforePct = await waitForQuiet(60_000);
  const times: Record<string, number[]> = { compiled: [], hand: [] };
  const counts: Record<string, number> = {};
  for (let i = 0; i < WARMUP + REPEAT; i++) {
    // Alternating which goes first, so neither always runs on the cache the other left.
    for (const { name, q } of i % 2 === 0 ? queries : [...queries].reverse()) {
      const { n, ms } = await count(db, q);
      if (counts[name] !== undefined && counts[name] !== n)
        throw new Error(`${name} counted ${n}, earlier ${counts[name]}`);
      counts[name] = n;
      if (i >= WARMUP) times[name]!.push(ms);
    }
  }
  if (counts.compiled !== counts.hand) {
    throw new Error(`the compiled query counted ${counts.compiled} contacts, the hand-written one ${counts.hand}`);
  }
  if (process.env.BENCH_EXPLAIN) for (const { name, q } of queries) await explain(db, name, q);

  const estimate = await timeEstimates(db, project.id, where, counts.compiled!);

  const compiled = stats(times.compiled!);
  const hand = stats(times.hand!);
  const ratio = round(compiled.p50 / hand.p50, 2);
  printResult({
    bench: 'segment-count',
    contacts: CONTACTS,
    events: EVENTS,
    repeat: REPEAT,
    seedSeconds: round(seedMs / 1000),
    count: counts.compiled,
    shares: await shares(db, project.id),
    compiled,
    hand,
    ratio,
    goals: {
      ms: GOAL_MS,
      ratio: GOAL_RATIO,
      msMet: compiled.p50 < GOAL_MS,
      ratioMet: ratio <= GOAL_RATIO,
      estimateMs: GOAL_ESTIMATE_MS,
      estimateMet: estimate.p50 < GOAL_ESTIMATE_MS,
    },
    estimate,
    sizes: await sizes(db),
    cpuBusyBeforePct: busyBeforePct,
    machine: machineInfo(),
  });
}

runBench(main);
