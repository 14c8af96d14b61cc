/**
 * One project's contacts and events, loaded set-wise on a migrated PostgreSQL database: shared by
 * bench/segment-count.ts and bench/activity.ts.
 *
 * Indexes and constraints are dropped while the rows go in and rebuilt from the catalog's own
 * definitions afterwards, then both tables are analyzed. Contacts sign up evenly over the
 * CONTACT_SPAN_DAYS before `now`, `n` rising with `created_at`; events arrive in time order over
 * the last EVENT_SPAN_DAYS, denser towards `now` (about a fifth of them in the last 30 days), each
 * by a contact who had signed up by then, half by the most active tenth of the contacts. What an
 * event is called and carries is the caller's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { FieldType } from '../src/domain/contact-data.js';
import type { Db } from '../src/platform/db/client.js';
import { ensureMonthsAhead, MONTHS_AHEAD } from '../src/platform/db/partitions.js';
import { round } from './run.js';

export const DAY_MS = 86_400_000;
export const CONTACT_SPAN_DAYS = 730;
export const EVENT_SPAN_DAYS = 365;

const seedStarted = performance.now();
const progress = (message: string) =>
  process.stderr.write(`[${round((performance.now() - seedStarted) / 1000)} s] ${message}\n`);

/** Contact n (1-based) has this id, so events can name their contact without a join. */
export const contactIdSql = (n: string) => `md5('contact' || ${n})::uuid`;

// Drawn with a skew (the first cities are the most common), as real address books are.
const CITIES = [
  'London',
  'New York',
  'Paris',
  'Berlin',
  'San Francisco',
  'Madrid',
  'Toronto',
  'Chicago',
  'Sydney',
  'Los Angeles',
  'Amsterdam',
  'São Paulo',
  'Tokyo',
  'San Diego',
  'Barcelona',
  'Munich',
  'Dublin',
  'Seattle',
  'Austin',
  'Singapore',
  'Melbourne',
  'Boston',
  'Vienna',
  'Stockholm',
  'Santiago',
  'Lisbon',
  'Milan',
  'Zurich',
  'Copenhagen',
  'Warsaw',
  'Prague',
  'Montreal',
  'Vancouver',
  'San Jose',
  'Denver',
  'Atlanta',
  'Mumbai',
  'Bangalore',
  'Seoul',
  'Busan',
  'Osaka',
  'Cape Town',
  'Lagos',
  'Nairobi',
  'Mexico City',
  'Buenos Aires',
  'Lima',
  'Bogotá',
  'San Antonio',
  'Auckland',
];
const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'Frances', 'Edsger'];
const FIELD_TYPES: Record<string, FieldType> = { firstName: 'string', plan: 'string', age: 'number', city: 'string' };

export interface Population {
  contacts: number;
  events: number;
  /** Time spans are measured back from this instant. */
  now: Date;
}

/**
 * The events' names and data, as SQL over the generated row: `r.i` (1 … events, rising with time),
 * `r.kind` and `r.amount` (uniform in [0, 1)), `ts.t` (its time) and, in `data`, `x.name`.
 * `params` are `$9` onwards.
 */
export interface EventKinds {
  /** `setseed` before the first chunk. */
  seed: number;
  name: string;
  data: string;
  params?: unknown[];
}

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
  // An index of a partitioned table is defined `ON ONLY` the parent; made again without it, it is
  // built on every partition as the migration's was.
  return [...indexes.rows, ...constraints.rows].map((r) => r.create.replace(' ON ONLY ', ' ON '));
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

async function insertContacts(c: pg.Client, projectId: string, p: Population): Promise<void> {
  await c.query('select setseed(0.17)');
  const chunk = 250_000;
  for (let from = 1; from <= p.contacts; from += chunk) {
    const to = Math.min(p.contacts, from + chunk - 1);
    // Sign-ups spread evenly over the span, n rising with created_at. 10 % have no age, 5 % no city.
    await c.query(
      `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       select ${contactIdSql('n')}, $1, 'user' || n || '@example' || n % 50 || '.com', r.sub >= 0.1,
              jsonb_build_object('firstName', ($2::text[])[1 + n % 10], 'plan', (array['free', 'pro', 'team'])[1 + floor(r.plan * 3)::int])
                || case when r.has_age < 0.9 then jsonb_build_object('age', 18 + floor(r.age * 60)::int) else '{}' end
                || case when r.has_city < 0.95 then jsonb_build_object('city', ($3::text[])[1 + floor(50 * r.city ^ 2)::int]) else '{}' end,
              t, t
       from (select n, random() as sub, random() as plan, random() as has_age, random() as age,
                    random() as has_city, random() as city
             from generate_series($4::int, $5::int) n offset 0) r,
            lateral (select $6::timestamptz + n * $7::float8 * interval '1 millisecond' as t) ts`,
      [
        projectId,
        FIRST_NAMES,
        CITIES,
        from,
        to,
        new Date(p.now.getTime() - CONTACT_SPAN_DAYS * DAY_MS),
        (CONTACT_SPAN_DAYS * DAY_MS) / p.contacts,
      ],
    );
    progress(`contacts: ${to.toLocaleString('en')} of ${p.contacts.toLocaleString('en')} in`);
  }
}

