/**
 * Counting a dynamic segment on PostgreSQL: a `data` number comparison AND a text `contains` AND
 * `triggeredWithin 30 days`, over 1,000,000 contacts and 5,000,000 events in one project. The
 * statement the filter compiler produces is timed against a hand-written query for the same
 * question on the same data; both must count the same contacts.
 *
 *   npx tsx bench/segment-count.ts                   # prints one JSON line
 *   BENCH_EXPLAIN=1 npx tsx bench/segment-count.ts   # also EXPLAIN (ANALYZE, BUFFERS) of both, on stderr
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS (1000000),
 * BENCH_EVENTS (5000000), BENCH_REPEAT (10).
 */
import os from 'node:os';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { FieldType } from '../src/domain/contact-data.js';
import { compileCondition, type FilterCondition } from '../src/domain/filters/index.js';
import { createProject } from '../src/modules/projects/service.js';
import { fieldTypes } from '../src/modules/contacts/repo.js';
import { openDatabase, run, type Db } from '../src/platform/db/client.js';
import { Cleanup, createScratchPg, percentile, round, scratchDir, waitForQuiet } from './lib.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 10);
const WARMUP = 2;
const GOAL_MS = 500;
const GOAL_RATIO = 1.2;

/** Time windows are measured back from this instant, and the data is generated around it. */
const NOW = new Date('2025-06-15T12:00:00.000Z');
const DAY_MS = 86_400_000;
const CONTACT_SPAN_DAYS = 730;
const EVENT_SPAN_DAYS = 365;

const AGE_OVER = 30;
const CITY_PART = 'on'; // London, Toronto, Barcelona, Boston, Lisbon, Montreal, San Antonio: about 23 %
const EVENT_NAME = 'purchase';
const WINDOW_DAYS = 30;

// Drawn with a skew (the first cities are the most common), as real address books are.
const CITIES = [
  'London', 'New York', 'Paris', 'Berlin', 'San Francisco', 'Madrid', 'Toronto', 'Chicago', 'Sydney', 'Los Angeles',
  'Amsterdam', 'São Paulo', 'Tokyo', 'San Diego', 'Barcelona', 'Munich', 'Dublin', 'Seattle', 'Austin', 'Singapore',
  'Melbourne', 'Boston', 'Vienna', 'Stockholm', 'Santiago', 'Lisbon', 'Milan', 'Zurich', 'Copenhagen', 'Warsaw',
  'Prague', 'Montreal', 'Vancouver', 'San Jose', 'Denver', 'Atlanta', 'Mumbai', 'Bangalore', 'Seoul', 'Busan',
  'Osaka', 'Cape Town', 'Lagos', 'Nairobi', 'Mexico City', 'Buenos Aires', 'Lima', 'Bogotá', 'San Antonio', 'Auckland',
];
const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'Frances', 'Edsger'];
const FIELD_TYPES: Record<string, FieldType> = { firstName: 'string', plan: 'string', age: 'number', city: 'string' };

const log = (message: string) => process.stderr.write(`${message}\n`);
const benchStarted = performance.now();
const progress = (message: string) => log(`[${round((performance.now() - benchStarted) / 1000)} s] ${message}`);

/** Contact n (1-based) has this id, so events can name their contact without a join. */
const contactId = (n: string) => `md5('contact' || ${n})::uuid`;

// ---------------------------------------------------------------------------------------------
// Data

/**
 * Indexes and constraints are dropped while the rows go in and built once afterwards, which is
 * several times faster than maintaining them row by row. `contacts_pkey` stays: other tables'
 * keys depend on it. Returns the statements that recreate what was dropped, from the catalog's
 * own definitions.
 */
async function deferIndexes(c: pg.Client, table: string, keep: string[]): Promise<string[]> {
  const constraints = await c.query<{ name: string; create: string }>(
    `select conname as name, format('alter table %I add constraint %I %s', $1::text, conname, pg_get_constraintdef(oid)) as create
     from pg_constraint where conrelid = $1::regclass and contype in ('p', 'u', 'f') and not conname = any($2)
     order by contype = 'f', conname`,
    [table, keep],
  );
  for (const { name } of constraints.rows) await c.query(`alter table "${table}" drop constraint "${name}"`);
  const indexes = await c.query<{ name: string; create: string }>(
    `select indexname as name, indexdef as create from pg_indexes
     where schemaname = 'public' and tablename = $1 and not indexname = any($2)`,
    [table, keep],
  );
  for (const { name } of indexes.rows) await c.query(`drop index "${name}"`);
  return [...indexes.rows, ...constraints.rows].map((r) => r.create);
}

/** Every index and constraint of the schema, to check the load left it exactly as migrated. */
async function schemaFingerprint(c: pg.Client): Promise<string> {
  const r = await c.query<{ s: string }>(
    `select string_agg(d, E'\n' order by d) as s from (
       select indexdef as d from pg_indexes where schemaname = 'public'
       union all
       select conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) || ' ' || convalidated
       from pg_constraint where connamespace = 'public'::regnamespace) x`,
  );
  return r.rows[0]!.s;
}

