import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Steps of the block editor (web/src/components/email-editor) as a person takes them, shared by the
 * pages that write a body in blocks: templates and the campaign composer.
 */

/** The editable canvas of the block editor. */
export const blockCanvas = (page: Page): Locator => page.getByRole('textbox', { name: 'Email body in blocks' });

/** Chooses Blocks for the body and answers the question a body written as HTML asks. */
export async function switchToBlocks(page: Page): Promise<void> {
  await page.getByRole('radio', { name: 'Blocks' }).click();
  const dialog = page.getByRole('dialog', { name: 'Switch to blocks?' });
  await dialog.getByText('This body was written as HTML').waitFor();
  await dialog.getByRole('button', { name: 'Switch to blocks' }).click();
  await blockCanvas(page).waitFor();
}

/** Empties the canvas, leaving the cursor in its one empty paragraph. */
export async function clearCanvas(page: Page): Promise<void> {
  await blockCanvas(page).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
}

/** Inserts a contact field with its default at the cursor, and waits for its chip. */
export async function insertField(page: Page, field: string, fallback: string): Promise<void> {
  const personalise = page.getByRole('group', { name: 'Personalise' });
  await personalise.getByLabel('Contact field').selectOption(field);
  await personalise.getByLabel('Default when empty').fill(fallback);
  await personalise.getByRole('button', { name: 'Insert field' }).click();
  await blockCanvas(page).locator('.liquid-chip').getByText(`${field} · ${fallback}`).waitFor();
  // The editor takes the focus back on the next animation frame: typed text must wait for it.
  await expect.poll(() => blockCanvas(page).evaluate((canvas) => canvas.contains(document.activeElement))).toBe(true);
}

/** Adds a button after the cursor's block with its link; returns its settings, to change more. */
export async function insertButton(page: Page, link: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Button', exact: true }).click();
  const settings = page.getByRole('group', { name: 'Button' });
  await settings.getByLabel('Link').fill(link);
  return settings;
}

const codeEditor = (page: Page) => page.locator('.cm-content');

/**
 * The stale rule, as the body field keeps it on every page: an edit as code marks the blocks out of
 * date; going back asks (cancelling keeps the code), and the blocks' HTML can be undone to the code
 * as it was. Ends in code, with the edit restored and the blocks still out of date.
 */
export async function expectStaleRoundTrip(page: Page, html: string): Promise<void> {
  await page.getByRole('radio', { name: 'HTML code' }).check();
  await codeEditor(page).click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.insertText(html);
  await page.getByText('The blocks are out of date').waitFor();
  const edited = await codeEditor(page).innerText();

  await page.getByRole('radio', { name: 'Blocks' }).click();
  const dialog = page.getByRole('dialog', { name: 'Switch to blocks?' });
  await dialog.getByText('The HTML was changed after the blocks were last edited').waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(await page.getByRole('radio', { name: 'HTML code' }).isChecked()).toBe(true);

  await page.getByRole('radio', { name: 'Blocks' }).click();
  await dialog.getByRole('button', { name: 'Switch to blocks' }).click();
  await blockCanvas(page).locator('.liquid-chip').first().waitFor();
  await page.getByText('The blocks replaced the HTML').waitFor();
  await page.getByRole('button', { name: 'Restore the HTML' }).click();
  await codeEditor(page).waitFor();
  expect(await codeEditor(page).innerText()).toBe(edited);
  await page.getByText('The blocks are out of date').waitFor();
}

/** From code whose blocks are out of date: back to the blocks, keeping their HTML. */
export async function keepStaleBlocks(page: Page): Promise<void> {
  await page.getByRole('radio', { name: 'Blocks' }).click();
  await page
    .getByRole('dialog', { name: 'Switch to blocks?' })
    .getByRole('button', { name: 'Switch to blocks' })
    .click();
  await blockCanvas(page).waitFor();
  await page.getByRole('button', { name: 'Keep the blocks' }).click();
}

/** A button link whose Liquid names the contact: the field, or its default. */
export const LIQUID_LINK = 'https://x.test/?u={{ id }}&n={{ firstName ?? "friend" }}';

/** The targets of a delivered message's tracked links: each rides in `url=`, as the contact got it. */
const trackedTargets = (html: string): string[] =>
  [...html.matchAll(/href="[^"]*\/t\/click\/[^"]*\?url=([^"]+)"/g)].map((m) =>
    decodeURIComponent(m[1]!.replace(/&amp;/g, '&')),
  );

/**
 * A delivered message of a body made of "Hello {firstName · friend}!", a button to LIQUID_LINK and
 * the footer block, as `contact` got it: `name` is their first name or the default.
 */
export function expectPersonalised(html: string, contact: { id: string }, name: string): void {
  expect(html).toContain(`Hello ${name}!`);
  expect(trackedTargets(html)).toContain(`https://x.test/?u=${contact.id}&n=${name}`);
  // The footer block's unsubscribe link is the contact's own, so no second footer was added.
  expect(html.match(/\/unsubscribe\//g)?.length ?? 0, html).toBe(1);
  expect(html).not.toContain('{{');
  expect(html).not.toContain('{%');
}
