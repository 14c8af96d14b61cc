/**
 * Transactional latency while a campaign is delivered: `/v1/send` → the message at a loopback SMTP
 * sink, first with the service idle, then while a MARKETING campaign (audience ALL) goes out.
 *
 *   npx tsx bench/lanes.ts                          # PostgreSQL (BENCH_PG_URL), 20,000 contacts
 *   BENCH_CONTACTS=5000 npx tsx bench/lanes.ts      # a smaller campaign
 *   BENCH_DB=embedded npx tsx bench/lanes.ts        # the embedded PostgreSQL
 *
 * The service runs as child processes on a fresh database (`serve` and `worker` apart, as deployed;
 * BENCH_ROLES=all keeps them in one). Setup (not measured): a project, N contacts inserted set-wise in
 * SQL, a verified sender domain (DKIM, 2048-bit) and the campaign. Then, one `/v1/send` (one
 * recipient, no template) every BENCH_SEND_EVERY_MS (100) ms, each to its own address:
 *
 * 1. idle: BENCH_IDLE_SENDS (50) sends with nothing else going on;
 * 2. campaign: POST /campaigns/{id}/send, and from its first message at the sink until 95 % of its
 *    messages have arrived, the same sends. Only those are counted, so each waited on a running campaign.
 *
 * Prints one JSON line: latency (request sent → message at the sink) p50/p95/p99/max in ms for both
 * phases, the campaign's delivery rate, and the goal (p95 during the campaign < 1 s). Verified at
 * the end (exit code 1 otherwise): every send and every contact received exactly one message.
 *
 * Env: BENCH_CONTACTS, BENCH_IDLE_SENDS, BENCH_SEND_EVERY_MS, BENCH_DB=embedded, BENCH_ROLES=all,
 * BENCH_PG_URL, SMTP_MAX_CONNECTIONS, DELIVERY_CONCURRENCY, DELIVERY_TRANSACTIONAL_SHARE.
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
import {
  log,
  machineCpu,
  machineInfo,
  percentile,
  reportVerified,
  round,
  runBench,
  waitForQuiet,
  wallNow,
} from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 20_000);
const IDLE_SENDS = Number(process.env.BENCH_IDLE_SENDS ?? 50);
const SEND_EVERY_MS = Number(process.env.BENCH_SEND_EVERY_MS ?? 100);
const EMBEDDED = process.env.BENCH_DB === 'embedded';
const SPLIT = process.env.BENCH_ROLES !== 'all';
const DOMAIN = 'lanes.bench.example.com';
const GOAL_P95_MS = 1000;
/** A message not at the sink this long after its request is reported as a problem. */
const STALL_MS = 120_000;

const CONTACT = /^c(\d+)@d\d+\.example\.net$/;
const SENT = /^t(\d+)@tx\.example\.net$/;

const BODY = `<html><body><h1>Hi {{ firstName ?? "there" }},</h1>
<p>Here is what changed this month on your <strong>{{ plan }}</strong> plan.</p>
<p><a href="https://bench.example.com/news">Read the news</a> or <a href="https://bench.example.com/help">get help</a>.</p>
</body></html>`;

async function insertContacts(connection: { databaseUrl?: string; dataDir: string }, projectId: string, n: number) {
  const database = await openDatabase(connection);
  try {
    await run(
      database.db,
      sql`insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
      select ${projectId}::uuid, 'c' || g || '@d' || (g % 50) || '.example.net', true,
        jsonb_build_object('firstName', 'Ada' || (g % 1000), 'plan', 'pro'), now(), now()
      from generate_series(0, ${n - 1}) g`,
    );
    await run(database.db, sql`analyze contacts`);
  } finally {
    await database.close();
  }
}

/** p50/p95/p99/max of latencies in ms. */
function summary(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => (sorted.length ? round(percentile(sorted, p), 0) : null);
  return { n: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: at(100) };
}