async function insertContacts(c: pg.Client, projectId: string): Promise<void> {
  await c.query('select setseed(0.17)');
  const chunk = 250_000;
  for (let from = 1; from <= CONTACTS; from += chunk) {
    const to = Math.min(CONTACTS, from + chunk - 1);
    // Sign-ups spread evenly over two years, n rising with created_at. 10 % have no age, 5 % no city.
    await c.query(
      `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       select ${contactId('n')}, $1, 'user' || n || '@example' || n % 50 || '.com', r.sub >= 0.1,
              jsonb_build_object('firstName', ($2::text[])[1 + n % 10], 'plan', (array['free', 'pro', 'team'])[1 + floor(r.plan * 3)::int])
                || case when r.has_age < 0.9 then jsonb_build_object('age', 18 + floor(r.age * 60)::int) else '{}' end
                || case when r.has_city < 0.95 then jsonb_build_object('city', ($3::text[])[1 + floor(50 * r.city ^ 2)::int]) else '{}' end,
              t, t
       from (select n, random() as sub, random() as plan, random() as has_age, random() as age,
                    random() as has_city, random() as city
             from generate_series($4::int, $5::int) n offset 0) r,
            lateral (select $6::timestamptz + n * $7::float8 * interval '1 millisecond' as t) ts`,
      [projectId, FIRST_NAMES, CITIES, from, to, new Date(NOW.getTime() - CONTACT_SPAN_DAYS * DAY_MS), (CONTACT_SPAN_DAYS * DAY_MS) / CONTACTS],
    );
    progress(`contacts: ${to.toLocaleString('en')} of ${CONTACTS.toLocaleString('en')} in`);
  }
}

async function insertEvents(c: pg.Client, projectId: string): Promise<void> {
  await c.query('select setseed(0.42)');
  const chunk = 500_000;
  for (let from = 1; from <= EVENTS; from += chunk) {
    const to = Math.min(EVENTS, from + chunk - 1);
    /*
     * Events arrive in time order, as tracking appends them, over the last year and denser towards
     * now (activity grows): about a fifth of them fall in the last 30 days. Each is by a contact
     * who had signed up by then; half by the most active tenth of the contacts.
     */
    await c.query(
      `insert into events (project_id, contact_id, name, data, created_at)
       select $1, ${contactId('who.n')}, x.name,
              case when x.name = 'purchase' then jsonb_build_object('amount', round((5 + r.amount * 195)::numeric, 2)) else '{}' end,
              ts.t
       from (select i, random() as active, random() as pick, random() as kind, random() as amount
             from generate_series($2::int, $3::int) i offset 0) r,
            lateral (select $4::timestamptz - interval '${EVENT_SPAN_DAYS} days' * (1 - (r.i - 0.5) / $5::float8) ^ 1.5 as t) ts,
            lateral (select least($6::int, floor(extract(epoch from ts.t - $7::timestamptz) * 1000 / $8::float8))::int as signed_up) s,
            lateral (select case when r.active < 0.5 then 1 + 10 * floor(r.pick * floor(s.signed_up / 10))::int
                                 else 1 + floor(r.pick * s.signed_up)::int end as n) who,
            lateral (select case when r.kind < 0.45 then 'page_view' when r.kind < 0.63 then 'login'
                                 when r.kind < 0.77 then 'email_opened' when r.kind < 0.85 then 'add_to_cart'
                                 when r.kind < 0.97 then 'purchase' else 'subscription_renewed' end as name) x`,
      [projectId, from, to, NOW, EVENTS, CONTACTS, new Date(NOW.getTime() - CONTACT_SPAN_DAYS * DAY_MS), (CONTACT_SPAN_DAYS * DAY_MS) / CONTACTS],
    );
    progress(`events: ${to.toLocaleString('en')} of ${EVENTS.toLocaleString('en')} in`);
  }
}

/**
 * Loads contacts and events on two connections at once (one per core). Each table's indexes are
 * built as soon as its rows are in, the events' ones by both connections, then everything is analyzed.
 */
async function seed(url: string, projectId: string): Promise<number> {
  const seedStarted = Date.now();
  const [a, b] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  await Promise.all([a.connect(), b.connect()]);
  try {
    for (const c of [a, b]) await c.query(`set maintenance_work_mem = '512MB'`);
    const migrated = await schemaFingerprint(a);
    await a.query(
      `insert into contact_fields (project_id, key, type) select $1, key, value from jsonb_each_text($2::jsonb)`,
      [projectId, JSON.stringify(FIELD_TYPES)],
    );
    const contactIndexes = await deferIndexes(a, 'contacts', ['contacts_pkey']);
    const eventIndexes = await deferIndexes(a, 'events', []);
    // The foreign key from events to contacts is checked once both tables are complete.
    const eventKeys = eventIndexes.filter((s) => s.includes('FOREIGN KEY'));
    const eventOthers = eventIndexes.filter((s) => !s.includes('FOREIGN KEY'));
    const drain = async (c: pg.Client, queue: string[]) => {
      for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
        await c.query(s);
        progress(s.slice(0, 100));
      }
    };
    await Promise.all([
      insertContacts(a, projectId).then(() => drain(a, contactIndexes)),
      insertEvents(b, projectId),
    ]);
    await Promise.all([drain(a, eventOthers), drain(b, eventOthers)]);
    await drain(a, eventKeys);
    if ((await schemaFingerprint(a)) !== migrated) throw new Error('the schema after loading differs from the migrated one');
    await Promise.all([a.query('vacuum analyze contacts'), b.query('vacuum analyze events')]);
    await a.query('vacuum analyze contact_fields');
    progress('vacuum analyze done');
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
  return Date.now() - seedStarted;
}

