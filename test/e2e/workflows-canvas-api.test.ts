import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import type {
  Execution,
  ExecutionDetail,
  StepStats,
  WorkflowDetail,
  WorkflowListItem,
  WorkflowStep,
} from '../../src/api.js';
import type { CursorPage } from '../../src/platform/http/pagination.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { deliveredMessage, recordWhen, trackingLinks, UNKNOWN_ID, uniqueAddresses } from '../support/sending.js';
import { type Client, expectBody, expectErrorEnvelope, pollUntil, type TestProject } from '../support/server.js';
import { exit, sendEmail } from '../support/workflows.js';

// What the workflow canvas reads: counts per step, executions by contact, duplicates.

const DOMAIN = 'main.wfcanvas.test';
const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });
const rcpt = uniqueAddresses('rcpt.wfcanvas.test');

let main: TestProject;
let other: TestProject;
let templateId: string;

beforeAll(async () => {
  main = await projectWithDomain(mail, 'wfcanvas-main', DOMAIN);
  other = await mail.server.project('wfcanvas-other');
  const template = {
    name: 'Linked',
    subject: 'Hello',
    body: '<p>Hi</p><p><a href="https://example.com/offer">Offer</a></p>',
    from: `hi@${DOMAIN}`,
    type: 'TRANSACTIONAL',
  };
  templateId = (await expectBody(main.api.post('/templates', template), 201)).id;
});

let seq = 0;

/** SEND_EMAIL → DELAY (an hour, so executions wait there) → EXIT, disabled. */
async function sendThenWait(api: Client = main.api): Promise<{ id: string; send: WorkflowStep; wait: WorkflowStep }> {
  const wf = await expectBody(
    api.post('/workflows', { name: `canvas-${++seq}`, triggerConfig: { event: `canvas-${seq}` } }),
    201,
  );
  const add = (body: unknown) => expectBody(api.post(`/workflows/${wf.id}/steps`, body), 201);
  const send = await add({ name: 'Welcome', ...sendEmail(templateId) });
  const wait = await add({ type: 'DELAY', config: { amount: 1, unit: 'hours' } });
  const end = await add(exit());
  for (const [from, to] of [
    [send, wait],
    [wait, end],
  ])
    await expectBody(api.post(`/workflows/${wf.id}/transitions`, { fromStepId: from.id, toStepId: to.id }), 201);
  return { id: wf.id, send, wait };
}

/** Starts the workflow for a new contact with this address. */
async function start(workflowId: string, email: string): Promise<Execution> {
  await expectBody(main.api.post('/contacts', { email }), 201);
  return expectBody<Execution>(main.api.post(`/workflows/${workflowId}/executions`, { email }), 201);
}

const executionsBy = (workflowId: string, query: string) =>
  expectBody<CursorPage<Execution> & { total: number }>(main.api.get(`/workflows/${workflowId}/executions?${query}`));

const stats = (workflowId: string, query = '') =>
  expectBody<StepStats>(main.api.get(`/workflows/${workflowId}/stats${query}`));

const statOf = (s: StepStats, stepId: string) => s.steps.find((x) => x.stepId === stepId)!;

/** Waits until the execution has moved on to the DELAY step (its email is stored by then). */
const waitingAt = (workflowId: string, execution: Execution, stepId: string) =>
  pollUntil(
    () => expectBody<ExecutionDetail>(main.api.get(`/workflows/${workflowId}/executions/${execution.id}`)),
    (e) => e.currentStepId === stepId && e.status === 'waiting',
    20_000,
  );

async function hit(url: string): Promise<void> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBeLessThan(400);
  await res.arrayBuffer();
}

