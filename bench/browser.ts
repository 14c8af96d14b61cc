/** What the dashboard benchmarks share: the API alone on a scratch database, and Chromium signed in as its owner. */
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../test/support/browser.js';
import { type ScratchPg, startScratchService } from './lib.js';
import type { Cleanup } from './run.js';

const OWNER = { email: 'owner@example.com', password: 'bench-correct-horse-battery' };

export type Storage = Awaited<ReturnType<BrowserContext['storageState']>>;

export interface SignedInDashboard {
  url: string;
  browser: Browser;
  /** The owner's session, for `browser.newContext({ storageState })`. */
  storage: Storage;
}

/**
 * The service's API alone (the worker's polling would only add noise to what a page waits for) on
 * the scratch database, and Chromium with the owner created through the printed setup token.
 */
export async function signedInDashboard(
  cleanup: Cleanup,
  scratch: { db: ScratchPg; dataDir: string },
): Promise<SignedInDashboard> {
  const service = await startScratchService(cleanup, scratch, 'serve');
  if (!service.setupToken) throw new Error('the fresh instance has no setup token');
  const url = service.url!;
  const browser = await launchChromium();
  cleanup.add(() => browser.close());
  const context = await browser.newContext();
  const res = await context.request.post(`${url}/auth/setup`, { data: { token: service.setupToken, ...OWNER } });
  if (!res.ok()) throw new Error(`POST /auth/setup answered ${res.status()}: ${await res.text()}`);
  const storage = await context.storageState();
  await context.close();
  return { url, browser, storage };
}
