/**
 * The activity feed, its statistics and the analytics endpoints over HTTP, on PostgreSQL with
 * 5,000,000 events in one project: every endpoint of the "Activity, analytics" table, with time
 * ranges and filters. Goal: p95 < 200 ms for each variant.
 *
 *   npx tsx bench/activity.ts                     # ~2–3 min (about 1 of them loading); prints one JSON line
 *   BENCH_EXPLAIN=1 npx tsx bench/activity.ts     # plus EXPLAIN (ANALYZE, BUFFERS), on stderr, of the
 *                                                 # statements of every variant that misses the goal
 *                                                 # (of the three slowest when none does)
 *   BENCH_EXPLAIN=all npx tsx bench/activity.ts   # … of every variant
 *   BENCH_SQL='create index …' npx tsx bench/activity.ts   # a candidate fix, run on the loaded data
 *                                                 # before the service starts (then `analyze`)
 *
 * Setup (not measured), on a fresh database migrated by the service's own `migrate`:
 * - contacts and events loaded set-wise as bench/segment-count.ts loads them (bench/seed.ts: indexes
 *   dropped and rebuilt, then `vacuum analyze`): BENCH_CONTACTS (500,000) over two years, BENCH_EVENTS
 *   (5,000,000) over the last year, denser towards now. Events are email.sent 30 %, email.opened 12 %,
 *   email.clicked 4 %, email.bounced 0.5 %, email.failed 0.3 %, email.complained 0.05 %, and 20 client
 *   event names (skewed) for the rest. Email events carry `data.emailId` and, 60 % of them,
 *   `data.campaignId` (the campaign sent last before the event);
 * - no `event_outbox` rows, so `event_daily_counts` is filled from the events by the migration's own
 *   backfill statement (the dispatcher never sees seeded events);
 * - 48 SENT campaigns, one every 7.6 days over the year, with counters counted from their events,
 *   3 SCHEDULED in the next week and 2 drafts; `emails` rows for the newest 50,000 email events (the
 *   feed left-joins them for the subject); 2 workflows with 25,000 executions each (30 % waiting,
 *   10 % running).
 *
 * Then the service runs as a `serve` child process (LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE=10^9) and
 * each variant is requested over one keep-alive connection, one request at a time: 3 warm-ups (1 when
 * the first takes over 2 s), then BENCH_REPEAT (20) timed requests, fewer (at least 5) once a variant
 * has spent 30 s. Before each variant the bench waits (up to 15 s) for the CPU to settle and records
 * how busy it was. Times are request → whole body read, on the client.
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS, BENCH_EVENTS, BENCH_REPEAT,
 * BENCH_EXPLAIN, BENCH_SQL.
 */
