/**
 * GET /contacts?search=<term> (first page, with `total`) over HTTP on PostgreSQL with 1,000,000
 * contacts in one project. Terms of different selectivity take different plans, so each is timed
 * on its own.
 *
 *   npx tsx bench/contacts-search.ts                   # prints one JSON line
 *   BENCH_EXPLAIN=1 npx tsx bench/contacts-search.ts   # also the plans of the list and count queries, on stderr
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS (1000000), BENCH_REPEAT (20).
 */
import pg from 'pg';
import * as repo from '../src/modules/contacts/repo.js';
import type { Executor } from '../src/platform/db/client.js';
import { explainStatements, migratedScratch, startScratchService } from './lib.js';
import { type Cleanup, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);
const WARMUP = 2;
const GOAL_MS = 100;

// Each domain gets about 1/50 = 2% of the contacts; none is a substring of another's search term.
const DOMAINS = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'icloud.com',
  'aol.com',
  'proton.me',
  'gmx.de',
  'web.de',
  'yandex.ru',
  'mail.ru',
  'orange.fr',
  'free.fr',
  'laposte.net',
  'libero.it',
  'qq.com',
  '163.com',
  'naver.com',
  'comcast.net',
  'verizon.net',
  'att.net',
  'btinternet.com',
  'sky.com',
  'shaw.ca',
  'rogers.com',
  'bigpond.com',
  'optusnet.com.au',
  'xtra.co.nz',
  't-online.de',
  'seznam.cz',
  'wp.pl',
  'onet.pl',
  'rambler.ru',
  'ukr.net',
  'abv.bg',
  'zoho.com',
  'fastmail.com',
  'hey.com',
  'tutanota.com',
  'acme.io',
  'example.org',
  'initech.com',
  'globex.com',
  'umbrella.co',
  'hooli.xyz',
  'piedpiper.net',
  'wayne.co',
  'stark.dev',
  'cyberdyne.ai',
  'tyrell.org',
];
const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'Frances', 'Edsger'];

/*
 * user<n> with n rising with created_at, as sign-ups do: prefix matches such as 'user12' then
 * cluster among the oldest rows, the far end of a newest-first scan.
 */
const TERMS: { kind: string; term: string }[] = [
  { kind: 'rare', term: 'user123456@' }, // one contact
  { kind: 'medium', term: 'user12' }, // user12, user12x … user12xxxx: 11,111 contacts, 1.1%
  { kind: 'common', term: 'orange.fr' }, // one domain of 50: ~2%
  { kind: 'none', term: 'nobody.invalid' }, // matches nothing: the whole candidate set is examined
];

async function seed(url: string, projectId: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const started = Date.now();
  try {
    const chunk = 250_000;
    for (let from = 1; from <= CONTACTS; from += chunk) {
      const to = Math.min(CONTACTS, from + chunk - 1);
      await c.query(
        `insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
         select $1, 'user' || n || '@' || ($2::text[])[1 + (hashint4(n)::bigint & 2147483647) % 50],
                n % 10 <> 0,
                jsonb_build_object(
                  'firstName', ($3::text[])[1 + n % 10],
                  'plan', (array['free', 'pro', 'team'])[1 + n % 3],
                  'score', n % 100)
                  || case when n % 4 = 0 then jsonb_build_object('company', 'Company ' || n % 997) else '{}' end,
                t, t
         from generate_series($4::int, $5::int) n,
              lateral (select timestamptz '2024-01-01' + n * interval '30 seconds' as t) ts`,
        [projectId, DOMAINS, FIRST_NAMES, from, to],
      );
    }
    await c.query('analyze contacts');
  } finally {
    await c.end();
  }
  return Date.now() - started;
}

/** The plans of the repository's own list and count queries, so they are the real ones. */
async function explain(ex: Executor, projectId: string, term: string): Promise<void> {
  const q = { projectId, search: term, sort: 'createdAt' as const, dir: 'desc' as const, limit: 21 };
  const list = await explainStatements(ex, (e) => repo.listContacts(e, q));
  process.stderr.write(`\n=== ${term}: list ===\n${list.join('\n--- then\n')}\n`);
  const count = await explainStatements(ex, (e) => repo.countContacts(e, q));
  process.stderr.write(`=== ${term}: count ===\n${count.join('\n')}\n`);
}

async function main(cleanup: Cleanup) {
  const { db: scratch, dataDir, project } = await migratedScratch(cleanup, 'search');
  const seedMs = await seed(scratch.url, project.id);

  const service = await startScratchService(cleanup, { db: scratch, dataDir }, 'all');
  const headers = { authorization: `Bearer ${project.secretKey}` };

  const results: Record<string, unknown> = {};
  for (const { kind, term } of TERMS) {
    const url = `${service.url}/contacts?search=${encodeURIComponent(term)}`;
    const times: number[] = [];
    let total = -1;
    const busyBeforePct = await waitForQuiet(60_000);
    for (let i = 0; i < WARMUP + REPEAT; i++) {
      const started = performance.now();
      const res = await fetch(url, { headers });
      const body = (await res.json()) as { total: number };
      const ms = performance.now() - started;
      if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(body)}`);
      total = body.total;
      if (i >= WARMUP) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    const p99 = percentile(times, 99);
    results[kind] = {
      term,
      total,
      p50: round(p50),
      p99: round(p99),
      met: p99 < GOAL_MS,
      cpuBusyBeforePct: busyBeforePct,
    };
    if (process.env.BENCH_EXPLAIN) await explain(service.ctx.db, project.id, term);
  }

  printResult({
    bench: 'contacts-search',
    contacts: CONTACTS,
    repeat: REPEAT,
    seedSeconds: round(seedMs / 1000),
    goalMs: GOAL_MS,
    terms: results,
    machine: machineInfo(),
  });
}

runBench(main);
