/**
 * A MARKETING campaign to N contacts (audience ALL), delivered into a loopback SMTP sink, next to
 * raw pooled nodemailer sending pre-rendered copies of one of its messages into the same sink, once
 * DKIM-signed and once unsigned.
 *
 *   npx tsx bench/campaign.ts                         # PostgreSQL (BENCH_PG_URL), 100,000 contacts
 *   BENCH_CONTACTS=5000 npx tsx bench/campaign.ts     # smaller
 *   BENCH_DB=embedded npx tsx bench/campaign.ts       # the embedded PostgreSQL
 *
 * The service runs as child processes on a fresh database, so their RSS and CPU are their own: on
 * `serve` and `worker` apart, as deployed (BENCH_ROLES=all keeps them in one process). The sink and the DNS server
 * live in this process, the raw sender in a worker thread.
 *
 * Setup (not measured): a project (`main.ts project:create`), N contacts inserted set-wise in SQL
 * with `data` the template uses, a verified sender domain (DKIM, 2048-bit) and the campaign, all
 * through the API but the contacts. `POST /campaigns/{id}/test` to one of the contacts gives the
 * message the raw reference copies: rendered by the service, with its footer, tracked links and
 * List-Unsubscribe headers. Then, each after waiting for the CPU to settle:
 *
 * 1. raw references (the service idles): BENCH_RAW_COUNT copies (20,000) through pooled nodemailer
 *    with the service's pool size and window (SMTP_MAX_CONNECTIONS 5, DELIVERY_CONCURRENCY 20),
 *    signed with a PEM key as nodemailer is normally given one, then unsigned;
 * 2. the campaign: POST /campaigns/{id}/send, then GET /campaigns/{id} every 250 ms until SENT.
 *
 * Prints one JSON line:
 *   rawPerSec        raw signed count / (first → last raw message at the sink); rawUnsignedPerSec unsigned
 *   e2ePerSec        N / (the send request → the campaign's last message at the sink)
 *   deliveryPerSec   N / (first → last campaign message at the sink)
 *   ratio            e2ePerSec / rawPerSec (goal ≥ 0.7); ratioUnsigned e2ePerSec / rawUnsignedPerSec
 *                    (goal ≥ 0.6); ratioDelivery… the same with deliveryPerSec
 *   workerCpuMsPerMessage  the worker's CPU (user + system) during the campaign / N
 *   firstMessageMs   the send request → first message; sentStatusMs the send request → status SENT seen
 *   workerPeakRssMb  the worker's VmRSS, sampled every 250 ms (goal ≤ 250); servePeakRssMb the API's
 *
 * Verified at the end (exit code 1 otherwise): the sink received exactly one message for each
 * contact and nothing else during the campaign, and the campaign is SENT with sentCount and
 * totalRecipients equal to N.
 *
 * Env: BENCH_CONTACTS, BENCH_RAW_COUNT, BENCH_DB=embedded, BENCH_ROLES=all, BENCH_BUILD=1 (the service
 * from the production build in dist/, after `npm run build`), BENCH_NODE_FLAGS (flags given to the service
 * children's `node`), BENCH_PG_URL (admin URL of
 * the PostgreSQL server), BENCH_RELAY_ANSWER_MS (the sink answers each message that long after its
 * last byte, as a distant relay does), SMTP_MAX_CONNECTIONS, DELIVERY_CONCURRENCY, BENCH_CPU_PROF=<dir> (V8 CPU
 * profiles of the service children), BENCH_PAST_MONTHS (0: month partitions of `emails` made for that many
 * months back before the service starts, as years of history without a retention leave them).
 */