import pg from 'pg';
import * as repo from '../src/modules/activity/repo.js';
import { ACTIVITY_TYPES } from '../src/modules/activity/schemas.js';
import type { Executor } from '../src/platform/db/client.js';
import { benchServiceEnv, connectPg, explainStatements, freePort, migratedScratch, startServiceChild } from './lib.js';
import { type Cleanup, log, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';
import {
  contactIdSql,
  DAY_MS,
  EVENT_SPAN_DAYS,
  type EventKinds,
  type Population,
  rollupBackfill,
  seedContactsAndEvents,
} from './seed.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 500_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);
const EXPLAIN = process.env.BENCH_EXPLAIN;
/** Statements run on the loaded database before the service starts (a candidate index, say), then `analyze`. */
const EXTRA_SQL = process.env.BENCH_SQL;
const WARMUP = 3;
const MIN_REPEAT = 5;
/** A variant stops after MIN_REPEAT timed requests once its timed requests have taken this long. */
const VARIANT_BUDGET_MS = 30_000;
const GOAL_MS = 200;

const SENT_CAMPAIGNS = 48;
const CAMPAIGN_EVERY_MS = (EVENT_SPAN_DAYS * DAY_MS) / SENT_CAMPAIGNS;
const EMAIL_ROWS = 50_000;
const EXECUTIONS_PER_WORKFLOW = 25_000;

const CLIENT_EVENTS = [
  'page_view',
  'login',
  'product_viewed',
  'search',
  'add_to_cart',
  'logout',
  'purchase',
  'checkout_started',
  'profile_updated',
  'remove_from_cart',
  'file_uploaded',
  'invite_sent',
  'report_exported',
  'subscription_renewed',
  'trial_started',
  'signup',
  'plan_upgraded',
  'password_reset',
  'support_ticket_opened',
  'subscription_cancelled',
];

/** The data is generated back from this instant, and the service's clock is the real one. */
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const CAMPAIGNS_FROM = new Date(NOW.getTime() - EVENT_SPAN_DAYS * DAY_MS);
const ago = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

const POPULATION: Population = { contacts: CONTACTS, events: EVENTS, now: NOW };

/** Campaign k (0-based) has this id and was sent at CAMPAIGNS_FROM + k × CAMPAIGN_EVERY_MS. */
const campaignIdSql = (k: string) => `md5('campaign' || ${k})::uuid`;

const EVENT_KINDS: EventKinds = {
  seed: 0.23,
  name: `case when r.kind < 0.30 then 'email.sent' when r.kind < 0.42 then 'email.opened'
               when r.kind < 0.46 then 'email.clicked' when r.kind < 0.465 then 'email.bounced'
               when r.kind < 0.468 then 'email.failed' when r.kind < 0.4685 then 'email.complained'
               else ($9::text[])[1 + floor(20 * ((r.kind - 0.4685) / 0.5315) ^ 2)::int] end`,
  data: `case when x.name like 'email.%' then
                jsonb_build_object('emailId', md5('email' || r.i)::uuid)
                || case when r.amount < 0.6
                        then jsonb_build_object('campaignId', ${campaignIdSql(`least($11::int - 1, floor(extract(epoch from ts.t - $10::timestamptz) * 1000 / $12::float8)::int)`)})
                        else '{}' end
                || case when x.name = 'email.clicked' then jsonb_build_object('url', 'https://bench.example.com/blog/' || floor(r.amount * 1000)::int)
                        when x.name = 'email.bounced' then jsonb_build_object('bounceType', case when r.amount < 0.3 then 'soft' else 'hard' end)
                        else '{}' end
              when x.name = 'purchase' then jsonb_build_object('amount', round((5 + r.amount * 195)::numeric, 2))
              when x.name = 'page_view' then jsonb_build_object('path', '/docs/' || floor(r.amount * 500)::int)
              else '{}' end`,
  params: [CLIENT_EVENTS, CAMPAIGNS_FROM, SENT_CAMPAIGNS, CAMPAIGN_EVERY_MS],
};

const HTML = `<!doctype html><html><body><h1>News from Bench</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>'.repeat(30)}</body></html>`;

// ---------------------------------------------------------------------------------------------
// Data beyond contacts and events

async function insertCampaigns(c: pg.Client, projectId: string): Promise<void> {
  // Counters as delivery and tracking keep them: per campaign, from its events.
  await c.query(
    `with figures as (
       select data->>'campaignId' as id,
              count(*) filter (where name = 'email.sent')::int as sent,
              count(*) filter (where name = 'email.failed')::int as failed,
              count(*) filter (where name = 'email.opened')::int as opened,
              count(*) filter (where name = 'email.clicked')::int as clicked,
              count(*) filter (where name = 'email.bounced')::int as bounced,
              count(*) filter (where name = 'email.complained')::int as complained
       from events where project_id = $1 and name like 'email.%' and data ? 'campaignId' group by 1)
     insert into campaigns (id, project_id, name, subject, body, from_email, from_name, type, status, audience_type,
                            total_recipients, sent_count, delivered_count, opened_count, clicked_count, bounced_count, complained_count,
                            sent_at, frozen_at, fanned_out_at, created_at, updated_at)
     select ${campaignIdSql('k')}, $1, 'Newsletter #' || (k + 1), 'What is new at Bench, issue ' || (k + 1), $2,
            'news@bench.example.com', 'Bench', 'MARKETING', 'SENT', 'ALL',
            coalesce(f.sent + f.failed, 0), coalesce(f.sent, 0), coalesce(f.sent - f.bounced, 0), coalesce(f.opened, 0),
            coalesce(f.clicked, 0), coalesce(f.bounced, 0), coalesce(f.complained, 0),
            s.at, s.at, s.at, s.at - interval '2 days', s.at
     from generate_series(0, $3::int - 1) k
          cross join lateral (select $4::timestamptz + k * $5::float8 * interval '1 millisecond' as at) s
          left join figures f on f.id = ${campaignIdSql('k')}::text`,
    [projectId, HTML, SENT_CAMPAIGNS, CAMPAIGNS_FROM, CAMPAIGN_EVERY_MS],
  );
  await c.query(
    `insert into campaigns (project_id, name, subject, body, from_email, from_name, type, status, audience_type, scheduled_for, created_at, updated_at)
     select $1, case when k <= 3 then 'Scheduled #' || k else 'Draft #' || k end, 'Coming soon', $2, 'news@bench.example.com', 'Bench',
            'MARKETING', case when k <= 3 then 'SCHEDULED' else 'DRAFT' end, 'ALL',
            case when k <= 3 then $3::timestamptz + (array[1, 3, 7])[k] * interval '1 day' end, $3, $3
     from generate_series(1, 5) k`,
    [projectId, HTML, NOW],
  );
}

/** `emails` rows for the newest email events, under the ids the events name. */
async function insertEmails(c: pg.Client, projectId: string): Promise<void> {
  await c.query(
    `insert into emails (id, project_id, contact_id, campaign_id, type, status, from_email, from_name, to_email, subject, html,
                         message_id, attempts, sent_at, created_at, updated_at)
     select (e.data->>'emailId')::uuid, e.project_id, e.contact_id, k.id,
            case when k.id is null then 'TRANSACTIONAL' else 'MARKETING' end,
            case when e.name = 'email.failed' then 'failed' else 'sent' end,
            'news@bench.example.com', 'Bench', c.email, coalesce(k.subject, 'Your receipt ' || left(e.data->>'emailId', 8)), $2,
            '<' || (e.data->>'emailId') || '@bench.example.com>', 1, e.created_at, e.created_at, e.created_at
     from (select * from events where project_id = $1 and name like 'email.%' order by created_at desc limit $3) e
          join contacts c on c.id = e.contact_id
          left join campaigns k on k.id = (e.data->>'campaignId')::uuid`,
    [projectId, HTML, EMAIL_ROWS],
  );
}

async function insertWorkflows(c: pg.Client, projectId: string): Promise<void> {
  await c.query(
    `insert into workflows (id, project_id, name, trigger_type, trigger_config, enabled, signing_secret, created_at, updated_at)
     values (md5('workflow1')::uuid, $1, 'Onboarding', 'EVENT', '{"event": "signup"}', true, md5('secret1'), $2::timestamptz - interval '300 days', $2),
            (md5('workflow2')::uuid, $1, 'Win-back', 'EVENT', '{"event": "subscription_cancelled"}', true, md5('secret2'), $2::timestamptz - interval '200 days', $2)`,
    [projectId, NOW],
  );
  // 60 % completed, 30 % waiting (a delay of up to 3 days), 10 % running (due within the hour).
  await c.query(
    `insert into workflow_executions (project_id, workflow_id, contact_id, status, step_seq, next_run_at, wait_started_at, started_at, finished_at, updated_at)
     select $1, md5('workflow' || w)::uuid, ${contactIdSql('(1 + (g::bigint * 7919 + w * 104729) % $2)')}, x.status, 3,
            case x.status when 'waiting' then $3::timestamptz + (g % 259200) * interval '1 second'
                          when 'running' then $3::timestamptz + (g % 3600) * interval '1 second' end,
            case when x.status = 'waiting' then $3::timestamptz - (g % 86400) * interval '1 second' end,
            $3::timestamptz - (g % 200) * interval '1 day',
            case when x.status = 'completed' then $3::timestamptz - (g % 200) * interval '1 day' + interval '3 days' end,
            $3
     from generate_series(1, 2) w, generate_series(1, $4::int) g,
          lateral (select case when g % 10 < 6 then 'completed' when g % 10 < 9 then 'waiting' else 'running' end as status) x`,
    [projectId, CONTACTS, NOW, EXECUTIONS_PER_WORKFLOW],
  );
}

/** The rollup and the counters need all the events: their two scans run on both connections at once. */
async function seedRest(url: string, projectId: string): Promise<number> {
  const started = Date.now();
  const [a, b] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  await Promise.all([a.connect(), b.connect()]);
  try {
    await Promise.all([
      a.query(rollupBackfill()).then(() => log('event_daily_counts filled by the migration backfill')),
      insertCampaigns(b, projectId)
        .then(() => insertEmails(b, projectId))
        .then(() => insertWorkflows(b, projectId))
        .then(() => log('campaigns, emails, workflows and executions in')),
    ]);
    for (const table of ['event_daily_counts', 'campaigns', 'emails', 'workflows', 'workflow_executions'])
      await a.query(`vacuum analyze ${table}`);
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
  return Date.now() - started;
}

async function describeData(c: pg.Client, projectId: string) {
  const byName = await c.query<{ name: string; n: string }>(
    `select name, sum(count) as n from event_daily_counts where project_id = $1 group by name order by 2 desc`,
    [projectId],
  );
  const types = Object.fromEntries(
    byName.rows.filter((r) => r.name.startsWith('email.')).map((r) => [r.name, Number(r.n)]),
  );
  const one = async (q: string, params: unknown[] = []) => Number((await c.query<{ n: string }>(q, params)).rows[0]!.n);
  const sizes = await c.query<{ name: string; mb: number }>(
    // A partitioned table's size is its partitions'.
    `select relname as name,
       round(coalesce((select sum(pg_total_relation_size(relid)) from pg_partition_tree(oid)), pg_total_relation_size(oid)) / 1048576.0)::int as mb
     from pg_class where relname in ('events', 'contacts', 'emails', 'event_daily_counts') and relkind in ('r', 'p')`,
  );
  return {
    emailEvents: Object.values(types).reduce((s, n) => s + n, 0),
    emailEventsByType: types,
    clientEventNames: byName.rows.length - Object.keys(types).length,
    rollupRows: await one(`select count(*) as n from event_daily_counts`),
    emailsRows: await one(`select count(*) as n from emails`),
    campaignsSent: await one(`select count(*) as n from campaigns where status = 'SENT'`),
    campaignsScheduled: await one(`select count(*) as n from campaigns where status = 'SCHEDULED'`),
    executionsActive: await one(`select count(*) as n from workflow_executions where status in ('running', 'waiting')`),
    executionsTotal: await one(`select count(*) as n from workflow_executions`),
    sizesMB: Object.fromEntries(sizes.rows.map((r) => [r.name, r.mb])),
  };
}

// ---------------------------------------------------------------------------------------------
// Variants

interface Variant {
  name: string;
  path: string;
  /** The statements the service runs for this request, through the repository with the same arguments. */
  statements: (ex: Executor) => Promise<unknown>;
  /** Throws when the answer is not what the request asked for; returns figures to report. */
  inspect?: (body: any) => Record<string, unknown>;
}

type FeedFilter = {
  types?: string[];
  contactId?: string;
  campaignId?: string;
  since?: string;
  after?: [string, string];
};

function feedVariant(name: string, projectId: string, f: FeedFilter): Variant {
  const query = new URLSearchParams();
  if (f.types) query.set('type', f.types.join(','));
  if (f.contactId) query.set('contactId', f.contactId);
  if (f.campaignId) query.set('campaignId', f.campaignId);
  if (f.since) query.set('since', f.since);
  if (f.after) query.set('cursor', Buffer.from(JSON.stringify(f.after)).toString('base64url'));
  const qs = query.toString();
  const filter = {
    projectId,
    types: f.types ?? ACTIVITY_TYPES,
    contactId: f.contactId,
    campaignId: f.campaignId,
    since: f.since ? new Date(f.since) : undefined,
  };
  return {
    name,
    path: `/activity${qs ? `?${qs}` : ''}`,
    // As service.listActivity: the page (limit + 1 rows), and on the first page the total, from the
    // daily counts when only the types narrow the feed.
    statements: async (ex) => {
      await repo.listActivity(ex, { ...filter, after: f.after, limit: 21 });
      if (f.after) return;
      if (f.contactId || f.campaignId || f.since) await repo.countActivity(ex, filter);
      else await repo.totalByNames(ex, projectId, filter.types);
    },
    inspect: (body) => {
      const items = body.data as {
        id: string;
        type: string;
        createdAt: string;
        contact: { id: string };
        data: Record<string, unknown>;
      }[];
      for (const item of items) {
        const wrong =
          !((f.types ?? ACTIVITY_TYPES) as readonly string[]).includes(item.type) ||
          (f.contactId && item.contact.id !== f.contactId) ||
          (f.campaignId && item.data.campaignId !== f.campaignId) ||
          (f.since && item.createdAt < f.since) ||
          (f.after && (item.createdAt > f.after[0] || (item.createdAt === f.after[0] && item.id >= f.after[1])));
        if (wrong) throw new Error(`${name}: an item outside the filter: ${JSON.stringify(item)}`);
      }
      return {
        rows: items.length,
        total: body.total,
        withSubject: items.filter((i: any) => i.subject !== null).length,
      };
    },
  };
}

function variants(
  projectId: string,
  ids: { activeContact: string; latestCampaign: string; olderCampaign: string },
  page1Last: [string, string],
): Variant[] {
  const now = () => new Date();
  const days = (since: string) => ({ since: utcDay(new Date(since)), until: utcDay(now()) });
  const since7 = ago(7);
  const since30 = ago(30);
  const since90 = ago(90);
  const since365 = ago(365);
  // The endpoints that count by UTC day, from the day of `since` to today.
  const byDay = (
    name: string,
    path: string,
    since: string,
    count: typeof repo.countsByName | typeof repo.dailyCounts,
    inspect: Variant['inspect'],
  ): Variant => ({
    name,
    path: `${path}?since=${since}`,
    statements: (ex) => count(ex, projectId, ACTIVITY_TYPES, days(since).since, days(since).until),
    inspect,
  });
  const statsFigures = (b: any) => ({ sent: b.sent, opened: b.opened, openRate: b.openRate });
  const dayFigures = (b: any) => ({ days: b.data.length });
  return [
    feedVariant('feed', projectId, {}),
    feedVariant('feed type=email.bounced', projectId, { types: ['email.bounced'] }),
    feedVariant('feed type=email.complained', projectId, { types: ['email.complained'] }),
    feedVariant('feed page 2 (cursor)', projectId, { after: page1Last }),
    feedVariant('feed contactId (active contact)', projectId, { contactId: ids.activeContact }),
    feedVariant('feed campaignId (latest campaign)', projectId, { campaignId: ids.latestCampaign }),
    feedVariant('feed campaignId (campaign 6 months old)', projectId, { campaignId: ids.olderCampaign }),
    feedVariant('feed since 7 days', projectId, { since: since7 }),
    byDay('stats 30 days', '/activity/stats', since30, repo.countsByName, statsFigures),
    byDay('stats 365 days', '/activity/stats', since365, repo.countsByName, statsFigures),
    ...[60, 10_080].map((minutes) => ({
      name: `recent-count ${minutes === 60 ? '60 minutes' : '7 days'}`,
      path: `/activity/recent-count?minutes=${minutes}`,
      statements: (ex: Executor) =>
        repo.countSince(ex, projectId, ACTIVITY_TYPES, new Date(Date.now() - minutes * 60_000)),
      inspect: (b: any) => ({ count: b.count }),
    })),
    {
      name: 'types',
      path: '/activity/types',
      statements: (ex) => repo.presentNames(ex, projectId, ACTIVITY_TYPES),
      inspect: (b) => ({ types: b.types.length }),
    },
    {
      name: 'upcoming',
      path: '/activity/upcoming',
      statements: async (ex) => {
        await repo.scheduledCampaigns(ex, projectId, 50);
        await repo.activeExecutions(ex, projectId);
      },
      inspect: (b) => ({ campaigns: b.campaigns.length, workflows: b.workflows.length }),
    },
    byDay('timeseries 90 days', '/analytics/timeseries', since90, repo.dailyCounts, dayFigures),
    byDay('timeseries 365 days', '/analytics/timeseries', since365, repo.dailyCounts, dayFigures),
    ...(['opened', 'openRate'] as const).map((metric) => ({
      name: `top-campaigns ${metric}`,
      path: `/analytics/top-campaigns?metric=${metric}`,
      statements: (ex: Executor) => repo.topCampaigns(ex, projectId, metric, 5),
      inspect: (b: any) => ({ campaigns: b.length }),
    })),
    {
      name: 'campaign-stats 365 days',
      path: `/analytics/campaign-stats?since=${since365}`,
      statements: (ex) => {
        const d = days(since365);
        return repo.campaignsSentBetween(
          ex,
          projectId,
          new Date(`${d.since}T00:00:00Z`),
          new Date(Date.parse(`${d.until}T00:00:00Z`) + DAY_MS),
        );
      },
      inspect: (b) => ({ campaigns: b.campaigns.length, sent: b.totals.sent }),
    },
    {
      name: 'top-events 365 days',
      path: `/analytics/top-events?since=${since365}`,
      statements: (ex) => repo.topEventNames(ex, projectId, days(since365).since, days(since365).until, 10),
      inspect: (b) => ({ events: b.events.length, first: b.events[0]?.name }),
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Timing

async function request(url: string, key: string): Promise<{ ms: number; body: any }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 500)}`);
  return { ms, body: JSON.parse(text) };
}

interface Timing {
  path: string;
  n: number;
  p50: number;
  p95: number;
  max: number;
  met: boolean;
  busyBeforePct: number | null;
  /** What `inspect` reported. */
  [figure: string]: unknown;
}

async function measure(base: string, key: string, v: Variant): Promise<Timing> {
  const busyBeforePct = await waitForQuiet(15_000);
  const url = base + v.path;
  const first = await request(url, key);
  const info = v.inspect?.(first.body) ?? {};
  for (let i = 1; i < (first.ms > 2000 ? 1 : WARMUP); i++) await request(url, key);
  const times: number[] = [];
  let spent = 0;
  while (times.length < REPEAT && (times.length < MIN_REPEAT || spent < VARIANT_BUDGET_MS)) {
    const { ms } = await request(url, key);
    times.push(ms);
    spent += ms;
  }
  times.sort((a, b) => a - b);
  const p95 = percentile(times, 95);
  return {
    path: v.path,
    n: times.length,
    p50: round(percentile(times, 50)),
    p95: round(p95),
    max: round(times[times.length - 1]!),
    met: p95 < GOAL_MS,
    busyBeforePct,
    ...info,
  };
}

async function main(cleanup: Cleanup) {
  const { db: scratch, dataDir, database, project } = await migratedScratch(cleanup, 'activity');

  const seedMs =
    (await seedContactsAndEvents(scratch.url, project.id, POPULATION, EVENT_KINDS)) +
    (await seedRest(scratch.url, project.id));
  log(`seeded in ${round(seedMs / 1000)} s`);

  const stats = await connectPg(cleanup, scratch.url);
  if (EXTRA_SQL) {
    const started = Date.now();
    await stats.query(EXTRA_SQL);
    await stats.query('analyze');
    log(`BENCH_SQL run and analyzed in ${round((Date.now() - started) / 1000)} s`);
  }
  const data = await describeData(stats, project.id);
  const ids = (
    await stats.query<{ active: string; latest: string; older: string }>(
      `select ${contactIdSql('1')} as active, ${campaignIdSql('$1::int')} as latest, ${campaignIdSql('$2::int')} as older`,
      [SENT_CAMPAIGNS - 1, Math.floor(SENT_CAMPAIGNS / 2)],
    )
  ).rows[0]!;
  const server = (
    await stats.query<{ v: string; sb: string }>(
      `select current_setting('server_version') as v, current_setting('shared_buffers') as sb`,
    )
  ).rows[0]!;

  const port = await freePort();
  const env = benchServiceEnv(port, dataDir, { DATABASE_URL: scratch.url });
  const service = await startServiceChild(env, port, 'serve');
  cleanup.add(() => service.stop());

  // The second page starts after the first page's last row.
  const page1 = (await request(`${service.url}/activity`, project.secretKey)).body as {
    data: { id: string; createdAt: string }[];
  };
  const last = page1.data[page1.data.length - 1]!;
  const list = variants(
    project.id,
    { activeContact: ids.active, latestCampaign: ids.latest, olderCampaign: ids.older },
    [last.createdAt, last.id],
  );

  const cpuBusyBeforePct = await waitForQuiet(60_000);
  const results: Record<string, Timing> = {};
  for (const v of list) {
    results[v.name] = await measure(service.url, project.secretKey, v);
    const r = results[v.name]!;
    log(
      `${v.name}: p50 ${r.p50} ms, p95 ${r.p95} ms, max ${r.max} ms (n ${r.n}, CPU busy before ${r.busyBeforePct} %)`,
    );
  }

  const missed = list.filter((v) => !results[v.name]!.met).map((v) => v.name);
  if (EXPLAIN) {
    const slowest = [...list].sort((x, y) => results[y.name]!.p95 - results[x.name]!.p95);
    const explained =
      EXPLAIN === 'all' ? list : missed.length ? slowest.filter((v) => missed.includes(v.name)) : slowest.slice(0, 3);
    for (const v of explained) {
      const plans = await explainStatements(database.db, v.statements);
      process.stderr.write(
        `\n=== ${v.name}: GET ${v.path} (p95 ${results[v.name]!.p95} ms) ===\n${plans.join('\n--- then\n')}\n`,
      );
    }
  }

  printResult({
    bench: 'activity',
    contacts: CONTACTS,
    events: EVENTS,
    repeat: REPEAT,
    seedSeconds: round(seedMs / 1000),
    ...(EXTRA_SQL ? { extraSql: EXTRA_SQL } : {}),
    data: {
      ...data,
      activeContact: { id: ids.active, emailEvents: results['feed contactId (active contact)']?.total },
    },
    goalMs: GOAL_MS,
    missed,
    variants: results,
    cpuBusyBeforePct,
    machine: {
      ...machineInfo(),
      postgres: server.v,
      sharedBuffers: server.sb,
    },
  });
}

runBench(main);
