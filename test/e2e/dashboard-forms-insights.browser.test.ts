import { describe, expect, it } from 'vitest';
import { hasChromium, useDashboard } from '../support/browser.js';
import { verifiedDomain } from '../support/domains.js';
import { confirmationLink, publishMailDomain, solve } from '../support/forms.js';
import { sinkMessagesTo, useSinkAndDns } from '../support/sending.js';
import { eventually } from '../support/server.js';

/**
 * The form builder's live preview and a form's statistics and pending signups in Debian's Chromium,
 * against the real service (a child process) with a loopback SMTP sink and DNS server: the preview
 * follows what is typed, its code is copied; two visitors sign up (one confirms), and the Forms page
 * shows views, submissions, confirmations and the rate, the contacts list and the contact's page
 * mark the one still waiting as pending. Each view is scanned for accessibility.
 */
describe.skipIf(!hasChromium)('the form builder’s preview, statistics and pending contacts', () => {
  const mail = useSinkAndDns();
  const d = useDashboard({ env: () => ({ SMTP_URL: mail.sink.url, DNS_SERVERS: mail.dns.address }) });
  const dialog = () => d.page.getByRole('dialog');
  const preview = () => dialog().frameLocator('iframe[title="Preview of the hosted page"]');
  let formId = '';

  it('previews the hosted page and its code while the form is built', async () => {
    publishMailDomain(mail.dns, 'readers-mail.dev');
    await verifiedDomain(d.api(), mail.dns, 'insights-sender.test');
    await d.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.service.url });
    await d.page.goto(`${d.service.url}/app/`);
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Signup forms' }).click();
    await d.page.getByRole('button', { name: 'New form' }).first().click();

    await dialog().getByLabel('Name').fill('Monthly letter');
    await dialog().getByLabel('Confirmation email sender').fill('news@insights-sender.test');
    await dialog().getByLabel('Heading (optional)').fill('Get our monthly letter');
    await preview().getByRole('heading', { name: 'Get our monthly letter' }).waitFor();
    await dialog().getByRole('button', { name: 'Add a field' }).click();
    await dialog().getByLabel('Label of field 1').fill('First name');
    // The key is not typed yet: the preview shows the field all the same.
    await preview().getByLabel('First name (optional)').waitFor();
    await dialog().getByLabel('Key of field 1').fill('firstName');
    await dialog().getByLabel('Required').check();
    await dialog().getByLabel('Consent text (optional)').fill('I agree to receive the monthly letter.');
    await preview().getByText('I agree to receive the monthly letter.').waitFor();
    await expect.poll(() => preview().getByLabel('First name', { exact: true }).count()).toBe(1);
    // The preview runs no script, so it does not say that script is needed.
    expect(await preview().locator('.pb-noscript').isVisible()).toBe(false);
    await expect
      .poll(() => dialog().getByRole('textbox', { name: 'Embed code as previewed' }).inputValue())
      .toContain('data-key="firstName"');

    await dialog().getByRole('button', { name: 'Copy the embed code as previewed' }).click();
    const copied = await d.page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain('<form class="postbox-form"');
    expect(copied).toContain('First name');
    expect(copied).toContain('/f/script.js');
    await d.expectAccessible('forms-builder-preview');

    await dialog().getByRole('button', { name: 'Create form' }).click();
    await dialog().waitFor({ state: 'hidden' });
    const forms = (await d.api().get('/forms')).body;
    formId = forms.data[0].id;
    expect(forms.data[0]).toMatchObject({ name: 'Monthly letter', title: { en: 'Get our monthly letter' } });
  });

  it('shows views, submissions, confirmations and the rate; marks the contact still waiting as pending', async () => {
    // Two visitors see the form and sign up; a third only looks. The first confirms.
    const challenges = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${d.service.url}/v1/forms/${formId}/challenge`);
      challenges.push(((await res.json()) as { data: Parameters<typeof solve>[0] }).data);
    }
    await new Promise((r) => setTimeout(r, 2_100)); // the minimum fill time
    for (const [i, email] of ['ada@readers-mail.dev', 'bob@readers-mail.dev'].entries()) {
      const res = await fetch(`${d.service.url}/v1/forms/${formId}/submissions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, data: { firstName: `Reader ${i}` }, altcha: solve(challenges[i]!) }),
      });
      expect(res.status, await res.text()).toBe(200);
    }
    const message = await eventually(async () => sinkMessagesTo(mail.sink, 'ada@readers-mail.dev')[0]);
    const link = await confirmationLink(message, d.service.url, d.service.url);
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);

    await d.page.reload();
    const stats = d.page.getByRole('region', { name: 'Statistics of Monthly letter' });
    await stats.waitFor();
    const tile = (label: string) => stats.locator('dl > div').filter({ has: d.page.getByText(label, { exact: true }) });
    await expect.poll(() => tile('Views').locator('.form-stats-value').textContent()).toBe('3');
    expect(await tile('Submissions').locator('.form-stats-value').textContent()).toBe('2');
    expect(await tile('Confirmations').locator('.form-stats-value').textContent()).toBe('1');
    expect(await tile('Confirmation rate').locator('.form-stats-value').textContent()).toBe('50%');
    await stats.getByRole('img', { name: 'Views and submissions' }).waitFor();
    await stats.getByRole('img', { name: 'Submissions and confirmations' }).waitFor();
    await d.expectAccessible('forms-stats');

    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).click();
    const row = (email: string) => d.page.getByRole('row').filter({ hasText: email });
    await row('bob@readers-mail.dev').getByText('Pending', { exact: true }).waitFor();
    expect(await row('ada@readers-mail.dev').getByText('Pending', { exact: true }).count()).toBe(0);
    await d.expectAccessible('contacts-pending');

    await row('bob@readers-mail.dev').getByRole('link', { name: 'bob@readers-mail.dev' }).click();
    const subscription = d.page.getByRole('region', { name: 'Subscription' });
    await subscription.getByText('Pending', { exact: true }).waitFor();
    await subscription.getByText('Signed up through the form “Monthly letter”', { exact: false }).waitFor();
    await d.expectAccessible('contact-pending');
  });
});
