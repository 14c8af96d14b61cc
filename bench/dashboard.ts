/**
 * The dashboard in Chromium against the real service on PostgreSQL with 1,000,000 contacts in the
 * project: the JavaScript the first page (/app/contacts, signed in) downloads, how long until its
 * first page of rows is on screen, and how long a search takes from typing to its rows.
 *
 *   npm run build:web && npx tsx bench/dashboard.ts   # prints one JSON line
 *
 * Env: BENCH_PG_URL (admin URL of the PostgreSQL server), BENCH_CONTACTS (1000000), BENCH_REPEAT (10).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Browser, Page, Response } from 'playwright-core';
import { type Storage, signedInDashboard } from './browser.js';
import { BENCH_ROOT, migratedScratch } from './lib.js';
import { type Cleanup, log, machineInfo, percentile, printResult, round, runBench, waitForQuiet } from './run.js';
import { seedContactsAndEvents } from './seed.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 10);
const WARMUP = 1;
const PAGE_ROWS = 50;
const GOAL_JS_GZIP_BYTES = 250_000;
const GOAL_MS = 1000;
const DIST = path.join(BENCH_ROOT, 'web/dist');

/** What the table must show before a step counts as done: stale rows kept on screen while loading do not. */
interface Expected {
  rows: number;
  /** Text the first row contains. */
  first?: string;
  /** Text every row contains. */
  every?: string;
}

/*
 * seed.ts gives contact n the address user<n>@example<n % 50>.com, n rising with created_at, as
 * bench/contacts-search.ts has it: the same three kinds of term, scaled to BENCH_CONTACTS.
 */
const RARE_N = Math.round(CONTACTS * 0.123456);
const TERMS: { kind: string; term: string; expected: Expected }[] = [
  { kind: 'rare', term: `user${RARE_N}@`, expected: { rows: 2, first: `user${RARE_N}@` } },
  // user12, user12x, …: the oldest 1.1 %, the far end of a newest-first walk.
  { kind: 'medium', term: 'user12', expected: { rows: PAGE_ROWS + 1, every: 'user12' } },
  { kind: 'common', term: '@example7.com', expected: { rows: PAGE_ROWS + 1, every: '@example7.com' } },
];

/**
 * The moment (the page's performance.now(), from its navigation) the contacts table first shows
 * `expected`, checked once per frame so it is when the rows can be on screen.
 */
async function rowsShownAt(page: Page, expected: Expected): Promise<number> {
  const handle = await page.waitForFunction(
    (e: Expected) => {
      const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === 'Contacts');
      if (!table || table.classList.contains('is-stale') || table.rows.length !== e.rows) return false;
      const rows = [...table.rows].slice(1).map((r) => r.textContent ?? '');
      if (e.first && !rows[0]?.includes(e.first)) return false;
      if (e.every && !rows.every((r) => r.includes(e.every!))) return false;
      return performance.now();
    },
    expected,
    { polling: 'raf', timeout: 120_000 },
  );
  return (await handle.jsonValue()) as number;
}

/** `rowsShownAt`, failing with what the page shows instead. */
async function rowsShown(page: Page, expected: Expected): Promise<number> {
  try {
    return await rowsShownAt(page, expected);
  } catch (err) {
    const shown = await page
      .evaluate(() => (document.querySelector('main')?.textContent ?? '').slice(0, 500))
      .catch(() => undefined);
    throw new Error(`${JSON.stringify(expected)} not shown at ${page.url()}; the page shows: ${shown}`, { cause: err });
  }
}

/**
 * The page's last GET /contacts whose URL has `search` (none: no search at all): when it was
 * asked (from navigation) and how long the answer took.
 */
async function lastContactsRequest(page: Page, search?: string): Promise<{ startedAt: number; ms: number }> {
  const timing = await page.evaluate((s) => {
    const entries = performance.getEntriesByType('resource').filter((e) => {
      const url = new URL(e.name);
      return url.pathname === '/contacts' && url.searchParams.get('search') === s;
    });
    const last = entries.at(-1);
    return last && { startedAt: last.startTime, ms: last.duration };
  }, search ?? null);
  if (!timing) throw new Error(`the page made no GET /contacts for ${search ?? 'its first page'}`);
  return timing;
}

interface ScriptFile {
  path: string;
  encoding: string | null;
  bodyBytes: number;
  rawBytes: number;
}

/**
 * The scripts a fresh browser downloads for the first page, as it received them: `bodyBytes` is
 * what came over the wire (Chromium's encoded body size), `rawBytes` the decoded file.
 */