// ---------------------------------------------------------------------------------------------
// The two queries

function compiledQuery(projectId: string, types: Record<string, FieldType>): SQL {
  const condition: FilterCondition = {
    logic: 'AND',
    groups: [
      {
        filters: [
          { field: 'data.age', operator: 'greaterThan', value: AGE_OVER },
          { field: 'data.city', operator: 'contains', value: CITY_PART },
          { field: EVENT_NAME, operator: 'triggeredWithin', value: WINDOW_DAYS, unit: 'days' },
        ],
      },
    ],
  };
  const where = compileCondition(condition, { projectId, fieldTypes: types, now: NOW, segments: () => undefined });
  return sql`select count(*)::int as n from contacts c where c.project_id = ${projectId}::uuid and (${where})`;
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
  const r = await run<Record<string, number>>(db, sql`
    select count(*) filter (where (data ->> 'age')::numeric > ${AGE_OVER})::float8 / count(*) as age,
           count(*) filter (where data ->> 'city' ilike ${`%${CITY_PART}%`})::float8 / count(*) as city,
           (select count(distinct contact_id) from events
            where name = ${EVENT_NAME} and created_at >= ${since}::timestamptz)::float8 / count(*) as event
    from contacts where project_id = ${projectId}::uuid`);
  const row = r.rows[0]!;
  return { age: round(row.age!, 3), city: round(row.city!, 3), event: round(row.event!, 3) };
}

async function sizes(db: Db) {
  const r = await run<{ name: string; mb: number }>(db, sql`
    select relname as name, round(pg_total_relation_size(oid) / 1048576.0)::int as mb
    from pg_class where relname in ('contacts', 'events') and relkind = 'r'`);
  return Object.fromEntries(r.rows.map((row) => [`${row.name}MB`, row.mb]));
}

async function main() {
  const cleanup = new Cleanup();
  try {
    const scratch = await createScratchPg('pbx_bench_segment');
    cleanup.add(() => scratch.drop());
    const dir = scratchDir('pbx-bench-segment-');
    cleanup.add(dir.remove);

    const database = await openDatabase({ databaseUrl: scratch.url, dataDir: dir.dir });
    cleanup.add(() => database.close());
    await database.migrate();
    const db = database.db;
    const project = await createProject(db, 'bench');

    const seedMs = await seed(scratch.url, project.id);

    const types = Object.fromEntries((await fieldTypes(db, project.id)).map((f) => [f.key, f.type]));
    const queries = [
      { name: 'compiled', q: compiledQuery(project.id, types) },
      { name: 'hand', q: handQuery(project.id) },
    ] as const;

    const busyBeforePct = await waitForQuiet(60_000);
    const times: Record<string, number[]> = { compiled: [], hand: [] };
    const counts: Record<string, number> = {};
    for (let i = 0; i < WARMUP + REPEAT; i++) {
      // Alternating which goes first, so neither always runs on the cache the other left.
      for (const { name, q } of i % 2 === 0 ? queries : [...queries].reverse()) {
        const { n, ms } = await count(db, q);
        if (counts[name] !== undefined && counts[name] !== n) throw new Error(`${name} counted ${n}, earlier ${counts[name]}`);
        counts[name] = n;
        if (i >= WARMUP) times[name]!.push(ms);
      }
    }
    if (counts.compiled !== counts.hand) {
      throw new Error(`the compiled query counted ${counts.compiled} contacts, the hand-written one ${counts.hand}`);
    }
    if (process.env.BENCH_EXPLAIN) for (const { name, q } of queries) await explain(db, name, q);

    const compiled = stats(times.compiled!);
    const hand = stats(times.hand!);
    const ratio = round(compiled.p50 / hand.p50, 2);
    process.stdout.write(
      `${JSON.stringify({
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
        goals: { ms: GOAL_MS, ratio: GOAL_RATIO, msMet: compiled.p50 < GOAL_MS, ratioMet: ratio <= GOAL_RATIO },
        sizes: await sizes(db),
        cpuBusyBeforePct: busyBeforePct,
        machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memGiB: round(os.totalmem() / 2 ** 30), node: process.version },
      })}\n`,
    );
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
