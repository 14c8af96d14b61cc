/**
 * Workers killed with SIGKILL in the middle of a campaign and a stream of `/v1/send` as large: what
 * is lost, what goes out twice on each lane, and how soon a killed worker's messages are taken over.
 *
 *   npx tsx bench/chaos.ts                               # 20,000 contacts and sends, 10 kills
 *   BENCH_CONTACTS=3000 BENCH_KILLS=4 npx tsx bench/chaos.ts
 *
 * A fresh database on the PostgreSQL server (BENCH_PG_URL), a loopback SMTP sink and DNS server in
 * this process, and the service as child processes: one `serve` and two `worker`s. N contacts are
 * imported through the API, a sender domain verified, and a MARKETING campaign to all of them sent;
 * meanwhile `/v1/send` sends N messages of its own (BENCH_STREAM), 50 recipients a request, kept
 * about 500 ahead of what the sink has received of them, so the transactional lane is busy until
 * they are all out (and, taking the relay first, delivers most of its share before the campaign
 * does). While both go out, a worker is killed with SIGKILL BENCH_KILLS times, the two in turn, at
 * moments spread over the whole delivery, and started again at once.
 *
 * Right after each kill the bench reads which queued emails are held by a process that is gone (no
 * session holds its advisory lock) and times how long until all of them are sent: `reclaimMs`.
 * At the end (campaign SENT, every stream email sent) it counts, by the sink's Message-IDs:
 *   lost               recipients that never received their message (exit code 1 if any)
 *   duplicates         messages beyond one per email, by lane; duplicatesPerKill, by lane
 *   byKill             the copies that arrived after each kill (counted against the last kill
 *                      before them), and their maximum: the bound, at most 2, is on that one
 *   messageIdsConsistent  every recipient's copies carry one Message-ID
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  apiCall,
  connectPg,
  createBenchProject,
  createVerifiedDomain,
  expectApiStatus,
  PG_SERVER_URL,
  prepareService,
  type ServiceChild,
  startMailLoopback,
  startServiceChild,
} from './lib.js';
import { type Cleanup, machineInfo, percentile, printResult, round, runBench } from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 20_000);
const STREAM = Number(process.env.BENCH_STREAM ?? CONTACTS);
const KILLS = Number(process.env.BENCH_KILLS ?? 10);
/** Recipients per `/v1/send` of the stream, and how far it keeps ahead of what the sink received of it. */
const STREAM_REQUEST = 50;
const STREAM_AHEAD = 500;
const DOMAIN = 'chaos.bench.test';
const log = (m: string) => process.stderr.write(`[chaos] ${m}\n`);

