/**
 * Pacing per recipient domain: a campaign to five domains, once with no limit and once with one
 * domain limited to BENCH_LIMIT_PER_MINUTE (60) messages a minute.
 *
 *   npx tsx bench/pacing.ts                          # PostgreSQL (BENCH_PG_URL), 20,000 contacts
 *   BENCH_CONTACTS=5000 npx tsx bench/pacing.ts      # a smaller campaign
 *   BENCH_DB=embedded npx tsx bench/pacing.ts        # the embedded PostgreSQL
 *
 * The service runs as child processes on a fresh database (`serve` and `worker` apart). Setup (not
 * measured): a project, N contacts inserted set-wise in SQL, `c<i>@d<i mod 5>.pacing.example.net`,
 * and a verified sender domain (DKIM, 2048-bit). Then:
 *
 * 1. unlimited: a MARKETING campaign to all of them; for each domain, the time from the campaign's
 *    first message at the sink to that domain's last.
 * 2. limited: `d0` limited through PATCH /delivery-settings, and a second campaign to all of them.
 *    The four other domains are timed as before. The limited domain's rate is taken from its
 *    messages in the first BENCH_WINDOW_SECONDS (180) after its first one (count − 1 over the time
 *    between the first and the last); then the campaign is cancelled.
 *
 * Prints one JSON line: each domain's finishing time in both runs, the slowest ratio of the four
 * (goal: within 10 % of the unlimited run), and the limited domain's rate (goal: the limit ± 5 %).
 * Verified (exit code 1 otherwise): no contact received a campaign's message twice, and every
 * message went to a contact.
 */
import { sql } from 'drizzle-orm';
import { openDatabase, run } from '../src/platform/db/client.js';
import {
  apiCall,
  createVerifiedDomain,
  DELIVERY_POOL,
  expectApiStatus,
  PG_SERVER_URL,
  prepareMailService,
  startWatchedRoles,
} from './lib.js';
import type { Cleanup } from './run.js';
import { log, machineInfo, reportVerified, round, runBench, waitForQuiet, wallNow } from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 20_000);
const LIMIT = Number(process.env.BENCH_LIMIT_PER_MINUTE ?? 60);
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 180);
const EMBEDDED = process.env.BENCH_DB === 'embedded';
const DOMAINS = 5;
const SENDER = 'pacing.bench.example.com';
const LIMITED = 'd0.pacing.example.net';
const STALL_MS = 120_000;
const CONTACT = /^c(\d+)@d(\d)\.pacing\.example\.net$/;

async function insertContacts(connection: { databaseUrl?: string; dataDir: string }, projectId: string) {
  const database = await openDatabase(connection);
  try {
    await run(
      database.db,
      sql`insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
      select ${projectId}::uuid, 'c' || g || '@d' || (g % ${DOMAINS}) || '.pacing.example.net', true,
        jsonb_build_object('firstName', 'Ada' || (g % 1000)), now(), now()
      from generate_series(0, ${CONTACTS - 1}) g`,
    );
    await run(database.db, sql`analyze contacts`);
  } finally {
    await database.close();
  }
}

/** What the sink saw of one campaign: per contact how many messages, per domain the last arrival. */
class Run {
  readonly copies = new Uint8Array(CONTACTS);
  readonly last = new Array<number>(DOMAINS).fill(0);
  readonly count = new Array<number>(DOMAINS).fill(0);
  readonly limitedAt: number[] = [];
  first = 0;

  seen(contact: number, domain: number, at: number): void {
    this.copies[contact]!++;
    if (this.first === 0) this.first = at;
    this.last[domain] = at;
    this.count[domain]!++;
    if (domain === 0) this.limitedAt.push(at);
  }

  /** Seconds from the campaign's first message to each domain's last. */
  finish(): number[] {
    return this.last.map((t) => round((t - this.first) / 1000, 2));
  }
}