async function main(cleanup: Cleanup): Promise<number> {
  if (!Number.isInteger(CONTACTS) || CONTACTS < 100) throw new Error('BENCH_CONTACTS must be an integer ≥ 100');
  const problems: string[] = [];
  // What the sink saw: per contact how many messages, per send when its (first) message arrived.
  const received = new Uint8Array(CONTACTS);
  const sentAt: number[] = [];
  const arrivedAt: number[] = [];
  const sendCopies: number[] = [];
  let campaignArrivals = 0;
  let firstCampaignAt = 0;
  let lastCampaignAt = 0;
  let strays = 0;
  const setup = await prepareMailService(cleanup, 'lanes', EMBEDDED ? undefined : PG_SERVER_URL, (m) => {
    const to = m.to.length === 1 ? m.to[0]! : '';
    const now = wallNow();
    const contact = CONTACT.exec(to);
    const send = SENT.exec(to);
    if (contact && Number(contact[1]) < CONTACTS) {
      received[Number(contact[1])]!++;
      if (campaignArrivals++ === 0) firstCampaignAt = now;
      lastCampaignAt = now;
    } else if (send) {
      const i = Number(send[1]);
      sendCopies[i] = (sendCopies[i] ?? 0) + 1;
      arrivedAt[i] ??= now;
    } else strays++;
  });
  const { mail, port, env, dataDir, db: scratch, project } = setup;
  await insertContacts({ databaseUrl: scratch?.url, dataDir }, project.id, CONTACTS);
  const { api } = await startWatchedRoles(cleanup, env, port, SPLIT);
  const sk = project.secretKey;
  await createVerifiedDomain(api.url, sk, mail.dns, DOMAIN);
  const created = await apiCall(api.url, sk, 'POST', '/campaigns', {
    name: 'Monthly news',
    subject: 'News for {{ firstName ?? "you" }}',
    body: BODY,
    from: `news@${DOMAIN}`,
    type: 'MARKETING',
    audienceType: 'ALL',
  });
  expectApiStatus(created, 201, 'POST /campaigns');
  const campaignId = created.body.data.id as string;

  let next = 0;
  /** One `/v1/send`, its request time recorded under its index. */
  const sendOne = async () => {
    const i = next++;
    sentAt[i] = wallNow();
    const r = await apiCall(api.url, sk, 'POST', '/v1/send', {
      to: `t${i}@tx.example.net`,
      from: `account@${DOMAIN}`,
      subject: `Your sign-in code ${i}`,
      body: `<p>Your code is <strong>${100000 + i}</strong>. It expires in ten minutes.</p>`,
    });
    expectApiStatus(r, 200, 'POST /v1/send');
    return i;
  };
  /** Sends every SEND_EVERY_MS (not waiting for answers) while `more()` holds; returns the indexes sent. */
  const sendWhile = async (more: () => boolean): Promise<number[]> => {
    const requests: Promise<number>[] = [];
    while (more()) {
      requests.push(sendOne());
      await new Promise((r) => setTimeout(r, SEND_EVERY_MS));
    }
    return Promise.all(requests);
  };
  const waitArrived = async (indexes: number[]) => {
    const deadline = Date.now() + STALL_MS;
    while (indexes.some((i) => arrivedAt[i] === undefined) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const latencies = (indexes: number[]) =>
    indexes.filter((i) => arrivedAt[i] !== undefined).map((i) => arrivedAt[i]! - sentAt[i]!);

  // 1. Idle.
  const busyBeforeIdlePct = await waitForQuiet();
  log(`idle: ${IDLE_SENDS} sends, one every ${SEND_EVERY_MS} ms (CPU ${busyBeforeIdlePct} % busy before)`);
  let idleLeft = IDLE_SENDS;
  const idle = await sendWhile(() => idleLeft-- > 0);
  await waitArrived(idle);

  // 2. During the campaign: from its first message until 95 % of them have arrived.
  const busyBeforeCampaignPct = await waitForQuiet();
  log(`campaign to ${CONTACTS} contacts, sends alongside (CPU ${busyBeforeCampaignPct} % busy before)`);
  const campaignMachine = machineCpu();
  const started = wallNow();
  expectApiStatus(
    await apiCall(api.url, sk, 'POST', `/campaigns/${campaignId}/send`),
    200,
    'POST /campaigns/{id}/send',
  );
  const stallAt = Date.now() + STALL_MS;
  while (campaignArrivals === 0 && Date.now() < stallAt) await new Promise((r) => setTimeout(r, 5));
  const during = await sendWhile(() => campaignArrivals > 0 && campaignArrivals < CONTACTS * 0.95);
  const busyDuringCampaignPct = campaignMachine.pct();
  await waitArrived(during);
  const deadline = Date.now() + STALL_MS;
  while (campaignArrivals < CONTACTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  log(`campaign: ${campaignArrivals} messages in ${round((lastCampaignAt - started) / 1000, 2)} s`);

  // A message more than expected would arrive just after the last one: give it a moment.
  await new Promise((r) => setTimeout(r, 2000));
  const missingSends = [...idle, ...during].filter((i) => arrivedAt[i] === undefined).length;
  const repeatedSends = sendCopies.filter((n) => n > 1).length;
  let missing = 0;
  let repeated = 0;
  for (let i = 0; i < CONTACTS; i++) {
    if (received[i] === 0) missing++;
    else if (received[i]! > 1) repeated++;
  }
  if (missingSends) problems.push(`${missingSends} sends did not reach the sink within ${STALL_MS / 1000} s`);
  if (repeatedSends) problems.push(`${repeatedSends} sends reached the sink more than once`);
  if (missing) problems.push(`${missing} contacts received no campaign message`);
  if (repeated) problems.push(`${repeated} contacts received more than one campaign message`);
  if (strays) problems.push(`${strays} messages to unexpected addresses`);
  if (during.length < 10) problems.push(`only ${during.length} sends were made during the campaign`);

  const duringLatency = summary(latencies(during));
  const result = {
    bench: 'lanes',
    database: EMBEDDED ? 'embedded' : 'postgres',
    roles: SPLIT ? 'serve + worker' : 'all',
    contacts: CONTACTS,
    sendEveryMs: SEND_EVERY_MS,
    idleLatencyMs: summary(latencies(idle)),
    campaignLatencyMs: duringLatency,
    campaignDeliveryPerSec: round(campaignArrivals / ((lastCampaignAt - firstCampaignAt) / 1000)),
    goals: { p95BelowMs: GOAL_P95_MS, p95Met: duringLatency.p95 !== null && duringLatency.p95 < GOAL_P95_MS },
    cpuBusyBeforePct: { idle: busyBeforeIdlePct, campaign: busyBeforeCampaignPct },
    // The whole machine (both cores) while the campaign's sends ran: this benchmark and anything else.
    cpuBusyDuringCampaignPct: busyDuringCampaignPct,
    ok: problems.length === 0,
    details: {
      ...DELIVERY_POOL,
      transactionalShare: Number(process.env.DELIVERY_TRANSACTIONAL_SHARE ?? 0),
      problems,
      machine: machineInfo(),
    },
  };
  return reportVerified(result, problems);
}

runBench(main);
