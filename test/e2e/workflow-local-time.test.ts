import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Execution, ExecutionDetail, Project, Workflow, WorkflowStep } from '../../src/api.js';
import type { CursorPage } from '../../src/platform/http/pagination.js';
import { movableClock } from '../support/clock.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import {
  type Client,
  expectBody,
  ownerSession,
  pollUntil,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { sendEmail } from '../support/workflows.js';

// A DELAY until 09:00 waits until 09:00 in each contact's own zone: from its timezone, its country
// or its locale, else the project's default zone (UTC unless set). The service's clock starts at 15:00 UTC on Saturday 7 March 2026, the eve
// of New York's change to summer time, and runs on from there.

const START = '2026-03-07T15:00:00Z';
const clock = movableClock(START);

const DOMAIN = 'localtime.test';
const EVENT = 'signed_up';

let dns: DnsServer;
let server: TestServer;
let api: Client;
let projectId: string;
let publicKey: string;
let workflow: Workflow;
let pause: WorkflowStep;
let send: WorkflowStep;

beforeAll(async () => {
  clock.set(START);
  dns = await startDnsServer();
  server = await startTestServer({ DNS_SERVERS: dns.address }, { clock });
  const project = await server.project('local-time');
  api = project.api;
  projectId = project.id;
  publicKey = project.publicKey;
  await verifiedDomain(api, dns, DOMAIN);
  const template = { name: 'Morning', subject: 'Good morning', body: '<p>Hi</p>', from: `hi@${DOMAIN}` };
  const templateId = (await expectBody(api.post('/templates', { ...template, type: 'TRANSACTIONAL' }), 201)).id;

  workflow = await expectBody(api.post('/workflows', { name: 'Morning mail', triggerConfig: { event: EVENT } }), 201);
  const add = (body: unknown) => expectBody<WorkflowStep>(api.post(`/workflows/${workflow.id}/steps`, body), 201);
  pause = await add({ name: 'Until nine', type: 'DELAY', config: { until: { time: '09:00' } } });
  send = await add({ name: 'Morning', ...sendEmail(templateId) });
  await expectBody(api.post(`/workflows/${workflow.id}/transitions`, { fromStepId: pause.id, toStepId: send.id }), 201);
  await expectBody(api.patch(`/workflows/${workflow.id}`, { enabled: true }));
});

afterAll(async () => {
  await server?.stop();
  await dns?.stop();
});

/** A contact with this data, and the execution its event started, once it waits at the DELAY. */
async function waitingExecution(email: string, data: Record<string, unknown>): Promise<Execution> {
  await expectBody(api.post('/contacts', { email, data }), 201);
  await expectBody(api.post('/v1/track', { email, event: EVENT }, publicKey));
  return pollUntil(
    async () => {
      const page = await expectBody<CursorPage<Execution>>(
        api.get(`/workflows/${workflow.id}/executions?email=${encodeURIComponent(email)}`),
      );
      return page.data[0];
    },
    (e) => e?.status === 'waiting' && e.currentStepId === pause.id,
    20_000,
  ) as Promise<Execution>;
}

