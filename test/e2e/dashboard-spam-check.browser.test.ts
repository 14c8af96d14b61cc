import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, replaceEditorText, screenshot, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { hasSpamd, type Spamd, startSpamd } from '../support/spamd.js';

/**
 * The spam check panel of the template editor and the campaign composer in Debian's Chromium,
 * against the service with a spamd of the test's own, and without one.
 */

const SPAMMY = {
  subject: 'FREE MONEY!!! Act now, limited time offer, 100% guaranteed',
  body:
    '<p>Dear friend, CLICK HERE to claim your FREE MONEY! You have been selected as a WINNER. ' +
    '100% GUARANTEED risk-free! Earn extra cash from home, no experience needed. Act now! Limited time offer!</p>',
  from: 'deals@shop.example.com',
  type: 'MARKETING',
};

/** On a phone in the dark scheme, the panel in view: nothing runs off the side (and a picture, when asked). */
async function onPhone(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 375, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await page.getByRole('region', { name: 'Spam check' }).scrollIntoViewIfNeeded();
    await screenshot(page, `${name}-phone-dark`);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  }
}

describe.skipIf(!hasChromium || !hasSpamd)('the spam check panel with spamd', () => {
  let spamd: Spamd;
  beforeAll(async () => {
    spamd = await startSpamd();
  }, 60_000);
  afterAll(() => spamd?.stop());
  const d = useDashboard({ env: () => ({ SPAMD_URL: spamd.url }) });
  const panel = () => d.page.getByRole('region', { name: 'Spam check' });

  it('checks the template when asked: the score, the warning above 3 points, and each rule with its description', async () => {
    const template = await d.api().post('/templates', { name: 'Offer', ...SPAMMY });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    await d.page.goto(`${d.service.url}/app/templates/${template.body.id}`);
    await panel().getByText('Not checked yet.').waitFor();

    await panel().getByRole('button', { name: 'Check' }).click();
    await panel()
      .getByText(/^Above 3 points, some receivers may file this email as spam/)
      .waitFor();
    expect(Number.parseFloat((await panel().getByTestId('spam-score').textContent()) ?? '')).toBeGreaterThan(3);
    const rules = panel().getByRole('list', { name: 'Rules it matched' });
    await rules.getByText("BODY: Dear Friend? That's not very dear!").waitFor();
    await rules.getByText('DEAR_FRIEND', { exact: true }).waitFor();
    await panel().scrollIntoViewIfNeeded();
    await d.expectAccessible('spam-check-template-warning');
    await onPhone(d.page, 'spam-check-template-warning');
  });

  it('says when the content changed since the check, and checks a short receipt without a warning', async () => {
    // A short receipt instead: the old answer says it is out of date until checked again.
    await replaceEditorText(d.page, '<p>Thanks for your order. Order 1042: 1 mug, 12.00 EUR.</p>');
    await panel().getByText('The content changed since this check.').waitFor();
    await d.page.getByLabel('Subject').fill('Your receipt');
    await panel().getByRole('button', { name: 'Check again' }).click();
    await panel()
      .getByText(/^At or below 3 points/)
      .waitFor();
    expect(await panel().getByText('The content changed since this check.').count()).toBe(0);
    await panel().scrollIntoViewIfNeeded();
    await d.expectAccessible('spam-check-template-ok');
  });

  it('waits for a From address before it checks', async () => {
    await d.page.goto(`${d.service.url}/app/templates/new`);
    await panel().getByText('Add a From address to check it.').waitFor();
    await expect.poll(() => panel().getByRole('button', { name: 'Check' }).isDisabled()).toBe(true);
    await d.page.getByLabel('From', { exact: true }).fill('hello@example.com');
    await panel().getByText('Add a subject to check it.').waitFor();
    await d.page.getByLabel('Subject').fill('Hello');
    await expect.poll(() => panel().getByRole('button', { name: 'Check' }).isEnabled()).toBe(true);
  });

  it('checks the campaign in the composer', async () => {
    const campaign = await d.api().post('/campaigns', { name: 'Offer', audienceType: 'ALL', ...SPAMMY });
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
    await d.page.goto(`${d.service.url}/app/campaigns/${campaign.body.data.id}`);
    await panel().getByRole('button', { name: 'Check' }).click();
    await panel()
      .getByText(/^Above 3 points/)
      .waitFor();
    await panel().getByRole('list', { name: 'Rules it matched' }).getByText('DEAR_FRIEND', { exact: true }).waitFor();
    await panel().scrollIntoViewIfNeeded();
    await d.expectAccessible('spam-check-campaign');
  });
});

describe.skipIf(!hasChromium)('the spam check panel without SPAMD_URL', () => {
  const d = useDashboard();
  const panel = () => d.page.getByRole('region', { name: 'Spam check' });

  it('says at once how the check is turned on, with no button to press', async () => {
    await d.page.goto(`${d.service.url}/app/templates/new`);
    await panel()
      .getByText(/^The spam check is off\. Whoever runs Postbox turns it on by setting SPAMD_URL/)
      .waitFor();
    expect(await panel().getByRole('button').count()).toBe(0);
    await panel().scrollIntoViewIfNeeded();
    await d.expectAccessible('spam-check-off');
    await onPhone(d.page, 'spam-check-off');
  });
});
