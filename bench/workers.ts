/**
 * One campaign delivered by 1, 2 and 3 worker processes sharing one PostgreSQL database and one SMTP
 * sink: the rate of each, the duplicates (must be 0), and what each message costs the workers and
 * the database, to see which of them becomes the limit as workers are added.
 *
 *   npx tsx bench/workers.ts                                 # 20,000 contacts; 1, 2 and 3 workers
 *   BENCH_CONTACTS=50000 BENCH_WORKERS=1,3 npx tsx bench/workers.ts
 *
 * For each worker count, a fresh database on the PostgreSQL server (BENCH_PG_URL) with N subscribed
 * contacts inserted set-wise, one `serve` process and that many `worker` processes, a verified sender
 * domain (2048-bit DKIM) and a MARKETING campaign to ALL made through the API. The SMTP sink and the
 * DNS server live in this process and are shared by the runs. After waiting for the CPU to settle,
 * `POST /campaigns/{id}/send`; the run ends when the sink has received N messages and the campaign is
 * SENT (a run where nothing new arrives for 120 s is reported as stalled, exit code 1).
 *
 * Meanwhile `pg_stat_activity` is sampled every 100 ms: the backends of the bench database that are
 * running a statement, and what each is waiting on (`CPU` when it waits on nothing).
 *
 * Prints one JSON line with, for each worker count:
 *   messagesPerSec       N / (the send request → the last message at the sink)
 *   duplicates           messages beyond the first per Message-ID at the sink (must be 0), and
 *                        `recipientsTwice`: contacts that received more than one message; `missing`
 *   workerCpuMsPerMessage   the CPU (user + system) of all workers / N, and of each worker
 *   pgCpuMsPerMessage    the CPU of the bench database's backends / N; `pgCores`, the same per second
 *                        of the run (1.0 is one core kept busy); `workerCores` likewise
 *   transactionsPerMessage, rows inserted / updated / deleted per message (pg_stat_database)
 *   activeBackends       the mean number of backends running a statement; `waits`: the share of those
 *                        samples per wait event (`CPU`, `Lock:transactionid`, `LWLock:WALWrite`, …);
 *                        `lockWaitSamplesByStatement`: the samples waiting on a lock, by the tables
 *                        their statement writes
 *   machineBusyPct       the whole machine's CPU during the run (both cores, everything on them)
 *   databaseBytesPerMessage  the growth of the database on disk during the run / N
 *
 * Env: BENCH_CONTACTS, BENCH_WORKERS (comma-separated counts), BENCH_PG_URL, SMTP_MAX_CONNECTIONS and
 * DELIVERY_CONCURRENCY (per worker).
 */
import pg from 'pg';
import {
  apiCall,
  createBenchProject,
  createVerifiedDomain,
  DELIVERY_POOL,
  expectApiStatus,
  PG_SERVER_URL,
  PgPhase,
  prepareService,
  processCpuSeconds,
  type ServiceChild,
  startMailLoopback,
  startServiceChild,
} from './lib.js';
import { type Cleanup, log, machineCpu, machineInfo, reportVerified, round, runBench, waitForQuiet } from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 20_000);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2,3').split(',').map((s) => Number(s.trim()));
const DOMAIN = 'workers.bench.example.com';
/** A run is given up as stalled when the sink has received nothing new for this long. */
const STALL_MS = 120_000;
const WAIT_SAMPLE_MS = 100;

/** Contact i: `c<i>@d<i % 50>.example.net`; the sink maps a recipient back to i. */
const RECIPIENT = /^c(\d+)@d\d+\.example\.net$/;

const SUBJECT = '{{ firstName ?? "Hello" }}, what is new on your {{ plan | capitalize }} plan';
const BODY = `<!doctype html><html><body style="font-family: Helvetica, Arial, sans-serif">
<h1>Hi {{ firstName ?? "there" }},</h1>
<p>Here is what changed this month for your <strong>{{ plan }}</strong> plan.</p>
{% if plan == "free" %}<p><a href="https://bench.example.com/upgrade?from={{ plan }}">See the plans</a>.</p>
{% else %}<p>Your last order <a href="https://bench.example.com/orders/{{ lastOrder }}">{{ lastOrder }}</a>.</p>{% endif %}
<p><a href="https://bench.example.com/blog/exports">Faster exports</a> ·
<a href="https://bench.example.com/events?city={{ city | url_encode }}">Events near {{ city }}</a> ·
<a href="https://bench.example.com/help">A new help centre</a></p>
<p style="color: #888; font-size: 12px">Bench · 1 Example Street · 75000 Paris</p>
</body></html>`;

