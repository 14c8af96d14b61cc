import { beforeAll, describe, expect, it } from 'vitest';
import type { Workflow, WorkflowDetail, WorkflowStep, WorkflowTransition } from '../../src/api.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { UNKNOWN_ID, UUID } from '../support/sending.js';
import type { ApiResponse, Client, TestProject } from '../support/server.js';
import { expectBody, expectErrorEnvelope } from '../support/server.js';
import { condition, type Edge, exit, type StepSpec, sendEmail, updateContact } from '../support/workflows.js';

// ---------------------------------------------------------------------------------------------
// Types and helpers

interface Built<K extends string> {
  workflow: Workflow;
  steps: Record<K, WorkflowStep>;
  transitions: WorkflowTransition[];
}

const WORKFLOW_KEYS = [
  'allowReentry',
  'createdAt',
  'description',
  'enabled',
  'id',
  'name',
  'projectId',
  'signingSecret',
  'triggerConfig',
  'triggerType',
  'updatedAt',
];
const DOMAIN = 'main.wfapi.test';
const OTHER_DOMAIN = 'other.wfapi.test';

// Step builders: valid configs of each type.
const delay = (amount = 1, unit = 'hours'): StepSpec => ({ type: 'DELAY', config: { amount, unit } });
const waitFor = (event: string, amount = 1, unit = 'days'): StepSpec => ({
  type: 'WAIT_FOR_EVENT',
  config: { event, timeout: { amount, unit } },
});
const webhook = (url = 'https://hooks.example.com/in'): StepSpec => ({ type: 'WEBHOOK', config: { url } });

let main: TestProject;
let other: TestProject;
let templateId: string;
let otherTemplateId: string;

const mail = useMailServer({
  DELIVERY_RETRY_BASE_SECONDS: '0.2',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
});

beforeAll(async () => {
  main = await projectWithDomain(mail, 'workflows-api-main', DOMAIN);
  other = await projectWithDomain(mail, 'workflows-api-other', OTHER_DOMAIN);
  templateId = (
    await created(main.api.post('/templates', { name: 'Main', subject: 'Hi', body: '<p>Hi</p>', from: `hi@${DOMAIN}` }))
  ).id;
  otherTemplateId = (
    await created(
      other.api.post('/templates', { name: 'Other', subject: 'Hi', body: '<p>Hi</p>', from: `hi@${OTHER_DOMAIN}` }),
    )
  ).id;
});

/** Awaits a request that must answer 201 and returns its body. */
async function created<T = any>(request: Promise<ApiResponse<T>>): Promise<T> {
  return expectBody(request, 201);
}

/** A 422 VALIDATION_ERROR naming `field` with `code` (and nothing but validation errors). */
function expectFieldError(res: ApiResponse, field: string, code: string) {
  expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
  expect(res.body.error.errors, JSON.stringify(res.body.error.errors)).toEqual(
    expect.arrayContaining([expect.objectContaining({ field, code })]),
  );
}

let seq = 0;
async function createWorkflow(api: Client = main.api, body: Record<string, unknown> = {}): Promise<Workflow> {
  return created(api.post('/workflows', { name: `wf-${++seq}`, triggerConfig: { event: `evt-${seq}` }, ...body }));
}

async function getWorkflow(id: string, api: Client = main.api): Promise<WorkflowDetail> {
  return expectBody(api.get(`/workflows/${id}`));
}

/**
 * Creates a workflow, adds the named steps and the transitions between them (by step name), and
 * enables it when asked. Returns the workflow and its steps by name.
 */
