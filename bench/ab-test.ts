/**
 * An A/B-tested campaign next to a plain one of the same audience, on one service: N contacts
 * (audience ALL), the plain campaign first, then a campaign testing two subjects on BENCH_TEST_PERCENT
 * (20) % with a one-hour wait that lasts BENCH_HOUR_SECONDS (long enough to deliver the test phase
 * at 100 messages/s), the winner then going to the rest.
 *
 *   npx tsx bench/ab-test.ts                          # PostgreSQL (BENCH_PG_URL), 100,000 contacts
 *   BENCH_CONTACTS=20000 npx tsx bench/ab-test.ts     # smaller
 *
 * Prints one JSON line:
 *   plainPerSec      N / (first → last message of the plain campaign at the sink)
 *   testPerSec       the test phase's messages / (first → last of them)
 *   winnerPerSec     the rest's messages / (first → last of them)
 *   testRatio, winnerRatio  each phase's rate / plainPerSec (goal ≥ 0.9)
 *   totalSeconds     the send request → the last message, wait included; waitSeconds the wait
 *
 * Verified (exit code 1 otherwise): each campaign reached every contact exactly once, the rest all
 * got the winner's subject, and both campaigns are SENT.
 */
import { BODY, insertContacts, RECIPIENT, SUBJECT } from './campaign-content.js';
import {
  apiCall,
  createVerifiedDomain,
  expectApiStatus,
  PG_SERVER_URL,
  prepareMailService,
  SinkArrivals,
  startWatchedRoles,
} from './lib.js';
import type { Cleanup } from './run.js';
import { log, machineInfo, reportVerified, round, runBench, waitForQuiet, wallNow } from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const TEST_PERCENT = Number(process.env.BENCH_TEST_PERCENT ?? 20);
const TESTED = Math.round((CONTACTS * TEST_PERCENT) / 100);
/** Long enough for the test phase to be delivered (at 100 messages/s or more) before the winner goes. */
const HOUR_SECONDS = Number(process.env.BENCH_HOUR_SECONDS ?? Math.ceil(TESTED / 100) + 20);
const DOMAIN = 'news.bench.example.com';
const GOAL_RATIO = 0.9;
const STALL_MS = 120_000;
const WINNER_SUBJECT = `Last days: ${SUBJECT}`;

interface Phase {
  n: number;
  first: number;
  last: number;
}
const perSec = (p: Phase) => p.n / ((p.last - p.first) / 1000);

async function main(cleanup: Cleanup): Promise<number> {
  const problems: string[] = [];
  const arrivals = new SinkArrivals(STALL_MS);
  // Which contacts got a message, and which subjects the test's messages had, by arrival order.
  const received = new Uint8Array(CONTACTS);
  const subjects: boolean[] = [];
  const setup = await prepareMailService(
    cleanup,
    'abtest',
    PG_SERVER_URL,
    (m) => {
      arrivals.onMessage(m.raw);
      const i = Number(RECIPIENT.exec(m.to[0] ?? '')?.[1] ?? -1);
      if (i >= 0 && i < CONTACTS) received[i]!++;
      subjects.push(m.raw.includes('Subject: Last days') || m.raw.includes('Subject: =?UTF-8?Q?Last_days'));
    },
    { CAMPAIGN_TEST_HOUR_SECONDS: String(HOUR_SECONDS) },
  );
  const { mail, port, env, dataDir, db: scratch, project } = setup;
  await insertContacts({ databaseUrl: scratch.url, dataDir }, project.id, CONTACTS);
  const { api } = await startWatchedRoles(cleanup, env, port, true);
  const sk = project.secretKey;
  await createVerifiedDomain(api.url, sk, mail.dns, DOMAIN);

  const campaign = async (name: string, abTest: unknown) => {
    const created = await apiCall(api.url, sk, 'POST', '/campaigns', {
      name,
      subject: SUBJECT,
      body: BODY,
      from: `news@${DOMAIN}`,
      type: 'MARKETING',
      audienceType: 'ALL',
      abTest,
    });
    expectApiStatus(created, 201, 'POST /campaigns');
    return created.body.data.id as string;
  };
  const checkOnceEach = (label: string) => {
    const wrong = received.filter((n) => n !== 1).length;
    if (wrong) problems.push(`${label}: ${wrong} contacts did not get exactly one message`);
    received.fill(0);
  };
  const status = async (id: string) => (await apiCall(api.url, sk, 'GET', `/campaigns/${id}`)).body;

  // 1. The plain campaign.
  const plainId = await campaign('Plain', null);
  await waitForQuiet();
  arrivals.reset();
  log(`plain campaign to ${CONTACTS} contacts`);
  expectApiStatus(await apiCall(api.url, sk, 'POST', `/campaigns/${plainId}/send`), 200, 'send');
  await arrivals.waitFor(CONTACTS, 'plain');
  const plain: Phase = { n: arrivals.n, first: arrivals.first, last: arrivals.last };
  checkOnceEach('plain');

  // 2. The A/B test. Nobody opens, so the winner is A, whose subject marks the rest's messages.
  const abId = await campaign('A/B', {
    variants: [{ subject: WINNER_SUBJECT }, {}],
    testPercent: TEST_PERCENT,
    metric: 'opens',
    waitHours: 1,
  });
  await new Promise((r) => setTimeout(r, 5_000));
  await waitForQuiet();
  arrivals.reset();
  subjects.length = 0;
  const tested = TESTED;
  log(`A/B campaign: ${tested} in the test, the rest after ${HOUR_SECONDS} s`);
  const started = wallNow();
  expectApiStatus(await apiCall(api.url, sk, 'POST', `/campaigns/${abId}/send`), 200, 'send');
  await arrivals.waitFor(tested, 'test phase');
  const test: Phase = { n: arrivals.n, first: arrivals.first, last: arrivals.last };
  arrivals.reset();
  if ((await apiCall(api.url, sk, 'GET', `/campaigns/${abId}/ab-test`)).body.winner)
    problems.push('the winner went before the test phase was delivered: raise BENCH_HOUR_SECONDS');
  await arrivals.waitFor(CONTACTS - tested, 'winner phase');
  const winner: Phase = { n: arrivals.n, first: arrivals.first, last: arrivals.last };
  checkOnceEach('A/B');
  const rest = subjects.slice(tested);
  if (rest.filter(Boolean).length !== CONTACTS - tested)
    problems.push('the rest did not all get the winner (variant A, with no opens)');
  for (const id of [plainId, abId]) {
    const c = await status(id);
    if (c.status !== 'SENT') problems.push(`campaign ${id} is ${c.status}`);
  }

  const plainRate = perSec(plain);
  const result = {
    bench: 'ab-test',
    contacts: CONTACTS,
    testPercent: TEST_PERCENT,
    plainPerSec: round(plainRate),
    testPerSec: round(perSec(test)),
    winnerPerSec: round(perSec(winner)),
    testRatio: round(perSec(test) / plainRate, 3),
    winnerRatio: round(perSec(winner) / plainRate, 3),
    totalSeconds: round((winner.last - started) / 1000, 1),
    waitSeconds: round((winner.first - test.last) / 1000, 1),
    goals: {
      ratioAtLeast: GOAL_RATIO,
      met: perSec(test) / plainRate >= GOAL_RATIO && perSec(winner) / plainRate >= GOAL_RATIO,
    },
    ok: problems.length === 0,
    details: { hourSeconds: HOUR_SECONDS, problems, machine: machineInfo() },
  };
  return reportVerified(result, problems);
}

runBench(main);