describe('DELAY until a time of day in the contact’s zone', () => {
  // Each contact's next 09:00 after 15:00Z on 7 March 2026.
  const contacts: [what: string, data: Record<string, unknown>, until: string][] = [
    // New York is at 10:00 EST; it changes to EDT (UTC-4) at 02:00 on the 8th, before its next 09:00.
    ['by its timezone', { timezone: 'America/New_York' }, '2026-03-08T13:00:00.000Z'],
    // Berlin is at 16:00 CET (UTC+1).
    ['by its country', { country: 'de' }, '2026-03-08T08:00:00.000Z'],
    // Tokyo (UTC+9) is already at 00:00 on the 8th.
    ['by its locale', { locale: 'ja_JP' }, '2026-03-08T00:00:00.000Z'],
    // Kolkata (UTC+5:30) is at 20:30.
    ['by its country over its locale', { country: 'IN', locale: 'en-US' }, '2026-03-08T03:30:00.000Z'],
    // An unknown timezone is passed over; São Paulo (UTC-3) is at 12:00.
    [
      'past an unknown timezone, by its locale',
      { timezone: 'Mars/Olympus', locale: 'pt-BR' },
      '2026-03-08T12:00:00.000Z',
    ],
    ['with nothing to go by, in UTC', { plan: 'pro' }, '2026-03-08T09:00:00.000Z'],
  ];

  it.each(contacts)('waits until 09:00 local %s', async (what, data, until) => {
    const email = `${what.replaceAll(/\W+/g, '-')}@contacts.localtime.test`;
    const execution = await waitingExecution(email, data);
    expect(execution.waitingFor).toEqual({ event: null, until });
  });

  it('moves on to the email once the clock reaches 09:00 in the contact’s zone, and not before', async () => {
    const execution = await waitingExecution('later@contacts.localtime.test', { timezone: 'Pacific/Auckland' });
    // Auckland (UTC+13 in March) is at 04:00 on the 8th.
    expect(execution.waitingFor?.until).toBe('2026-03-07T20:00:00.000Z');
    const detail = () => expectBody<ExecutionDetail>(api.get(`/workflows/${workflow.id}/executions/${execution.id}`));

    clock.set('2026-03-07T19:59:00Z');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await detail()).status).toBe('waiting');

    clock.set('2026-03-07T20:00:00Z');
    const done = await pollUntil(detail, (e) => e.status === 'completed', 20_000);
    expect(done.steps.map((h) => [h.type, h.status])).toEqual([
      ['DELAY', 'completed'],
      ['SEND_EMAIL', 'completed'],
    ]);
  });
});

describe('the project’s default time zone', () => {
  const OWNER = { email: 'owner@localtime.test', password: 'owner-correct-horse' };
  let session: Client;
  const settings = (body: unknown) => session.patch(`/users/@me/projects/${projectId}`, body);

  beforeAll(async () => {
    session = await ownerSession(server, OWNER);
  });

  afterAll(async () => {
    await expectBody(settings({ timezone: 'UTC' }));
  });

  it('is where a contact with no zone of its own waits until 09:00', async () => {
    expect((await expectBody(settings({ timezone: 'Asia/Tokyo' }))).timezone).toBe('Asia/Tokyo');
    const execution = await waitingExecution('nowhere@contacts.localtime.test', { plan: 'pro' });
    // The next 09:00 in Tokyo (UTC+9) from any time on the 7th after 15:00Z (00:00 on the 8th there).
    expect(execution.waitingFor).toEqual({ event: null, until: '2026-03-08T00:00:00.000Z' });
  });

  it('gives way to the contact’s own zone', async () => {
    const execution = await waitingExecution('berlin@contacts.localtime.test', { country: 'DE' });
    expect(execution.waitingFor?.until).toBe('2026-03-08T08:00:00.000Z');
  });

  it('refuses a zone the server does not know, on its field, changing nothing', async () => {
    const res = await settings({ timezone: 'Asia/Atlantis' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', statusCode: 422 } });
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'timezone' })]);
    const projects = await expectBody<Project[]>(session.get('/users/@me/projects'));
    expect(projects.find((p) => p.id === projectId)?.timezone).toBe('Asia/Tokyo');
  });
});

describe('the DELAY config in the API', () => {
  it('refuses a time that is not HH:MM, on its field', async () => {
    for (const time of ['24:00', '9:00', '09:00:00']) {
      const res = await api.post(`/workflows/${workflow.id}/steps`, { type: 'DELAY', config: { until: { time } } });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error.errors).toEqual([
        expect.objectContaining({ field: 'config.until.time', code: 'invalid_string' }),
      ]);
    }
  });

  it('documents both shapes in /openapi.json', async () => {
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    const body = JSON.stringify(doc.paths['/workflows/{id}/steps'].post.requestBody);
    expect(body).toContain('"amount"');
    expect(body).toContain('"until"');
    expect(body).toContain('2[0-3]):[0-5]');
  });
});
