/** The dashboard benchmarks' signed-in owner. */
import type { Browser, BrowserContext } from 'playwright-core';

const OWNER = { email: 'owner@example.com', password: 'bench-correct-horse-battery' };

export type Storage = Awaited<ReturnType<BrowserContext['storageState']>>;

/** The owner account made with the printed setup token, signed in: the browser's cookies for it. */
export async function signedIn(browser: Browser, url: string, token: string): Promise<Storage> {
  const context = await browser.newContext();
  const res = await context.request.post(`${url}/auth/setup`, { data: { token, ...OWNER } });
  if (!res.ok()) throw new Error(`POST /auth/setup answered ${res.status()}: ${await res.text()}`);
  const storage = await context.storageState();
  await context.close();
  return storage;
}