import { BODY, emailOf, insertContacts, makePastMonths, RECIPIENT, SUBJECT } from './campaign-content.js';
import {
  apiCall,
  connectPg,
  createVerifiedDomain,
  DELIVERY_POOL,
  expectApiStatus,
  PG_SERVER_URL,
  PgPhase,
  prepareMailService,
  processCpuSeconds,
  processStatusKb,
  rsaKeyPem,
  runRawSender,
  SERVICE_BUILD,
  SinkArrivals,
  startWatchedRoles,
} from './lib.js';
import type { Cleanup } from './run.js';
import { log, machineCpu, machineInfo, reportVerified, round, runBench, waitForQuiet, wallNow } from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const RAW_COUNT = Number(process.env.BENCH_RAW_COUNT ?? 20_000);
const EMBEDDED = process.env.BENCH_DB === 'embedded';
const SPLIT = process.env.BENCH_ROLES !== 'all';
const PAST_MONTHS = Number(process.env.BENCH_PAST_MONTHS ?? 0);
const DOMAIN = 'news.bench.example.com';
/** Goals: to raw signed nodemailer, to raw unsigned nodemailer (issue 18), and the worker's peak RSS. */
const GOAL_RATIO = 0.7;
const GOAL_RATIO_UNSIGNED = 0.6;
const GOAL_RSS_MB = 250;
/** Delivery is given up as stuck when the sink has received nothing new for this long. */
const STALL_MS = 120_000;

/** One raw reference phase, as the result line reports it. */
interface RawPhase {
  perSec: number;
  busyBeforePct: number | null;
  busyDuringPct: number | null;
  errors: number;
  wallPerSec: number;
  /** The raw sender (a worker thread) and the sink share this process. */
  benchCpuMsPerMessage: number;
}