async function firstPageScripts(browser: Browser, url: string, storage: Storage, acceptEncoding: string) {
  // Chromium sends `gzip, deflate, br, zstd` on its own; overriding it is how the gzip and raw sizes are seen.
  const context = await browser.newContext({
    storageState: storage,
    extraHTTPHeaders: { 'accept-encoding': acceptEncoding },
  });
  try {
    const page = await context.newPage();
    const responses: Response[] = [];
    page.on('response', (r) => {
      if (r.request().resourceType() === 'script' || new URL(r.url()).pathname.endsWith('.js')) responses.push(r);
    });
    await page.goto(`${url}/app/contacts`);
    await rowsShown(page, { rows: PAGE_ROWS + 1 });
    const files: ScriptFile[] = [];
    for (const r of responses) {
      const sizes = await r.request().sizes();
      files.push({
        path: new URL(r.url()).pathname,
        encoding: (await r.headerValue('content-encoding')) ?? null,
        bodyBytes: sizes.responseBodySize,
        rawBytes: (await r.body()).length,
      });
    }
    return files;
  } finally {
    await context.close();
  }
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function scriptSizes(browser: Browser, url: string, storage: Storage) {
  const br = await firstPageScripts(browser, url, storage, 'br');
  const gzip = await firstPageScripts(browser, url, storage, 'gzip');
  const identity = await firstPageScripts(browser, url, storage, 'identity');
  const paths = br.map((f) => f.path).sort();
  for (const [name, files] of [
    ['gzip', gzip],
    ['identity', identity],
  ] as const) {
    if (JSON.stringify(files.map((f) => f.path).sort()) !== JSON.stringify(paths))
      throw new Error(`the ${name} load asked for other scripts than the br load`);
  }
  // The service compresses only bodies of 1 KiB and more; smaller ones come as they are.
  for (const f of [...br, ...gzip]) {
    if (f.encoding !== null && f.encoding !== (br.includes(f) ? 'br' : 'gzip'))
      throw new Error(`${f.path} came as ${f.encoding}`);
  }
  if (identity.some((f) => f.encoding !== null || f.bodyBytes !== f.rawBytes))
    throw new Error('a script came compressed although the browser asked for identity');

  /*
   * The same files straight from web/dist: gzip at zlib's default level, as the service sends it,
   * and at level 9 with brotli at 11, what precompressed files would weigh.
   */
  const dist = paths.map((p) => {
    const file = path.join(DIST, p.replace(/^\/app\//, ''));
    const raw = fs.readFileSync(file);
    return {
      file: path.relative(BENCH_ROOT, file),
      rawBytes: raw.length,
      gzipBytes: zlib.gzipSync(raw).length,
      gzip9Bytes: zlib.gzipSync(raw, { level: 9 }).length,
      brotli11Bytes: zlib.brotliCompressSync(raw).length,
    };
  });
  const entry = /<script[^>]+src="([^"]+)"/.exec(fs.readFileSync(path.join(DIST, 'index.html'), 'utf8'))?.[1];
  if (!entry || !paths.includes(entry)) throw new Error(`the entry script ${entry} is not among those loaded`);

  return {
    firstPageJsGzipBytes: sum(gzip.map((f) => f.bodyBytes)),
    firstPageJsBrotliBytes: sum(br.map((f) => f.bodyBytes)),
    firstPageJsRawBytes: sum(identity.map((f) => f.bodyBytes)),
    scripts: paths.map((p) => ({
      path: p,
      entry: p === entry,
      gzipBytes: gzip.find((f) => f.path === p)!.bodyBytes,
      brotliBytes: br.find((f) => f.path === p)!.bodyBytes,
      rawBytes: identity.find((f) => f.path === p)!.bodyBytes,
    })),
    dist: {
      files: dist,
      rawBytes: sum(dist.map((d) => d.rawBytes)),
      gzipBytes: sum(dist.map((d) => d.gzipBytes)),
      gzip9Bytes: sum(dist.map((d) => d.gzip9Bytes)),
      brotli11Bytes: sum(dist.map((d) => d.brotli11Bytes)),
    },
  };
}

interface Timings {
  firstPage: number[];
  firstPageApi: number[];
  firstPageAsked: number[];
  search: Record<string, { ms: number[]; api: number[] }>;
  /** The requests of the last visit's first page, in the order they were asked, with the page's own milestones. */
  waterfall?: { what: string; startMs: number; endMs: number }[];
}

/**
 * One visit in a fresh context (nothing cached, as a first visit after signing in): the first page
 * of rows, then each term typed in turn, timed from its input event to its rows. The search box
 * waits 300 ms after the last keystroke before asking, so that is part of each search's figure.
 */
async function visit(browser: Browser, url: string, storage: Storage, into: Timings): Promise<void> {
  const context = await browser.newContext({ storageState: storage });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      document.addEventListener('input', () => Object.assign(window, { typedAt: performance.now() }), true);
    });
    await page.goto(`${url}/app/contacts`, { waitUntil: 'commit' });
    into.firstPage.push(await rowsShown(page, { rows: PAGE_ROWS + 1, first: `user${CONTACTS}@` }));
    const request = await lastContactsRequest(page);
    into.firstPageApi.push(request.ms);
    into.firstPageAsked.push(request.startedAt);
    into.waterfall = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const steps = resources.map((e) => {
        const u = new URL(e.name);
        return { what: u.pathname + u.search, startMs: e.startTime, endMs: e.responseEnd };
      });
      if (nav) steps.unshift({ what: 'document', startMs: nav.requestStart, endMs: nav.domContentLoadedEventEnd });
      return steps.map((x) => ({ ...x, startMs: Math.round(x.startMs), endMs: Math.round(x.endMs) }));
    });
    const box = page.getByLabel('Search by email');
    for (const { kind, term, expected } of TERMS) {
      await box.fill(term);
      const shownAt = await rowsShown(page, expected);
      const typedAt = await page.evaluate(() => (window as unknown as { typedAt: number }).typedAt);
      if (new URL(page.url()).searchParams.get('q') !== term) throw new Error(`the URL does not carry ?q=${term}`);
      into.search[kind] ??= { ms: [], api: [] };
      const times = into.search[kind];
      times.ms.push(shownAt - typedAt);
      times.api.push((await lastContactsRequest(page, term)).ms);
    }
  } finally {
    await context.close();
  }
}

