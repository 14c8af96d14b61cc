/**
 * The audit log on PostgreSQL, two figures:
 *
 * - `reads`: GET /audit-log over BENCH_ENTRIES (5,000,000) entries of one project, seeded by a single
 *   INSERT … SELECT generate_series (a year of entries, 40 actors, 30 actions, 100,000 targets):
 *   the first page unfiltered (with its capped total), by actor, by a rare and a common action, by
 *   target, by a time range, and a page deep behind a cursor; p50 and p95 of each, and of all.
 * - `writes`: the dashboard's write requests as a signed-in owner (PATCH /contacts/{id} and
 *   PATCH /webhooks/{id}, sequential): p50 and p95. Run the same file on the commit before the
 *   audit log (BENCH_PART=writes) to compare.
 *
 *   npx tsx bench/audit-log.ts                    # both; prints one JSON line
 *   BENCH_PART=writes npx tsx bench/audit-log.ts  # only the write requests
 *
 *   # before and after at once: this commit's service and the one of BENCH_BEFORE (a checkout of
 *   # another commit with this file copied into its bench/), started side by side, their requests
 *   # alternated one by one (the first side alternating too), so that load from elsewhere on the
 *   # machine falls on both alike. Prints each side's p50 and p95 and the change of the p50.
 *   BENCH_PART=writes BENCH_BEFORE=/tmp/audit-base npx tsx bench/audit-log.ts
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_ENTRIES (5000000),
 * BENCH_REPEAT (40 per read query), BENCH_WRITES (600 per write route), BENCH_PART
 * (all|reads|writes|serve: `serve` sets the write requests up, prints where, and holds the service
 * until stdin ends: the other side of BENCH_BEFORE), BENCH_BEFORE.
 */
import { spawn } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { createUser } from '../src/modules/accounts/service.js';
import { run } from '../src/platform/db/client.js';
import { migratedScratch, startScratchService } from './lib.js';
import { type Cleanup, log, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 5_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 40);
const WRITES = Number(process.env.BENCH_WRITES ?? 600);
const PART = process.env.BENCH_PART ?? 'all';
const BEFORE = process.env.BENCH_BEFORE || undefined;
const GOAL_P95_MS = 200;
const PASSWORD = 'bench-audit-correct-horse';

const stats = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50), 2), p95: round(percentile(sorted, 95), 2), n: sorted.length };
};

async function timed(url: string, headers: Record<string, string>, method = 'GET', body?: unknown) {
  const started = performance.now();
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return { ms, body: text ? JSON.parse(text) : null };
}

/** Where a service's write requests go: the contact and the webhook they change. */
interface WriteTarget {
  base: string;
  session: Record<string, string>;
  contactId: string;
  hookId: string;
}

async function writeTarget(base: string, session: Record<string, string>, secret: Record<string, string>) {
  const contact = (await timed(`${base}/contacts`, secret, 'POST', { email: 'bench@example.com' })).body;
  const hook = (
    await timed(`${base}/webhooks`, secret, 'POST', { url: 'https://h.example.com/', events: ['email.sent'] })
  ).body;
  return { base, session, contactId: contact.id as string, hookId: hook.id as string };
}

function writeCall(t: WriteTarget, name: 'patchContact' | 'patchWebhook', i: number) {
  return name === 'patchContact'
    ? timed(`${t.base}/contacts/${t.contactId}`, t.session, 'PATCH', { data: { n: i } })
    : timed(`${t.base}/webhooks/${t.hookId}`, t.session, 'PATCH', { description: `bench ${i}` });
}

/** This file's `serve` part run in another checkout: its service, set up, until `cleanup`. */
async function serveElsewhere(cleanup: Cleanup, dir: string): Promise<WriteTarget> {
  const child = spawn('npx', ['tsx', 'bench/audit-log.ts'], {
    cwd: dir,
    env: { ...process.env, BENCH_PART: 'serve', BENCH_BEFORE: '' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanup.add(async () => {
    child.stdin.end();
    await exited;
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d;
      if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`the service in ${dir} ended (${code}) before it was set up`)));
  });
  return JSON.parse(line) as WriteTarget;
}

