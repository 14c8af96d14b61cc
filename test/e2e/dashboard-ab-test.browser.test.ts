import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../src/api.js';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { verifiedDomain } from '../support/domains.js';
import { useMailPeers } from '../support/mail-server.js';
import { sinkMessagesTo } from '../support/sending.js';
import { expectBody, pollUntil } from '../support/server.js';

/**
 * An A/B test in Debian's Chromium against the service in its own process: two subjects set up in
 * the composer's A/B card (its errors beside the fields), sent, followed in the report's side-by-side
 * table, and variant B sent to the rest by hand before the wait ends; every contact gets one email.
 */

const DOMAIN = 'news.dashboard-ab.test';
const FROM = `news@${DOMAIN}`;
const PEOPLE = Array.from({ length: 120 }, (_, i) => `reader${i}@ab-readers.test`);

describe.skipIf(!hasChromium)('an A/B test in the dashboard', () => {
  const mail = useMailPeers();
  const d = useDashboard({ env: () => mail.env() });
  let campaignId: string;
  const campaign = (): Promise<Campaign> => expectBody(d.api().get(`/campaigns/${campaignId}`));

  it('sets up two subjects on half the audience in the composer, with errors beside the fields', async () => {
    await verifiedDomain(d.api(), mail.dns, DOMAIN);
    for (const email of PEOPLE) await expectBody(d.api().post('/contacts', { email, subscribed: true }), 201);
    await expectBody(
      d.api().post('/templates', { name: 'Spring offer', subject: 'Offer', body: '<p>Twenty off</p>', from: FROM }),
      201,
    );
    await d.page.goto(`${d.service.url}/app/campaigns/new`);
    const page = d.page;
    await page.getByLabel('Campaign name').fill('Spring test');
    await page.getByLabel('Subject', { exact: true }).first().fill('Spring news');
    await page.getByLabel('From', { exact: true }).fill(FROM);
    await page.getByRole('checkbox', { name: /Test variants of this email/ }).check();
    const card = page.getByRole('region', { name: 'A/B test' });
    await card.getByRole('group', { name: 'Variant B' }).getByLabel('Subject').fill('Spring is here: 20 % off');
    // B's content is a template's, copied in.
    await card.getByRole('group', { name: 'Variant B' }).getByLabel('Content').selectOption({ label: 'Spring offer' });
    // A share the API refuses is explained beside its field, and nothing is saved until it is fixed.
    await card.getByLabel('Test share (%)').fill('80');
    await expect.poll(() => card.getByText('A whole percentage from 2 to 50').isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('save-state').textContent()).toMatch(/a valid A\/B test/);
    await card.getByLabel('Test share (%)').fill('50');
    await card.getByLabel('Wait before choosing (hours)').fill('168');
    await expect
      .poll(() => card.getByTestId('ab-summary').textContent())
      .toMatch(/60 contacts \(about 30 per variant\) .* after 168 hours the winner goes to the other 60/);
    await expect
      .poll(() => page.getByTestId('save-state').textContent(), { timeout: 15_000 })
      .toMatch(/All changes saved$/);
    campaignId = /campaigns\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    expect((await campaign()).abTest).toMatchObject({
      variants: [{}, { subject: 'Spring is here: 20 % off', body: '<p>Twenty off</p>' }],
      testPercent: 50,
      waitHours: 168,
    });
    // A test email of variant B.
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('menuitem', { name: 'Send a test…' }).click();
    const testDialog = page.getByRole('dialog', { name: 'Send a test' });
    await testDialog.getByLabel('Send to').fill('tester@ab-readers.test');
    await testDialog.getByLabel('Variant').selectOption('B');
    await testDialog.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => sinkMessagesTo(mail.sink, 'tester@ab-readers.test').length, { timeout: 15_000 }).toBe(1);
    const tested = await simpleParser(sinkMessagesTo(mail.sink, 'tester@ab-readers.test')[0]!.raw);
    expect(tested.subject).toBe('[Test] Spring is here: 20 % off');
    await testDialog.getByRole('button', { name: 'Close' }).click();
    // Keyboard: the variant fields are reached with Tab from the checkbox.
    await page.getByRole('checkbox', { name: /Test variants of this email/ }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('placeholder'))).toBe('Spring news');
    await d.expectAccessible('campaign-ab-composer');
  });

  it('shows the variants side by side and sends the one picked by hand to the rest', async () => {
    expect((await d.api().post(`/campaigns/${campaignId}/send`)).status).toBe(200);
    await pollUntil(
      async () => (await d.api().get(`/campaigns/${campaignId}/ab-test`)).body,
      (r) =>
        r.testedAt !== null && r.variants.every((v: { figures: { delivered: number } }) => v.figures.delivered === 30),
      60_000,
    );
    // Readers open 20 of B's emails and 5 of A's, through the real tracking pixel.
    const opened = { 'Spring news': 5, 'Spring is here: 20 % off': 20 } as Record<string, number>;
    for (const m of mail.sink.messages) {
      const parsed = await simpleParser(m.raw);
      if (!opened[parsed.subject!]) continue;
      opened[parsed.subject!]!--;
      const pixel = /src="([^"]*\/t\/open\/[^"]*)"/.exec(parsed.html || '')![1]!;
      expect((await fetch(pixel.replace(/&amp;/g, '&'))).status).toBe(200);
    }
    const page = d.page;
    await page.goto(`${d.service.url}/app/campaigns/${campaignId}`);
    const card = page.getByRole('region', { name: 'A/B test' });
    await expect
      .poll(() => card.getByTestId('ab-verdict').textContent())
      .toMatch(/50 % of the audience is being tested/);
    const rows = card.getByRole('row');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.nth(2).textContent()).toContain('Spring is here: 20 % off · own content');
    expect(await rows.nth(1).getByRole('cell').nth(1).textContent()).toBe('30');
    // Side by side: the open rates, the difference and how sure it is.
    await expect.poll(() => rows.nth(2).getByRole('cell').nth(4).textContent()).toBe('66.7%');
    expect(await rows.nth(1).getByRole('cell').nth(4).textContent()).toBe('16.7%');
    expect(await rows.nth(2).getByRole('cell').nth(5).textContent()).toBe('+50.0 pts');
    expect(await rows.nth(2).getByRole('cell').nth(6).textContent()).toBe('over 99.9%');
    await d.expectAccessible('campaign-ab-report-testing');

    await card.getByRole('button', { name: 'Send B to the rest' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send variant B to the rest now?' });
    await dialog.getByRole('button', { name: 'Send B' }).click();
    await expect
      .poll(() => card.getByTestId('ab-verdict').textContent(), { timeout: 20_000 })
      .toMatch(/^Variant B won\. B was picked by hand\./);
    await pollUntil(campaign, (c) => c.status === 'SENT', 30_000);
    await expect
      .poll(() => card.getByTestId('ab-rest').textContent(), { timeout: 20_000 })
      .toMatch(/60 recipients got variant B; 60 delivered/);
    const received = await Promise.all(
      PEOPLE.map(async (p) => {
        const got = sinkMessagesTo(mail.sink, p);
        expect(got, p).toHaveLength(1);
        const parsed = await simpleParser(got[0]!.raw);
        return `${parsed.subject} | ${parsed.html && parsed.html.includes('Twenty off') ? 'offer' : 'news'}`;
      }),
    );
    expect(received.filter((r) => r === 'Spring news | news')).toHaveLength(30);
    expect(received.filter((r) => r === 'Spring is here: 20 % off | offer')).toHaveLength(90);
    await d.expectAccessible('campaign-ab-report-won');
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