const noTimings = (): Timings => ({ firstPage: [], firstPageApi: [], firstPageAsked: [], search: {} });

function summary(xs: number[]) {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted.at(-1)!) };
}

function distIsStale(): boolean {
  const built = fs.statSync(path.join(DIST, 'index.html')).mtimeMs;
  const sources = fs.readdirSync(path.join(BENCH_ROOT, 'web/src'), { recursive: true, encoding: 'utf8' });
  return sources.some((f) => fs.statSync(path.join(BENCH_ROOT, 'web/src', f)).mtimeMs > built);
}

async function main(cleanup: Cleanup) {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) throw new Error('web/dist is missing: run `npm run build:web`');
  // Measuring an old build would report on code that no longer exists.
  if (distIsStale()) log('warning: web/src has changed since web/dist was built (npm run build:web)');

  const { db: scratch, dataDir, project } = await migratedScratch(cleanup, 'dashboard');
  const seedMs = await seedContactsAndEvents(
    scratch.url,
    project.id,
    { contacts: CONTACTS, events: 0, now: new Date() },
    { seed: 0, name: `'none'`, data: `'{}'::jsonb` },
  );
  log(`${CONTACTS.toLocaleString('en')} contacts in ${round(seedMs / 1000)} s`);

  // The project made before the owner existed is claimed by them: it is the one the dashboard opens.
  const { url, browser, storage } = await signedInDashboard(cleanup, { db: scratch, dataDir });

  const sizes = await scriptSizes(browser, url, storage);
  log(`first page: ${sizes.firstPageJsGzipBytes} bytes of JavaScript gzipped`);

  const busyBeforePct = await waitForQuiet(60_000);
  const timings = noTimings();
  for (let i = 0; i < WARMUP + REPEAT; i++) {
    await visit(browser, url, storage, i < WARMUP ? noTimings() : timings);
    log(`visit ${i + 1} of ${WARMUP + REPEAT}`);
  }

  const firstPage = summary(timings.firstPage);
  const search = Object.fromEntries(
    TERMS.map(({ kind, term }) => {
      const s = summary(timings.search[kind]!.ms);
      return [kind, { term, ...s, apiMs: summary(timings.search[kind]!.api), met: s.p95 < GOAL_MS }];
    }),
  );
  printResult({
    bench: 'dashboard',
    contacts: CONTACTS,
    repeat: REPEAT,
    seedSeconds: round(seedMs / 1000),
    goals: { jsGzipBytes: GOAL_JS_GZIP_BYTES, ms: GOAL_MS },
    ...sizes,
    jsMet: sizes.firstPageJsGzipBytes <= GOAL_JS_GZIP_BYTES,
    firstPageMs: {
      ...firstPage,
      // Until the page asks for its rows: HTML, scripts, the session and project look-ups.
      contactsAskedAtMs: summary(timings.firstPageAsked),
      // 'document' ends at DOMContentLoaded, when the entry script has run.
      lastWaterfall: timings.waterfall,
      apiMs: summary(timings.firstPageApi),
      met: firstPage.p95 < GOAL_MS,
    },
    searchMs: search,
    cpuBusyBeforePct: busyBeforePct,
    machine: machineInfo(),
  });
}

runBench(main);