runBench(async (cleanup: Cleanup) => {
  const scratch = await migratedScratch(cleanup, 'audit');
  const db = scratch.database.db;
  const projectId = scratch.project.id;
  const user = (await createUser(db, 'owner@bench.test', PASSWORD, new Date()))!;
  await run(
    db,
    sql`insert into project_members (project_id, user_id, role) values (${projectId}, ${user.id}, 'owner')
      on conflict (project_id, user_id) do update set role = 'owner'`,
  );
  const service = await startScratchService(cleanup, scratch, 'serve');
  const base = service.url!;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@bench.test', password: PASSWORD }),
  });
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const session = { cookie, 'x-project-id': projectId };
  const secret = { authorization: `Bearer ${scratch.project.secretKey}` };
  const result: Record<string, unknown> = { bench: 'audit-log', machine: machineInfo() };

  if (PART !== 'reads') {
    const here = await writeTarget(base, session, secret);
    if (PART === 'serve') {
      process.stdout.write(`${JSON.stringify(here)}\n`);
      await new Promise((resolve) => process.stdin.on('end', resolve).resume());
      return;
    }
    const sides: WriteTarget[] = [here];
    if (BEFORE) {
      const other = await serveElsewhere(cleanup, BEFORE);
      sides.unshift(other);
      result.before = BEFORE;
    }
    await waitForQuiet();
    const writes: Record<string, unknown> = {};
    for (const name of ['patchContact', 'patchWebhook'] as const) {
      for (let i = 0; i < 50; i++) for (const side of sides) await writeCall(side, name, -i);
      const times: number[][] = sides.map(() => []);
      for (let i = 0; i < WRITES; i++) {
        const order = i % 2 === 0 ? sides.map((_, k) => k) : sides.map((_, k) => sides.length - 1 - k);
        for (const k of order) times[k]!.push((await writeCall(sides[k]!, name, i)).ms);
      }
      if (BEFORE) {
        const [before, after] = [stats(times[0]!), stats(times[1]!)];
        writes[name] = { before, after, p50Change: round(after.p50 / before.p50 - 1, 3) };
      } else writes[name] = stats(times[0]!);
      log(`${name}: ${JSON.stringify(writes[name])}`);
    }
    result.writes = writes;
  }

  if (PART !== 'writes' && PART !== 'serve') {
    log(`seeding ${ENTRIES} audit entries`);
    const seedStarted = performance.now();
    // A year of entries, oldest first, in one statement: 40 actors (32 users, 6 keys, the secret
    // key, the system), 30 actions over 10 target types (and a rare one, one entry in 100,000),
    // 100,000 targets.
    await scratch.database.unbounded((u) =>
      run(
        u,
        sql`insert into audit_log (id, project_id, created_at, actor, actor_name, ip, user_agent, request_id, action,
            target_type, target_id, changes)
          select gen_random_uuid(), ${projectId}::uuid,
            now() - interval '365 days' + (i::float8 / ${ENTRIES}) * interval '365 days',
            case when i % 40 < 32 then 'user:00000000-0000-4000-8000-0000000000' || lpad((i % 40)::text, 2, '0')
                 when i % 40 < 38 then 'key:00000000-0000-4000-9000-0000000000' || lpad((i % 40)::text, 2, '0')
                 when i % 40 = 38 then 'secret-key' else 'system' end,
            'someone' || (i % 40) || '@bench.test', '203.0.113.' || (i % 250), 'Mozilla/5.0 (bench)', null,
            case when i % 100000 = 0 then 'member.role_changed' else
              (array['contact','segment','template','campaign','workflow','webhook','domain','api_key','member',
                     'suppression'])[1 + i % 10] || '.' || (array['created','updated','deleted'])[1 + (i / 10) % 3] end,
            (array['contact','segment','template','campaign','workflow','webhook','domain','api_key','member',
                   'suppression'])[1 + i % 10],
            (i % 100000)::text, '{"fields":["name","data.plan"]}'::jsonb
          from generate_series(1, ${ENTRIES}) i`,
      ),
    );
    await scratch.database.unbounded((u) => run(u, sql`vacuum analyze audit_log`));
    const seedSeconds = round((performance.now() - seedStarted) / 1000);
    const size = (
      await run<{ table: string; indexes: string }>(
        db,
        sql`select pg_size_pretty(pg_table_size('audit_log')) as table, pg_size_pretty(pg_indexes_size('audit_log')) as indexes`,
      )
    ).rows[0];
    log(`seeded in ${seedSeconds} s: ${JSON.stringify(size)}`);
    await waitForQuiet();

    const first = await timed(`${base}/audit-log?limit=50`, secret);
    const deepCursor = await (async () => {
      // The 20th page: the cursor of a page 1,000 entries in.
      let cursor = first.body.cursor as string;
      for (let i = 0; i < 19; i++)
        cursor = (await timed(`${base}/audit-log?limit=50&cursor=${cursor}`, secret)).body.cursor;
      return cursor;
    })();
    const month = (m: number) => new Date(Date.now() - m * 30 * 86_400_000).toISOString();
    const queries: Record<string, string> = {
      firstPage: '/audit-log?limit=50',
      byActor: '/audit-log?limit=50&actor=user:00000000-0000-4000-8000-000000000007',
      byCommonAction: '/audit-log?limit=50&action=contact.updated',
      byRareAction: '/audit-log?limit=50&action=member.role_changed',
      byTarget: '/audit-log?limit=50&targetType=contact&targetId=4240',
      byTimeRange: `/audit-log?limit=50&from=${encodeURIComponent(month(7))}&to=${encodeURIComponent(month(6))}`,
      byActorAndTime: `/audit-log?limit=50&actor=secret-key&from=${encodeURIComponent(month(3))}&to=${encodeURIComponent(month(2))}`,
      deepCursor: `/audit-log?limit=50&cursor=${deepCursor}`,
    };
    const reads: Record<string, unknown> = {};
    const all: number[] = [];
    for (const [name, path] of Object.entries(queries)) {
      for (let i = 0; i < 3; i++) await timed(base + path, secret);
      const times: number[] = [];
      for (let i = 0; i < REPEAT; i++) times.push((await timed(base + path, i % 2 ? secret : session)).ms);
      const last = await timed(base + path, secret);
      reads[name] = { ...stats(times), rows: last.body.data.length, total: last.body.total };
      all.push(...times);
      log(`${name}: ${JSON.stringify(reads[name])}`);
    }
    const overall = stats(all);
    result.reads = {
      entries: ENTRIES,
      seedSeconds,
      size,
      queries: reads,
      overall,
      goalP95Ms: GOAL_P95_MS,
      met: overall.p95 < GOAL_P95_MS,
    };
  }
  printResult(result);
});
