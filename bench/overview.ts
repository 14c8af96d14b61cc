/**
 * The Overview page in Chromium against the real service on PostgreSQL: how long from navigation
 * (signed in, nothing cached) until its content is on screen — the totals, the three charts and the
 * recent activity — with the requests of the last visit in the order the page asked for them.
 *
 *   npm run build:web && npx tsx bench/overview.ts    # prints one JSON line
 *
 * Setup (not measured): BENCH_CONTACTS (1,000,000) contacts and BENCH_EVENTS (2 per contact) events
 * over the last year loaded by bench/seed.ts, a third of them email events, then `event_daily_counts`
 * filled by the migration's own backfill. The service runs `serve` in this process.
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS, BENCH_EVENTS, BENCH_REPEAT (10).
 */
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { type Storage, signedInDashboard } from './browser.js';
import { migratedScratch } from './lib.js';
import { type Cleanup, log, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';
import { rollupBackfill, seedContactsAndEvents } from './seed.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? CONTACTS * 2);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 10);
const WARMUP = 1;
/** When (the page's performance.now()) the totals, three charts and recent activity are all shown. */
async function contentShownAt(page: Page): Promise<number> {
  const handle = await page.waitForFunction(
    () => {
      const main = document.querySelector('main');
      if (!main || main.querySelector('.skeleton')) return false;
      const shown =
        main.querySelector('.stat-value') &&
        main.querySelectorAll('figure.chart').length === 3 &&
        main.querySelector('[aria-label="Recent activity, newest first"]');
      return shown ? performance.now() : false;
    },
    undefined,
    { polling: 'raf', timeout: 120_000 },
  );
  return (await handle.jsonValue()) as number;
}

interface Step {
  what: string;
  startMs: number;
  endMs: number;
}

async function visit(browser: Browser, url: string, storage: Storage): Promise<{ ms: number; waterfall: Step[] }> {
  const context = await browser.newContext({ storageState: storage, viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(`${url}/app/overview`, { waitUntil: 'commit' });
    const ms = await contentShownAt(page);
    const waterfall = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      const steps = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => {
        const u = new URL(e.name);
        return { what: u.pathname + u.search, startMs: e.startTime, endMs: e.responseEnd };
      });
      if (nav) steps.unshift({ what: 'document', startMs: nav.requestStart, endMs: nav.domContentLoadedEventEnd });
      return steps.map((x) => ({ ...x, startMs: Math.round(x.startMs), endMs: Math.round(x.endMs) }));
    });
    return { ms, waterfall };
  } finally {
    await context.close();
  }
}

async function main(cleanup: Cleanup) {
  const { db: scratch, dataDir, project } = await migratedScratch(cleanup, 'overview');
  const seedMs = await seedContactsAndEvents(
    scratch.url,
    project.id,
    { contacts: CONTACTS, events: EVENTS, now: new Date() },
    {
      seed: 0.5,
      name: `case when r.kind < 0.2 then 'email.sent' when r.kind < 0.28 then 'email.opened'
                  when r.kind < 0.31 then 'email.clicked' when r.kind < 0.32 then 'email.bounced'
                  when r.kind < 0.66 then 'signed_up' else 'page_view' end`,
      data: `'{}'::jsonb`,
    },
  );
  const c = new pg.Client({ connectionString: scratch.url });
  await c.connect();
  await c.query(rollupBackfill());
  await c.query('vacuum analyze event_daily_counts');
  await c.end();
  log(`${CONTACTS.toLocaleString('en')} contacts, ${EVENTS.toLocaleString('en')} events in ${round(seedMs / 1000)} s`);

  const { url, browser, storage } = await signedInDashboard(cleanup, { db: scratch, dataDir });

  const busyBeforePct = await waitForQuiet(60_000);
  const times: number[] = [];
  let waterfall: Step[] = [];
  for (let i = 0; i < WARMUP + REPEAT; i++) {
    const v = await visit(browser, url, storage);
    if (i >= WARMUP) times.push(v.ms);
    waterfall = v.waterfall;
    log(`visit ${i + 1} of ${WARMUP + REPEAT}: ${round(v.ms)} ms`);
  }
  times.sort((a, b) => a - b);
  printResult({
    bench: 'overview',
    contacts: CONTACTS,
    events: EVENTS,
    repeat: REPEAT,
    seedSeconds: round(seedMs / 1000),
    contentMs: { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), max: round(times.at(-1)!) },
    lastWaterfall: waterfall,
    cpuBusyBeforePct: busyBeforePct,
    machine: machineInfo(),
  });
}

runBench(main);
