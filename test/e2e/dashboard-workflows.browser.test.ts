import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowDetail, WorkflowListItem } from '../../src/api.js';
import { hasChromium, sidewaysOverflow, useDashboard } from '../support/browser.js';
import { verifiedDomain } from '../support/domains.js';
import { addFilter } from '../support/filter-builder.js';
import { useMailPeers } from '../support/mail-server.js';
import { expectBody, pollUntil } from '../support/server.js';

/**
 * The workflows pages in Debian's Chromium against the real service, an SMTP sink and a DNS server:
 * draw SEND_EMAIL → DELAY → CONDITION → SEND_EMAIL / EXIT on the canvas by clicks, see the server's
 * graph check on the step it concerns, undo and redo, enable it, track the trigger event through
 * the API, follow the contact's path on the canvas and see the count on the step; the mail reaches
 * the sink. Accessibility at 1280 px light and 375 px dark.
 */

const DOMAIN = 'news.wf-dash.test';
const ADA = 'ada@wf-dash.test';

describe.skipIf(!hasChromium)('the workflows pages in a browser', () => {
  const mail = useMailPeers();
  const d = useDashboard({ env: () => mail.env() });
  const page = () => d.page;
  const canvas = () => d.page.getByTestId('workflow-canvas');
  const card = (title: string) =>
    canvas().locator('.step-card', { has: d.page.locator('.step-title', { hasText: title }) });
  const panel = () => d.page.locator('.workflow-panel');
  let workflowId = '';

  beforeAll(async () => {
    await verifiedDomain(d.api(), mail.dns, DOMAIN);
    for (const [name, subject] of [
      ['Welcome mail', 'Welcome aboard'],
      ['Pro tips', 'Tips for pro users'],
    ]) {
      const body = { name, subject, body: `<p>${subject}</p>`, from: `hello@${DOMAIN}`, type: 'TRANSACTIONAL' };
      await expectBody(d.api().post('/templates', body), 201);
    }
    await expectBody(d.api().post('/contacts', { email: ADA, data: { plan: 'pro' } }), 201);
    // An earlier sign-up, before any workflow: its data tells the condition's picker what the event holds.
    const earlier = { email: 'early@wf-dash.test', event: 'signed_up', data: { source: 'ads' } };
    await expectBody(d.api().post('/v1/track', earlier, d.keys().publicKey), 200);
  });

  /** Clicks the canvas button named `opener` and picks `type` in the palette it opens. */
  async function pickStepType(opener: string, type: string) {
    const choice = panel().getByRole('button', { name: new RegExp(`^${type}`) });
    // The canvas fits its view once it has measured the nodes: a click during that move misses, so try again.
    for (let attempt = 0; ; attempt++) {
      if (!(await choice.isVisible())) await page().getByRole('button', { name: opener }).click();
      const picked = await choice.click({ timeout: 3000 }).then(
        () => true,
        () => false,
      );
      if (picked) return;
      expect(attempt).toBeLessThan(5);
    }
  }

  /** Opens the palette at `where`, picks `type`, names the step and lets `configure` fill its form. */
  async function addStep(where: string, type: string, name: string | null, configure?: () => Promise<void>) {
    await pickStepType(`Add a step ${where}`, type);
    if (name) await panel().getByLabel('Step name (optional)').fill(name);
    await configure?.();
    // The step's POST, so that a refusal fails here with the server's words rather than as a card never drawn.
    const added = page().waitForResponse(
      (r) => r.request().method() === 'POST' && /\/workflows\/[^/]+\/steps$/.test(new URL(r.url()).pathname),
    );
    await panel().getByRole('button', { name: 'Add step' }).click();
    const response = await added;
    expect(response.status(), await response.text()).toBe(201);
    await card(name ?? type).waitFor();
  }

  const detail = async () => (await expectBody(d.api().get(`/workflows/${workflowId}`))) as WorkflowDetail;

  it('starts empty and creates a workflow with its trigger event', async () => {
    await page().goto(`${d.service.url}/app/workflows`);
    await page().getByRole('heading', { name: 'No workflows yet' }).waitFor();
    await d.expectAccessible('workflows-empty');
    await page().getByRole('button', { name: 'New workflow' }).first().click();
    const dialog = page().getByRole('dialog');
    await dialog.getByLabel('Name').fill('Onboarding');
    await dialog.getByLabel('Started by the event (optional)').fill('signed_up');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page().getByRole('heading', { name: 'Onboarding', level: 1 }).waitFor();
    workflowId = new URL(page().url()).pathname.split('/').pop()!;
    await canvas().getByText('When “signed_up” happens').waitFor();
  });

  it('draws send → delay → condition → send / exit by clicks, with the graph check on the step it concerns', async () => {
    await addStep('after the trigger', 'Send email', 'Welcome', async () => {
      await panel().getByLabel('Template').selectOption({ label: 'Welcome mail' });
      // The template's preview, rendered by the server.
      await panel().frameLocator('iframe[title="Template preview"]').getByText('Welcome aboard').waitFor();
    });
    await addStep('after Welcome', 'Delay', null, async () => {
      await panel().getByLabel('Amount').fill('1');
      await panel().getByLabel('Unit').selectOption('seconds');
    });
    await addStep('after Delay', 'Condition', 'Is pro', async () => {
      await addFilter(page(), '1', /^plan/, 'is', 'pro');
      // The trigger event's data, offered under its own heading (the contact's data has a "source" too).
      await addFilter(page(), '1', /^signed_up: source/, 'is', 'ads', 'Data of “signed_up”');
    });
    // The empty branches are dashed "end" ghosts, each with its "+".
    expect(await canvas().locator('.open-end.is-ghost').count()).toBe(2);
    await addStep('after Is pro (Yes)', 'Send email', 'Tips', async () => {
      await panel().getByLabel('Template').selectOption({ label: 'Pro tips' });
      // The preview moves the buttons below it as it loads: "Add step" is clicked once it stands still.
      await panel().frameLocator('iframe[title="Template preview"]').getByText('Tips for pro users').waitFor();
    });

    // The "no" branch is still empty: the server refuses to enable, and the canvas marks the step.
    await page().getByRole('button', { name: 'Enable', exact: true }).click();
    await page()
      .getByText(/The workflow cannot run yet/)
      .waitFor();
    await expect.poll(() => card('Is pro').getAttribute('class')).toContain('has-fault');
    await d.expectAccessible('workflow-fault');

    await addStep('after Is pro (No)', 'Exit', null);
    const drawn = await detail();
    expect(drawn.steps.map((s) => s.type).sort()).toEqual(['CONDITION', 'DELAY', 'EXIT', 'SEND_EMAIL', 'SEND_EMAIL']);
    const byId = new Map(drawn.steps.map((s) => [s.id, s.name ?? s.type]));
    expect(
      drawn.transitions.map((t) => `${byId.get(t.fromStepId)}→${byId.get(t.toStepId)}:${t.branch}`).sort(),
    ).toEqual(['DELAY→Is pro:null', 'Is pro→EXIT:no', 'Is pro→Tips:yes', 'Welcome→DELAY:null']);
    expect(drawn.steps.find((s) => s.type === 'DELAY')!.config).toEqual({ amount: 1, unit: 'seconds' });
    expect(drawn.steps.find((s) => s.type === 'CONDITION')!.config).toEqual({
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.plan', operator: 'equals', value: 'pro' },
              { field: 'context.event.data.source', operator: 'equals', value: 'ads' },
            ],
          },
        ],
      },
    });

    // Undo takes the last step away through the API, redo brings it back.
    await page().getByRole('button', { name: 'Undo' }).click();
    await expect.poll(async () => (await detail()).steps.length).toBe(4);
    await page().getByRole('button', { name: 'Add a step after Is pro (No)' }).waitFor();
    await page().getByRole('button', { name: 'Redo' }).click();
    await expect.poll(async () => (await detail()).steps.length).toBe(5);
    await expect.poll(() => canvas().locator('.open-end').count()).toBe(1);

    // A step inserted on an edge goes between the two; deleted, its neighbours are joined again.
    const shape = async () => {
      const w = await detail();
      const name = new Map(w.steps.map((x) => [x.id, x.name ?? x.type]));
      return w.transitions.map((t) => `${name.get(t.fromStepId)}→${name.get(t.toStepId)}`).sort();
    };
    await pickStepType('Insert a step between Welcome and Delay', 'Delay');
    await panel().getByLabel('Step name (optional)').fill('Pause');
    // This one waits until a time of day in the contact's zone, and its card says so.
    await panel().getByLabel('Wait until a time of day in the contact’s time zone').check();
    await panel().getByLabel('Time of day', { exact: true }).fill('09:30');
    await d.expectAccessible('workflow-delay-until');
    await panel().getByRole('button', { name: 'Add step' }).click();
    await card('Pause').waitFor();
    await expect.poll(() => card('Pause').textContent()).toContain('Until 09:30, contact’s local time');
    expect((await detail()).steps.find((s) => s.name === 'Pause')!.config).toEqual({ until: { time: '09:30' } });
    expect(await shape()).toEqual(expect.arrayContaining(['Welcome→Pause', 'Pause→DELAY']));
    await panel().getByRole('heading', { name: 'Pause' }).waitFor();
    await panel().getByRole('button', { name: 'Delete step' }).click();
    await card('Pause').waitFor({ state: 'detached' });
    expect(await shape()).toEqual(expect.arrayContaining(['Welcome→DELAY']));
    expect((await detail()).steps).toHaveLength(5);
  });

  it('enables the workflow, follows a contact through it and counts what the step sent', async () => {
    await page().getByRole('button', { name: 'Enable', exact: true }).click();
    await page().getByRole('button', { name: 'Disable', exact: true }).waitFor();
    expect((await detail()).enabled).toBe(true);
    // Enabled: no "+" any more.
    expect(await canvas().locator('.add-step-button').count()).toBe(0);

    const signUp = { email: ADA, event: 'signed_up', data: { source: 'ads' } };
    const track = await d.api().post('/v1/track', signUp, d.keys().publicKey);
    expect(track.status, JSON.stringify(track.body)).toBe(200);

    // The welcome, then after the delay the tips: both at the sink.
    const messages = await mail.sink.waitFor(2, 30_000);
    const subjects = messages.map((m) => /^Subject: (.*)$/m.exec(m.raw.toString())?.[1]?.trim()).sort();
    expect(subjects).toEqual(['Tips for pro users', 'Welcome aboard']);
    expect(messages.every((m) => m.to.includes(ADA))).toBe(true);

    await page().getByLabel('Follow a contact', { exact: true }).fill(ADA);
    await page().getByRole('button', { name: 'Show path', exact: true }).click();
    await page().getByText(`Showing the path of ${ADA}`).waitFor();
    for (const title of ['Welcome', 'Delay', 'Is pro', 'Tips'])
      await expect.poll(() => card(title).getAttribute('class'), { timeout: 20_000 }).toContain('is-on-path');
    expect(await card('Exit').getAttribute('class')).not.toContain('is-on-path');
    expect(await card('Is pro').locator('.step-path').textContent()).toMatch(/^Yes · /);

    // The count on the step: one email sent by "Welcome" in the range.
    await expect
      .poll(() => card('Welcome').locator('.step-mail').textContent(), { timeout: 20_000 })
      .toContain('1 sent');
    // The executions list names the contact.
    await page().getByRole('table', { name: 'Executions' }).getByRole('cell', { name: ADA, exact: true }).waitFor();
    await d.expectAccessible('workflow-path-1280-light');
    await page().emulateMedia({ colorScheme: 'dark' });
    await d.expectAccessible('workflow-path-1280-dark');
    await page().emulateMedia({ colorScheme: 'light' });

    // Started for another contact from the page, with a context of keys and values.
    await expectBody(d.api().post('/contacts', { email: 'bob@wf-dash.test', data: { plan: 'free' } }), 201);
    await page().getByLabel('Start for a contact (email)').fill('bob@wf-dash.test');
    await page().getByRole('button', { name: 'Add a value' }).click();
    await page().getByLabel('Key 1').fill('source');
    await page().getByLabel('Value 1').fill('dashboard');
    await page().getByRole('button', { name: 'Start', exact: true }).click();
    await page().getByText('Started for bob@wf-dash.test').waitFor();
    const bob = await expectBody(d.api().get(`/workflows/${workflowId}/executions?email=bob%40wf-dash.test`));
    expect(bob.data).toHaveLength(1);
    expect(bob.data[0].context).toEqual({ source: 'dashboard' });
    await page()
      .getByRole('table', { name: 'Executions' })
      .getByRole('cell', { name: 'bob@wf-dash.test', exact: true })
      .waitFor();

    // The step's panel lists the contact's visit, with its time and outcome, reachable by keyboard.
    await card('Is pro').focus();
    await page().keyboard.press('Enter');
    await panel().getByRole('heading', { name: 'Is pro' }).waitFor();
    await panel()
      .getByText(/^Yes · /)
      .waitFor();
  });

  it('lists the workflow with its trigger and state, and reads on a narrow screen as a list', async () => {
    await page().goto(`${d.service.url}/app/workflows`);
    const row = page().getByRole('row', { name: /Onboarding/ });
    await row.getByText('When “signed_up” happens').waitFor();
    await row.getByText('Enabled').waitFor();
    const list = (await expectBody(d.api().get('/workflows'))) as WorkflowListItem[];
    expect(list).toHaveLength(1);
    await d.expectAccessible('workflows-list-1280-light');

    await page().setViewportSize({ width: 375, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      await page().goto(`${d.service.url}/app/workflows/${workflowId}`);
      await page().getByRole('list', { name: 'Steps of Onboarding' }).waitFor();
      expect(await sidewaysOverflow(page())).toBeLessThanOrEqual(0);
      if (scheme === 'dark') await d.expectAccessible('workflow-375-dark');
    }
    await page().emulateMedia({ colorScheme: 'light' });
    await page().setViewportSize({ width: 1280, height: 900 });

    // Duplicate: a disabled copy opens.
    await page().goto(`${d.service.url}/app/workflows`);
    await page().getByRole('button', { name: 'Duplicate Onboarding' }).click();
    await page().getByRole('heading', { name: 'Copy of Onboarding', level: 1 }).waitFor();
    const copies = await pollUntil(
      async () => (await expectBody(d.api().get('/workflows'))) as WorkflowListItem[],
      (l) => l.length === 2,
    );
    expect(copies.find((w) => w.name === 'Copy of Onboarding')?.enabled).toBe(false);
  });
});
