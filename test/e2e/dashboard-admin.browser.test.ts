import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Suppression, Webhook, WebhookDelivery } from '../../src/api.js';
import { freePort } from '../../src/platform/free-port.js';
import { expectEmptyFilterCleared, hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { client, eventually, expectBody, pollUntil } from '../support/server.js';
import { signatureValid, useReceiver } from '../support/webhook-receiver.js';

/**
 * The dashboard's webhooks, suppressions, inbound and settings pages in Debian's Chromium against
 * the real service (its own process): a webhook made in the page receives a tracked event at a
 * loopback receiver and its delivery is listed; its secret rotated; an address suppressed and let
 * go; a message delivered over SMTP to the inbound listener and read in a sandboxed frame; the
 * project renamed, its keys regenerated (the old ones refused at once) and the project disabled.
 */

const DOMAIN = 'replies.admin-dash.test';

describe.skipIf(!hasChromium)('the webhooks, suppressions, inbound and settings pages in a browser', () => {
  const receiver = useReceiver();
  let dns: DnsServer;
  let inboundPort: number;
  beforeAll(async () => {
    dns = await startDnsServer();
    inboundPort = await freePort();
  });
  afterAll(() => dns?.stop());
  const d = useDashboard({
    env: () => ({
      // The receiver listens on loopback, which webhooks may reach only when allowed.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      DNS_SERVERS: dns.address,
      INBOUND_SMTP_PORT: String(inboundPort),
    }),
  });
  // The keys the project has now: printed at its first start, until the settings page makes new ones.
  let newKeys: { publicKey: string; secretKey: string } | null = null;
  const current = () => newKeys ?? d.keys();
  const api = () => client(d.service.url, current().secretKey);
  const nav = (name: string) => d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });
  const dialog = () => d.page.getByRole('dialog');
  const deliveryRows = () => d.page.getByRole('table', { name: 'Deliveries' }).getByRole('row');
  const track = (event: string, email = 'ada@example.com') =>
    expectBody(api().post('/v1/track', { email, event }, current().publicKey));

  let hook: Webhook;
  let firstSecret: string;

  describe('webhooks', () => {
    it('starts empty and makes a webhook, showing its signing secret', async () => {
      await d.page.goto(`${d.service.url}/app/`);
      await nav('Webhooks').click();
      await d.page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
      await d.expectAccessible('webhooks-empty');

      await d.page.getByRole('button', { name: 'New webhook' }).first().click();
      // Said beside the fields before anything is sent.
      await dialog().getByRole('button', { name: 'Create webhook' }).click();
      await dialog().getByText('Enter the URL that receives the events.').waitFor();
      await dialog().getByText('Choose at least one event.').waitFor();

      await dialog().getByLabel('URL').fill(`${receiver.url}/dash`);
      await dialog()
        .getByLabel(/^Email bounced/)
        .check();
      await dialog().getByLabel('Other events').fill('signed_up, bad*name');
      await dialog().getByRole('button', { name: 'Create webhook' }).click();
      await dialog().getByText('Not an event name: bad*name', { exact: false }).waitFor();
      await dialog().getByLabel('Other events').fill('signed_up');
      await dialog().getByLabel('Description (optional)').fill('Sign-ups to the CRM');
      await d.expectAccessible('webhook-new');
      await dialog().getByRole('button', { name: 'Create webhook' }).click();

      await dialog().getByRole('heading', { name: 'Webhook created' }).waitFor();
      firstSecret = (await dialog().locator('code.key-value').textContent())!;
      expect(firstSecret).toMatch(/^whsec_/);
      await dialog().getByRole('button', { name: 'Copy signing secret' }).waitFor();
      await d.expectAccessible('webhook-created');
      await dialog().getByRole('button', { name: 'Done' }).click();

      const [made] = (await expectBody(api().get('/webhooks'))) as Webhook[];
      hook = made!;
      expect(hook).toMatchObject({
        url: `${receiver.url}/dash`,
        events: ['email.bounced', 'signed_up'],
        description: 'Sign-ups to the CRM',
        enabled: true,
        secret: firstSecret,
      });
      const row = d.page.getByRole('table', { name: 'Webhooks' }).getByRole('row').nth(1);
      expect(await row.textContent()).toContain('email.bounced, signed_up');
      expect(await row.textContent()).toContain('Enabled');
      await d.expectAccessible('webhooks');
    });

    it('lists a delivery of a tracked event with its status and the receiver’s answer', async () => {
      await d.page.getByRole('link', { name: `${receiver.url}/dash` }).click();
      await d.page.getByRole('heading', { name: `${receiver.url}/dash`, level: 1 }).waitFor();
      expect(new URL(d.page.url()).pathname).toBe(`/app/webhooks/${hook.id}`);
      await d.page.getByRole('heading', { name: 'No deliveries yet' }).waitFor();

      await track('signed_up');
      const received = await eventually(async () => receiver.to('/dash')[0]);
      expect(signatureValid(firstSecret, received)).toBe(true);
      expect(JSON.parse(received.body)).toMatchObject({ type: 'signed_up', data: { contactId: expect.any(String) } });
      await pollUntil(
        async () => (await expectBody(api().get(`/webhooks/${hook.id}/deliveries`))).data as WebhookDelivery[],
        (list) => list[0]?.status === 'delivered',
      );

      await d.page.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(() => deliveryRows().count()).toBe(2);
      const row = await deliveryRows().nth(1).textContent();
      expect(row).toContain('signed_up');
      expect(row).toContain('Delivered');
      expect(row).toContain('HTTP 200');
      await deliveryRows().nth(1).getByText('Payload').click();
      await deliveryRows().nth(1).getByText('"type": "signed_up"', { exact: false }).waitFor();
      await d.expectAccessible('webhook');
    });

    it('a refused delivery fails with the receiver’s status, and the filter finds it', async () => {
      receiver.answer('/dash', 410);
      await track('signed_up', 'bob@example.com');
      await pollUntil(
        async () => (await expectBody(api().get(`/webhooks/${hook.id}/deliveries?status=failed`))).total as number,
        (n) => n === 1,
      );
      await d.page.getByLabel('Status').selectOption('failed');
      expect(new URL(d.page.url()).searchParams.get('status')).toBe('failed');
      // The last page stays, dimmed, until the filtered one arrives.
      await expect.poll(() => deliveryRows().nth(1).textContent()).toContain('Failed');
      expect(await deliveryRows().count()).toBe(2);
      expect(await deliveryRows().nth(1).textContent()).toContain('answered 410');
      await expectEmptyFilterCleared(d.page, {
        filter: 'Status',
        value: 'pending',
        empty: 'No deliveries match',
        clear: 'Show every delivery',
        rows: deliveryRows,
        count: 3,
      });
    });

    it('rotates the secret: shown once, and the next delivery is signed with it', async () => {
      await d.page.getByRole('button', { name: 'Rotate secret' }).click();
      await dialog().getByRole('heading', { name: 'Rotate the signing secret?' }).waitFor();
      await dialog().getByRole('button', { name: 'Rotate secret' }).click();
      await dialog().getByRole('heading', { name: 'New signing secret' }).waitFor();
      const shown = (await dialog().locator('code.key-value').textContent())!;
      expect(shown).toMatch(/^whsec_/);
      expect(shown).not.toBe(firstSecret);
      await d.expectAccessible('webhook-rotated');
      await dialog().getByRole('button', { name: 'Done' }).click();
      expect(((await expectBody(api().get(`/webhooks/${hook.id}`))) as Webhook).secret).toBe(shown);

      const before = receiver.to('/dash').length;
      await track('signed_up', 'carl@example.com');
      const next = await eventually(async () => receiver.to('/dash')[before]);
      expect(signatureValid(shown, next)).toBe(true);
      expect(signatureValid(firstSecret, next)).toBe(false);

      // Hidden on the page until asked for.
      await d.page.getByText('Hidden', { exact: true }).waitFor();
      await d.page.getByRole('button', { name: 'Show', exact: true }).click();
      await d.page.getByText(shown).waitFor();
    });

    it('edits, disables and enables it, then deletes it after asking', async () => {
      await d.page.getByRole('button', { name: 'Edit' }).click();
      await dialog().getByLabel('Every event, tracked ones included').check();
      await dialog().getByRole('button', { name: 'Save changes' }).click();
      await dialog().waitFor({ state: 'hidden' });
      await d.page.getByText('* (every event)').waitFor();
      expect(((await expectBody(api().get(`/webhooks/${hook.id}`))) as Webhook).events).toEqual(['*']);

      await d.page.getByRole('button', { name: 'Disable', exact: true }).click();
      await dialog().getByRole('button', { name: 'Disable webhook' }).click();
      await d.page.getByRole('button', { name: 'Enable', exact: true }).waitFor();
      expect(((await expectBody(api().get(`/webhooks/${hook.id}`))) as Webhook).enabled).toBe(false);
      await d.page.getByRole('button', { name: 'Enable', exact: true }).click();
      await d.page.getByRole('button', { name: 'Disable', exact: true }).waitFor();

      await d.page.getByRole('button', { name: 'Delete' }).click();
      await dialog().getByRole('heading', { name: 'Delete this webhook?' }).waitFor();
      await dialog().getByRole('button', { name: 'Cancel' }).click();
      await expectBody(api().get(`/webhooks/${hook.id}`));
      await d.page.getByRole('button', { name: 'Delete' }).click();
      await dialog().getByRole('button', { name: 'Delete webhook' }).click();
      await d.page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
      expect(new URL(d.page.url()).pathname).toBe('/app/webhooks');
      expect((await api().get(`/webhooks/${hook.id}`)).status).toBe(404);
    });
  });

  describe('suppressions', () => {
    const rows = () => d.page.getByRole('table', { name: 'Suppressed addresses' }).getByRole('row');

    it('starts empty, adds an address with a note, and says when it is listed already', async () => {
      await nav('Suppressions').click();
      await d.page.getByRole('heading', { name: 'No suppressed addresses' }).waitFor();
      await d.expectAccessible('suppressions-empty');

      await d.page.getByRole('button', { name: 'Add address' }).click();
      await dialog().getByLabel('Email address').fill('dan@example');
      await dialog().getByRole('button', { name: 'Suppress address' }).click();
      await dialog().getByText('Enter a whole address', { exact: false }).waitFor();
      await dialog().getByLabel('Email address').fill('dan@example.com');
      await dialog().getByLabel('Note (optional)').fill('Asked by phone');
      await d.expectAccessible('suppression-add');
      await dialog().getByRole('button', { name: 'Suppress address' }).click();
      await dialog().waitFor({ state: 'hidden' });

      await expect.poll(() => rows().count()).toBe(2);
      const row = await rows().nth(1).textContent();
      expect(row).toContain('dan@example.com');
      expect(row).toContain('Added by hand');
      expect(row).toContain('Asked by phone');
      const stored = (await expectBody(api().get('/suppressions/dan@example.com'))) as Suppression;
      expect(stored).toMatchObject({ reason: 'manual', detail: 'Asked by phone' });

      await d.page.getByRole('button', { name: 'Add address' }).click();
      await dialog().getByLabel('Email address').fill('dan@example.com');
      await dialog().getByRole('button', { name: 'Suppress address' }).click();
      await dialog().getByText('dan@example.com is already suppressed (added by hand).').waitFor();
      await dialog().getByRole('button', { name: 'Close' }).click();
      await d.expectAccessible('suppressions');
    });

    it('filters by reason in the address, and looks one address up', async () => {
      await expectBody(api().post('/suppressions', { email: 'eve@example.com' }), 201);
      await d.page.reload();
      await expect.poll(() => rows().count()).toBe(3);
      await d.page.getByLabel('Reason').selectOption('bounce');
      expect(new URL(d.page.url()).searchParams.get('reason')).toBe('bounce');
      await d.page.getByRole('heading', { name: 'No suppressions match' }).waitFor();
      await d.page.getByLabel('Reason').selectOption('manual');
      await expect.poll(() => rows().count()).toBe(3);

      const lookUp = d.page.getByRole('search', { name: 'Look up an address' });
      await lookUp.getByLabel('Look up an address').fill('frank@example.com');
      await lookUp.getByRole('button', { name: 'Look up' }).click();
      await lookUp.getByText('is not suppressed', { exact: false }).waitFor();
      await lookUp.getByLabel('Look up an address').fill('EVE@example.com');
      await lookUp.getByRole('button', { name: 'Look up' }).click();
      await lookUp.getByText('is suppressed: added by hand', { exact: false }).waitFor();
    });

    it('removes an address after asking', async () => {
      await d.page.getByRole('button', { name: 'Remove dan@example.com' }).click();
      await dialog().getByRole('heading', { name: 'Remove dan@example.com?' }).waitFor();
      await d.expectAccessible('suppression-remove');
      await dialog().getByRole('button', { name: 'Remove from list' }).click();
      await dialog().waitFor({ state: 'hidden' });
      await expect.poll(() => rows().count()).toBe(2);
      expect((await api().get('/suppressions/dan@example.com')).status).toBe(404);
    });
  });

  describe('inbound', () => {
    let messageId: string;

    it('lists mail received at a verified domain over SMTP, and opens it in a sandboxed frame', async () => {
      await nav('Inbound').click();
      await d.page.getByRole('heading', { name: 'No mail received yet' }).waitFor();
      await d.expectAccessible('inbound-empty');

      await verifiedDomain(api(), dns, DOMAIN);
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: inboundPort, ignoreTLS: true });
      try {
        await transport.sendMail({
          envelope: { from: 'grace@sender.example', to: [`support@${DOMAIN}`] },
          from: 'Grace Hopper <grace@sender.example>',
          to: `support@${DOMAIN}`,
          subject: 'Question about my order',
          text: 'Hello, where is my order?',
          html:
            '<h1>Where is my order?</h1><p onclick="alert(1)">It has been a week.</p>' +
            '<script>parent.document.title = "owned"</script><img src="https://tracker.example/p.gif" alt="">',
          attachments: [{ filename: 'receipt.txt', content: 'order 42' }],
        });
      } finally {
        transport.close();
      }
      const page = await pollUntil(
        async () => (await expectBody(api().get('/inbound'))) as { data: { id: string }[] },
        (p) => p.data.length === 1,
      );
      messageId = page.data[0]!.id;

      await d.page.reload();
      const rows = d.page.getByRole('table', { name: 'Received mail' }).getByRole('row');
      await expect.poll(() => rows.count()).toBe(2);
      const row = await rows.nth(1).textContent();
      expect(row).toContain('Grace Hopper <grace@sender.example>');
      expect(row).toContain(`support@${DOMAIN}`);
      expect(row).toContain('Hello, where is my order?');
      await d.expectAccessible('inbound');

      await d.page.getByRole('link', { name: 'Question about my order' }).click();
      await d.page.getByRole('heading', { name: 'Question about my order', level: 1 }).waitFor();
      expect(new URL(d.page.url()).pathname).toBe(`/app/inbound/${messageId}`);
      const frame = d.page.locator('iframe.inbound-frame');
      expect(await frame.getAttribute('sandbox')).toBe('');
      const inside = d.page.frameLocator('iframe.inbound-frame');
      await expect.poll(() => inside.locator('h1').textContent()).toBe('Where is my order?');
      // Sanitized by the server and sandboxed here: no script, no handler, and nothing in the page itself.
      expect(await inside.locator('script').count()).toBe(0);
      expect(await inside.locator('[onclick]').count()).toBe(0);
      expect(await d.page.locator('main h1', { hasText: 'Where is my order?' }).count()).toBe(0);
      expect(await d.page.title()).not.toBe('owned');
      expect(await frame.getAttribute('srcdoc')).toContain('img-src data: cid:;');
      await d.page.getByText('Remote images are not loaded', { exact: false }).waitFor();

      const envelope = d.page.getByRole('region', { name: 'Envelope' });
      await envelope.getByText('Grace Hopper <grace@sender.example>').waitFor();
      await envelope.getByText('receipt.txt').waitFor();
      await d.expectAccessible('inbound-message');

      // The text part, as a fallback.
      await d.page.getByRole('button', { name: 'Text', exact: true }).click();
      await d.page.getByText('Hello, where is my order?').waitFor();
      expect(await d.page.locator('iframe.inbound-frame').count()).toBe(0);
    });

    it('a message of no one’s is not found', async () => {
      await d.page.goto(`${d.service.url}/app/inbound/00000000-0000-4000-8000-000000000000`);
      await d.page.getByRole('heading', { name: 'Message not found' }).waitFor();
    });
  });

  describe('settings', () => {
    it('renames the project and sets its default time zone, and the switcher follows', async () => {
      await d.page.goto(`${d.service.url}/app/`);
      await nav('Settings').click();
      await d.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      await d.expectAccessible('settings');
      const save = d.page.getByRole('region', { name: 'Name and time zone' }).getByRole('button', { name: 'Save' });

      await d.page.getByLabel('Name', { exact: true }).fill('   ');
      await save.click();
      await d.page.getByText('Enter a name.').waitFor();
      await d.page.getByLabel('Name', { exact: true }).fill('Shop EU');
      await d.page.getByLabel('Default time zone').selectOption('Asia/Tokyo');
      await save.click();
      await d.page.getByText('Saved.').waitFor();
      await expect
        .poll(() => d.page.getByLabel('Project', { exact: true }).locator('option:checked').textContent())
        .toContain('Shop EU');
      await d.page.reload();
      await expect.poll(() => d.page.getByLabel('Default time zone').inputValue()).toBe('Asia/Tokyo');
    });

    it('regenerates both keys after a warning: the old secret key is refused at once, the new one works', async () => {
      const old = current();
      expect((await api().get('/contacts')).status).toBe(200);

      await d.page.getByRole('button', { name: 'Regenerate keys' }).click();
      await dialog().getByText('stop working at once', { exact: false }).waitFor();
      await d.expectAccessible('settings-regenerate');
      await dialog().getByRole('button', { name: 'Regenerate keys' }).click();
      await dialog().getByRole('heading', { name: 'New API keys' }).waitFor();
      const [secretKey, publicKey] = await dialog().locator('code.key-value').allTextContents();
      expect(secretKey).toMatch(/^sk_/);
      expect(publicKey).toMatch(/^pk_/);
      await dialog().getByRole('button', { name: 'Copy secret key' }).waitFor();
      await dialog().getByRole('button', { name: 'Copy public key' }).waitFor();
      await d.expectAccessible('settings-keys');

      expect((await api().get('/contacts', old.secretKey)).status).toBe(401);
      expect((await api().post('/v1/track', { email: 'a@example.com', event: 'x' }, old.publicKey)).status).toBe(401);
      expect((await api().get('/contacts', secretKey)).status).toBe(200);
      expect((await api().post('/v1/track', { email: 'a@example.com', event: 'x' }, publicKey)).status).toBe(200);
      newKeys = { secretKey: secretKey!, publicKey: publicKey! };
      await dialog().getByRole('button', { name: 'Done' }).click();
      // Closed, the keys cannot be read again.
      expect(await d.page.getByText(secretKey!).count()).toBe(0);
    });

    it('disables the project after asking, and enables it again', async () => {
      await d.page.getByRole('button', { name: 'Disable project' }).click();
      await dialog().getByText('refused at once (403)', { exact: false }).waitFor();
      await dialog().getByRole('button', { name: 'Disable project' }).click();
      await dialog().waitFor({ state: 'hidden' });
      await d.page.getByText('This project is disabled', { exact: false }).waitFor();
      await d.expectAccessible('settings-disabled');
      const projects = await d.page.evaluate(async () => (await fetch('/users/@me/projects')).json());
      expect(projects[0].disabled).toBe(true);

      await d.page.getByRole('button', { name: 'Enable project' }).click();
      await dialog().getByRole('button', { name: 'Enable project' }).click();
      await d.page.getByRole('button', { name: 'Disable project' }).waitFor();
    });
  });

  it('fits 375 px without sideways scrolling, light and dark', async () => {
    await d.page.setViewportSize({ width: 375, height: 800 });
    const [received] = ((await expectBody(api().get('/inbound'))) as { data: { id: string }[] }).data;
    // Something to see on a narrow screen: a webhook with a long URL, a delivery, a suppression.
    const wide = (await expectBody(
      api().post('/webhooks', { url: `${receiver.url}/a/rather/long/path/for/a/narrow/screen`, events: ['*'] }),
      201,
    )) as Webhook;
    await expectBody(
      api().post('/suppressions', { email: 'a.rather.long.address@subdomain.example.com', detail: 'x' }),
      201,
    );
    await track('narrow_screen');
    await pollUntil(
      async () => (await expectBody(api().get(`/webhooks/${wide.id}/deliveries`))).total as number,
      (n) => n > 0,
    );
    const pages: [string, string][] = [
      ['webhooks', '/app/webhooks'],
      ['webhook', `/app/webhooks/${wide.id}`],
      ['suppressions', '/app/suppressions'],
      ['inbound', '/app/inbound'],
      ['inbound-message', `/app/inbound/${received!.id}`],
      ['settings', '/app/settings'],
    ];
    // Each scan covers 1280 px light and 375 px dark; the overflow is measured in both schemes here.
    for (const [name, path] of pages) {
      await d.page.goto(`${d.service.url}${path}`);
      await d.page.getByRole('heading', { level: 1 }).waitFor();
      await d.page
        .locator('[aria-busy="true"]')
        .first()
        .waitFor({ state: 'detached' })
        .catch(() => {});
      for (const scheme of ['light', 'dark'] as const) {
        await d.page.emulateMedia({ colorScheme: scheme });
        expect(await sidewaysOverflow(d.page), `${name} ${scheme}`).toBeLessThanOrEqual(0);
      }
      await d.expectAccessible(`${name}-narrow-dark`);
    }
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.emulateMedia({ colorScheme: 'light' });
  });
});
