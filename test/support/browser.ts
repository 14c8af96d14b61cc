import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); nothing downloads a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);

export function launchChromium(): Promise<Browser> {
  // The sandbox needs user namespaces, which containers and CI runners as root often lack.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** The serious and critical accessibility violations axe finds on the page as it is now. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');

/** With SCREENSHOTS=1, saves what the page shows under docs/screenshots/ (the README shows them). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
}
