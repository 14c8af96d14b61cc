import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/**
 * With EMAILS_SCREENSHOTS=<dir>, the emails browser test saves what each page shows there (full
 * page), to look at widths and colour schemes by eye; without it, nothing is written.
 */
export async function emailsScreenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.EMAILS_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** How far the page scrolls sideways (0 or less: it fits the viewport). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/**
 * The serious and critical accessibility violations of the dashboard's own markup, as
 * `accessibilityViolations` finds them, leaving out the frame that shows an email: its HTML is the
 * sender's, and axe cannot run inside a frame sandboxed without scripts (it waits for ever).
 */
export async function dashboardViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
    .exclude('iframe.email-frame')
    .analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
