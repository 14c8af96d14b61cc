import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Contact,
  Execution,
  ExecutionDetail,
  ExecutionStatus,
  HistoryEntry,
  Workflow,
  WorkflowStep,
} from '../../src/api.js';
import { run } from '../../src/platform/db/client.js';
import type { CursorPage } from '../../src/platform/http/pagination.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { verifiedDomain } from '../support/domains.js';
import { useMailServer } from '../support/mail-server.js';
import {
  deliveredMessage,
  emailRecord,
  headerBlock,
  messageIdOf,
  recordWhen,
  sendOk,
  sinkMessagesFor,
  sinkMessagesTo,
  UNKNOWN_ID,
  UUID,
  uniqueAddresses,
} from '../support/sending.js';
import {
  type ApiResponse,
  type ChildServer,
  type Client,
  client,
  eventually,
  expectBody,
  pollUntil,
  printedKeys,
  spawnService,
  type TestProject,
  useTestServer,
} from '../support/server.js';
import { type HookRequest, signatureValid, useReceiver } from '../support/webhook-receiver.js';
import {
  condition,
  type Edge,
  exit,
  numberedTemplate,
  type StepSpec,
  sendEmail,
  trackEach,
  updateContact,
} from '../support/workflows.js';

// ---------------------------------------------------------------------------------------------
// Types

interface Built<K extends string> {
  workflow: Workflow;
  steps: Record<K, WorkflowStep>;
}

const FINISHED: ExecutionStatus[] = ['completed', 'exited', 'failed', 'cancelled'];

// ---------------------------------------------------------------------------------------------
// Step builders

const delay = (amount: number, unit = 'seconds'): StepSpec => ({ type: 'DELAY', config: { amount, unit } });
const waitFor = (event: string, amount: number, unit = 'seconds'): StepSpec => ({
  type: 'WAIT_FOR_EVENT',
  config: { event, timeout: { amount, unit } },
});
const webhook = (config: Record<string, unknown>): StepSpec => ({ type: 'WEBHOOK', config });

// ---------------------------------------------------------------------------------------------
// The service, its SMTP sink, DNS server and webhook receiver

const hooks = useReceiver();

const mail = useMailServer({
  DELIVERY_RETRY_BASE_SECONDS: '0.2',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
});

// ---------------------------------------------------------------------------------------------
// Helpers

let seq = 0;
/** A recipient address no other test uses. */
const rcpt = uniqueAddresses('rcpt.wfengine.test');

interface Setup {
  project: TestProject;
  api: Client;
  domainId: string;
  /** POST /v1/track with the project's public key; returns the contact and event ids. */
  track(
    email: string,
    event: string,
    data?: Record<string, unknown>,
    subscribed?: boolean,
  ): Promise<{ contact: string; event: string }>;
  /** A template from the project's verified domain; returns its id. */
  template(body: { subject: string; body?: string; type?: 'TRANSACTIONAL' | 'MARKETING' }): Promise<string>;
  contact(email: string, data?: Record<string, unknown>): Promise<Contact>;
}