async function insertEvents(c: pg.Client, projectId: string, p: Population, kinds: EventKinds): Promise<void> {
  await c.query(`select setseed(${kinds.seed})`);
  const chunk = 500_000;
  for (let from = 1; from <= p.events; from += chunk) {
    const to = Math.min(p.events, from + chunk - 1);
    /*
     * Events arrive in time order, as tracking appends them, over the span and denser towards
     * now (activity grows): about a fifth of them fall in the last 30 days. Each is by a contact
     * who had signed up by then; half by the most active tenth of the contacts.
     */
    await c.query(
      `insert into events (project_id, contact_id, name, data, created_at)
       select $1, ${contactIdSql('who.n')}, x.name,
              ${kinds.data},
              ts.t
       from (select i, random() as active, random() as pick, random() as kind, random() as amount
             from generate_series($2::int, $3::int) i offset 0) r,
            lateral (select $4::timestamptz - interval '${EVENT_SPAN_DAYS} days' * (1 - (r.i - 0.5) / $5::float8) ^ 1.5 as t) ts,
            lateral (select least($6::int, floor(extract(epoch from ts.t - $7::timestamptz) * 1000 / $8::float8))::int as signed_up) s,
            lateral (select case when r.active < 0.5 then 1 + 10 * floor(r.pick * floor(s.signed_up / 10))::int
                                 else 1 + floor(r.pick * s.signed_up)::int end as n) who,
            lateral (select ${kinds.name} as name) x`,
      [
        projectId,
        from,
        to,
        p.now,
        p.events,
        p.contacts,
        new Date(p.now.getTime() - CONTACT_SPAN_DAYS * DAY_MS),
        (CONTACT_SPAN_DAYS * DAY_MS) / p.contacts,
        ...(kinds.params ?? []),
      ],
    );
    progress(`events: ${to.toLocaleString('en')} of ${p.events.toLocaleString('en')} in`);
  }
}

/**
 * The month partitions of the events' span, as a service running through that span would have made
 * them, so that rows land in their month rather than in the default partition.
 */
async function monthPartitions(c: pg.Client, p: Population): Promise<void> {
  const first = new Date(p.now.getTime() - EVENT_SPAN_DAYS * DAY_MS);
  const months =
    (p.now.getUTCFullYear() - first.getUTCFullYear()) * 12 + p.now.getUTCMonth() - first.getUTCMonth() + MONTHS_AHEAD;
  await ensureMonthsAhead(drizzle(c) as unknown as Db, 'events', first, months);
}

/**
 * Loads contacts and events on two connections at once (one per core). Each table's indexes are
 * built as soon as its rows are in, the events' ones by both connections, then everything is
 * analyzed. Contacts carry `firstName`, `plan`, `age` (a number, typed in `contact_fields`) and
 * `city`. Returns the milliseconds it took.
 */
export async function seedContactsAndEvents(
  url: string,
  projectId: string,
  p: Population,
  kinds: EventKinds,
): Promise<number> {
  const seedStarted = Date.now();
  const [a, b] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  await Promise.all([a.connect(), b.connect()]);
  try {
    for (const c of [a, b]) await c.query(`set maintenance_work_mem = '512MB'`);
    await monthPartitions(a, p);
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
      insertContacts(a, projectId, p).then(() => drain(a, contactIndexes)),
      insertEvents(b, projectId, p, kinds),
    ]);
    await Promise.all([drain(a, eventOthers), drain(b, eventOthers)]);
    await drain(a, eventKeys);
    if ((await schemaFingerprint(a)) !== migrated)
      throw new Error('the schema after loading differs from the migrated one');
    await Promise.all([a.query('vacuum analyze contacts'), b.query('vacuum analyze events')]);
    await a.query('vacuum analyze contact_fields');
    progress('vacuum analyze done');
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
  return Date.now() - seedStarted;
}

/** The last statement of the migration that created `event_daily_counts`: its backfill from `events`. */
export function rollupBackfill(): string {
  const file = path.resolve(import.meta.dirname, '../src/platform/db/migrations/0010_activity_rollup.sql');
  const statement = fs.readFileSync(file, 'utf8').split('--> statement-breakpoint').pop()!.trim();
  if (!/^INSERT INTO "event_daily_counts"/.test(statement))
    throw new Error(`unexpected last statement in ${file}: ${statement.slice(0, 80)}`);
  return statement;
}