async function main(cleanup: Cleanup): Promise<number> {
  if (!Number.isInteger(CONTACTS) || CONTACTS < 100) throw new Error('BENCH_CONTACTS must be an integer ≥ 100');
  const problems: string[] = [];
  const runs = [new Run(), new Run()];
  let current: Run | undefined;
  let strays = 0;
  const setup = await prepareMailService(cleanup, 'pacing', EMBEDDED ? undefined : PG_SERVER_URL, (m) => {
    const match = CONTACT.exec(m.to.length === 1 ? m.to[0]! : '');
    if (match && current) current.seen(Number(match[1]), Number(match[2]), wallNow());
    else strays++;
  });
  const { mail, port, env, dataDir, db: scratch, project } = setup;
  await insertContacts({ databaseUrl: scratch?.url, dataDir }, project.id);
  const { api } = await startWatchedRoles(cleanup, env, port, true);
  const sk = project.secretKey;
  await createVerifiedDomain(api.url, sk, mail.dns, SENDER);

  const campaign = async (name: string) => {
    const created = await apiCall(api.url, sk, 'POST', '/campaigns', {
      name,
      subject: 'News for {{ firstName ?? "you" }}',
      body: '<p>Hi {{ firstName ?? "there" }}, <a href="https://bench.example.com/news">read the news</a>.</p>',
      from: `news@${SENDER}`,
      type: 'MARKETING',
      audienceType: 'ALL',
    });
    expectApiStatus(created, 201, 'POST /campaigns');
    return created.body.data.id as string;
  };
  const until = async (done: () => boolean, what: string) => {
    const deadline = Date.now() + STALL_MS;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`${what}: not done within ${STALL_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  /** Contacts at domain `d`: those whose number is `d` modulo DOMAINS. */
  const atDomain = (d: number) => Math.floor((CONTACTS - 1 - d) / DOMAINS) + 1;
  const othersDone = (r: Run) => [1, 2, 3, 4].every((d) => r.count[d]! >= atDomain(d));

  // 1. Unlimited.
  const busyBeforeUnlimitedPct = await waitForQuiet();
  log(
    `unlimited: a campaign to ${CONTACTS} contacts at ${DOMAINS} domains (CPU ${busyBeforeUnlimitedPct} % busy before)`,
  );
  const first = await campaign('Unlimited');
  current = runs[0]!;
  expectApiStatus(await apiCall(api.url, sk, 'POST', `/campaigns/${first}/send`), 200, 'send');
  await until(() => runs[0]!.count.reduce((a, b) => a + b, 0) >= CONTACTS, 'unlimited campaign');

  // 2. One domain limited.
  expectApiStatus(
    await apiCall(api.url, sk, 'PATCH', '/delivery-settings', {
      recipientDomains: [{ domain: LIMITED, perMinute: LIMIT, concurrency: null }],
    }),
    200,
    'PATCH /delivery-settings',
  );
  const busyBeforeLimitedPct = await waitForQuiet();
  log(`limited: ${LIMITED} at ${LIMIT}/min, measured for ${WINDOW_S} s (CPU ${busyBeforeLimitedPct} % busy before)`);
  const second = await campaign('Limited');
  current = runs[1]!;
  expectApiStatus(await apiCall(api.url, sk, 'POST', `/campaigns/${second}/send`), 200, 'send');
  await until(() => othersDone(runs[1]!), 'the unlimited domains of the limited campaign');
  await until(() => runs[1]!.limitedAt.length > 0, 'the limited domain');
  const windowEnd = runs[1]!.limitedAt[0]! + WINDOW_S * 1000;
  while (wallNow() < windowEnd) await new Promise((r) => setTimeout(r, 200));
  expectApiStatus(await apiCall(api.url, sk, 'POST', `/campaigns/${second}/cancel`), 200, 'cancel');
  await new Promise((r) => setTimeout(r, 3000));

  const inWindow = runs[1]!.limitedAt.filter((t) => t <= windowEnd);
  const limitedPerMinute = round(((inWindow.length - 1) / ((inWindow.at(-1)! - inWindow[0]!) / 1000)) * 60, 2);
  const unlimited = runs[0]!.finish();
  const limited = runs[1]!.finish();
  const ratios = [1, 2, 3, 4].map((d) => round(limited[d]! / unlimited[d]!, 3));
  const repeats = runs.map((r) => r.copies.filter((n) => n > 1).length);
  if (repeats.some((n) => n > 0)) problems.push(`contacts received a campaign's message twice: ${repeats.join(', ')}`);
  if (strays) problems.push(`${strays} messages to unexpected addresses`);

  const result = {
    bench: 'pacing',
    database: EMBEDDED ? 'embedded' : 'postgres',
    contacts: CONTACTS,
    limitPerMinute: LIMIT,
    windowSeconds: WINDOW_S,
    unlimitedFinishSeconds: unlimited,
    limitedRunFinishSeconds: limited.slice(1),
    slowestRatioOfOthers: Math.max(...ratios),
    limitedPerMinute,
    limitedInWindow: inWindow.length,
    goals: {
      othersWithin10Pct: Math.max(...ratios) <= 1.1,
      limitWithin5Pct: Math.abs(limitedPerMinute - LIMIT) <= LIMIT * 0.05,
    },
    cpuBusyBeforePct: { unlimited: busyBeforeUnlimitedPct, limited: busyBeforeLimitedPct },
    ok: problems.length === 0,
    details: { ...DELIVERY_POOL, ratios, problems, machine: machineInfo() },
  };
  return reportVerified(result, problems);
}

runBench(main);
