/**
 * The segment builder's live count in Chromium against the real service on PostgreSQL: the
 * three-condition segment of bench/segment-data.ts over BENCH_CONTACTS contacts and BENCH_EVENTS
 * events, its first filter's number changed as a marketer types, timed from the input event to the
 * new count on screen (the builder's 300 ms pause after the last keystroke included). The exact
 * count ("Count exactly") is timed too, from the click to its figure.
 *
 *   npm run build:web && npx tsx bench/segment-live-count.ts   # prints one JSON line
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS (1000000),
 * BENCH_EVENTS (5000000), BENCH_REPEAT (20).
 */
import type { Page } from 'playwright-core';
import { signedInDashboard } from './browser.js';
import { migratedScratch } from './lib.js';
import { type Cleanup, log, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';
import { seedContactsAndEvents } from './seed.js';
import { AGE_OVER, EVENT_KINDS, threeConditions } from './segment-data.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);
const WARMUP = 2;
const GOAL_MS = 1000;

/** The page's performance.now() when the live count has answered for the tree now on screen. */
async function countShownAt(page: Page, testId: string, done: string): Promise<number> {
  const handle = await page.waitForFunction(
    ({ id, status }) => {
      const el = document.querySelector(`[data-testid="${id}"]`);
      if (!el) return false;
      if (status === 'done' ? el.getAttribute('data-status') !== 'done' : !el.textContent?.startsWith(status))
        return false;
      return performance.now();
    },
    { id: testId, status: done },
    { polling: 'raf', timeout: 120_000 },
  );
  return (await handle.jsonValue()) as number;
}

/** How long the last request to `path` took, as the page's resource timing saw it. */
function lastRequestMs(page: Page, path: string): Promise<number> {
  return page.evaluate((p) => {
    const entries = performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname === p);
    return entries.at(-1)?.duration ?? -1;
  }, path);
}

function summary(xs: number[]) {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted.at(-1)!) };
}

async function main(cleanup: Cleanup) {
  const { db: scratch, dataDir, project } = await migratedScratch(cleanup, 'segment_live');
  // Windows are measured from the service's clock, so the data is generated around now.
  const seedMs = await seedContactsAndEvents(
    scratch.url,
    project.id,
    { contacts: CONTACTS, events: EVENTS, now: new Date() },
    EVENT_KINDS,
  );
  log(`${CONTACTS.toLocaleString('en')} contacts, ${EVENTS.toLocaleString('en')} events in ${round(seedMs / 1000)} s`);

  // The API alone: the worker's segment counts would only add noise to what the page waits for.
  const { url, browser, storage } = await signedInDashboard(cleanup, { db: scratch, dataDir });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, storageState: storage });
  const created = await context.request.post(`${url}/segments`, {
    headers: { 'X-Project-Id': project.id },
    data: { name: 'Bench segment', condition: threeConditions() },
  });
  if (created.status() !== 201) throw new Error(`POST /segments answered ${created.status()}: ${await created.text()}`);
  const segmentId = (await created.json()).id as string;

  const page = await context.newPage();
  await page.addInitScript(() => {
    document.addEventListener('input', () => Object.assign(window, { typedAt: performance.now() }), true);
  });
  await page.goto(`${url}/app/segments/${segmentId}`);
  await countShownAt(page, 'live-count', 'done');
  const age = page.getByRole('group', { name: 'Filter 1 of group 1', exact: true }).getByLabel('Value');

  const busyBeforePct = await waitForQuiet(60_000);
  const live: number[] = [];
  const api: number[] = [];
  let shown = '';
  for (let i = 0; i < WARMUP + REPEAT; i++) {
    await age.fill(String(AGE_OVER + (i % 2)));
    const shownAt = await countShownAt(page, 'live-count', 'done');
    const typedAt = await page.evaluate(() => (window as unknown as { typedAt: number }).typedAt);
    if (i < WARMUP) continue;
    live.push(shownAt - typedAt);
    api.push(await lastRequestMs(page, '/segments/estimate'));
    shown = (await page.getByTestId('live-count').textContent()) ?? '';
  }

  const exact: number[] = [];
  for (let i = 0; i < 3; i++) {
    await age.fill(String(AGE_OVER + (i % 2)));
    await countShownAt(page, 'live-count', 'done');
    const clickedAt = await page.evaluate(() => performance.now());
    await page.getByRole('button', { name: 'Count exactly' }).click();
    exact.push((await countShownAt(page, 'exact-count', 'Exactly')) - clickedAt);
  }

  const liveMs = summary(live);
  printResult({
    bench: 'segment-live-count',
    contacts: CONTACTS,
    events: EVENTS,
    repeat: REPEAT,
    seedSeconds: round(seedMs / 1000),
    goals: { p95Ms: GOAL_MS },
    lastShown: shown,
    liveCountMs: { ...liveMs, met: liveMs.p95 < GOAL_MS },
    estimateApiMs: summary(api),
    exactCountMs: summary(exact),
    cpuBusyBeforePct: busyBeforePct,
    machine: machineInfo(),
  });
}

runBench(main);