/** N subscribed contacts in one statement, with the fields the template uses. */
async function insertContacts(url: string, projectId: string, n: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
       select $1::uuid, 'c' || g || '@d' || (g % 50) || '.example.net', true,
         jsonb_strip_nulls(jsonb_build_object(
           'firstName', case when g % 5 = 0 then null else 'Ada' || (g % 1000) end,
           'plan', (array['free', 'pro', 'team'])[1 + g % 3],
           'city', (array['Paris', 'Lyon', 'Berlin', 'Oslo'])[1 + g % 4],
           'lastOrder', 'B' || (100000 + g))),
         now() - make_interval(secs => $2::int - g), now()
       from generate_series(0, $2::int - 1) g`,
      [projectId, n],
    );
    await client.query(
      `insert into contact_fields (project_id, key, type)
       values ($1, 'firstName', 'string'), ($1, 'plan', 'string'), ($1, 'city', 'string'), ($1, 'lastOrder', 'string')
       on conflict do nothing`,
      [projectId],
    );
    await client.query('analyze contacts');
  } finally {
    await client.end();
  }
}

/** The database's size on disk (tables, indexes, TOAST; the WAL apart). */
async function databaseBytes(client: pg.Client): Promise<number> {
  const r = await client.query<{ bytes: string }>('select pg_database_size(current_database()) as bytes');
  return Number(r.rows[0]!.bytes);
}

/** A statement named by the tables it writes (`update campaigns`, `insert into emails`…), for the lock waits. */
function statementKind(statement: string): string {
  const writes = [...statement.matchAll(/\b(update|insert into|delete from)\s+([a-z_]+)/gi)].map(
    (m) => `${m[1]!.toLowerCase()} ${m[2]}`,
  );
  return writes.length ? [...new Set(writes)].join(', ') : statement.slice(0, 60);
}

/**
 * Samples what the bench database's active backends wait on, every WAIT_SAMPLE_MS until `stop`:
 * the mean number running a statement and the share of samples per wait event.
 */
function sampleWaits(client: pg.Client, db: string) {
  const counts = new Map<string, number>();
  const lockedStatements = new Map<string, number>();
  let samples = 0;
  let active = 0;
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const r = await client.query<{ wait: string; statement: string }>(
        `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait,
           left(query, 400) as statement from pg_stat_activity
         where datname = $1 and state = 'active' and pid <> pg_backend_pid() and backend_type = 'client backend'`,
        [db],
      );
      samples++;
      active += r.rows.length;
      for (const { wait, statement } of r.rows) {
        counts.set(wait, (counts.get(wait) ?? 0) + 1);
        if (wait.startsWith('Lock:')) {
          const key = statementKind(statement);
          lockedStatements.set(key, (lockedStatements.get(key) ?? 0) + 1);
        }
      }
    } catch {
      // the database is going away at the end of the run
    } finally {
      busy = false;
    }
  }, WAIT_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      const waits = Object.fromEntries(
        [...counts].sort((a, b) => b[1] - a[1]).map(([wait, n]) => [wait, active ? round(n / active, 3) : 0]),
      );
      const lockWaits = Object.fromEntries([...lockedStatements].sort((a, b) => b[1] - a[1]));
      return { samples, activeBackends: samples ? round(active / samples, 2) : 0, waits, lockWaits };
    },
  };
}

/** What the sink received during one run: copies per Message-ID and per contact. */
class RunArrivals {
  readonly byMessageId = new Map<string, number>();
  readonly byContact: Uint8Array;
  n = 0;
  last = 0;
  strays = 0;

  constructor(contacts: number) {
    this.byContact = new Uint8Array(contacts);
  }

  add(raw: Buffer, to: string[]): void {
    this.n++;
    this.last = Date.now();
    const id = /^Message-ID:\s*(\S+)/im.exec(raw.toString('latin1'))?.[1] ?? '';
    this.byMessageId.set(id, (this.byMessageId.get(id) ?? 0) + 1);
    const match = to.length === 1 ? RECIPIENT.exec(to[0]!) : null;
    const i = match ? Number(match[1]) : -1;
    if (i >= 0 && i < this.byContact.length) this.byContact[i] = Math.min(255, this.byContact[i]! + 1);
    else this.strays++;
  }

  tally() {
    let duplicates = 0;
    for (const copies of this.byMessageId.values()) duplicates += copies - 1;
    let missing = 0;
    let recipientsTwice = 0;
    for (const copies of this.byContact) {
      if (copies === 0) missing++;
      else if (copies > 1) recipientsTwice++;
    }
    return { duplicates, recipientsTwice, missing, strays: this.strays };
  }
}

const running = (child: ServiceChild) => child.process.exitCode === null && child.process.signalCode === null;

async function runWith(
  cleanup: Cleanup,
  mail: Awaited<ReturnType<typeof startMailLoopback>>,
  setArrivals: (a: RunArrivals | undefined) => void,
  workerCount: number,
  problems: string[],
) {
  const { port, env, db: scratch } = await prepareService(cleanup, `workers${workerCount}`, PG_SERVER_URL, mail.env);
  const project = await createBenchProject(env);
  await insertContacts(scratch.url, project.id, CONTACTS);
  const api = await startServiceChild(env, port, 'serve', { label: 'serve' });
  const workers: ServiceChild[] = [];
  let stats: pg.Client | undefined;
  const stopAll = async () => {
    await stats?.end().catch(() => {});
    await Promise.all(workers.map((w) => w.stop()));
    await api.stop();
  };
  cleanup.add(stopAll);
  try {
    for (let w = 0; w < workerCount; w++) {
      workers.push(await startServiceChild(env, port, 'worker', { label: `worker-${w + 1}` }));
    }
    stats = new pg.Client({ connectionString: scratch.url });
    stats.on('error', () => {});
    await stats.connect();
    const sk = project.secretKey;
    await createVerifiedDomain(api.url, sk, mail.dns, DOMAIN);
    const created = await apiCall(api.url, sk, 'POST', '/campaigns', {
      name: `Workers ${workerCount}`,
      subject: SUBJECT,
      body: BODY,
      from: `news@${DOMAIN}`,
      fromName: 'Bench News',
      type: 'MARKETING',
      audienceType: 'ALL',
    });
    expectApiStatus(created, 201, 'POST /campaigns');
    const campaignId = created.body.data.id as string;

    const busyBeforePct = await waitForQuiet();
    // A worker that could not open its connections at start (a full server) exits: started again, once.
    for (let w = 0; w < workers.length; w++) {
      if (running(workers[w]!)) continue;
      log(`worker-${w + 1} exited while starting; starting it again`);
      workers[w] = await startServiceChild(env, port, 'worker', { label: `worker-${w + 1}` });
    }
    log(`${workerCount} worker(s): campaign to ${CONTACTS} contacts (CPU ${busyBeforePct} % busy before)`);
    const arrivals = new RunArrivals(CONTACTS);
    setArrivals(arrivals);
    const sizeBefore = await databaseBytes(stats);
    const pgPhase = await PgPhase.start(stats, scratch.name);
    const waits = sampleWaits(stats, scratch.name);
    const workerCpu0 = workers.map((w) => processCpuSeconds(w.process.pid!) ?? 0);
    const apiCpu0 = processCpuSeconds(api.process.pid!) ?? 0;
    const machine = machineCpu();
    const started = Date.now();
    // The server is shared: a 503 (its connections used up for a moment) is retried, as a client would.
    let sent = await apiCall(api.url, sk, 'POST', `/campaigns/${campaignId}/send`);
    for (let retry = 0; sent.status === 503 && retry < 10; retry++) {
      await new Promise((r) => setTimeout(r, 5000));
      sent = await apiCall(api.url, sk, 'POST', `/campaigns/${campaignId}/send`);
    }
    expectApiStatus(sent, 200, 'POST /campaigns/{id}/send');

    let stalled = false;
    let seen = 0;
    let progressAt = Date.now();
    let reportAt = Date.now() + 10_000;
    let status = '';
    while (arrivals.n < CONTACTS || status !== 'SENT') {
      await new Promise((r) => setTimeout(r, 250));
      if (arrivals.n >= CONTACTS) status = (await apiCall(api.url, sk, 'GET', `/campaigns/${campaignId}`)).body.status;
      if (arrivals.n !== seen) {
        seen = arrivals.n;
        progressAt = Date.now();
      } else if (Date.now() - progressAt > STALL_MS) {
        stalled = true;
        break;
      }
      if (Date.now() > reportAt) {
        log(`${workerCount} worker(s): ${arrivals.n} of ${CONTACTS} delivered`);
        reportAt = Date.now() + 10_000;
      }
    }
    const seconds = (arrivals.last - started) / 1000;
    const workerCpu = workers.map((w, i) => (processCpuSeconds(w.process.pid!) ?? 0) - workerCpu0[i]!);
    const apiCpu = (processCpuSeconds(api.process.pid!) ?? 0) - apiCpu0;
    const machineBusyPct = machine.pct();
    const waited = waits.stop();
    await pgPhase.stopCpu();
    // A copy more than expected would arrive just after the last one: give it a moment.
    await new Promise((r) => setTimeout(r, 2000));
    setArrivals(undefined);
    const tally = arrivals.tally();
    const db = await pgPhase.perMessage(CONTACTS);
    const bytesPerMessage = ((await databaseBytes(stats)) - sizeBefore) / CONTACTS;

    const label = `${workerCount} worker(s)`;
    const exited = workers.filter((w) => !running(w)).length;
    if (exited) problems.push(`${label}: ${exited} worker(s) exited during the run`);
    if (stalled) problems.push(`${label}: stalled at ${arrivals.n} of ${CONTACTS} messages, status ${status}`);
    if (tally.duplicates) problems.push(`${label}: ${tally.duplicates} duplicate messages`);
    if (tally.missing) problems.push(`${label}: ${tally.missing} contacts received no message`);
    if (tally.strays) problems.push(`${label}: ${tally.strays} messages to addresses that are no contact`);
    const workerCpuTotal = workerCpu.reduce((a, b) => a + b, 0);
    log(`${label}: ${arrivals.n} messages in ${round(seconds, 2)} s, ${tally.duplicates} duplicates`);
    return {
      workers: workerCount,
      messagesPerSec: round(CONTACTS / seconds),
      seconds: round(seconds, 2),
      ...tally,
      stalled,
      workerCpuMsPerMessage: round((1000 * workerCpuTotal) / CONTACTS, 2),
      eachWorkerCpuMsPerMessage: workerCpu.map((c) => round((1000 * c) / CONTACTS, 2)),
      pgCpuMsPerMessage: round((1000 * db.backendCpuSeconds) / CONTACTS, 2),
      serveCpuMsPerMessage: round((1000 * apiCpu) / CONTACTS, 2),
      workerCores: round(workerCpuTotal / seconds, 2),
      pgCores: round(db.backendCpuSeconds / seconds, 2),
      transactionsPerMessage: db.transactionsPerMessage,
      rowsPerMessage: {
        inserted: db.rowsInsertedPerMessage,
        updated: db.rowsUpdatedPerMessage,
        deleted: db.rowsDeletedPerMessage,
      },
      databaseBytesPerMessage: Math.round(bytesPerMessage),
      pgBackends: db.backends,
      activeBackends: waited.activeBackends,
      waits: waited.waits,
      lockWaitSamplesByStatement: waited.lockWaits,
      waitSamples: waited.samples,
      machineBusyPct,
      cpuBusyBeforePct: busyBeforePct,
    };
  } finally {
    await stopAll();
    await scratch.drop();
  }
}

async function main(cleanup: Cleanup): Promise<number> {
  if (!Number.isInteger(CONTACTS) || CONTACTS < 2) throw new Error('BENCH_CONTACTS must be an integer ≥ 2');
  if (!WORKER_COUNTS.every((n) => Number.isInteger(n) && n >= 1 && n <= 8)) {
    throw new Error('BENCH_WORKERS must list worker counts from 1 to 8, comma-separated');
  }
  let current: RunArrivals | undefined;
  const mail = await startMailLoopback(cleanup, (m) => current?.add(m.raw, m.to));
  const problems: string[] = [];
  const runs = [];
  for (const n of WORKER_COUNTS) {
    runs.push(await runWith(cleanup, mail, (a) => (current = a), n, problems));
  }
  return reportVerified(
    {
      bench: 'workers',
      contacts: CONTACTS,
      ...DELIVERY_POOL,
      runs,
      ok: problems.length === 0,
      problems,
      machine: machineInfo(),
    },
    problems,
  );
}

runBench(main);
