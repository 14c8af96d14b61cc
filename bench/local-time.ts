/**
 * Scheduling a campaign at a time of day in each recipient's zone: N contacts (1,000,000) spread over
 * 30 zones by their `timezone` field, on the PostgreSQL server, the service as `serve` + `worker`. The
 * time is five minutes from now in London, so one zone is due within the fan-out's window.
 *
 *   npx tsx bench/local-time.ts
 *   BENCH_CONTACTS=200000 npx tsx bench/local-time.ts
 *
 * Prints one JSON line:
 *   previewMs        GET /campaigns/{id}/local-time before sending (the zones and their times)
 *   schedulingMs     the send request → the audience frozen with every recipient's send time (goal < 60,000)
 *   dueWithinWindow  recipients due within the fan-out's window (10 minutes) at the end
 *   emailsHeld       the campaign's emails made, 20 s after scheduling (goal: none but those due within the window)
 *
 * Verified (exit code 1 otherwise): every recipient has a send time, 30 zones are reported, and the
 * emails made are no more than the window's.
 */
import { sql } from 'drizzle-orm';
import { openDatabase, run } from '../src/platform/db/client.js';
import {
  apiCall,
  connectPg,
  createVerifiedDomain,
  expectApiStatus,
  PG_SERVER_URL,
  prepareMailService,
  startWatchedRoles,
} from './lib.js';
import type { Cleanup } from './run.js';
import { log, machineInfo, reportVerified, round, runBench, wallNow } from './run.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const DOMAIN = 'news.bench.example.com';
const GOAL_MS = 60_000;
const WINDOW_MS = 10 * 60_000;
const SLICE = 50_000;
/** Five minutes from now in London: one zone's recipients fall within the fan-out's window, the others do not. */
const SEND_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  hour: '2-digit',
  minute: '2-digit',
}).format(new Date(Date.now() + 5 * 60_000));
const ZONES = [
  'Pacific/Honolulu',
  'America/Anchorage',
  'America/Los_Angeles',
  'America/Denver',
  'America/Chicago',
  'America/New_York',
  'America/Halifax',
  'America/Sao_Paulo',
  'Atlantic/Azores',
  'Europe/London',
  'Europe/Paris',
  'Europe/Athens',
  'Europe/Moscow',
  'Asia/Dubai',
  'Asia/Karachi',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Dhaka',
  'Asia/Bangkok',
  'Asia/Shanghai',
  'Asia/Tokyo',
  'Australia/Adelaide',
  'Australia/Sydney',
  'Pacific/Noumea',
  'Pacific/Auckland',
  'Africa/Lagos',
  'Africa/Nairobi',
  'America/Mexico_City',
  'America/Bogota',
  'Asia/Jakarta',
];

async function insertContacts(connection: { databaseUrl?: string; dataDir: string }, projectId: string) {
  const database = await openDatabase(connection);
  try {
    const zones = sql.raw(`array[${ZONES.map((z) => `'${z}'`).join(', ')}]`);
    // In slices: one statement for a million rows would outlast the statement timeout.
    for (let from = 0; from < CONTACTS; from += SLICE) {
      const to = Math.min(from + SLICE, CONTACTS) - 1;
      await run(
        database.db,
        sql`
        insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
        select ${projectId}::uuid, 'c' || g || '@d' || (g % 50) || '.example.net', true,
          jsonb_build_object('timezone', (${zones})[1 + g % ${ZONES.length}], 'n', g), now(), now()
        from generate_series(${from}::int, ${to}::int) g`,
      );
    }
    await run(database.db, sql`analyze contacts`);
  } finally {
    await database.close();
  }
}

async function main(cleanup: Cleanup): Promise<number> {
  const problems: string[] = [];
  const setup = await prepareMailService(cleanup, 'localtime', PG_SERVER_URL, () => {});
  const { mail, port, env, dataDir, db: scratch, project } = setup;
  let t = wallNow();
  await insertContacts({ databaseUrl: scratch.url, dataDir }, project.id);
  log(`${CONTACTS} contacts in ${ZONES.length} zones inserted in ${round((wallNow() - t) / 1000)} s`);
  const { api } = await startWatchedRoles(cleanup, env, port, true);
  const pg = await connectPg(cleanup, scratch.url);
  const sk = project.secretKey;
  await createVerifiedDomain(api.url, sk, mail.dns, DOMAIN);
  const created = await apiCall(api.url, sk, 'POST', '/campaigns', {
    name: 'Local time',
    subject: 'Good morning',
    body: '<p>Good morning</p>',
    from: `news@${DOMAIN}`,
    audienceType: 'ALL',
    localTime: { time: SEND_TIME, whenPassed: 'nextDay' },
  });
  expectApiStatus(created, 201, 'POST /campaigns');
  const id = created.body.data.id as string;

  t = wallNow();
  const preview = await apiCall(api.url, sk, 'GET', `/campaigns/${id}/local-time`);
  const previewMs = wallNow() - t;
  expectApiStatus(preview, 200, 'GET /campaigns/{id}/local-time');
  if (preview.body.zones.length !== ZONES.length) problems.push(`${preview.body.zones.length} zones in the preview`);

  log('sending');
  const started = wallNow();
  expectApiStatus(await apiCall(api.url, sk, 'POST', `/campaigns/${id}/send`), 200, 'send');
  let frozenAt = 0;
  while (wallNow() - started < 10 * GOAL_MS) {
    const c = (await apiCall(api.url, sk, 'GET', `/campaigns/${id}`)).body;
    if (c.totalRecipients === CONTACTS) {
      frozenAt = wallNow();
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!frozenAt) problems.push('the audience was not frozen');
  const schedulingMs = frozenAt - started;
  log(`scheduled in ${round(schedulingMs / 1000, 1)} s`);

  await new Promise((r) => setTimeout(r, 20_000));
  const counts = await pg.query<{ untimed: string; due: string; emails: string }>(
    `select (select count(*) from campaign_recipients where campaign_id = $1 and send_at is null) as untimed,
       (select count(*) from campaign_recipients where campaign_id = $1 and send_at <= now() + $2 * interval '1 millisecond') as due,
       (select count(*) from emails where campaign_id = $1) as emails`,
    [id, WINDOW_MS],
  );
  const untimed = Number(counts.rows[0]!.untimed);
  const dueWithinWindow = Number(counts.rows[0]!.due);
  const emailsHeld = Number(counts.rows[0]!.emails);
  if (untimed) problems.push(`${untimed} recipients without a send time`);
  if (emailsHeld > dueWithinWindow) problems.push(`${emailsHeld} emails made, ${dueWithinWindow} due in the window`);
  expectApiStatus(await apiCall(api.url, sk, 'POST', `/campaigns/${id}/cancel`), 200, 'cancel');

  const result = {
    bench: 'local-time',
    contacts: CONTACTS,
    zones: ZONES.length,
    sendTime: SEND_TIME,
    previewMs: round(previewMs, 0),
    schedulingMs: round(schedulingMs, 0),
    dueWithinWindow,
    emailsHeld,
    goals: { schedulingUnderMs: GOAL_MS, met: frozenAt > 0 && schedulingMs < GOAL_MS && emailsHeld <= dueWithinWindow },
    ok: problems.length === 0,
    details: { problems, machine: machineInfo() },
  };
  return reportVerified(result, problems);
}

runBench(main);