/** A project of its own (so its workflows see no other test's events), with a verified sender domain. */
async function setup(tag: string): Promise<Setup> {
  const project = await mail.server.project(`wf-${tag}`);
  const domain = `${tag}.wfengine.test`;
  const view = await verifiedDomain(project.api, mail.dns, domain);
  const api = project.api;
  return {
    project,
    api,
    domainId: view.id,
    async track(email, event, data, subscribed) {
      const res = await api.post(
        '/v1/track',
        { email, event, ...(data ? { data } : {}), ...(subscribed !== undefined ? { subscribed } : {}) },
        project.publicKey,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data;
    },
    async template({ subject, body = '<p>Hello {{ email }}</p>', type = 'TRANSACTIONAL' }) {
      const res = await api.post('/templates', { name: `t-${++seq}`, subject, body, type, from: `hello@${domain}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id;
    },
    async contact(email, data = {}) {
      return expectBody(api.post('/contacts', { email, data }), 201);
    },
  };
}

/** Creates a workflow (options: trigger event, re-entry, enabled), adds the named steps and the transitions between them. */
async function buildWorkflow<K extends string>(
  api: Client,
  steps: Record<K, StepSpec>,
  transitions: Edge[],
  options: { event?: string; allowReentry?: boolean; enable?: boolean } = {},
): Promise<Built<K>> {
  const created = await api.post('/workflows', {
    name: `wf-${++seq}`,
    allowReentry: options.allowReentry ?? false,
    ...(options.event ? { triggerConfig: { event: options.event } } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  let workflow: Workflow = created.body;
  const byName = {} as Record<K, WorkflowStep>;
  for (const [name, spec] of Object.entries(steps) as [K, StepSpec][]) {
    const res = await api.post(`/workflows/${workflow.id}/steps`, { name, ...spec });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    byName[name] = res.body;
  }
  for (const [from, to, branch] of transitions) {
    const res = await api.post(`/workflows/${workflow.id}/transitions`, {
      fromStepId: byName[from as K].id,
      toStepId: byName[to as K].id,
      ...(branch ? { branch } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  if (options.enable) {
    const res = await api.patch(`/workflows/${workflow.id}`, { enabled: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    workflow = res.body;
  }
  return { workflow, steps: byName };
}

/** The id of the email a SEND_EMAIL step sent, from its history entry. */
const emailIdOf = (entry: HistoryEntry) => entry.output!.emailId as string;
/** The event that started an execution of an event-triggered workflow, from its context. */
const triggerOf = (e: Execution) => e.context.event as { id: string; name: string };

async function listExecutions(api: Client, workflowId: string, query = 'limit=100'): Promise<CursorPage<Execution>> {
  return expectBody(api.get(`/workflows/${workflowId}/executions?${query}`));
}

/** The executions of a workflow for one contact, newest first. */
async function executionsOf(api: Client, workflowId: string, contactId: string): Promise<Execution[]> {
  return (await listExecutions(api, workflowId)).data.filter((e) => e.contactId === contactId);
}

async function getExecution(api: Client, workflowId: string, executionId: string): Promise<ExecutionDetail> {
  return expectBody(api.get(`/workflows/${workflowId}/executions/${executionId}`));
}

/** Waits until the execution satisfies `done` and returns it with its history. */
function executionWhen(
  api: Client,
  workflowId: string,
  executionId: string,
  done: (e: ExecutionDetail) => boolean,
  timeoutMs = 20_000,
): Promise<ExecutionDetail> {
  return pollUntil(() => getExecution(api, workflowId, executionId), done, timeoutMs, 100);
}

/** Waits for the one execution of a workflow for a contact to finish; returns it with its history. */
async function finishedFor(
  api: Client,
  workflowId: string,
  contactId: string,
  timeoutMs = 20_000,
): Promise<ExecutionDetail> {
  const execution = await eventually(async () => (await executionsOf(api, workflowId, contactId))[0], timeoutMs);
  return executionWhen(api, workflowId, execution.id, (e) => FINISHED.includes(e.status), timeoutMs);
}

async function startManually(api: Client, workflowId: string, body: Record<string, unknown>): Promise<Execution> {
  return expectBody(api.post(`/workflows/${workflowId}/executions`, body), 201);
}

async function getContact(api: Client, id: string): Promise<Contact> {
  return expectBody(api.get(`/contacts/${id}`));
}

async function eventsNamed(
  api: Client,
  name: string,
): Promise<{ id: string; contactId: string; data: Record<string, unknown>; createdAt: string }[]> {
  const res = await api.get(`/events?limit=100&name=${encodeURIComponent(name)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status } });
}

const subjectOf = (raw: Buffer) => /^Subject:\s*(.*)$/im.exec(headerBlock(raw))?.[1];
const elapsed = (h: HistoryEntry) => Date.parse(h.finishedAt) - Date.parse(h.startedAt);

// ---------------------------------------------------------------------------------------------

describe('running a workflow', () => {
  it('sends, waits, branches on contact data and the event context, and records every step', async () => {
    const s = await setup('flow');
    const welcome = await s.template({ subject: 'Welcome {{ data.plan }}' });
    const tips = await s.template({ subject: 'Pro tips for {{ email }}' });
    const { workflow, steps } = await buildWorkflow(
      s.api,
      {
        welcome: sendEmail(welcome),
        pause: delay(1),
        isPro: condition(
          { field: 'data.plan', operator: 'equals', value: 'pro' },
          { field: 'context.event.data.x', operator: 'equals', value: 'go' },
        ),
        tips: sendEmail(tips),
        stop: exit(),
      },
      [
        ['welcome', 'pause'],
        ['pause', 'isPro'],
        ['isPro', 'tips', 'yes'],
        ['isPro', 'stop', 'no'],
      ],
      { event: 'signed_up', enable: true },
    );

    // `x` is used for this event only: the contact never stores it, so only the context can say "go".
    const pro = rcpt('pro');
    const basic = rcpt('basic');
    const proWithoutGo = rcpt('pro-nogo');
    const tracked = await s.track(pro, 'signed_up', { plan: 'pro', x: { value: 'go', persistent: false } });
    const basicTracked = await s.track(basic, 'signed_up', { plan: 'basic', x: { value: 'go', persistent: false } });
    const noGoTracked = await s.track(proWithoutGo, 'signed_up', {
      plan: 'pro',
      x: { value: 'stop', persistent: false },
    });
    expect((await getContact(s.api, tracked.contact)).data).toEqual({ plan: 'pro' });

    const yes = await finishedFor(s.api, workflow.id, tracked.contact);
    expect(yes).toMatchObject({
      status: 'completed',
      currentStepId: null,
      waitingFor: null,
      lastError: null,
      contactId: tracked.contact,
      workflowId: workflow.id,
    });
    expect(yes.finishedAt).not.toBeNull();
    expect(yes.context).toEqual({
      event: { id: tracked.event, name: 'signed_up', data: { plan: 'pro', x: 'go' }, createdAt: expect.any(String) },
    });
    expect(yes.steps.map((h) => [h.type, h.stepId, h.status, h.branch])).toEqual([
      ['SEND_EMAIL', steps.welcome.id, 'completed', null],
      ['DELAY', steps.pause.id, 'completed', null],
      ['CONDITION', steps.isPro.id, 'completed', 'yes'],
      ['SEND_EMAIL', steps.tips.id, 'completed', null],
    ]);
    expect(yes.steps.every((h) => h.error === null)).toBe(true);
    expect(yes.steps[0]!.output).toEqual({ emailId: expect.stringMatching(UUID), status: 'queued' });
    expect(yes.steps[3]!.output).toEqual({ emailId: expect.stringMatching(UUID), status: 'queued' });
    expect(yes.steps[1]!.output).toBeNull();
    // The delay lasted at least its second.
    expect(elapsed(yes.steps[1]!)).toBeGreaterThanOrEqual(1000);

    // Not pro, or pro without "go" in the event: the `no` branch, to EXIT.
    for (const contact of [basicTracked.contact, noGoTracked.contact]) {
      const no = await finishedFor(s.api, workflow.id, contact);
      expect(no).toMatchObject({ status: 'exited', currentStepId: null });
      expect(no.steps.map((h) => [h.type, h.stepId, h.branch])).toEqual([
        ['SEND_EMAIL', steps.welcome.id, null],
        ['DELAY', steps.pause.id, null],
        ['CONDITION', steps.isPro.id, 'no'],
        ['EXIT', steps.stop.id, null],
      ]);
    }

    // The pro contact got both messages, rendered for them; the email records name their templates.
    const [first, second] = [emailIdOf(yes.steps[0]!), emailIdOf(yes.steps[3]!)];
    expect(subjectOf((await deliveredMessage(mail.sink, first)).raw)).toBe('Welcome pro');
    expect(subjectOf((await deliveredMessage(mail.sink, second)).raw)).toBe(`Pro tips for ${pro}`);
    expect(await emailRecord(s.api, first)).toMatchObject({
      templateId: welcome,
      contactId: tracked.contact,
      to: pro,
      type: 'TRANSACTIONAL',
    });
    expect((await recordWhen(s.api, second, (r) => r.status === 'sent')).templateId).toBe(tips);
    expect(sinkMessagesTo(mail.sink, pro)).toHaveLength(2);
    // The others exited after one message each (their executions are over, so no more can come).
    await eventually(async () =>
      sinkMessagesTo(mail.sink, basic).length === 1 && sinkMessagesTo(mail.sink, proWithoutGo).length === 1
        ? true
        : undefined,
    );
    expect(subjectOf(sinkMessagesTo(mail.sink, basic)[0]!.raw)).toBe('Welcome basic');

    const detail = await s.api.get(`/workflows/${workflow.id}`);
    expect(detail.body.executions).toEqual({ completed: 1, exited: 2 });
  });

  it('skips MARKETING mail for an unsubscribed contact, and says so in the history', async () => {
    const s = await setup('marketing');
    const promo = await s.template({ subject: 'Big sale', type: 'MARKETING' });
    const { workflow } = await buildWorkflow(s.api, { promo: sendEmail(promo) }, [], {
      event: 'browsed',
      enable: true,
    });
    const subscribed = rcpt('sub');
    const unsubscribed = rcpt('unsub');
    const a = await s.track(subscribed, 'browsed');
    const b = await s.track(unsubscribed, 'browsed', undefined, false);

    const sent = await finishedFor(s.api, workflow.id, a.contact);
    expect(sent.status).toBe('completed');
    expect(sent.steps[0]!.output).toMatchObject({ status: 'queued' });
    await deliveredMessage(mail.sink, emailIdOf(sent.steps[0]!));

    const skipped = await finishedFor(s.api, workflow.id, b.contact);
    expect(skipped.status).toBe('completed');
    expect(skipped.steps).toHaveLength(1);
    expect(skipped.steps[0]).toMatchObject({
      type: 'SEND_EMAIL',
      status: 'completed',
      output: { emailId: expect.stringMatching(UUID), status: 'skipped' },
    });
    const record = await emailRecord(s.api, emailIdOf(skipped.steps[0]!));
    expect(record).toMatchObject({ status: 'skipped', templateId: promo, to: unsubscribed, sentAt: null });
    expect(sinkMessagesTo(mail.sink, unsubscribed)).toEqual([]);
  });

  it("uses a step's new config for executions reaching it after a change on the enabled workflow", async () => {
    const s = await setup('live-edit');
    const before = await s.template({ subject: 'Before the edit' });
    const after = await s.template({ subject: 'After the edit' });
    const { workflow, steps } = await buildWorkflow(s.api, { mail: sendEmail(before) }, [], {
      event: 'visited',
      enable: true,
    });
    const first = rcpt('edit');
    await s.track(first, 'visited');
    await eventually(async () => sinkMessagesTo(mail.sink, first)[0]);
    const patched = await s.api.patch(`/workflows/${workflow.id}/steps/${steps.mail.id}`, {
      config: { templateId: after },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const second = rcpt('edit');
    const t = await s.track(second, 'visited');
    const done = await finishedFor(s.api, workflow.id, t.contact);
    expect(subjectOf((await deliveredMessage(mail.sink, emailIdOf(done.steps[0]!))).raw)).toBe('After the edit');
    expect(subjectOf(sinkMessagesTo(mail.sink, first)[0]!.raw)).toBe('Before the edit');
  });

  it('fails the execution when its template or sender domain is gone', async () => {
    const s = await setup('gone');
    const doomed = await s.template({ subject: 'Never' });
    const kept = await s.template({ subject: 'Unverified' });
    const templateGone = await buildWorkflow(
      s.api,
      { mail: sendEmail(doomed), after: updateContact({ data: { after: true } }) },
      [['mail', 'after']],
    );
    const domainGone = await buildWorkflow(s.api, { mail: sendEmail(kept) }, []);
    const contact = await s.contact(rcpt('gone'));

    expect((await s.api.delete(`/templates/${doomed}`)).status).toBe(204);
    const first = await startManually(s.api, templateGone.workflow.id, { contactId: contact.id });
    const failed = await executionWhen(s.api, templateGone.workflow.id, first.id, (e) => FINISHED.includes(e.status));
    expect(failed).toMatchObject({ status: 'failed', finishedAt: expect.any(String) });
    expect(failed.lastError).toContain(doomed);
    expect(failed.steps).toEqual([
      expect.objectContaining({ type: 'SEND_EMAIL', status: 'failed', error: failed.lastError, output: null }),
    ]);

    expect((await s.api.delete(`/domains/${s.domainId}`)).status).toBe(204);
    const second = await startManually(s.api, domainGone.workflow.id, { contactId: contact.id });
    const unverified = await executionWhen(s.api, domainGone.workflow.id, second.id, (e) =>
      FINISHED.includes(e.status),
    );
    expect(unverified.status).toBe('failed');
    expect(unverified.lastError).toMatch(/domain/i);
    expect((await getContact(s.api, contact.id)).data).toEqual({});
    expect(sinkMessagesTo(mail.sink, contact.email)).toEqual([]);
  });
});

describe('triggers', () => {
  const oneStep = () => ({ end: exit() });

  it('starts every enabled workflow listening to a tracked event, and no disabled one', async () => {
    const s = await setup('fanout');
    const a = await buildWorkflow(s.api, oneStep(), [], { event: 'ping', enable: true, allowReentry: true });
    const b = await buildWorkflow(s.api, oneStep(), [], { event: 'ping', enable: true, allowReentry: true });
    const disabled = await buildWorkflow(s.api, oneStep(), [], { event: 'ping' });
    const otherEvent = await buildWorkflow(s.api, oneStep(), [], { event: 'pong', enable: true });
    const t = await s.track(rcpt('fanout'), 'ping', { n: 1 });

    for (const w of [a, b]) {
      const e = await finishedFor(s.api, w.workflow.id, t.contact);
      expect(e).toMatchObject({ status: 'exited', context: { event: { id: t.event, name: 'ping', data: { n: 1 } } } });
    }
    // The same dispatch of the event would have started them.
    expect((await listExecutions(s.api, disabled.workflow.id)).total).toBe(0);
    expect((await listExecutions(s.api, otherEvent.workflow.id)).total).toBe(0);

    // Disabled, a workflow starts nothing new; the others go on.
    expect((await s.api.patch(`/workflows/${a.workflow.id}`, { enabled: false })).status).toBe(200);
    await s.track(rcpt('fanout'), 'ping');
    await eventually(async () => ((await listExecutions(s.api, b.workflow.id)).total === 2 ? true : undefined));
    expect((await listExecutions(s.api, a.workflow.id)).total).toBe(1);
  });

  it('starts on contact.unsubscribed from PATCH /contacts', async () => {
    const s = await setup('unsub');
    const { workflow } = await buildWorkflow(s.api, oneStep(), [], { event: 'contact.unsubscribed', enable: true });
    const contact = await s.contact(rcpt('unsub'));
    const stays = await s.contact(rcpt('stays'));
    expect((await s.api.patch(`/contacts/${stays.id}`, { data: { a: 1 } })).status).toBe(200);
    expect((await s.api.patch(`/contacts/${contact.id}`, { subscribed: false })).status).toBe(200);
    const e = await finishedFor(s.api, workflow.id, contact.id);
    expect(e.status).toBe('exited');
    expect(e.context.event).toMatchObject({ name: 'contact.unsubscribed', data: { source: 'api' } });
    expect((await listExecutions(s.api, workflow.id)).total).toBe(1);
  });

  it('starts on segment.<slug>.entry when a tracked segment is computed', async () => {
    const s = await setup('segment');
    const segment = await s.api.post('/segments', {
      name: 'Gold members',
      trackMembership: true,
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.tier', operator: 'equals', value: 'gold' }] }] },
    });
    expect(segment.status, JSON.stringify(segment.body)).toBe(201);
    expect(segment.body.slug).toBe('gold-members');
    const { workflow } = await buildWorkflow(s.api, oneStep(), [], {
      event: 'segment.gold-members.entry',
      enable: true,
    });
    const gold = await s.contact(rcpt('gold'), { tier: 'gold' });
    const silver = await s.contact(rcpt('silver'), { tier: 'silver' });

    const computed = await s.api.post(`/segments/${segment.body.id}/compute`);
    expect(computed.status, JSON.stringify(computed.body)).toBe(200);
    expect(computed.body).toMatchObject({ entered: 1, exited: 0 });
    const e = await finishedFor(s.api, workflow.id, gold.id);
    expect(triggerOf(e).name).toBe('segment.gold-members.entry');
    expect(await executionsOf(s.api, workflow.id, silver.id)).toEqual([]);
    expect((await listExecutions(s.api, workflow.id)).total).toBe(1);
  });

  it('starts on email.sent from /v1/send', async () => {
    const s = await setup('sent');
    const { workflow } = await buildWorkflow(s.api, oneStep(), [], { event: 'email.sent', enable: true });
    const data = await sendOk(s.api, {
      to: rcpt('sent'),
      from: 'hello@sent.wfengine.test',
      subject: 'Receipt',
      body: '<p>Thanks</p>',
    });
    const { contact, email } = data.emails[0]!;
    await deliveredMessage(mail.sink, email);
    const e = await finishedFor(s.api, workflow.id, contact.id);
    expect(e.context.event).toMatchObject({ name: 'email.sent', data: { emailId: email } });
  });

  it('starts a workflow once per contact without re-entry, and on every event with it', async () => {
    const s = await setup('reentry');
    const once = await buildWorkflow(s.api, oneStep(), [], { event: 'again', enable: true, allowReentry: false });
    const every = await buildWorkflow(s.api, oneStep(), [], { event: 'again', enable: true, allowReentry: true });
    const email = rcpt('again');
    const first = await s.track(email, 'again');
    await finishedFor(s.api, once.workflow.id, first.contact);
    await s.track(email, 'again');
    await s.track(email, 'again');
    // The re-entrant workflow saw all three events; the same dispatches left the other one alone.
    await eventually(async () =>
      (await executionsOf(s.api, every.workflow.id, first.contact)).length === 3 ? true : undefined,
    );
    const onceRuns = await executionsOf(s.api, once.workflow.id, first.contact);
    expect(onceRuns).toHaveLength(1);
    expect(triggerOf(onceRuns[0]!).id).toBe(first.event);
    // Another contact still gets its one execution.
    const other = await s.track(rcpt('again'), 'again');
    expect((await finishedFor(s.api, once.workflow.id, other.contact)).status).toBe('exited');
  });
});

describe('manual starts', () => {
  it('starts a disabled workflow for a contact by id or email, with a context that templates and conditions read', async () => {
    const s = await setup('manual');
    const order = await s.template({
      subject: 'Order {{ context.orderId }}',
      body: '<p>Total {{ context.total }}</p>',
    });
    const { workflow, steps } = await buildWorkflow(
      s.api,
      {
        mail: sendEmail(order),
        check: condition(
          { field: 'context.orderId', operator: 'equals', value: 'A-1' },
          { field: 'context.total', operator: 'greaterThan', value: 100 },
        ),
        mark: updateContact({ data: { lastOrder: 'A-1' } }),
        stop: exit(),
      },
      [
        ['mail', 'check'],
        ['check', 'mark', 'yes'],
        ['check', 'stop', 'no'],
      ],
    );
    expect(workflow.enabled).toBe(false);
    const byId = await s.contact(rcpt('by-id'));
    const byEmailAddress = rcpt('by-email');
    const byEmail = await s.contact(byEmailAddress);

    const started = await startManually(s.api, workflow.id, {
      contactId: byId.id,
      context: { orderId: 'A-1', total: 250 },
    });
    expect(started).toMatchObject({
      workflowId: workflow.id,
      contactId: byId.id,
      status: 'running',
      context: { orderId: 'A-1', total: 250 },
      currentStepId: steps.mail.id,
      finishedAt: null,
    });
    expect(started.id).toMatch(UUID);
    const other = await startManually(s.api, workflow.id, {
      email: byEmailAddress,
      context: { orderId: 'B-2', total: 250 },
    });
    expect(other.contactId).toBe(byEmail.id);

    const yes = await executionWhen(s.api, workflow.id, started.id, (e) => FINISHED.includes(e.status));
    expect(yes.status).toBe('completed');
    expect(yes.steps.map((h) => [h.type, h.branch])).toEqual([
      ['SEND_EMAIL', null],
      ['CONDITION', 'yes'],
      ['UPDATE_CONTACT', null],
    ]);
    expect((await getContact(s.api, byId.id)).data).toEqual({ lastOrder: 'A-1' });
    const message = await deliveredMessage(mail.sink, emailIdOf(yes.steps[0]!));
    expect(subjectOf(message.raw)).toBe('Order A-1');
    expect(message.raw.toString()).toContain('Total 250');

    const no = await executionWhen(s.api, workflow.id, other.id, (e) => FINISHED.includes(e.status));
    expect(no.status).toBe('exited');
    expect(no.steps.map((h) => h.branch)).toEqual([null, 'no', null]);
    expect(subjectOf((await deliveredMessage(mail.sink, emailIdOf(no.steps[0]!))).raw)).toBe('Order B-2');
    expect((await getContact(s.api, byEmail.id)).data).toEqual({});

    // A manual start ignores allowReentry: the same contact again gets a second execution.
    const again = await startManually(s.api, workflow.id, { contactId: byId.id });
    expect(again.context).toEqual({});
    expect(await executionsOf(s.api, workflow.id, byId.id)).toHaveLength(2);
  });

  it('refuses unknown or foreign contacts, bad bodies and graphs that cannot run', async () => {
    const s = await setup('manual-refused');
    const other = await mail.server.project('wf-manual-foreign');
    const foreign = await other.api.post('/contacts', { email: rcpt('foreign') });
    expect(foreign.status).toBe(201);
    const { workflow } = await buildWorkflow(s.api, { end: exit() }, []);
    const path = `/workflows/${workflow.id}/executions`;
    expectError(await s.api.post(path, { contactId: UNKNOWN_ID }), 404, 'NOT_FOUND');
    expectError(await s.api.post(path, { email: rcpt('nobody') }), 404, 'NOT_FOUND');
    expectError(await s.api.post(path, { contactId: foreign.body.id }), 404, 'NOT_FOUND');
    expectError(await s.api.post(path, { email: foreign.body.email }), 404, 'NOT_FOUND');
    expectError(await s.api.post(path, {}), 422, 'VALIDATION_ERROR');
    expectError(await s.api.post(path, { email: 'not an email' }), 422, 'VALIDATION_ERROR');
    const arrayContext = await s.api.post(path, { email: rcpt('x'), context: [1, 2] });
    expectError(arrayContext, 422, 'VALIDATION_ERROR');
    expect(arrayContext.body.error.errors[0]).toMatchObject({ field: 'context', code: 'invalid_type' });
    const contact = await s.contact(rcpt('big'));
    const huge = await s.api.post(path, { contactId: contact.id, context: { blob: 'x'.repeat(70_000) } });
    expectError(huge, 422, 'VALIDATION_ERROR');
    expect(huge.body.error.errors[0].field).toBe('context');
    expect((await listExecutions(s.api, workflow.id)).total).toBe(0);

    // A graph that cannot run: two first steps, or no steps at all.
    const broken = await buildWorkflow(s.api, { a: exit(), b: exit() }, []);
    const res = await s.api.post(`/workflows/${broken.workflow.id}/executions`, { contactId: contact.id });
    expectError(res, 422, 'WORKFLOW_INVALID');
    expect(res.body.error.details.faults.map((f: { code: string }) => f.code)).toEqual(['entry']);
    const empty = await buildWorkflow(s.api, {}, []);
    expectError(
      await s.api.post(`/workflows/${empty.workflow.id}/executions`, { contactId: contact.id }),
      422,
      'WORKFLOW_INVALID',
    );
  });
});

describe('WAIT_FOR_EVENT', () => {
  const outcomes = {
    arrived: updateContact({ data: { outcome: 'arrived' } }),
    timedOut: updateContact({ data: { outcome: 'timeout' } }),
  };
  const branches: Edge[] = [
    ['wait', 'arrived', 'arrived'],
    ['wait', 'timedOut', 'timeout'],
  ];

  it("takes `arrived` when the contact's event comes, and only that contact's", async () => {
    const s = await setup('arrive');
    const { workflow, steps } = await buildWorkflow(
      s.api,
      { wait: waitFor('paid', 1, 'hours'), ...outcomes },
      branches,
      { event: 'ordered', enable: true },
    );
    const payer = rcpt('payer');
    const a = await s.track(payer, 'ordered');
    const b = await s.track(rcpt('waiter'), 'ordered');
    const waitingA = await eventually(async () =>
      (await executionsOf(s.api, workflow.id, a.contact)).find((e) => e.status === 'waiting'),
    );
    expect(waitingA).toMatchObject({
      currentStepId: steps.wait.id,
      waitingFor: { event: 'paid', until: expect.any(String) },
    });
    expect(Date.parse(waitingA.waitingFor!.until)).toBeGreaterThan(Date.now() + 30 * 60_000);
    const waitingB = await eventually(async () =>
      (await executionsOf(s.api, workflow.id, b.contact)).find((e) => e.status === 'waiting'),
    );

    const payment = await s.track(payer, 'paid');
    const done = await executionWhen(s.api, workflow.id, waitingA.id, (e) => FINISHED.includes(e.status));
    expect(done.status).toBe('completed');
    expect(done.steps.map((h) => [h.type, h.stepId, h.branch])).toEqual([
      ['WAIT_FOR_EVENT', steps.wait.id, 'arrived'],
      ['UPDATE_CONTACT', steps.arrived.id, null],
    ]);
    expect(Date.parse(done.steps[0]!.startedAt)).toBeLessThanOrEqual(
      Date.parse((await eventsNamed(s.api, 'paid')).find((e) => e.id === payment.event)!.createdAt),
    );
    expect((await getContact(s.api, a.contact)).data).toEqual({ outcome: 'arrived' });
    // B's execution was not woken by A's event.
    expect(await getExecution(s.api, workflow.id, waitingB.id)).toMatchObject({ status: 'waiting', steps: [] });
  });

  it('takes `timeout` when the timeout passes first, and completes when that branch leads nowhere', async () => {
    const s = await setup('timeout');
    const { workflow, steps } = await buildWorkflow(s.api, { wait: waitFor('paid', 1), ...outcomes }, branches, {
      event: 'ordered',
      enable: true,
    });
    const arrivedOnly = await buildWorkflow(
      s.api,
      { wait: waitFor('paid', 1), arrived: outcomes.arrived },
      [['wait', 'arrived', 'arrived']],
      { event: 'ordered', enable: true },
    );
    const t = await s.track(rcpt('late'), 'ordered');
    const done = await finishedFor(s.api, workflow.id, t.contact);
    expect(done.status).toBe('completed');
    expect(done.steps.map((h) => [h.type, h.stepId, h.branch])).toEqual([
      ['WAIT_FOR_EVENT', steps.wait.id, 'timeout'],
      ['UPDATE_CONTACT', steps.timedOut.id, null],
    ]);
    expect(elapsed(done.steps[0]!)).toBeGreaterThanOrEqual(1000);
    expect((await getContact(s.api, t.contact)).data).toEqual({ outcome: 'timeout' });

    const ended = await finishedFor(s.api, arrivedOnly.workflow.id, t.contact);
    expect(ended).toMatchObject({ status: 'completed', currentStepId: null });
    expect(ended.steps.map((h) => [h.type, h.branch])).toEqual([['WAIT_FOR_EVENT', 'timeout']]);
  });

  it('follows a transition without a branch whether the event arrived or the wait timed out', async () => {
    const s = await setup('either');
    const { workflow, steps } = await buildWorkflow(
      s.api,
      { wait: waitFor('paid', 3), after: updateContact({ data: { outcome: 'after' } }) },
      [['wait', 'after']],
      {
        event: 'ordered',
        enable: true,
      },
    );
    const late = await s.track(rcpt('either-late'), 'ordered');
    const payer = rcpt('either-prompt');
    const prompt = await s.track(payer, 'ordered');
    await eventually(async () =>
      (await executionsOf(s.api, workflow.id, prompt.contact)).find((e) => e.status === 'waiting'),
    );
    await s.track(payer, 'paid');
    for (const [contact, branch] of [
      [prompt.contact, 'arrived'],
      [late.contact, 'timeout'],
    ] as const) {
      const done = await finishedFor(s.api, workflow.id, contact);
      expect(done.status).toBe('completed');
      expect(done.steps.map((h) => [h.type, h.stepId, h.branch])).toEqual([
        ['WAIT_FOR_EVENT', steps.wait.id, branch],
        ['UPDATE_CONTACT', steps.after.id, null],
      ]);
      expect((await getContact(s.api, contact)).data).toEqual({ outcome: 'after' });
    }
  });

  it('takes `arrived` for an event stored while its dispatch could not see the wait', async () => {
    const s = await setup('missed');
    const { workflow, steps } = await buildWorkflow(s.api, { wait: waitFor('paid', 2), ...outcomes }, branches, {
      event: 'ordered',
      enable: true,
    });
    const t = await s.track(rcpt('missed'), 'ordered');
    const waiting = await eventually(async () =>
      (await executionsOf(s.api, workflow.id, t.contact)).find((e) => e.status === 'waiting'),
    );
    // The event is stored without reaching the dispatcher, as when it was dispatched while the wait was still being written.
    await run(
      mail.server.service.ctx.db,
      sql`
      insert into events (project_id, contact_id, name, data, created_at) values (${s.project.id}, ${t.contact}, 'paid', '{}', now())`,
    );
    const done = await executionWhen(s.api, workflow.id, waiting.id, (e) => FINISHED.includes(e.status));
    expect(done.steps.map((h) => [h.type, h.stepId, h.branch])).toEqual([
      ['WAIT_FOR_EVENT', steps.wait.id, 'arrived'],
      ['UPDATE_CONTACT', steps.arrived.id, null],
    ]);
  });

  it('ignores an event tracked before the wait began', async () => {
    const s = await setup('early');
    // The execution is in a DELAY when the event comes; the wait starts after it.
    const { workflow, steps } = await buildWorkflow(
      s.api,
      { pause: delay(2), wait: waitFor('paid', 1), ...outcomes },
      [['pause', 'wait'], ...branches],
      {
        event: 'ordered',
        enable: true,
      },
    );
    const email = rcpt('early');
    const t = await s.track(email, 'ordered');
    await eventually(async () =>
      (await executionsOf(s.api, workflow.id, t.contact)).find(
        (e) => e.status === 'waiting' && e.currentStepId === steps.pause.id,
      ),
    );
    const early = await s.track(email, 'paid');
    const done = await finishedFor(s.api, workflow.id, t.contact);
    const wait = done.steps.find((h) => h.type === 'WAIT_FOR_EVENT')!;
    const paidAt = Date.parse((await eventsNamed(s.api, 'paid')).find((e) => e.id === early.event)!.createdAt);
    expect(paidAt).toBeLessThan(Date.parse(wait.startedAt));
    expect(wait.branch).toBe('timeout');
    expect((await getContact(s.api, t.contact)).data).toEqual({ outcome: 'timeout' });
  });
});

describe('UPDATE_CONTACT', () => {
  it('patches data under the data rules and unsubscribes, recording contact.unsubscribed from the workflow', async () => {
    const s = await setup('update');
    const { workflow } = await buildWorkflow(
      s.api,
      {
        patch: updateContact({
          data: { drop: null, blank: '', added: 5, keep2: 'new', email: 'hijack@evil.test', id: 'x' },
        }),
        unsubscribe: updateContact({ subscribed: false }),
      },
      [['patch', 'unsubscribe']],
    );
    // Unsubscribing from a workflow can start other workflows.
    const follower = await buildWorkflow(s.api, { end: exit() }, [], { event: 'contact.unsubscribed', enable: true });
    const email = rcpt('update');
    const contact = await s.contact(email, { keep: 'k', drop: 'd', blank: 'b', keep2: 'old' });
    expect(contact.subscribed).toBe(true);

    const started = await startManually(s.api, workflow.id, { contactId: contact.id });
    const done = await executionWhen(s.api, workflow.id, started.id, (e) => FINISHED.includes(e.status));
    expect(done.status).toBe('completed');
    expect(done.steps.map((h) => [h.type, h.status])).toEqual([
      ['UPDATE_CONTACT', 'completed'],
      ['UPDATE_CONTACT', 'completed'],
    ]);
    const after = await getContact(s.api, contact.id);
    expect(after).toMatchObject({ email, subscribed: false, data: { keep: 'k', blank: 'b', added: 5, keep2: 'new' } });
    expect(Object.keys(after.data).sort()).toEqual(['added', 'blank', 'keep', 'keep2']);

    const unsubscribed = (await eventsNamed(s.api, 'contact.unsubscribed')).filter((e) => e.contactId === contact.id);
    expect(unsubscribed).toHaveLength(1);
    expect(unsubscribed[0]!.data).toEqual({ source: 'workflow' });
    const followed = await finishedFor(s.api, follower.workflow.id, contact.id);
    expect(followed.context.event).toMatchObject({
      id: unsubscribed[0]!.id,
      name: 'contact.unsubscribed',
      data: { source: 'workflow' },
    });
  });
});

describe('WEBHOOK', () => {
  it('sends the default payload, signed the Standard Webhooks way', async () => {
    const s = await setup('hook-default');
    const { workflow, steps } = await buildWorkflow(s.api, { hook: webhook({ url: `${hooks.url}/default` }) }, []);
    const other = await buildWorkflow(s.api, { hook: webhook({ url: `${hooks.url}/unused` }) }, []);
    const contact = await s.contact(rcpt('hook'), { plan: 'pro' });
    const started = await startManually(s.api, workflow.id, { contactId: contact.id, context: { orderId: 'A-1' } });

    const done = await executionWhen(s.api, workflow.id, started.id, (e) => FINISHED.includes(e.status));
    expect(done.status).toBe('completed');
    expect(done.steps).toEqual([
      expect.objectContaining({
        type: 'WEBHOOK',
        stepId: steps.hook.id,
        status: 'completed',
        output: { status: 200 },
        error: null,
      }),
    ]);
    const received = hooks.to('/default');
    expect(received).toHaveLength(1);
    const r = received[0]!;
    expect(r.method).toBe('POST');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['webhook-id']).toEqual(expect.any(String));
    expect(r.headers['webhook-id']!.length).toBeGreaterThan(0);
    expect(r.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(signatureValid(workflow.signingSecret, r)).toBe(true);
    expect(signatureValid(other.workflow.signingSecret, r)).toBe(false);
    expect(signatureValid(workflow.signingSecret, { ...r, body: r.body.replace('A-1', 'A-2') })).toBe(false);
    expect(JSON.parse(r.body)).toEqual({
      type: 'workflow.webhook',
      workflowId: workflow.id,
      executionId: started.id,
      stepId: steps.hook.id,
      contact: { id: contact.id, email: contact.email, subscribed: true, data: { plan: 'pro' } },
      context: { orderId: 'A-1' },
      timestamp: expect.any(String),
    });
  });

  it('sends a Liquid-rendered body with its method and headers', async () => {
    const s = await setup('hook-liquid');
    const { workflow } = await buildWorkflow(
      s.api,
      {
        hook: webhook({
          url: `${hooks.url}/liquid?source=test`,
          method: 'PUT',
          headers: { 'X-Custom': 'abc' },
          body: {
            greeting: 'Hi {{ data.name }}',
            email: '{{ email }}',
            order: '{{ context.orderId }}',
            list: ['{{ data.plan ?? "free" }}', 5, true, null],
          },
        }),
      },
      [],
    );
    const contact = await s.contact(rcpt('liquid'), { name: 'Ada' });
    const started = await startManually(s.api, workflow.id, { contactId: contact.id, context: { orderId: 'Z-9' } });
    expect((await executionWhen(s.api, workflow.id, started.id, (e) => FINISHED.includes(e.status))).status).toBe(
      'completed',
    );
    const [r] = hooks.to('/liquid?source=test');
    expect(r).toBeDefined();
    expect(r!.method).toBe('PUT');
    expect(r!.headers['x-custom']).toBe('abc');
    expect(JSON.parse(r!.body)).toEqual({
      greeting: 'Hi Ada',
      email: contact.email,
      order: 'Z-9',
      list: ['free', 5, true, null],
    });
    expect(signatureValid(workflow.signingSecret, r!)).toBe(true);

    // A GET carries no body; its signature covers the empty body.
    const get = await buildWorkflow(s.api, { hook: webhook({ url: `${hooks.url}/get`, method: 'GET' }) }, []);
    const fetched = await startManually(s.api, get.workflow.id, { contactId: contact.id });
    expect((await executionWhen(s.api, get.workflow.id, fetched.id, (e) => FINISHED.includes(e.status))).status).toBe(
      'completed',
    );
    const [g] = hooks.to('/get');
    expect(g).toMatchObject({ method: 'GET', body: '' });
    expect(g!.headers['content-type']).toBeUndefined();
    expect(signatureValid(get.workflow.signingSecret, g!)).toBe(true);
  });

  /** Starts, for a new contact, a workflow whose webhook to `path` (answering `status`) precedes an UPDATE_CONTACT. */
  async function startHookThenUpdate(tag: string, path: string, status: number) {
    const s = await setup(tag);
    const { workflow } = await buildWorkflow(
      s.api,
      { hook: webhook({ url: `${hooks.url}/${path}` }), after: updateContact({ data: { hooked: true } }) },
      [['hook', 'after']],
    );
    hooks.answer(`/${path}`, status);
    const contact = await s.contact(rcpt(path));
    const started = await startManually(s.api, workflow.id, { contactId: contact.id });
    return { s, workflow, contact, started };
  }

  it('retries a 5xx with the same webhook-id and completes', async () => {
    const { s, workflow, contact, started } = await startHookThenUpdate('hook-retry', 'flaky', 500);
    const retrying = await executionWhen(s.api, workflow.id, started.id, (e) => e.lastError !== null);
    expect(retrying).toMatchObject({ status: 'running', steps: [] });
    expect(retrying.lastError).toContain('500');
    const done = await executionWhen(s.api, workflow.id, started.id, (e) => FINISHED.includes(e.status), 45_000);
    expect(done.status).toBe('completed');
    expect(done.lastError).toBeNull();
    expect(done.steps.map((h) => [h.type, h.status, h.output])).toEqual([
      ['WEBHOOK', 'completed', { status: 200 }],
      ['UPDATE_CONTACT', 'completed', null],
    ]);
    const received = hooks.to('/flaky');
    expect(received).toHaveLength(2);
    expect(received[1]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
    const withoutTime = (r: HookRequest) => ({ ...JSON.parse(r.body), timestamp: undefined });
    expect(withoutTime(received[1]!)).toEqual(withoutTime(received[0]!));
    expect(withoutTime(received[0]!)).toMatchObject({ type: 'workflow.webhook', executionId: started.id });
    expect(received.every((r) => signatureValid(workflow.signingSecret, r))).toBe(true);
    expect((await getContact(s.api, contact.id)).data).toEqual({ hooked: true });
  }, 60_000);

  it('fails the execution on a 4xx, without retrying', async () => {
    const { s, workflow, contact, started } = await startHookThenUpdate('hook-refused', 'refused', 400);
    const done = await executionWhen(s.api, workflow.id, started.id, (e) => FINISHED.includes(e.status));
    expect(done.status).toBe('failed');
    expect(done.lastError).toContain('answered 400');
    expect(done.steps).toEqual([
      expect.objectContaining({ type: 'WEBHOOK', status: 'failed', error: done.lastError, output: null }),
    ]);
    expect(hooks.to('/refused')).toHaveLength(1);
    expect((await getContact(s.api, contact.id)).data).toEqual({});

    // A redirect is an answer like any other: not followed, and final.
    const moved = await buildWorkflow(s.api, { hook: webhook({ url: `${hooks.url}/moved` }) }, []);
    hooks.answer('/moved', 302);
    const redirected = await startManually(s.api, moved.workflow.id, { contactId: contact.id });
    const stopped = await executionWhen(s.api, moved.workflow.id, redirected.id, (e) => FINISHED.includes(e.status));
    expect(stopped.status).toBe('failed');
    expect(stopped.lastError).toContain('answered 302');
    expect(hooks.to('/moved')).toHaveLength(1);
    expect(hooks.to('/redirected')).toEqual([]);
  });

  describe('on a server that does not allow private networks', () => {
    const strict = useTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });

    it('refuses loopback addresses, by IP or by name', async () => {
      const project = await strict.project('wf-strict');
      const contact = await project.api.post('/contacts', { email: rcpt('strict') });
      expect(contact.status).toBe(201);
      const port = new URL(hooks.url).port;
      for (const url of [`http://127.0.0.1:${port}/private-ip`, `http://localhost:${port}/private-name`]) {
        const { workflow } = await buildWorkflow(project.api, { hook: webhook({ url }) }, []);
        const started = await startManually(project.api, workflow.id, { contactId: contact.body.id });
        const done = await executionWhen(project.api, workflow.id, started.id, (e) => FINISHED.includes(e.status));
        expect(done.status, url).toBe('failed');
        expect(done.lastError).toMatch(/private/);
        expect(done.steps[0]).toMatchObject({ type: 'WEBHOOK', status: 'failed' });
      }
      expect(hooks.requests.filter((r) => r.url.startsWith('/private'))).toEqual([]);
    });
  });
});

describe('cancelling and listing executions', () => {
  it('cancels a waiting execution, which then never proceeds; a finished one is a 409', async () => {
    const s = await setup('cancel');
    const { workflow, steps } = await buildWorkflow(
      s.api,
      { wait: waitFor('go', 1, 'hours'), proceed: updateContact({ data: { proceeded: true } }) },
      [['wait', 'proceed', 'arrived']],
    );
    const a = await s.contact(rcpt('cancelled'));
    const b = await s.contact(rcpt('control'));
    const ea = await startManually(s.api, workflow.id, { contactId: a.id });
    const eb = await startManually(s.api, workflow.id, { contactId: b.id });
    for (const e of [ea, eb])
      await executionWhen(s.api, workflow.id, e.id, (x) => x.status === 'waiting' && x.currentStepId === steps.wait.id);

    const res = await s.api.delete(`/workflows/${workflow.id}/executions/${ea.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: ea.id,
      status: 'cancelled',
      waitingFor: null,
      finishedAt: expect.any(String),
    });
    expect(await getExecution(s.api, workflow.id, ea.id)).toMatchObject({ status: 'cancelled', steps: [] });

    // The awaited event comes for both: only the control moves on.
    await s.track(a.email, 'go');
    await s.track(b.email, 'go');
    const control = await executionWhen(s.api, workflow.id, eb.id, (e) => FINISHED.includes(e.status));
    expect(control.status).toBe('completed');
    expect(await getExecution(s.api, workflow.id, ea.id)).toMatchObject({ status: 'cancelled', steps: [] });
    expect((await getContact(s.api, a.id)).data).toEqual({});
    expect((await getContact(s.api, b.id)).data).toEqual({ proceeded: true });

    expectError(await s.api.delete(`/workflows/${workflow.id}/executions/${eb.id}`), 409, 'EXECUTION_FINISHED');
    expectError(await s.api.delete(`/workflows/${workflow.id}/executions/${ea.id}`), 409, 'EXECUTION_FINISHED');
    expectError(await s.api.delete(`/workflows/${workflow.id}/executions/${UNKNOWN_ID}`), 404, 'NOT_FOUND');
    // An execution is reached only through its own workflow.
    const elsewhere = await buildWorkflow(s.api, { end: exit() }, []);
    expectError(await s.api.get(`/workflows/${elsewhere.workflow.id}/executions/${ea.id}`), 404, 'NOT_FOUND');
  });

  it('refuses to delete a busy step or workflow; cancel-all clears the way', async () => {
    const s = await setup('cancel-all');
    const { workflow, steps } = await buildWorkflow(s.api, { pause: delay(1, 'hours'), end: exit() }, [
      ['pause', 'end'],
    ]);
    const started: Execution[] = [];
    for (let i = 0; i < 3; i++)
      started.push(await startManually(s.api, workflow.id, { contactId: (await s.contact(rcpt('busy'))).id }));
    for (const e of started)
      await executionWhen(
        s.api,
        workflow.id,
        e.id,
        (x) => x.status === 'waiting' && x.currentStepId === steps.pause.id,
      );

    expectError(await s.api.delete(`/workflows/${workflow.id}/steps/${steps.pause.id}`), 409, 'STEP_IN_USE');
    const refused = await s.api.delete(`/workflows/${workflow.id}`);
    expectError(refused, 409, 'WORKFLOW_HAS_ACTIVE_EXECUTIONS');
    expect(refused.body.error.details).toEqual({ active: 3 });
    expect((await s.api.get(`/workflows/${workflow.id}`)).body.executions).toEqual({ waiting: 3 });

    const all = await s.api.post(`/workflows/${workflow.id}/executions/cancel-all`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ workflowId: workflow.id, cancelled: 3 });
    expect((await s.api.post(`/workflows/${workflow.id}/executions/cancel-all`)).body).toEqual({
      workflowId: workflow.id,
      cancelled: 0,
    });
    expect((await listExecutions(s.api, workflow.id, 'status=cancelled')).total).toBe(3);
    expect((await s.api.get(`/workflows/${workflow.id}`)).body.executions).toEqual({ cancelled: 3 });

    expect((await s.api.delete(`/workflows/${workflow.id}`)).status).toBe(204);
    expectError(await s.api.get(`/workflows/${workflow.id}/executions/${started[0]!.id}`), 404, 'NOT_FOUND');
  });

  it('lists executions newest first, filtered by status, with cursor pagination', async () => {
    const s = await setup('list');
    const { workflow } = await buildWorkflow(s.api, { pause: delay(1, 'hours') }, []);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await startManually(s.api, workflow.id, { contactId: (await s.contact(rcpt('listed'))).id })).id);
    for (const id of ids.slice(0, 2))
      expect((await s.api.delete(`/workflows/${workflow.id}/executions/${id}`)).status).toBe(200);

    const seen: Execution[] = [];
    let page = await listExecutions(s.api, workflow.id, 'limit=2');
    expect(page).toMatchObject({ hasMore: true, total: 5 });
    expect(page.data).toHaveLength(2);
    seen.push(...page.data);
    page = await listExecutions(s.api, workflow.id, `limit=2&cursor=${page.cursor}`);
    expect(page).toMatchObject({ hasMore: true, total: 0 });
    seen.push(...page.data);
    page = await listExecutions(s.api, workflow.id, `limit=2&cursor=${page.cursor}`);
    expect(page).toMatchObject({ hasMore: false, cursor: null, total: 0 });
    expect(page.data).toHaveLength(1);
    seen.push(...page.data);
    expect(seen.map((e) => e.id).sort()).toEqual([...ids].sort());
    const starts = seen.map((e) => Date.parse(e.startedAt));
    expect(starts).toEqual([...starts].sort((x, y) => y - x));
    expect(seen.at(-1)!.id).toBe(ids[0]);

    const cancelled = await listExecutions(s.api, workflow.id, 'status=cancelled');
    expect(cancelled.total).toBe(2);
    expect(cancelled.data.map((e) => e.id).sort()).toEqual(ids.slice(0, 2).sort());
    await eventually(async () =>
      (await listExecutions(s.api, workflow.id, 'status=waiting')).total === 3 ? true : undefined,
    );
    expect((await listExecutions(s.api, workflow.id, 'status=completed')).total).toBe(0);
    expectError(await s.api.get(`/workflows/${workflow.id}/executions?status=paused`), 422, 'VALIDATION_ERROR');
    expectError(await s.api.get(`/workflows/${workflow.id}/executions?cursor=garbage`), 422, 'VALIDATION_ERROR');
  });
});

describe('executions claimed by another process', () => {
  // Process keys as a worker's advisory lock carries them (see ownerGone): one no session holds,
  // and one this test's session holds, standing for a worker that is alive.
  const GONE = 8_000_000_001n;
  const ALIVE = 8_000_000_002n;

  it('are taken over at once when that process is gone, and not while it lives', async () => {
    const s = await setup('owners');
    const { workflow, steps } = await buildWorkflow(s.api, { pause: delay(1, 'hours') }, []);
    const [gone, alive] = [
      await startManually(s.api, workflow.id, { contactId: (await s.contact(rcpt('owners'))).id }),
      await startManually(s.api, workflow.id, { contactId: (await s.contact(rcpt('owners'))).id }),
    ];
    for (const e of [gone, alive]) await executionWhen(s.api, workflow.id, e.id, (x) => x.status === 'waiting');

    const session = new pg.Client({ connectionString: mail.server.service.ctx.config.databaseUrl });
    await session.connect();
    try {
      await session.query('select pg_advisory_lock($1::bigint)', [String(ALIVE)]);
      // Both delays are over, and each execution is leased for another hour to its process.
      for (const [e, owner] of [
        [gone, GONE],
        [alive, ALIVE],
      ] as const) {
        await run(
          mail.server.service.ctx.db,
          sql`update workflow_executions set next_run_at = now(), locked_until = now() + interval '1 hour',
            locked_by = ${String(owner)}::bigint where id = ${e.id}`,
        );
      }
      const done = await executionWhen(s.api, workflow.id, gone.id, (x) => FINISHED.includes(x.status));
      expect(done.status).toBe('completed');
      expect(done.steps.map((h) => [h.type, h.stepId])).toEqual([['DELAY', steps.pause.id]]);
      // Claimed in the same rounds, the living process's execution stayed where it was.
      const held = await getExecution(s.api, workflow.id, alive.id);
      expect(held.status).toBe('waiting');
      expect(held.steps).toEqual([]);
    } finally {
      await session.end();
    }
    // Its process gone, the execution is taken over too.
    const later = await executionWhen(s.api, workflow.id, alive.id, (x) => FINISHED.includes(x.status));
    expect(later.steps.map((h) => [h.type, h.stepId])).toEqual([['DELAY', steps.pause.id]]);
  });
});

// Worker processes share a database only on PostgreSQL.
describe('two workers on one database', () => {
  const CONTACTS = 200;
  const DOMAIN = 'workers.wfengine.test';
  let db: TestDatabase;
  const children: ChildServer[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const child of children) await child.kill();
    await db?.drop();
  });

  it('run each step of each execution once', async () => {
    const env = {
      ...db.env,
      SMTP_URL: mail.sink.url,
      DNS_SERVERS: mail.dns.address,
      DELIVERY_RETRY_BASE_SECONDS: '0.2',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000',
    };
    const api = await spawnService(env, ['serve']);
    children.push(api);
    const keys = printedKeys(api.output());
    const admin = client(api.url, keys.secretKey);
    // A worker serves no HTTP: its start is awaited through the API process's health, then its log.
    const port = Number(new URL(api.url).port);
    const workers = await Promise.all([
      spawnService({ ...env, LOG_LEVEL: 'info' }, ['worker'], port),
      spawnService({ ...env, LOG_LEVEL: 'info' }, ['worker'], port),
    ]);
    children.push(...workers);
    for (const worker of workers)
      await eventually(async () => (worker.output().includes('service ready') ? true : undefined), 45_000);

    await verifiedDomain(admin, mail.dns, DOMAIN);
    const templateId = await numberedTemplate(admin, `hi@${DOMAIN}`);
    const { workflow } = await buildWorkflow(
      admin,
      { first: sendEmail(templateId), pause: delay(1), second: sendEmail(templateId) },
      [
        ['first', 'pause'],
        ['pause', 'second'],
      ],
      { event: 'joined', enable: true },
    );

    const emails = Array.from({ length: CONTACTS }, (_, i) => `w${i}@workers.rcpt.test`);
    await trackEach(admin, keys.publicKey, emails, 'joined', 10);

    await eventually(
      async () => {
        // One read gives the count of each status; the failed ones' errors are read only when there are some.
        const counts: Record<string, number> = (await expectBody(admin.get(`/workflows/${workflow.id}`))).executions;
        if (counts.completed === CONTACTS) return true;
        const failed = counts.failed ? (await listExecutions(admin, workflow.id, 'status=failed&limit=3')).data : [];
        throw new Error(`executions: ${JSON.stringify(counts)}; failed: ${failed.map((e) => e.lastError).join('; ')}`);
      },
      120_000,
      250,
    );
    expect((await listExecutions(admin, workflow.id, 'limit=1')).total).toBe(CONTACTS);

    // Every execution took its three steps once, each SEND_EMAIL making its own email.
    const emailIds: string[] = [];
    let cursor: string | null = null;
    do {
      const page: CursorPage<Execution> = await listExecutions(
        admin,
        workflow.id,
        `limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      for (const e of page.data) {
        const detail = await getExecution(admin, workflow.id, e.id);
        expect(detail.steps.map((h) => h.type)).toEqual(['SEND_EMAIL', 'DELAY', 'SEND_EMAIL']);
        emailIds.push(emailIdOf(detail.steps[0]!), emailIdOf(detail.steps[2]!));
      }
      cursor = page.cursor;
    } while (cursor);
    expect(new Set(emailIds).size).toBe(2 * CONTACTS);

    // Each email reached the sink once; each contact got exactly two messages.
    await eventually(
      async () => (emailIds.every((id) => sinkMessagesFor(mail.sink, id).length > 0) ? true : undefined),
      120_000,
      250,
    );
    expect(emailIds.filter((id) => sinkMessagesFor(mail.sink, id).length !== 1)).toEqual([]);
    const wrong = emails.filter((e) => sinkMessagesTo(mail.sink, e).length !== 2);
    expect(wrong).toEqual([]);
    const ids = new Set(emails.flatMap((e) => sinkMessagesTo(mail.sink, e).map((m) => messageIdOf(m.raw))));
    expect(ids.size).toBe(2 * CONTACTS);
    // Both workers are still up.
    expect(workers.every((w) => w.process.exitCode === null)).toBe(true);
  }, 300_000);
});