describe('counts per step', () => {
  it('counts the executions at each step and what each SEND_EMAIL step sent, opened and clicked in a range', async () => {
    const wf = await sendThenWait();
    const before = new Date(Date.now() - 1000).toISOString();
    const [a, b] = [rcpt('a'), rcpt('b')];
    const executions = [await start(wf.id, a), await start(wf.id, b)];
    const details = await Promise.all(executions.map((e) => waitingAt(wf.id, e, wf.wait.id)));

    // The path: the SEND_EMAIL step, when it ran and the email it made.
    const [entry] = details[0]!.steps;
    expect(entry).toMatchObject({ stepId: wf.send.id, type: 'SEND_EMAIL', status: 'completed' });
    const emailIds = details.map((d) => d.steps[0]!.output!.emailId as string);
    await Promise.all(emailIds.map((id) => recordWhen(main.api, id, (r) => r.status === 'sent')));

    let s = await stats(wf.id);
    expect(statOf(s, wf.wait.id)).toMatchObject({ type: 'DELAY', active: 2, sent: null, opened: null, clicked: null });
    expect(statOf(s, wf.send.id)).toMatchObject({ active: 0, sent: 2, opened: 0, clicked: 0 });

    // One reader opens and clicks.
    const html = (await simpleParser((await deliveredMessage(mail.sink, emailIds[0]!)).raw)).html || '';
    const links = trackingLinks(mail.server, html);
    await hit(links.pixel);
    await hit(links.clicks[0]!);
    s = await pollUntil(
      () => stats(wf.id),
      (x) => statOf(x, wf.send.id).clicked === 1,
      10_000,
    );
    expect(statOf(s, wf.send.id)).toMatchObject({ sent: 2, opened: 1, clicked: 1 });

    // A range before the sends counts nothing sent; the executions waiting are counted whatever the range.
    s = await stats(wf.id, `?since=${encodeURIComponent('2020-01-01T00:00:00Z')}&until=${encodeURIComponent(before)}`);
    expect(s).toMatchObject({ since: '2020-01-01T00:00:00.000Z', until: new Date(before).toISOString() });
    expect(statOf(s, wf.send.id)).toMatchObject({ sent: 0, opened: 0, clicked: 0 });
    expect(statOf(s, wf.wait.id).active).toBe(2);

    // The list says how many are active per workflow.
    const list = await expectBody<WorkflowListItem[]>(main.api.get('/workflows'));
    expect(list.find((w) => w.id === wf.id)?.activeExecutions).toBe(2);

    await expectBody(main.api.post(`/workflows/${wf.id}/executions/cancel-all`, {}));
    expect(statOf(await stats(wf.id), wf.wait.id).active).toBe(0);
    expect(
      (await expectBody<WorkflowListItem[]>(main.api.get('/workflows'))).find((w) => w.id === wf.id),
    ).toMatchObject({ activeExecutions: 0 });
  });

  it('refuses a bad range and another project’s workflow', async () => {
    const wf = await sendThenWait();
    expectErrorEnvelope(await main.api.get(`/workflows/${wf.id}/stats?since=yesterday`), 422, 'VALIDATION_ERROR');
    const backwards = await main.api.get(
      `/workflows/${wf.id}/stats?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z`,
    );
    expectErrorEnvelope(backwards, 422, 'VALIDATION_ERROR');
    expect(backwards.body.error.errors).toContainEqual(expect.objectContaining({ field: 'since' }));
    expectErrorEnvelope(await other.api.get(`/workflows/${wf.id}/stats`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.get(`/workflows/${UNKNOWN_ID}/stats`), 404, 'NOT_FOUND');
  });
});

describe('executions of one contact', () => {
  it('finds a contact’s executions by address or id, alone or with a status', async () => {
    const wf = await sendThenWait();
    const [a, b] = [rcpt('find-a'), rcpt('find-b')];
    const ea = await start(wf.id, a);
    const eb = await start(wf.id, b);
    await waitingAt(wf.id, ea, wf.wait.id);

    const byEmail = await executionsBy(wf.id, `email=${encodeURIComponent(a.toUpperCase())}`);
    expect(byEmail.data.map((e) => [e.id, e.email])).toEqual([[ea.id, a]]);
    expect(byEmail.total).toBe(1);
    const byId = await executionsBy(wf.id, `contactId=${eb.contactId}`);
    expect(byId.data.map((e) => e.id)).toEqual([eb.id]);
    expect((await executionsBy(wf.id, `email=${encodeURIComponent(a)}&status=completed`)).data).toEqual([]);
    expect((await executionsBy(wf.id, `email=${encodeURIComponent(a)}&contactId=${eb.contactId}`)).total).toBe(0);
    const nobody = await executionsBy(wf.id, `email=${encodeURIComponent(rcpt('nobody'))}`);
    expect(nobody).toMatchObject({ data: [], total: 0, hasMore: false, cursor: null });

    const bad = await main.api.get(`/workflows/${wf.id}/executions?email=not-an-address`);
    expectErrorEnvelope(bad, 422, 'VALIDATION_ERROR');
    expect(bad.body.error.errors).toContainEqual(expect.objectContaining({ field: 'email' }));
    await expectBody(main.api.post(`/workflows/${wf.id}/executions/cancel-all`, {}));
  });
});

describe('duplicating a workflow', () => {
  it('copies the trigger, steps and transitions into a disabled workflow of its own', async () => {
    const wf = await sendThenWait();
    await expectBody(main.api.patch(`/workflows/${wf.id}`, { enabled: true, allowReentry: true }));
    const source = await expectBody<WorkflowDetail>(main.api.get(`/workflows/${wf.id}`));

    const res = await main.api.post(`/workflows/${wf.id}/duplicate`, {});
    const copy = await expectBody<WorkflowDetail>(Promise.resolve(res), 201);
    expect(copy).toMatchObject({
      name: `Copy of ${source.name}`,
      enabled: false,
      allowReentry: true,
      triggerType: 'EVENT',
      triggerConfig: source.triggerConfig,
      executions: {},
    });
    expect(copy.id).not.toBe(source.id);
    expect(copy.signingSecret).not.toBe(source.signingSecret);
    expect(copy.steps.map((s) => [s.type, s.name, s.config])).toEqual(
      source.steps.map((s) => [s.type, s.name, s.config]),
    );
    const sourceIds = new Set(source.steps.map((s) => s.id));
    expect(copy.steps.every((s) => !sourceIds.has(s.id))).toBe(true);
    // The same shape, through the copy's own steps.
    const typeOf = (d: WorkflowDetail, id: string) => d.steps.find((s) => s.id === id)!.type;
    const shape = (d: WorkflowDetail) =>
      d.transitions.map((t) => `${typeOf(d, t.fromStepId)}→${typeOf(d, t.toStepId)}:${t.branch}`).sort();
    expect(shape(copy)).toEqual(shape(source));
    expect(copy.transitions.every((t) => t.workflowId === copy.id)).toBe(true);

    // The copy runs: it can be enabled as it is; the source is untouched.
    await expectBody(main.api.patch(`/workflows/${copy.id}`, { enabled: true }));
    expect(await expectBody<WorkflowDetail>(main.api.get(`/workflows/${wf.id}`))).toEqual(source);

    expectErrorEnvelope(await other.api.post(`/workflows/${wf.id}/duplicate`, {}), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.post(`/workflows/${UNKNOWN_ID}/duplicate`, {}), 404, 'NOT_FOUND');
  });
});

describe('the API description', () => {
  it('documents the counts per step, duplicating and finding executions by contact', async () => {
    const doc = await (await fetch(`${mail.server.url}/openapi.json`)).json();
    expect(doc.paths['/workflows/{id}/stats']?.get).toBeDefined();
    expect(doc.paths['/workflows/{id}/duplicate']?.post).toBeDefined();
    const params = doc.paths['/workflows/{id}/executions'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(['status', 'email', 'contactId']));
  });
});
