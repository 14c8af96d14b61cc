import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.js';
import { type ChildServer, type Client, client, printedKeys, spawnService } from './server.js';

/** Debian's Chromium (`apt-get install chromium`); nothing downloads a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);

export const OWNER = { email: 'owner@example.com', password: 'owner-correct-horse' };

export function launchChromium(): Promise<Browser> {
  // The sandbox needs user namespaces, which containers and CI runners as root often lack.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/**
 * The serious and critical accessibility violations axe finds on the page as it is now, in each of
 * `SCAN_VARIANTS` (each prefixed with where it was found); the page is left at the size and scheme
 * it had. Frames that show an email or a preview are left out: their HTML is the sender's, not the
 * dashboard's, and axe cannot run inside a frame sandboxed without scripts (it would wait for ever).
 * With SCREENSHOTS=<folder> and a `name`, each variant is saved there too, to look at.
 */
export async function accessibilityViolations(page: Page, name?: string): Promise<string[]> {
  const viewport = page.viewportSize()!;
  const dark = await page.evaluate(() => window.matchMedia('(prefers-color-scheme: dark)').matches);
  const found: string[] = [];
  try {
    for (const { width, colorScheme } of SCAN_VARIANTS) {
      await page.setViewportSize({ width, height: viewport.height });
      await page.emulateMedia({ colorScheme });
      found.push(...(await violationsAsShown(page)).map((v) => `${width} px, ${colorScheme}: ${v}`));
      if (name && process.env.SCREENSHOTS !== '1') await screenshot(page, `${name}@${width}-${colorScheme}`);
    }
  } finally {
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
  }
  return found;
}

/**
 * What every accessibility scan covers: a laptop in the light scheme, and a phone (where the drawer
 * replaces the sidebar) in the dark one. Both widths and both schemes, each once: what depends on
 * the width (the layout) and what depends on the scheme (the colours) vary apart, and a scan costs
 * seconds on a busy machine.
 */
export const SCAN_VARIANTS = [
  { width: 1280, colorScheme: 'light' },
  { width: 375, colorScheme: 'dark' },
] as const;

async function violationsAsShown(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .exclude('iframe[sandbox]')
    .analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** How far the page scrolls sideways (0 or less: it fits the viewport). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/**
 * Picks `value` in the list's `filter`, which matches nothing: the page says `empty`, and its `clear`
 * button brings back all `count` rows with the filter gone from the address.
 */
export async function expectEmptyFilterCleared(
  page: Page,
  list: { filter: string; value: string; empty: string; clear: string; rows: () => Locator; count: number },
): Promise<void> {
  await page.getByLabel(list.filter).selectOption(list.value);
  await page.getByRole('heading', { name: list.empty }).waitFor();
  await page.getByRole('button', { name: list.clear }).click();
  await expect.poll(() => list.rows().count()).toBe(list.count);
  expect(new URL(page.url()).search).toBe('');
}

/**
 * With SCREENSHOTS=1, saves what the page shows under docs/screenshots/ (the README shows some);
 * SCREENSHOTS=<folder> saves there instead, to look at by eye. Without it, nothing is written.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const target = process.env.SCREENSHOTS;
  if (!target) return;
  const dir = target === '1' ? path.resolve(import.meta.dirname, '../../docs/screenshots') : target;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

/** Replaces the whole text of the page's code editor (CodeMirror), as typing would. */
export async function replaceEditorText(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

export interface Dashboard {
  service: ChildServer;
  page: Page;
  browser: Browser;
  /** The default project's API keys, as the service printed them. */
  keys(): { publicKey: string; secretKey: string };
  /** A client with the default project's secret key. */
  api(): Client;
  setupToken(): string;
  /**
   * No serious or critical accessibility violation on the page, in each of `SCAN_VARIANTS`; saved as
   * a screenshot as it is shown when asked.
   */
  expectAccessible(name: string): Promise<void>;
}

/**
 * The service in its own process (as `npm start` runs it) on a fresh database, and a page in
 * Chromium, 1280×900, signed in as the owner through `POST /auth/setup` (unless `signedIn: false`,
 * for tests of the first run itself). `env` is read when the service starts, after the hooks
 * registered before this call (a DNS server's address, for one).
 */
/** How long one browser test may take. */
export const BROWSER_TEST_TIMEOUT_MS = 180_000;

export function useDashboard(options: { env?: () => Record<string, string>; signedIn?: boolean } = {}): Dashboard {
  let db: TestDatabase;
  const d = {
    keys: () => printedKeys(d.service.output()),
    api: () => client(d.service.url, d.keys().secretKey),
    setupToken: () => /setup token:\n\s+(\S+)/.exec(d.service.output())![1]!,
    async expectAccessible(name: string) {
      await screenshot(d.page, name);
      expect(await accessibilityViolations(d.page, name), name).toEqual([]);
    },
  } as Dashboard;
  // Read when the file's tests are collected, so set here. The suite runs two files at once on two
  // cores, often two browser files: a test that opens pages and scans each may take minutes there,
  // and still ends.
  vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });
  beforeAll(async () => {
    db = await createTestDatabase();
    // Sign-in attempts are counted per address; in memory, each service has a budget of its own.
    d.service = await spawnService({ ...db.env, REDIS_URL: '', ...options.env?.() });
    d.browser = await launchChromium();
    const context = await d.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    d.page = await context.newPage();
    // Generous: the suite runs two files at once on two cores, next to the services, clusters and
    // browsers they start, where one request now and then waits over 20 s; a wait that ends is never slow.
    d.page.setDefaultTimeout(40_000);
    if (options.signedIn === false) return;
    const res = await d.page.request.post(`${d.service.url}/auth/setup`, {
      data: { token: d.setupToken(), ...OWNER },
    });
    expect(res.status(), await res.text()).toBe(201);
  }, 60_000);
  afterAll(async () => {
    vi.resetConfig();
    await d.browser?.close();
    await d.service?.kill();
    await db?.drop();
  });
  return d;
}