async function main(cleanup: Cleanup) {
  const copiesByRecipient = new Map<string, { id: string; at: number }[]>();
  let streamReceived = 0;
  const mail = await startMailLoopback(cleanup, (m) => {
    const id = /^Message-ID:\s*(\S+)/im.exec(m.raw.toString('latin1'))?.[1] ?? '';
    const at = Date.now();
    for (const to of m.to) {
      const copies = copiesByRecipient.get(to);
      if (copies) copies.push({ id, at });
      else {
        copiesByRecipient.set(to, [{ id, at }]);
        if (to.endsWith('@stream.chaos.test')) streamReceived++;
      }
    }
  });
  const {
    port,
    env,
    db: scratch,
  } = await prepareService(cleanup, 'chaos', PG_SERVER_URL, {
    ...mail.env,
    LOG_LEVEL: 'error',
  });
  const project = await createBenchProject(env);
  const api = await startServiceChild(env, port, 'serve', { label: 'serve' });
  cleanup.add(() => api.stop());
  const workers: ServiceChild[] = [];
  for (const label of ['worker-a', 'worker-b']) workers.push(await startServiceChild(env, port, 'worker', { label }));
  cleanup.add(() => Promise.all(workers.map((w) => w.stop())).then(() => {}));
  const db = await connectPg(cleanup, scratch.url);

  // Setup through the API: the domain and the contacts.
  const sk = project.secretKey;
  await createVerifiedDomain(api.url, sk, mail.dns, DOMAIN);
  const csv = ['email,n', ...Array.from({ length: CONTACTS }, (_, i) => `c${i}@rcpt.chaos.test,${i}`)].join('\n');
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
  const imported = await fetch(`${api.url}/contacts/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sk}` },
    body: form,
  });
  const jobId = ((await imported.json()) as { jobId: string }).jobId;
  for (;;) {
    const job = await apiCall(api.url, sk, 'GET', `/contacts/import/${jobId}`);
    if (job.body.status === 'completed') break;
    if (job.body.status === 'failed') throw new Error('the import failed');
    await sleep(250);
  }
  log(`${CONTACTS} contacts imported`);

  const created = await apiCall(api.url, sk, 'POST', '/campaigns', {
    name: 'Chaos',
    subject: 'Hello {{ n }}',
    body: '<p>Number {{ n }}</p>',
    from: `news@${DOMAIN}`,
    audienceType: 'ALL',
  });
  expectApiStatus(created, 201, 'POST /campaigns');
  const campaignId = created.body.data.id as string;

  // The /v1/send stream: STREAM messages, kept STREAM_AHEAD ahead of what the sink has received of them.
  const streamIds: string[] = [];
  const stream = (async () => {
    while (streamIds.length < STREAM) {
      if (streamIds.length - streamReceived >= STREAM_AHEAD) {
        await sleep(20);
        continue;
      }
      const first = streamIds.length;
      const to = Array.from(
        { length: Math.min(STREAM_REQUEST, STREAM - first) },
        (_, i) => `s${first + i}@stream.chaos.test`,
      );
      const sent = await apiCall(api.url, sk, 'POST', '/v1/send', {
        to,
        from: `hi@${DOMAIN}`,
        subject: `Stream ${first}`,
        body: '<p>Stream</p>',
      });
      if (sent.status === 200) streamIds.push(...sent.body.data.emails.map((e: { email: string }) => e.email));
      else await sleep(100);
    }
  })();

  const started = Date.now();
  expectApiStatus(
    await apiCall(api.url, sk, 'POST', `/campaigns/${campaignId}/send`),
    200,
    'POST /campaigns/{id}/send',
  );
  const reclaimMs: number[] = [];
  const killedAt: number[] = [];
  for (let k = 0; k < KILLS; k++) {
    const threshold = Math.floor(((CONTACTS + STREAM) * (k + 0.5)) / (KILLS + 0.5));
    while (copiesByRecipient.size < threshold) await sleep(10);
    const victim = k % 2;
    killedAt.push(Date.now());
    workers[victim]!.process.kill('SIGKILL');
    await new Promise((r) => workers[victim]!.process.once('exit', r));
    // What the dead process held, as the database sees it once its session is gone.
    await sleep(50);
    const held = (
      await db.query(`
        select e.id from emails e
        where e.status = 'queued' and e.locked_by is not null
          and not exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.granted and l.objsubid = 1
            and ((l.classid::bigint << 32) | l.objid::bigint) = e.locked_by)`)
    ).rows.map((r) => r.id as string);
    // Started again meanwhile; the survivor is the one that takes the held emails over.
    const restarted = startServiceChild(env, port, 'worker', { label: `worker-${victim ? 'b' : 'a'}` });
    for (;;) {
      const left = await db.query(
        `select count(*)::int as n from emails where id = any($1::uuid[]) and status = 'queued'`,
        [held],
      );
      if (left.rows[0].n === 0) break;
      await sleep(20);
    }
    reclaimMs.push(Date.now() - killedAt[k]!);
    workers[victim] = await restarted;
    log(`kill ${k + 1}: ${held.length} held by the dead worker, all sent ${reclaimMs.at(-1)} ms after the kill`);
  }

  for (;;) {
    const c = await apiCall(api.url, sk, 'GET', `/campaigns/${campaignId}`);
    if (c.body.status === 'SENT') break;
    await sleep(500);
  }
  const campaignSeconds = (Date.now() - started) / 1000;
  await stream;
  for (;;) {
    const left = await db.query(
      `select count(*)::int as n from emails where id = any($1::uuid[]) and status <> 'sent'`,
      [streamIds],
    );
    if (left.rows[0].n === 0) break;
    await sleep(200);
  }
  await sleep(1000);

  const expected = [
    ...Array.from({ length: CONTACTS }, (_, i) => `c${i}@rcpt.chaos.test`),
    ...Array.from({ length: streamIds.length }, (_, n) => `s${n}@stream.chaos.test`),
  ];
  const lost = expected.filter((to) => !copiesByRecipient.has(to)).length;
  // Each copy beyond the first is counted against the last kill before it arrived.
  const byKill = killedAt.map(() => 0);
  const duplicates = { transactional: 0, campaign: 0 };
  for (const [to, copies] of copiesByRecipient) {
    for (const copy of copies.slice(1)) {
      const k = killedAt.filter((at) => at < copy.at).length - 1;
      if (k >= 0) byKill[k]!++;
      duplicates[to.endsWith('@stream.chaos.test') ? 'transactional' : 'campaign']++;
    }
  }
  const messageIdsConsistent = [...copiesByRecipient.values()].every((c) => new Set(c.map((x) => x.id)).size === 1);
  const sorted = [...reclaimMs].sort((a, b) => a - b);
  const result = {
    bench: 'chaos',
    contacts: CONTACTS,
    streamSends: streamIds.length,
    kills: KILLS,
    lost,
    duplicates,
    duplicatesPerKill: {
      transactional: round(duplicates.transactional / KILLS, 2),
      campaign: round(duplicates.campaign / KILLS, 2),
    },
    byKill: { each: byKill, max: Math.max(0, ...byKill) },
    messageIdsConsistent,
    reclaimMs: { p50: percentile(sorted, 50), max: sorted.at(-1) ?? null, each: reclaimMs },
    campaignSeconds: round(campaignSeconds),
    messagesPerSec: round((CONTACTS + streamIds.length) / campaignSeconds),
    machine: machineInfo(),
  };
  printResult(result);
  return lost > 0 || !messageIdsConsistent ? 1 : 0;
}

runBench(main);