async function buildWorkflow<K extends string>(
  api: Client,
  steps: Record<K, StepSpec>,
  transitions: Edge[] = [],
  options: { body?: Record<string, unknown>; enable?: boolean } = {},
): Promise<Built<K>> {
  const workflow = await createWorkflow(api, options.body);
  const byName = {} as Record<K, WorkflowStep>;
  for (const [key, spec] of Object.entries(steps) as [K, StepSpec][]) {
    byName[key] = await created(api.post(`/workflows/${workflow.id}/steps`, { name: key, ...spec }));
  }
  const made: WorkflowTransition[] = [];
  for (const [from, to, branch] of transitions) {
    made.push(
      await created(
        api.post(`/workflows/${workflow.id}/transitions`, {
          fromStepId: byName[from as K].id,
          toStepId: byName[to as K].id,
          ...(branch ? { branch } : {}),
        }),
      ),
    );
  }
  if (options.enable) {
    const res = await api.patch(`/workflows/${workflow.id}`, { enabled: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { workflow: res.body, steps: byName, transitions: made };
  }
  return { workflow, steps: byName, transitions: made };
}

const addStep = (workflowId: string, body: unknown, api: Client = main.api) =>
  api.post(`/workflows/${workflowId}/steps`, body);
const addTransition = (
  workflowId: string,
  fromStepId: string,
  toStepId: string,
  branch?: string | null,
  api: Client = main.api,
) =>
  api.post(`/workflows/${workflowId}/transitions`, {
    fromStepId,
    toStepId,
    ...(branch !== undefined ? { branch } : {}),
  });
const enable = (workflowId: string) => main.api.patch(`/workflows/${workflowId}`, { enabled: true });

/** The edges of a workflow as `from>to:branch` by step name, sorted. */
function edges(detail: WorkflowDetail): string[] {
  const name = (id: string) => detail.steps.find((s) => s.id === id)?.name ?? id;
  return detail.transitions
    .map((t) => `${name(t.fromStepId)}>${name(t.toStepId)}${t.branch ? `:${t.branch}` : ''}`)
    .sort();
}

/** The fault codes of a 422 WORKFLOW_INVALID, checked in both `errors` and `details.faults`. */
function faultCodes(res: ApiResponse): string[] {
  expectErrorEnvelope(res, 422, 'WORKFLOW_INVALID');
  const errors = res.body.error.errors as { field: string; code: string }[];
  expect(errors.every((e) => e.field === 'graph')).toBe(true);
  const faults = res.body.error.details.faults as { code: string }[];
  expect(faults.map((f) => f.code)).toEqual(errors.map((e) => e.code));
  return faults.map((f) => f.code).sort();
}

/** Enabling is refused for exactly one fault, `code`, which names these steps. */
async function expectOneFault(workflowId: string, code: string, stepIds: string[]): Promise<void> {
  const res = await enable(workflowId);
  expect(faultCodes(res)).toEqual([code]);
  expect(res.body.error.details.faults[0].stepIds.sort()).toEqual([...stepIds].sort());
}

// ---------------------------------------------------------------------------------------------

describe('workflow records', () => {
  it('creates a workflow as EVENT and disabled whatever the body says, with a signing secret', async () => {
    const before = Date.now();
    const res = await main.api.post('/workflows', {
      name: 'Onboarding',
      description: 'Welcome new users',
      triggerConfig: { event: 'signed_up' },
      allowReentry: true,
      enabled: true,
      triggerType: 'MANUAL',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const w: Workflow = res.body;
    expect(Object.keys(w).sort()).toEqual(WORKFLOW_KEYS);
    expect(w).toMatchObject({
      name: 'Onboarding',
      description: 'Welcome new users',
      triggerType: 'EVENT',
      triggerConfig: { event: 'signed_up' },
      enabled: false,
      allowReentry: true,
      projectId: main.id,
    });
    expect(w.id).toMatch(UUID);
    expect(w.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(w.signingSecret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(Date.parse(w.createdAt)).toBeGreaterThanOrEqual(before - 1000);

    // Defaults: no description, no event yet, no re-entry; each workflow has its own secret.
    const bare = await created<Workflow>(main.api.post('/workflows', { name: 'Bare' }));
    expect(bare).toMatchObject({
      description: null,
      triggerType: 'EVENT',
      triggerConfig: {},
      enabled: false,
      allowReentry: false,
    });
    expect(bare.signingSecret).not.toBe(w.signingSecret);
  });

  it('refuses an invalid create body with field errors', async () => {
    expectFieldError(await main.api.post('/workflows', {}), 'name', 'invalid_type');
    expectFieldError(await main.api.post('/workflows', { name: '   ' }), 'name', 'too_small');
    expectFieldError(
      await main.api.post('/workflows', { name: 'x', triggerConfig: { event: 'a', extra: 1 } }),
      'triggerConfig',
      'unrecognized_keys',
    );
    expectFieldError(
      await main.api.post('/workflows', { name: 'x', allowReentry: 'yes' }),
      'allowReentry',
      'invalid_type',
    );
  });

  it('lists the project workflows as a bare array, newest first', async () => {
    const project = await mail.server.project('workflows-list');
    const first = await createWorkflow(project.api);
    await new Promise((r) => setTimeout(r, 5));
    const second = await createWorkflow(project.api);
    const res = await project.api.get('/workflows');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((w: Workflow) => w.id)).toEqual([second.id, first.id]);
    expect(res.body[0]).toEqual({ ...second, activeExecutions: 0 });
    expect((await other.api.get('/workflows')).body.map((w: Workflow) => w.id)).not.toContain(first.id);
  });

  it('gets a workflow with its steps, transitions and execution counts', async () => {
    const { workflow, steps, transitions } = await buildWorkflow(main.api, { first: delay(), second: exit() }, [
      ['first', 'second'],
    ]);
    const detail = await getWorkflow(workflow.id);
    expect(detail).toMatchObject({ ...workflow, updatedAt: expect.any(String) });
    expect(detail.steps).toEqual([steps.first, steps.second]);
    expect(detail.transitions).toEqual(transitions);
    expect(detail.transitions[0]).toMatchObject({
      workflowId: workflow.id,
      fromStepId: steps.first.id,
      toStepId: steps.second.id,
      branch: null,
    });
    expect(detail.executions).toEqual({});

    // An execution shows up in the counts by status.
    const contact = await created(main.api.post('/contacts', { email: 'counts@wfapi.test' }));
    await created(main.api.post(`/workflows/${workflow.id}/executions`, { contactId: contact.id }));
    const counted = await getWorkflow(workflow.id);
    expect(Object.values(counted.executions).reduce((a, b) => a + b, 0)).toBe(1);
    expect(Object.keys(counted.executions).every((s) => ['running', 'waiting'].includes(s))).toBe(true);
    expect((await main.api.post(`/workflows/${workflow.id}/executions/cancel-all`)).status).toBe(200);
    expect((await getWorkflow(workflow.id)).executions).toEqual({ cancelled: 1 });
  });

  it('patches name, description, trigger and re-entry; checks the trigger config against the type', async () => {
    const w = await createWorkflow(main.api, { description: 'old' });
    let res = await main.api.patch(`/workflows/${w.id}`, { name: 'Renamed', description: null, allowReentry: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: w.id,
      name: 'Renamed',
      description: null,
      allowReentry: true,
      triggerType: 'EVENT',
      triggerConfig: w.triggerConfig,
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(w.updatedAt));

    res = await main.api.patch(`/workflows/${w.id}`, { triggerConfig: { event: 'order.placed' } });
    expect(res.body.triggerConfig).toEqual({ event: 'order.placed' });

    // A config that does not fit the type the workflow will have.
    expectFieldError(
      await main.api.patch(`/workflows/${w.id}`, { triggerType: 'MANUAL', triggerConfig: { event: 'x' } }),
      'triggerConfig',
      'unrecognized_keys',
    );
    expectFieldError(
      await main.api.patch(`/workflows/${w.id}`, { triggerConfig: { event: '' } }),
      'triggerConfig.event',
      'too_small',
    );
    expectFieldError(
      await main.api.patch(`/workflows/${w.id}`, { triggerConfig: {} }),
      'triggerConfig.event',
      'invalid_type',
    );
    expectFieldError(
      await main.api.patch(`/workflows/${w.id}`, { triggerType: 'CRON' }),
      'triggerType',
      'invalid_enum_value',
    );
    expectFieldError(await main.api.patch(`/workflows/${w.id}`, { name: '' }), 'name', 'too_small');
    expect((await getWorkflow(w.id)).triggerConfig).toEqual({ event: 'order.placed' });

    // Changing the type without a config clears the config.
    res = await main.api.patch(`/workflows/${w.id}`, { triggerType: 'MANUAL' });
    expect(res.body).toMatchObject({ triggerType: 'MANUAL', triggerConfig: {} });
    res = await main.api.patch(`/workflows/${w.id}`, { triggerType: 'EVENT', triggerConfig: { event: 'back' } });
    expect(res.body).toMatchObject({ triggerType: 'EVENT', triggerConfig: { event: 'back' } });
    expect(await getWorkflow(w.id)).toMatchObject({
      name: 'Renamed',
      description: null,
      allowReentry: true,
      triggerType: 'EVENT',
      triggerConfig: { event: 'back' },
    });
  });

  it('deletes a workflow with its steps', async () => {
    const { workflow, steps } = await buildWorkflow(main.api, { only: exit() });
    const res = await main.api.delete(`/workflows/${workflow.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectErrorEnvelope(await main.api.get(`/workflows/${workflow.id}`), 404, 'NOT_FOUND');
    expectErrorEnvelope(
      await main.api.patch(`/workflows/${workflow.id}/steps/${steps.only.id}`, { name: 'x' }),
      404,
      'NOT_FOUND',
    );
    expectErrorEnvelope(await main.api.delete(`/workflows/${workflow.id}`), 404, 'NOT_FOUND');
    expect((await main.api.get('/workflows')).body.map((w: Workflow) => w.id)).not.toContain(workflow.id);
  });

  it('answers 404 for unknown ids and 422 for ids that are not uuids', async () => {
    const { workflow, steps } = await buildWorkflow(main.api, { only: exit() });
    for (const [method, path, body] of [
      ['GET', `/workflows/${UNKNOWN_ID}`],
      ['PATCH', `/workflows/${UNKNOWN_ID}`, { name: 'x' }],
      ['DELETE', `/workflows/${UNKNOWN_ID}`],
      ['POST', `/workflows/${UNKNOWN_ID}/steps`, exit()],
      ['PATCH', `/workflows/${workflow.id}/steps/${UNKNOWN_ID}`, { name: 'x' }],
      ['DELETE', `/workflows/${workflow.id}/steps/${UNKNOWN_ID}`],
      ['POST', `/workflows/${UNKNOWN_ID}/transitions`, { fromStepId: steps.only.id, toStepId: steps.only.id }],
      ['DELETE', `/workflows/${workflow.id}/transitions/${UNKNOWN_ID}`],
      ['GET', `/workflows/${UNKNOWN_ID}/executions`],
      ['GET', `/workflows/${workflow.id}/executions/${UNKNOWN_ID}`],
      ['DELETE', `/workflows/${workflow.id}/executions/${UNKNOWN_ID}`],
      ['POST', `/workflows/${UNKNOWN_ID}/executions/cancel-all`],
    ] as const) {
      expectErrorEnvelope(await main.api.request(method, path, { body }), 404, 'NOT_FOUND');
    }
    expectFieldError(await main.api.get('/workflows/not-a-uuid'), 'id', 'invalid_string');
    expectFieldError(await main.api.delete('/workflows/123'), 'id', 'invalid_string');
    expectFieldError(
      await main.api.patch(`/workflows/${workflow.id}/steps/nope`, { name: 'x' }),
      'stepId',
      'invalid_string',
    );
    expectFieldError(
      await main.api.delete(`/workflows/${workflow.id}/transitions/nope`),
      'transitionId',
      'invalid_string',
    );
    expectFieldError(await main.api.get(`/workflows/${workflow.id}/executions/nope`), 'executionId', 'invalid_string');
  });

  it("keeps another project's workflows out of reach everywhere", async () => {
    const theirs = await buildWorkflow(other.api, { a: delay(), b: exit() }, [['a', 'b']]);
    const id = theirs.workflow.id;
    const contact = await created(main.api.post('/contacts', { email: 'isolation@wfapi.test' }));
    for (const [method, path, body] of [
      ['GET', `/workflows/${id}`],
      ['PATCH', `/workflows/${id}`, { name: 'stolen', enabled: true }],
      ['POST', `/workflows/${id}/steps`, exit()],
      ['PATCH', `/workflows/${id}/steps/${theirs.steps.a.id}`, { config: { amount: 2, unit: 'hours' } }],
      ['DELETE', `/workflows/${id}/steps/${theirs.steps.a.id}?splice=true`],
      ['POST', `/workflows/${id}/transitions`, { fromStepId: theirs.steps.b.id, toStepId: theirs.steps.a.id }],
      ['DELETE', `/workflows/${id}/transitions/${theirs.transitions[0]!.id}`],
      ['POST', `/workflows/${id}/executions`, { contactId: contact.id }],
      ['GET', `/workflows/${id}/executions`],
      ['POST', `/workflows/${id}/executions/cancel-all`],
      ['DELETE', `/workflows/${id}`],
    ] as const) {
      expectErrorEnvelope(await main.api.request(method, path, { body }), 404, 'NOT_FOUND');
    }
    expect((await main.api.get('/workflows')).body.map((w: Workflow) => w.id)).not.toContain(id);
    // Untouched for its owner.
    const detail = await getWorkflow(id, other.api);
    expect(detail).toMatchObject({ name: theirs.workflow.name, enabled: false, executions: {} });
    expect(detail.steps.map((s) => s.config)).toEqual([{ amount: 1, unit: 'hours' }, {}]);
    expect(detail.transitions).toEqual(theirs.transitions);
  });

  it('refuses the public key', async () => {
    const res = await main.api.request('GET', '/workflows', { key: main.publicKey });
    expectErrorEnvelope(res, 401, 'INVALID_API_KEY');
  });
});

describe('steps', () => {
  it('adds a step of each type with a valid config', async () => {
    const w = await createWorkflow();
    const specs: StepSpec[] = [
      sendEmail(templateId),
      delay(3, 'days'),
      waitFor('paid', 2, 'hours'),
      condition(
        { field: 'data.plan', operator: 'equals', value: 'pro' },
        { field: 'context.orderId', operator: 'exists' },
      ),
      {
        type: 'WEBHOOK',
        config: {
          url: 'https://hooks.example.com/x',
          method: 'PUT',
          headers: { 'X-Token': 'abc' },
          body: { hello: '{{ email }}' },
        },
      },
      updateContact({ data: { stage: 'trial' }, subscribed: true }),
      exit(),
    ];
    for (const spec of specs) {
      const res = await addStep(w.id, { ...spec, name: `a ${spec.type}`, position: { x: 10, y: 20.5 } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({
        workflowId: w.id,
        type: spec.type,
        name: `a ${spec.type}`,
        position: { x: 10, y: 20.5 },
      });
      expect(res.body.id).toMatch(UUID);
    }
    const detail = await getWorkflow(w.id);
    expect(detail.steps.map((s) => s.type)).toEqual(specs.map((s) => s.type));
    const configs = Object.fromEntries(detail.steps.map((s) => [s.type, s.config]));
    expect(configs.SEND_EMAIL).toEqual({ templateId });
    expect(configs.DELAY).toEqual({ amount: 3, unit: 'days' });
    expect(configs.WAIT_FOR_EVENT).toEqual({ event: 'paid', timeout: { amount: 2, unit: 'hours' } });
    expect(configs.WEBHOOK).toEqual({
      url: 'https://hooks.example.com/x',
      method: 'PUT',
      headers: { 'X-Token': 'abc' },
      body: { hello: '{{ email }}' },
    });
    expect(configs.UPDATE_CONTACT).toEqual({ data: { stage: 'trial' }, subscribed: true });
    expect(configs.EXIT).toEqual({});

    // Defaults: a webhook is a POST without extra headers; EXIT needs no config; name and position are optional.
    const hook = await created<WorkflowStep>(addStep(w.id, webhook()));
    expect(hook).toMatchObject({
      name: null,
      position: null,
      config: { url: 'https://hooks.example.com/in', method: 'POST', headers: {} },
    });
    expect((await created<WorkflowStep>(addStep(w.id, { type: 'EXIT' }))).config).toEqual({});
  });

  it('refuses malformed configs with the field path and code', async () => {
    const w = await createWorkflow();
    const cases: [body: unknown, field: string, code: string][] = [
      [{ type: 'DELAY', config: { amount: 1, unit: 'hours', extra: true } }, 'config', 'unrecognized_keys'],
      [{ type: 'EXIT', config: { reason: 'x' } }, 'config', 'unrecognized_keys'],
      [{ type: 'DELAY', config: { amount: -1, unit: 'hours' } }, 'config.amount', 'too_small'],
      [{ type: 'DELAY', config: { amount: 0, unit: 'hours' } }, 'config.amount', 'too_small'],
      [{ type: 'DELAY', config: { amount: 1, unit: 'weeks' } }, 'config.unit', 'invalid_enum_value'],
      [{ type: 'DELAY', config: { amount: 367, unit: 'days' } }, 'config.amount', 'custom'],
      [{ type: 'DELAY' }, 'config', 'invalid_type'],
      [{ type: 'DELAY', config: {} }, 'config.amount', 'invalid_type'],
      [{ type: 'DELAY', config: { amount: 1, unit: 'days', until: { time: '09:00' } } }, 'config', 'unrecognized_keys'],
      [{ type: 'DELAY', config: { until: { time: '24:00' } } }, 'config.until.time', 'invalid_string'],
      [{ type: 'DELAY', config: { until: { time: '9:00' } } }, 'config.until.time', 'invalid_string'],
      [{ type: 'DELAY', config: { until: { time: '09:00', zone: 'UTC' } } }, 'config.until', 'unrecognized_keys'],
      [{ type: 'WAIT_FOR_EVENT', config: { event: 'paid' } }, 'config.timeout', 'invalid_type'],
      [
        { type: 'WAIT_FOR_EVENT', config: { event: '', timeout: { amount: 1, unit: 'days' } } },
        'config.event',
        'too_small',
      ],
      [
        { type: 'WAIT_FOR_EVENT', config: { event: 'paid', timeout: { amount: 1, unit: 'fortnights' } } },
        'config.timeout.unit',
        'invalid_enum_value',
      ],
      [
        { type: 'CONDITION', config: { condition: { logic: 'XOR', groups: [{ filters: [] }] } } },
        'config.condition.logic',
        'invalid_enum_value',
      ],
      [
        { type: 'CONDITION', config: { condition: { logic: 'AND', groups: [] } } },
        'config.condition.groups',
        'too_small',
      ],
      [
        {
          type: 'CONDITION',
          config: {
            condition: { logic: 'AND', groups: [{ filters: [{ field: 'plan', operator: 'equals', value: 'pro' }] }] },
          },
        },
        'config.condition.groups.0.filters.0.field',
        'invalid_field',
      ],
      [
        {
          type: 'CONDITION',
          config: {
            condition: {
              logic: 'AND',
              groups: [{ filters: [{ field: 'data.plan', operator: 'resembles', value: 'pro' }] }],
            },
          },
        },
        'config.condition.groups.0.filters.0.operator',
        'invalid_enum_value',
      ],
      [{ type: 'WEBHOOK', config: { url: 'ftp://files.example.com/x' } }, 'config.url', 'custom'],
      [{ type: 'WEBHOOK', config: { url: 'not a url' } }, 'config.url', 'invalid_string'],
      [
        { type: 'WEBHOOK', config: { url: 'https://h.example.com', headers: { 'webhook-signature': 'v1,forged' } } },
        'config.headers.webhook-signature',
        'reserved_header',
      ],
      [
        { type: 'WEBHOOK', config: { url: 'https://h.example.com', headers: { Host: 'evil.example.com' } } },
        'config.headers.Host',
        'reserved_header',
      ],
      [
        { type: 'WEBHOOK', config: { url: 'https://h.example.com', method: 'TRACE' } },
        'config.method',
        'invalid_enum_value',
      ],
      [
        { type: 'WEBHOOK', config: { url: 'https://h.example.com', headers: { 'X-Count': 5 } } },
        'config.headers.X-Count',
        'invalid_type',
      ],
      [
        { type: 'WEBHOOK', config: { url: 'https://h.example.com', headers: { 'X-Split': 'a\r\nInjected: 1' } } },
        'config.headers.X-Split',
        'invalid_string',
      ],
      [{ type: 'UPDATE_CONTACT', config: {} }, 'config', 'custom'],
      [{ type: 'UPDATE_CONTACT', config: { subscribed: 'no' } }, 'config.subscribed', 'invalid_type'],
      [{ type: 'SEND_EMAIL', config: { templateId: otherTemplateId } }, 'config.templateId', 'unknown_template'],
      [{ type: 'SEND_EMAIL', config: { templateId: UNKNOWN_ID } }, 'config.templateId', 'unknown_template'],
      [{ type: 'SEND_EMAIL', config: { templateId: 'abc' } }, 'config.templateId', 'invalid_string'],
      [{ type: 'SEND_EMAIL', config: {} }, 'config.templateId', 'invalid_type'],
      [{ type: 'TELEPORT', config: {} }, 'type', 'invalid_union_discriminator'],
      [{ type: 'EXIT', position: { x: 1 } }, 'position.y', 'invalid_type'],
    ];
    for (const [body, field, code] of cases) {
      const res = await addStep(w.id, body);
      expect(res.status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(422);
      expectFieldError(res, field, code);
    }
    expect((await getWorkflow(w.id)).steps).toEqual([]);
  });

  it("patches a step's name, position and config, checked against the step's type", async () => {
    const { workflow, steps } = await buildWorkflow(main.api, { pause: delay(), mail: sendEmail(templateId) }, [
      ['pause', 'mail'],
    ]);
    const res = await main.api.patch(`/workflows/${workflow.id}/steps/${steps.pause.id}`, {
      name: 'Pause',
      position: { x: 1, y: 2 },
      config: { amount: 2, unit: 'minutes' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: steps.pause.id,
      type: 'DELAY',
      name: 'Pause',
      position: { x: 1, y: 2 },
      config: { amount: 2, unit: 'minutes' },
    });

    // Another type's config is refused: the type never changes.
    expectFieldError(
      await main.api.patch(`/workflows/${workflow.id}/steps/${steps.pause.id}`, { config: { templateId } }),
      'config',
      'unrecognized_keys',
    );
    expectFieldError(
      await main.api.patch(`/workflows/${workflow.id}/steps/${steps.pause.id}`, {
        config: { amount: -5, unit: 'minutes' },
      }),
      'config.amount',
      'too_small',
    );
    expectFieldError(
      await main.api.patch(`/workflows/${workflow.id}/steps/${steps.mail.id}`, {
        config: { templateId: otherTemplateId },
      }),
      'config.templateId',
      'unknown_template',
    );
    // The type is not part of a patch: it never changes.
    expect(
      (await main.api.patch(`/workflows/${workflow.id}/steps/${steps.pause.id}`, { type: 'EXIT' })).body.type,
    ).toBe('DELAY');
    // A name-only patch keeps the config.
    const renamed = await main.api.patch(`/workflows/${workflow.id}/steps/${steps.pause.id}`, { name: null });
    expect(renamed.body).toMatchObject({
      name: null,
      type: 'DELAY',
      config: { amount: 2, unit: 'minutes' },
      position: { x: 1, y: 2 },
    });
    expect((await getWorkflow(workflow.id)).steps.find((s) => s.id === steps.pause.id)).toEqual(renamed.body);
  });

  it('refuses structural edits on an enabled workflow but lets step configs change', async () => {
    const { workflow, steps, transitions } = await buildWorkflow(
      main.api,
      { pause: delay(), mail: sendEmail(templateId) },
      [['pause', 'mail']],
      { enable: true },
    );
    expect(workflow.enabled).toBe(true);
    const id = workflow.id;
    expectErrorEnvelope(await addStep(id, exit()), 409, 'WORKFLOW_ENABLED');
    expectErrorEnvelope(await main.api.delete(`/workflows/${id}/steps/${steps.mail.id}`), 409, 'WORKFLOW_ENABLED');
    expectErrorEnvelope(
      await main.api.delete(`/workflows/${id}/steps/${steps.pause.id}?splice=true`),
      409,
      'WORKFLOW_ENABLED',
    );
    expectErrorEnvelope(await addTransition(id, steps.mail.id, steps.pause.id), 409, 'WORKFLOW_ENABLED');
    expectErrorEnvelope(
      await main.api.delete(`/workflows/${id}/transitions/${transitions[0]!.id}`),
      409,
      'WORKFLOW_ENABLED',
    );

    const patched = await main.api.patch(`/workflows/${id}/steps/${steps.pause.id}`, {
      config: { amount: 5, unit: 'seconds' },
      name: 'Short',
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const detail = await getWorkflow(id);
    expect(detail.enabled).toBe(true);
    expect(detail.steps.map((s) => [s.name, s.config])).toEqual([
      ['Short', { amount: 5, unit: 'seconds' }],
      ['mail', { templateId }],
    ]);
    expect(detail.transitions).toEqual(transitions);

    // Disabled again, the graph can change.
    expect((await main.api.patch(`/workflows/${id}`, { enabled: false })).body.enabled).toBe(false);
    expect((await addStep(id, exit())).status).toBe(201);
  });

  it('deletes a step with splice, reconnecting its neighbours and keeping branches', async () => {
    const { workflow, steps, transitions } = await buildWorkflow(
      main.api,
      {
        check: condition({ field: 'data.plan', operator: 'equals', value: 'pro' }),
        a: delay(),
        b: sendEmail(templateId),
        c: exit(),
        d: exit(),
      },
      [
        ['check', 'a', 'yes'],
        ['check', 'd', 'no'],
        ['a', 'b'],
        ['b', 'c'],
      ],
    );
    // check -yes-> a -> b -> c: deleting a points check's yes branch at b.
    let res = await main.api.delete(`/workflows/${workflow.id}/steps/${steps.a.id}?splice=true`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    let detail = await getWorkflow(workflow.id);
    expect(detail.steps.map((s) => s.name)).toEqual(['check', 'b', 'c', 'd']);
    expect(edges(detail)).toEqual(['b>c', 'check>b:yes', 'check>d:no']);
    // The incoming transition is kept (retargeted), the outgoing one gone.
    expect(detail.transitions.find((t) => t.branch === 'yes')!.id).toBe(transitions[0]!.id);

    // A last step spliced just loses the transitions into it.
    res = await main.api.delete(`/workflows/${workflow.id}/steps/${steps.c.id}?splice=true`);
    expect(res.status).toBe(204);
    detail = await getWorkflow(workflow.id);
    expect(edges(detail)).toEqual(['check>b:yes', 'check>d:no']);

    // A CONDITION with two ways out cannot be spliced; nothing changes.
    expectErrorEnvelope(
      await main.api.delete(`/workflows/${workflow.id}/steps/${steps.check.id}?splice=true`),
      409,
      'CANNOT_SPLICE',
    );
    expect(edges(await getWorkflow(workflow.id))).toEqual(['check>b:yes', 'check>d:no']);
    expectFieldError(
      await main.api.delete(`/workflows/${workflow.id}/steps/${steps.check.id}?splice=maybe`),
      'splice',
      'invalid_enum_value',
    );
  });

  it('deletes a step without splice, removing every transition to and from it', async () => {
    const { workflow, steps } = await buildWorkflow(main.api, { a: delay(), b: sendEmail(templateId), c: exit() }, [
      ['a', 'b'],
      ['b', 'c'],
    ]);
    const res = await main.api.delete(`/workflows/${workflow.id}/steps/${steps.b.id}`);
    expect(res.status).toBe(204);
    const detail = await getWorkflow(workflow.id);
    expect(detail.steps.map((s) => s.name)).toEqual(['a', 'c']);
    expect(detail.transitions).toEqual([]);
    // splice=false is the same as no splice.
    expect((await main.api.delete(`/workflows/${workflow.id}/steps/${steps.a.id}?splice=false`)).status).toBe(204);
    expectErrorEnvelope(await main.api.delete(`/workflows/${workflow.id}/steps/${steps.a.id}`), 404, 'NOT_FOUND');
  });
});

describe('transitions', () => {
  it('requires yes/no out of a CONDITION, arrived/timeout (or none) out of a WAIT_FOR_EVENT and no branch otherwise', async () => {
    const { workflow, steps } = await buildWorkflow(main.api, {
      check: condition({ field: 'subscribed', operator: 'equals', value: true }),
      wait: waitFor('paid'),
      pause: delay(),
      end: exit(),
      end2: exit(),
    });
    const id = workflow.id;
    const refused: [from: string, branch: string | null | undefined, code: string][] = [
      ['check', undefined, 'invalid_branch'],
      ['check', null, 'invalid_branch'],
      ['check', 'arrived', 'invalid_branch'],
      ['wait', 'yes', 'invalid_branch'],
      ['pause', 'yes', 'branch_not_allowed'],
      ['pause', 'timeout', 'branch_not_allowed'],
    ];
    for (const [from, branch, code] of refused) {
      expectFieldError(
        await addTransition(id, steps[from as keyof typeof steps].id, steps.end.id, branch),
        'branch',
        code,
      );
    }
    expectFieldError(await addTransition(id, steps.check.id, steps.end.id, 'maybe'), 'branch', 'invalid_enum_value');
    expect((await getWorkflow(id)).transitions).toEqual([]);

    for (const [from, to, branch] of [
      ['check', 'end', 'yes'],
      ['check', 'pause', 'no'],
      ['wait', 'end', 'arrived'],
      ['wait', 'end2', 'timeout'],
      ['pause', 'end2', undefined],
    ] as const) {
      const res = await addTransition(id, steps[from].id, steps[to].id, branch);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({
        workflowId: id,
        fromStepId: steps[from].id,
        toStepId: steps[to].id,
        branch: branch ?? null,
      });
      expect(res.body.id).toMatch(UUID);
    }
    // An explicit null branch is the same as none.
    const w2 = await buildWorkflow(main.api, { a: delay(), b: exit() });
    expect((await addTransition(w2.workflow.id, w2.steps.a.id, w2.steps.b.id, null)).body.branch).toBeNull();
  });

  it('takes one transition without a branch out of a WAIT_FOR_EVENT, which then has no branched one', async () => {
    const { workflow, steps } = await buildWorkflow(main.api, {
      wait: waitFor('paid'),
      end: exit(),
      end2: exit(),
      wait2: waitFor('paid'),
    });
    const plain = await addTransition(workflow.id, steps.wait.id, steps.end.id, undefined);
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect(plain.body.branch).toBeNull();
    expectErrorEnvelope(
      await addTransition(workflow.id, steps.wait.id, steps.end2.id, 'arrived'),
      409,
      'TRANSITION_EXISTS',
    );
    expectErrorEnvelope(await addTransition(workflow.id, steps.wait.id, steps.end2.id, null), 409, 'TRANSITION_EXISTS');
    // And the other way round: a branched one first leaves no room for one without a branch.
    expect((await addTransition(workflow.id, steps.wait2.id, steps.end2.id, 'timeout')).status).toBe(201);
    expectErrorEnvelope(
      await addTransition(workflow.id, steps.wait2.id, steps.end2.id, undefined),
      409,
      'TRANSITION_EXISTS',
    );
  });

  it('refuses foreign steps, self loops, transitions out of EXIT and duplicates', async () => {
    const { workflow, steps } = await buildWorkflow(main.api, {
      a: delay(),
      b: sendEmail(templateId),
      end: exit(),
      check: condition({ field: 'email', operator: 'contains', value: '@' }),
    });
    const elsewhere = await buildWorkflow(main.api, { x: delay() });
    const id = workflow.id;
    expectFieldError(await addTransition(id, steps.a.id, elsewhere.steps.x.id), 'toStepId', 'unknown_step');
    expectFieldError(await addTransition(id, elsewhere.steps.x.id, steps.a.id), 'fromStepId', 'unknown_step');
    expectFieldError(await addTransition(id, steps.a.id, UNKNOWN_ID), 'toStepId', 'unknown_step');
    expectFieldError(await addTransition(id, steps.a.id, steps.a.id), 'toStepId', 'self_loop');
    expectFieldError(await addTransition(id, steps.end.id, steps.a.id), 'fromStepId', 'exit_step');
    expectFieldError(await addTransition(id, 'nope', steps.a.id), 'fromStepId', 'invalid_string');

    expect((await addTransition(id, steps.a.id, steps.b.id)).status).toBe(201);
    const dup = await addTransition(id, steps.a.id, steps.end.id);
    expectErrorEnvelope(dup, 409, 'TRANSITION_EXISTS');
    expect(dup.body.error.details).toEqual({ fromStepId: steps.a.id, branch: null });
    expect((await addTransition(id, steps.check.id, steps.a.id, 'yes')).status).toBe(201);
    expectErrorEnvelope(await addTransition(id, steps.check.id, steps.b.id, 'yes'), 409, 'TRANSITION_EXISTS');
    expect((await addTransition(id, steps.check.id, steps.end.id, 'no')).status).toBe(201);
    expect(edges(await getWorkflow(id))).toEqual(['a>b', 'check>a:yes', 'check>end:no']);
    expect((await getWorkflow(elsewhere.workflow.id)).transitions).toEqual([]);
  });

  it('deletes a transition', async () => {
    const { workflow, transitions, steps } = await buildWorkflow(main.api, { a: delay(), b: exit() }, [['a', 'b']]);
    const res = await main.api.delete(`/workflows/${workflow.id}/transitions/${transitions[0]!.id}`);
    expect(res.status).toBe(204);
    expect((await getWorkflow(workflow.id)).transitions).toEqual([]);
    expectErrorEnvelope(
      await main.api.delete(`/workflows/${workflow.id}/transitions/${transitions[0]!.id}`),
      404,
      'NOT_FOUND',
    );
    // The slot is free again.
    expect((await addTransition(workflow.id, steps.a.id, steps.b.id)).status).toBe(201);
    // A transition of another workflow is not this one's.
    const elsewhere = await buildWorkflow(main.api, { a: delay(), b: exit() }, [['a', 'b']]);
    expectErrorEnvelope(
      await main.api.delete(`/workflows/${workflow.id}/transitions/${elsewhere.transitions[0]!.id}`),
      404,
      'NOT_FOUND',
    );
    expect((await getWorkflow(elsewhere.workflow.id)).transitions).toHaveLength(1);
  });
});

describe('enabling checks the graph', () => {
  const pro = { field: 'data.plan', operator: 'equals', value: 'pro' };

  it('refuses a workflow without steps', async () => {
    const w = await createWorkflow();
    expect(faultCodes(await enable(w.id))).toEqual(['no_steps']);
    expect((await getWorkflow(w.id)).enabled).toBe(false);
  });

  it('refuses two first steps', async () => {
    const { workflow, steps } = await buildWorkflow(main.api, { a: delay(), b: exit() });
    await expectOneFault(workflow.id, 'entry', [steps.a.id, steps.b.id]);
    expect((await getWorkflow(workflow.id)).enabled).toBe(false);
  });

  it('refuses a CONDITION missing a branch', async () => {
    const { workflow, steps } = await buildWorkflow(main.api, { check: condition(pro), end: exit() }, [
      ['check', 'end', 'yes'],
    ]);
    const res = await enable(workflow.id);
    expect(faultCodes(res)).toEqual(['missing_branch']);
    expect(res.body.error.details.faults[0]).toMatchObject({
      stepIds: [steps.check.id],
      message: expect.stringContaining('"no"'),
    });
  });

  it('refuses steps unreachable from the first one', async () => {
    // a -> b; c <-> d (a loop with a DELAY, reached by nothing).
    const { workflow, steps } = await buildWorkflow(
      main.api,
      { a: sendEmail(templateId), b: exit(), c: delay(), d: sendEmail(templateId) },
      [
        ['a', 'b'],
        ['c', 'd'],
        ['d', 'c'],
      ],
    );
    await expectOneFault(workflow.id, 'unreachable', [steps.c.id, steps.d.id]);
  });

  it('refuses a loop without a DELAY or WAIT_FOR_EVENT', async () => {
    const { workflow, steps } = await buildWorkflow(
      main.api,
      { a: delay(), b: sendEmail(templateId), c: updateContact({ data: { n: 1 } }) },
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'b'],
      ],
    );
    await expectOneFault(workflow.id, 'loop_without_delay', [steps.b.id, steps.c.id]);
    // The same loop through a DELAY is fine.
    const ok = await buildWorkflow(
      main.api,
      { a: sendEmail(templateId), b: delay(), c: updateContact({ data: { n: 1 } }) },
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'b'],
      ],
    );
    expect((await enable(ok.workflow.id)).status).toBe(200);
  });

  it('refuses an EVENT trigger without an event', async () => {
    const { workflow } = await buildWorkflow(main.api, { a: exit() }, [], { body: { triggerConfig: undefined } });
    expect(workflow.triggerConfig).toEqual({});
    expect(faultCodes(await enable(workflow.id))).toEqual(['no_trigger_event']);
    // Enabling in the same request as naming the event works; so does a MANUAL workflow.
    const res = await main.api.patch(`/workflows/${workflow.id}`, { enabled: true, triggerConfig: { event: 'go' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const manual = await buildWorkflow(main.api, { a: exit() }, [], { body: { triggerConfig: undefined } });
    expect(
      (await main.api.patch(`/workflows/${manual.workflow.id}`, { triggerType: 'MANUAL', enabled: true })).body,
    ).toMatchObject({ enabled: true, triggerType: 'MANUAL' });
  });

  it('lists every fault at once', async () => {
    const { workflow } = await buildWorkflow(main.api, { check: condition(pro), x: exit() }, [], {
      body: { triggerConfig: undefined },
    });
    expect(faultCodes(await enable(workflow.id))).toEqual(['entry', 'missing_branch', 'no_trigger_event']);
  });

  it('enables a valid graph and disables it again', async () => {
    const { workflow } = await buildWorkflow(
      main.api,
      {
        mail: sendEmail(templateId),
        wait: waitFor('paid'),
        check: condition(pro),
        update: updateContact({ subscribed: false }),
        hook: webhook(),
        end: exit(),
      },
      [
        ['mail', 'wait'],
        ['wait', 'check', 'arrived'],
        ['wait', 'end', 'timeout'],
        ['check', 'update', 'yes'],
        ['check', 'hook', 'no'],
      ],
    );
    const res = await enable(workflow.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: workflow.id, enabled: true });
    expect((await getWorkflow(workflow.id)).enabled).toBe(true);
    expect((await main.api.patch(`/workflows/${workflow.id}`, { enabled: false })).body.enabled).toBe(false);
    expect((await getWorkflow(workflow.id)).enabled).toBe(false);
  });
});

describe('fields and usage', () => {
  it('lists the fields and events a CONDITION can use', async () => {
    const project = await mail.server.project('workflows-fields');
    const tracked = await project.api.post(
      '/v1/track',
      { email: 'fields@wfapi.test', event: 'fields.checked', data: { plan: 'pro', seats: 3 } },
      project.publicKey,
    );
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    const res = await project.api.get('/workflows/fields');
    expect(res.status).toBe(200);
    expect(res.body.fields).toEqual(
      expect.arrayContaining([
        { field: 'email', type: 'string', isCustom: false },
        { field: 'subscribed', type: 'boolean', isCustom: false },
        { field: 'createdAt', type: 'date', isCustom: false },
        { field: 'data.plan', type: 'string', isCustom: true },
        { field: 'data.seats', type: 'number', isCustom: true },
      ]),
    );
    expect(res.body.events).toContain('fields.checked');
    // Another project's fields and events are not listed.
    const theirs = await other.api.get('/workflows/fields');
    expect(theirs.body.events).not.toContain('fields.checked');
    expect(theirs.body.fields.map((f: { field: string }) => f.field)).not.toContain('data.seats');
    expect(res.body.context).toEqual([]);
  });

  it("lists a trigger event's data as context fields, typed by most of its latest values", async () => {
    const project = await mail.server.project('workflows-context-fields');
    const track = (data: Record<string, unknown>) =>
      expectBody(
        project.api.post('/v1/track', { email: 'ctx@wfapi.test', event: 'order.placed', data }, project.publicKey),
        200,
      );
    await track({ total: 120, paidAt: '2026-11-01', coupon: 'AUTUMN', gift: true });
    await track({ total: 80, coupon: null });
    await track({ total: 'unknown' });
    await track({ note: { nested: 1 }, tags: ['a'] });
    const res = await project.api.get('/workflows/fields?event=order.placed');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.context).toEqual([
      { field: 'context.event.data.coupon', type: 'string' },
      { field: 'context.event.data.gift', type: 'boolean' },
      { field: 'context.event.data.paidAt', type: 'date' },
      { field: 'context.event.data.total', type: 'number' },
    ]);
    // Another event's data, an event never tracked, another project: nothing of these.
    expect((await project.api.get('/workflows/fields?event=never.tracked')).body.context).toEqual([]);
    expect((await other.api.get('/workflows/fields?event=order.placed')).body.context).toEqual([]);
    const tooLong = await project.api.get(`/workflows/fields?event=${'x'.repeat(300)}`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('shows the workflow in event, field and template usage', async () => {
    const { workflow } = await buildWorkflow(
      main.api,
      {
        mail: sendEmail(templateId),
        wait: waitFor('usage.awaited'),
        check: condition(
          { field: 'data.usagePlan', operator: 'equals', value: 'pro' },
          { field: 'usage.clicked', operator: 'triggered' },
        ),
        update: updateContact({ data: { usageScore: 5 } }),
      },
      [],
      { body: { name: 'Usage flow', triggerConfig: { event: 'usage.trigger' } } },
    );
    const mine = { id: workflow.id, name: 'Usage flow' };
    for (const event of ['usage.trigger', 'usage.awaited', 'usage.clicked']) {
      const res = await main.api.get(`/events/${event}/usage`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ event, segments: [], campaigns: [] });
      expect(res.body.workflows).toEqual([mine]);
    }
    expect((await main.api.get('/events/usage.unrelated/usage')).body.workflows).toEqual([]);
    expect((await other.api.get('/events/usage.trigger/usage')).body.workflows).toEqual([]);

    for (const field of ['data.usagePlan', 'data.usageScore']) {
      const res = await main.api.get(`/contacts/fields/${field}/usage`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ field, workflows: [mine] });
    }
    expect((await main.api.get('/contacts/fields/data.usageOther/usage')).body.workflows).toEqual([]);

    const tpl = await main.api.get(`/templates/${templateId}/usage`);
    expect(tpl.status).toBe(200);
    expect(tpl.body.templateId).toBe(templateId);
    expect(tpl.body.workflows).toEqual(expect.arrayContaining([mine]));
    const unused = await created(
      main.api.post('/templates', { name: 'Unused', subject: 'x', body: 'x', from: `hi@${DOMAIN}` }),
    );
    expect((await main.api.get(`/templates/${unused.id}/usage`)).body.workflows).toEqual([]);

    // Renaming the trigger moves the usage; deleting the workflow removes it.
    await main.api.patch(`/workflows/${workflow.id}`, { triggerConfig: { event: 'usage.other' } });
    expect((await main.api.get('/events/usage.trigger/usage')).body.workflows).toEqual([]);
    expect((await main.api.delete(`/workflows/${workflow.id}`)).status).toBe(204);
    expect((await main.api.get('/events/usage.awaited/usage')).body.workflows).toEqual([]);
  });
});
