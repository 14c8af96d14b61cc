import type { Locator, Page } from 'playwright-core';

/** Steps of the segment builder (`FilterBuilder`) by clicks, wherever a page shows it. */

/** Picks a field in a filter's picker by clicking it open and clicking the option (in `group`, if given). */
export async function pickField(row: Locator, option: RegExp, group?: string): Promise<void> {
  const picker = row.getByRole('button', { name: /^Field:/ });
  if ((await picker.getAttribute('aria-expanded')) !== 'true') await picker.click();
  const within = group ? row.getByRole('group', { name: group, exact: true }) : row;
  await within.getByRole('option', { name: option }).click();
}

const escaped = (s: string) => s.replace(/\./g, '\\.');

/**
 * Adds a filter to group `group` ("1", "1.2") with its button, picks `field` (under the picker's
 * heading `fieldGroup`, if given), chooses the operator by its label (or keeps the field's first)
 * and types the value; returns the filter's row.
 */
export async function addFilter(
  page: Page,
  group: string,
  field: RegExp,
  operator: string | null,
  value: string,
  fieldGroup?: string,
): Promise<Locator> {
  await page.getByRole('button', { name: `+ Filter in group ${group}`, exact: true }).click();
  const row = page.getByRole('group', { name: new RegExp(`^Filter \\d+ of group ${escaped(group)}$`) }).last();
  await pickField(row, field, fieldGroup);
  if (operator) await row.getByLabel('Operator').selectOption({ label: operator });
  await row.getByLabel('Value').fill(value);
  return row;
}

/** Nests an OR of two empty groups in group `group`: "… AND (group.1 OR group.2)". */
export async function nestOr(page: Page, group: string): Promise<void> {
  await page.getByRole('button', { name: `+ Nested OR groups in group ${group}`, exact: true }).click();
}