/** A header of a raw message, unfolded, or undefined. */
function headerOf(raw: Buffer, name: string): string | undefined {
  const head = raw
    .subarray(0, Math.max(0, raw.indexOf('\r\n\r\n')))
    .toString('latin1')
    .replace(/\r\n[ \t]+/g, ' ');
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

async function getCampaign(url: string, key: string, id: string): Promise<any> {
  const r = await apiCall(url, key, 'GET', `/campaigns/${id}`);
  expectApiStatus(r, 200, 'GET /campaigns/{id}');
  return r.body;
}

async function main(cleanup: Cleanup): Promise<number> {
  if (!Number.isInteger(CONTACTS) || CONTACTS < 2 || !Number.isInteger(RAW_COUNT) || RAW_COUNT < 1) {
    throw new Error('BENCH_CONTACTS must be an integer ≥ 2 and BENCH_RAW_COUNT ≥ 1');
  }
  const problems: string[] = [];
  // The sink: what arrives in each phase, and during the campaign which contact each message was for.
  const arrivals = new SinkArrivals(STALL_MS);
  const received = new Uint8Array(CONTACTS);
  let campaignPhase = false;
  let strays = 0;
  const pgServer = EMBEDDED ? undefined : PG_SERVER_URL;
  // The project is made, and the contacts inserted, before the service starts.
  const setup = await prepareMailService(cleanup, 'campaign', pgServer, (m) => {
    arrivals.onMessage(m.raw);
    if (campaignPhase) {
      const match = m.to.length === 1 ? RECIPIENT.exec(m.to[0]!) : null;
      const i = match ? Number(match[1]) : -1;
      if (i >= 0 && i < CONTACTS) received[i]!++;
      else strays++;
    }
  });
  const { mail, port, env, dataDir, db: scratch, project } = setup;
  const t = performance.now();
  await insertContacts({ databaseUrl: scratch?.url, dataDir }, project.id, CONTACTS);
  log(`${CONTACTS} contacts inserted in ${round((performance.now() - t) / 1000)} s`);
  if (PAST_MONTHS > 0) {
    const made = await makePastMonths({ databaseUrl: scratch?.url, dataDir }, 'emails', PAST_MONTHS);
    log(`${made} month partitions of emails made back in time`);
  }

  const { api, workerPid, apiPid, workerRss, apiRss } = await startWatchedRoles(cleanup, env, port, SPLIT);
  const stats = scratch ? await connectPg(cleanup, scratch.url) : undefined;

  // The domain and the campaign through the API.
  const sk = project.secretKey;
  await createVerifiedDomain(api.url, sk, mail.dns, DOMAIN);
  const created = await apiCall(api.url, sk, 'POST', '/campaigns', {
    name: 'Monthly news',
    subject: SUBJECT,
    body: BODY,
    from: `news@${DOMAIN}`,
    fromName: 'Bench News',
    type: 'MARKETING',
    audienceType: 'ALL',
  });
  expectApiStatus(created, 201, 'POST /campaigns');
  const campaignId = created.body.data.id as string;

  // One campaign message as the service renders it, to contact 1: the raw reference sends copies of it.
  const parsed = await arrivals.probe(async () => {
    const probe = await apiCall(api.url, sk, 'POST', `/campaigns/${campaignId}/test`, { email: emailOf(1) });
    expectApiStatus(probe, 200, 'POST /campaigns/{id}/test');
  });
  const sample = parsed.raw;
  if (!parsed.subject.includes('Ada1,') || !parsed.html.includes('Hi Ada1,') || !parsed.html.includes('/unsubscribe')) {
    throw new Error(`the probe message is not rendered as expected: ${parsed.subject}`);
  }
  const listUnsubscribe = headerOf(sample, 'List-Unsubscribe');
  const listUnsubscribePost = headerOf(sample, 'List-Unsubscribe-Post');
  if (!listUnsubscribe || !listUnsubscribePost) throw new Error('the probe message has no List-Unsubscribe headers');

  // 1. Raw references: same pool size and window as the service, same message and headers, same key size.
  const rawReference = async (label: string, privateKey: string | undefined): Promise<RawPhase> => {
    const busyBeforePct = await waitForQuiet();
    log(`raw ${label}: ${RAW_COUNT} messages (CPU ${busyBeforePct} % busy before)`);
    arrivals.reset();
    const machine = machineCpu();
    const benchCpu0 = process.cpuUsage();
    const raw = await runRawSender({
      sink: mail.sink,
      count: RAW_COUNT,
      domain: DOMAIN,
      privateKey,
      from: `news@${DOMAIN}`,
      fromName: 'Bench News',
      probe: { ...parsed, subject: parsed.subject.replace(/^\[Test\] /, '') },
      headers: { 'List-Unsubscribe': listUnsubscribe, 'List-Unsubscribe-Post': listUnsubscribePost },
    });
    await arrivals.waitFor(RAW_COUNT - raw.errors, `raw ${label}`);
    const benchCpu = process.cpuUsage(benchCpu0);
    if (raw.errors) problems.push(`raw ${label}: ${raw.errors} errors: ${raw.samples.join(' | ')}`);
    const perSec = (RAW_COUNT - raw.errors) / ((arrivals.last - arrivals.first) / 1000);
    log(`raw ${label}: ${round(perSec)} messages/s`);
    return {
      perSec,
      busyBeforePct,
      busyDuringPct: machine.pct(),
      errors: raw.errors,
      wallPerSec: RAW_COUNT / ((raw.finished - raw.started) / 1000),
      benchCpuMsPerMessage: (benchCpu.user + benchCpu.system) / 1e3 / RAW_COUNT,
    };
  };
  const signed = await rawReference('signed', rsaKeyPem());
  const unsigned = await rawReference('unsigned', undefined);
  const rawPerSec = signed.perSec;

  // 2. The campaign.
  const busyBeforeCampaignPct = await waitForQuiet();
  log(`campaign to ${CONTACTS} contacts (CPU ${busyBeforeCampaignPct} % busy before)`);
  arrivals.reset();
  campaignPhase = true;
  const pgPhase = stats && scratch ? await PgPhase.start(stats, scratch.name) : undefined;
  const workerRssBeforeKb = processStatusKb(workerPid, 'VmRSS');
  const workerCpu0 = processCpuSeconds(workerPid) ?? 0;
  const apiCpu0 = processCpuSeconds(apiPid) ?? 0;
  const benchCpu0 = process.cpuUsage();
  const campaignMachine = machineCpu();

  // The worker's VmRSS as the campaign goes out: at each tenth of the messages received.
  const rssByTenth: (number | null)[] = [];
  const sampleRssByTenth = () => {
    while (rssByTenth.length < 10 && arrivals.n >= ((rssByTenth.length + 1) * CONTACTS) / 10) {
      const kb = processStatusKb(workerPid, 'VmRSS');
      rssByTenth.push(kb === null ? null : round(kb / 1024));
    }
  };
  const rssTimer = setInterval(sampleRssByTenth, 250);
  cleanup.add(() => clearInterval(rssTimer));

  const started = wallNow();
  const send = await apiCall(api.url, sk, 'POST', `/campaigns/${campaignId}/send`);
  const sendAnsweredMs = wallNow() - started;
  expectApiStatus(send, 200, 'POST /campaigns/{id}/send');
  let sentSeenAt = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const c = await getCampaign(api.url, sk, campaignId);
      if (c.status === 'SENT') {
        sentSeenAt = wallNow();
        return;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  poller.catch(() => {});
  try {
    // A campaign SENT for a few seconds sends nothing more: a recipient skipped under load (a render
    // over its bound) is reported as missing, with the figures, rather than waited for.
    await arrivals.waitFor(CONTACTS, 'campaign', () => sentSeenAt > 0 && wallNow() - sentSeenAt > 3000);
    sampleRssByTenth();
    const deadline = Date.now() + STALL_MS;
    while (!sentSeenAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  } finally {
    polling = false;
  }
  await poller;
  clearInterval(rssTimer);
  const workerCpu = (processCpuSeconds(workerPid) ?? 0) - workerCpu0;
  const apiCpu = (processCpuSeconds(apiPid) ?? 0) - apiCpu0;
  const benchCpu = process.cpuUsage(benchCpu0);
  const busyDuringCampaignPct = campaignMachine.pct();
  await pgPhase?.stopCpu();
  workerRss.sample();
  apiRss?.sample();
  if (!sentSeenAt) problems.push(`the campaign was not SENT ${STALL_MS / 1000} s after its last message`);
  const { first, last } = arrivals;
  log(`campaign: ${arrivals.n} messages in ${round((last - started) / 1000, 2)} s`);

  // A message more than expected would arrive just after the last one: give it a moment.
  await new Promise((r) => setTimeout(r, 2000));
  campaignPhase = false;
  let missing = 0;
  let repeated = 0;
  for (let i = 0; i < CONTACTS; i++) {
    if (received[i] === 0) missing++;
    else if (received[i]! > 1) repeated++;
  }
  if (arrivals.n !== CONTACTS)
    problems.push(`the sink received ${arrivals.n} messages during the campaign, expected ${CONTACTS}`);
  if (missing) problems.push(`${missing} contacts received no message`);
  if (repeated) problems.push(`${repeated} contacts received more than one message`);
  if (strays) problems.push(`${strays} messages to addresses that are no contact`);
  const final = await getCampaign(api.url, sk, campaignId);
  if (
    final.status !== 'SENT' ||
    final.sentCount !== CONTACTS ||
    final.totalRecipients !== CONTACTS ||
    final.bouncedCount !== 0
  ) {
    problems.push(
      `campaign: status ${final.status}, sentCount ${final.sentCount}, totalRecipients ${final.totalRecipients}, bouncedCount ${final.bouncedCount}; expected SENT and ${CONTACTS}`,
    );
  }

  // The rows' own times (the same clock): freezing the audience and the fan-out.
  let stages: Record<string, number | null> | undefined;
  if (stats) {
    const r = await stats.query<{ frozen: number; fanned: number; first_email: number; last_email: number }>(
      `select extract(epoch from c.frozen_at - c.sent_at) * 1000 as frozen,
              extract(epoch from c.fanned_out_at - c.sent_at) * 1000 as fanned,
              (select extract(epoch from min(e.created_at) - c.sent_at) * 1000 from emails e where e.campaign_id = c.id) as first_email,
              (select extract(epoch from max(e.created_at) - c.sent_at) * 1000 from emails e where e.campaign_id = c.id) as last_email
       from campaigns c where c.id = $1`,
      [campaignId],
    );
    const row = r.rows[0]!;
    stages = {
      audienceFrozenMs: round(Number(row.frozen), 0),
      firstEmailStoredMs: round(Number(row.first_email), 0),
      lastEmailStoredMs: round(Number(row.last_email), 0),
      fannedOutMs: round(Number(row.fanned), 0),
    };
  }
  const db = await pgPhase?.perMessage(CONTACTS);

  const e2eSeconds = (last - started) / 1000;
  const deliverySeconds = (last - first) / 1000;
  const e2ePerSec = CONTACTS / e2eSeconds;
  const deliveryPerSec = CONTACTS / deliverySeconds;
  const ratio = e2ePerSec / rawPerSec;
  const ratioUnsigned = e2ePerSec / unsigned.perSec;
  const workerPeakRssMb = workerRss.peakKb / 1024;
  const result = {
    bench: 'campaign',
    database: EMBEDDED ? 'embedded' : 'postgres',
    roles: SPLIT ? 'serve + worker' : 'all',
    service: SERVICE_BUILD ? 'build' : 'source',
    nodeFlags: process.env.BENCH_NODE_FLAGS ?? null,
    contacts: CONTACTS,
    rawPerSec: round(rawPerSec),
    rawUnsignedPerSec: round(unsigned.perSec),
    e2ePerSec: round(e2ePerSec),
    deliveryPerSec: round(deliveryPerSec),
    ratio: round(ratio, 3),
    ratioUnsigned: round(ratioUnsigned, 3),
    ratioDelivery: round(deliveryPerSec / rawPerSec, 3),
    ratioDeliveryUnsigned: round(deliveryPerSec / unsigned.perSec, 3),
    workerCpuMsPerMessage: round((1000 * workerCpu) / CONTACTS, 2),
    firstMessageMs: round(first - started, 0),
    sentStatusMs: sentSeenAt ? round(sentSeenAt - started, 0) : null,
    workerPeakRssMb: round(workerPeakRssMb),
    servePeakRssMb: apiRss ? round(apiRss.peakKb / 1024) : null,
    goals: {
      ratioAtLeast: GOAL_RATIO,
      ratioMet: ratio >= GOAL_RATIO,
      ratioUnsignedAtLeast: GOAL_RATIO_UNSIGNED,
      ratioUnsignedMet: ratioUnsigned >= GOAL_RATIO_UNSIGNED,
      rssAtMostMb: GOAL_RSS_MB,
      rssMet: workerPeakRssMb <= GOAL_RSS_MB,
    },
    cpuBusyBeforePct: {
      raw: signed.busyBeforePct,
      rawUnsigned: unsigned.busyBeforePct,
      campaign: busyBeforeCampaignPct,
    },
    // The whole machine (both cores) while each phase ran: this benchmark's processes and anything else.
    cpuBusyDuringPct: {
      raw: signed.busyDuringPct,
      rawUnsigned: unsigned.busyDuringPct,
      campaign: busyDuringCampaignPct,
    },
    ok: problems.length === 0,
    details: {
      rawCount: RAW_COUNT,
      rawErrors: signed.errors + unsigned.errors,
      rawWallPerSec: round(signed.wallPerSec),
      rawUnsignedWallPerSec: round(unsigned.wallPerSec),
      rawBenchCpuMsPerMessage: round(signed.benchCpuMsPerMessage, 2),
      rawUnsignedBenchCpuMsPerMessage: round(unsigned.benchCpuMsPerMessage, 2),
      ...DELIVERY_POOL,
      messageBytes: sample.length,
      sendAnsweredMs: round(sendAnsweredMs, 0),
      e2eSeconds: round(e2eSeconds, 2),
      deliverySeconds: round(deliverySeconds, 2),
      ...(stages ? { stagesMs: stages } : {}),
      workerRssBeforeMb: workerRssBeforeKb === null ? null : round(workerRssBeforeKb / 1024),
      workerRssMbByTenth: rssByTenth,
      workerCpuSeconds: round(workerCpu, 2),
      ...(SPLIT ? { serveCpuSeconds: round(apiCpu, 2) } : {}),
      benchCpuSeconds: round((benchCpu.user + benchCpu.system) / 1e6, 2),
      ...(db ? { db } : {}),
      problems,
      machine: machineInfo(),
    },
  };
  return reportVerified(result, problems);
}

runBench(main);
