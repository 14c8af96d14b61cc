/** What the dashboard benchmarks share: the service in this process, and a signed-in owner. */
import type { Browser, BrowserContext } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/start.js';
import { launchChromium } from '../test/support/browser.js';
import type { Cleanup } from './run.js';

const OWNER = { email: 'owner@example.com', password: 'bench-correct-horse-battery' };

export type Storage = Awaited<ReturnType<BrowserContext['storageState']>>;

/** The service on the scratch database, silent and with no rate limit in the way, stopped by `cleanup`. */
export async function startBenchService(cleanup: Cleanup, databaseUrl: string, dataDir: string, role: 'serve' | 'all') {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000000',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
  });
  const service = await startService(config, role);
  cleanup.add(() => service.stop());
  return service;
}

/** The owner account made with the printed setup token, signed in: the browser's cookies for it. */
export async function signedIn(browser: Browser, url: string, token: string): Promise<Storage> {
  const context = await browser.newContext();
  const res = await context.request.post(`${url}/auth/setup`, { data: { token, ...OWNER } });
  if (!res.ok()) throw new Error(`POST /auth/setup answered ${res.status()}: ${await res.text()}`);
  const storage = await context.storageState();
  await context.close();
  return storage;
}

/**
 * The API alone (the worker's polling would only add noise to what a page waits for) and Chromium,
 * with the owner signed in: the project made before the owner existed is claimed by them, so it is
 * the one the dashboard opens.
 */
export async function dashboardSession(cleanup: Cleanup, databaseUrl: string, dataDir: string) {
  const service = await startBenchService(cleanup, databaseUrl, dataDir, 'serve');
  if (!service.setupToken) throw new Error('the fresh instance has no setup token');
  const url = service.url!;
  const browser = await launchChromium();
  cleanup.add(() => browser.close());
  return { url, browser, storage: await signedIn(browser, url, service.setupToken) };
}
