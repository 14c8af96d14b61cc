import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CAMPAIGN_FANOUT_QUEUE } from '../../src/modules/campaigns/jobs.js';
import { fanOutCampaign } from '../../src/modules/campaigns/sending.js';
import { createProject } from '../../src/modules/projects/service.js';
import { subscribeWorkflowTriggers } from '../../src/modules/workflows/triggers.js';
import { EventDispatcher } from '../../src/platform/event-dispatcher.js';
import { type RunningService, startService } from '../../src/start.js';
import { batchCampaign, batchContacts, sendNow } from '../support/campaigns.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { verifiedDomain } from '../support/domains.js';
import { useMailServer } from '../support/mail-server.js';
import { recordWhen, sendOk } from '../support/sending.js';
import { type Client, client, eventually, expectBody } from '../support/server.js';
import { numberedTemplate, sendEmail } from '../support/workflows.js';

/**
 * `GET /metrics` on the metrics listener (METRICS_PORT), scraped over HTTP and read as the
 * Prometheus text format, after real requests and real deliveries to an SMTP server on loopback.
 */

const TOKEN = 'metrics-token-for-the-test-0123';
const DOMAIN = 'mail.metrics.test';

let api: Client;

const mail = useMailServer({
  // A deferred email waits an hour: it stays in the queue, scheduled, while the test looks.
  DELIVERY_RETRY_BASE_SECONDS: '3600',
  METRICS_PORT: '0',
  METRICS_TOKEN: TOKEN,
});

beforeAll(async () => {
  // The relay accepts, defers (4xx) or rejects (5xx) each message by its recipient.
  mail.sink.respond((m) =>
    m.to[0]!.startsWith('soft')
      ? { accept: false, code: 451, message: 'Try again later' }
      : m.to[0]!.startsWith('hard')
        ? { accept: false, code: 550, message: 'No such user' }
        : { accept: true },
  );
  api = (await mail.server.project('metrics')).api;
  await verifiedDomain(api, mail.dns, DOMAIN);
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
}

/** The Prometheus text format (version 0.0.4): `# TYPE` lines and `name{label="value",...} value` samples. */
function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const raw = m[3]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    samples.push({ name: m[1]!, labels, value });
  }
  return { samples, types };
}

/** The samples of `name` whose labels include `labels`. */
function find(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample of `name` with these labels (undefined when there is none). */
function value(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = find(e, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

async function scrape(url = mail.server.service.metricsUrl!, token: string | null = TOKEN): Promise<Exposition> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  return parseExposition(text);
}

describe('access', () => {
  it('is served on its own loopback listener, not on the API port', async () => {
    const metricsUrl = new URL(mail.server.service.metricsUrl!);
    expect(metricsUrl.hostname).toBe('127.0.0.1');
    expect(metricsUrl.pathname).toBe('/metrics');
    expect(metricsUrl.port).not.toBe(new URL(mail.server.url).port);
    const onApi = await fetch(`${mail.server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(onApi.status).toBe(404);
    const elsewhere = await fetch(new URL('/other', metricsUrl), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(elsewhere.status).toBe(404);
  });

  it('requires the bearer token when METRICS_TOKEN is set', async () => {
    const url = mail.server.service.metricsUrl!;
    const missing = await fetch(url);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await missing.text()).not.toContain('postbox_');
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN, `Basic ${TOKEN}`]) {
      expect((await fetch(url, { headers: { authorization } })).status, authorization).toBe(401);
    }
    const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# TYPE postbox_http_requests_total counter');
  });
});

describe('HTTP requests', () => {
  it('are counted and timed by method, route pattern and status code', async () => {
    const before = await scrape();
    const count = (e: typeof before, labels: Record<string, string>) =>
      value(e, 'postbox_http_requests_total', labels) ?? 0;
    const list = { method: 'GET', route: '/contacts', status_code: '200' };
    const missingContact = { method: 'GET', route: '/contacts/:id', status_code: '404' };
    const noKey = { method: 'GET', route: '/contacts', status_code: '401' };
    const created = { method: 'POST', route: '/contacts', status_code: '201' };
    const unmatched = { method: 'GET', route: 'unmatched', status_code: '404' };

    for (let i = 0; i < 3; i++) expect((await api.get('/contacts')).status).toBe(200);
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids) expect((await api.get(`/contacts/${id}`)).status).toBe(404);
    expect((await api.get('/contacts', null)).status).toBe(401);
    expect((await api.post('/contacts', { email: 'counted@metrics.test' })).status).toBe(201);
    expect((await api.get(`/no/such/path/${randomUUID()}`)).status).toBe(404);

    const after = await scrape();
    expect(count(after, list) - count(before, list)).toBe(3);
    expect(count(after, missingContact) - count(before, missingContact)).toBe(2);
    expect(count(after, noKey) - count(before, noKey)).toBe(1);
    expect(count(after, created) - count(before, created)).toBe(1);
    expect(count(after, unmatched) - count(before, unmatched)).toBe(1);
    // Route patterns only: no raw URL (with its ids) ever becomes a label value.
    const routes = new Set(find(after, 'postbox_http_requests_total').map((s) => s.labels.route));
    for (const id of ids) expect([...routes].some((r) => r!.includes(id))).toBe(false);
    expect([...routes].some((r) => r!.includes('/no/such'))).toBe(false);
    expect(find(after, 'postbox_http_requests_total').every((s) => s.labels.role === 'all')).toBe(true);

    expect(after.types.get('postbox_http_requests_total')).toBe('counter');
    expect(after.types.get('postbox_http_request_duration_seconds')).toBe('histogram');
    const histogram = (suffix: string, extra: Record<string, string> = {}) =>
      value(after, `postbox_http_request_duration_seconds_${suffix}`, { ...list, ...extra })! -
      (value(before, `postbox_http_request_duration_seconds_${suffix}`, { ...list, ...extra }) ?? 0);
    expect(histogram('count')).toBe(3);
    expect(histogram('bucket', { le: '+Inf' })).toBe(3);
    expect(histogram('bucket', { le: '10' })).toBe(3);
    const seconds = histogram('sum');
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(10);
  });
});

describe('emails', () => {
  it('counts what the relay answered, and shows the queue left behind', async () => {
    const before = await scrape();
    for (const result of ['accepted', 'deferred', 'rejected']) {
      expect(value(before, 'postbox_relay_messages_total', { result }), result).toBe(0);
    }
    for (const lane of ['transactional', 'campaign']) {
      expect(value(before, 'postbox_email_queue', { lane, state: 'due' }), lane).toBe(0);
      expect(value(before, 'postbox_email_queue', { lane, state: 'scheduled' }), lane).toBe(0);
    }

    const sent = await sendOk(api, {
      to: ['ok@rcpt.metrics.test', 'soft@rcpt.metrics.test', 'hard@rcpt.metrics.test'],
      from: `hello@${DOMAIN}`,
      subject: 'Counted',
      body: '<p>Hello</p>',
    });
    const [ok, soft, hard] = sent.emails.map((e) => e.email);
    await recordWhen(api, ok!, (r) => r.status === 'sent');
    await recordWhen(api, hard!, (r) => r.status === 'failed');
    await recordWhen(api, soft!, (r) => r.status === 'queued' && r.attempts >= 1);

    // The outcome of the deferred email is written a moment after the relay answered.
    const after = await eventually(async () => {
      const e = await scrape();
      return value(e, 'postbox_email_queue', { lane: 'transactional', state: 'scheduled' }) === 1 ? e : undefined;
    });
    expect(value(after, 'postbox_relay_messages_total', { result: 'accepted' })).toBe(1);
    expect(value(after, 'postbox_relay_messages_total', { result: 'deferred' })).toBe(1);
    expect(value(after, 'postbox_relay_messages_total', { result: 'rejected' })).toBe(1);
    expect(after.types.get('postbox_relay_messages_total')).toBe('counter');
    expect(value(after, 'postbox_relay_send_duration_seconds_count', { result: 'accepted' })).toBe(1);
    expect(value(after, 'postbox_relay_in_flight')).toBe(0);
    expect(mail.sink.messages.map((m) => m.to[0])).toEqual(['ok@rcpt.metrics.test']);
    // The deferred email waits for its retry in an hour: scheduled, nothing due, nothing overdue.
    for (const lane of ['transactional', 'campaign']) {
      expect(value(after, 'postbox_email_queue', { lane, state: 'due' }), lane).toBe(0);
      expect(value(after, 'postbox_email_queue_oldest_due_seconds', { lane }), lane).toBe(0);
    }
    expect(value(after, 'postbox_email_queue', { lane: 'campaign', state: 'scheduled' })).toBe(0);
  });
});

describe('queues, database pool and process', () => {
  it('reports the backlogs of the whole database, the pool of this process and the event-loop lag', async () => {
    const e = await scrape();
    // Every recurring job (domain checks, ...) is a queued job waiting for its next run.
    const recurring = find(e, 'postbox_job_queue', { state: 'scheduled' }).filter((s) =>
      s.labels.queue!.startsWith('every:'),
    );
    expect(recurring.length).toBeGreaterThan(0);
    for (const s of recurring) expect(s.value).toBe(1);
    for (const s of find(e, 'postbox_job_queue_oldest_due_seconds')) expect(s.value).toBeGreaterThanOrEqual(0);
    for (const state of ['due', 'scheduled']) {
      expect(value(e, 'postbox_event_outbox', { state }), state).toBeGreaterThanOrEqual(0);
      expect(value(e, 'postbox_workflow_executions', { state }), state).toBe(0);
    }
    expect(value(e, 'postbox_event_outbox_oldest_due_seconds')).toBeGreaterThanOrEqual(0);
    expect(value(e, 'postbox_workflow_executions_oldest_due_seconds')).toBe(0);
    expect(value(e, 'postbox_metrics_collect_errors_total')).toBe(0);

    const inUse = value(e, 'postbox_db_pool_connections', { state: 'in_use' })!;
    const idle = value(e, 'postbox_db_pool_connections', { state: 'idle' })!;
    expect(Number.isInteger(inUse) && inUse >= 0).toBe(true);
    expect(Number.isInteger(idle) && idle >= 0).toBe(true);
    // The requests above opened connections; the pool holds at most 20.
    expect(inUse + idle).toBeGreaterThan(0);
    expect(inUse + idle).toBeLessThanOrEqual(20);
    expect(value(e, 'postbox_db_pool_waiting')).toBe(0);
    expect(e.types.get('postbox_db_pool_connections')).toBe('gauge');

    const lag = value(e, 'nodejs_eventloop_lag_seconds', { role: 'all' })!;
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(1);
    expect(value(e, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(value(e, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
  });

  it('are served by a worker process too, which counts no HTTP requests', async () => {
    // A worker on the same database, with its own metrics listener and no token.
    const config = loadConfig({
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATA_DIR: mail.server.service.ctx.config.dataDir,
      DATABASE_URL: mail.server.service.ctx.config.databaseUrl,
      METRICS_PORT: '0',
    });
    const worker = await startService(config, 'worker');
    try {
      expect(worker.url).toBeUndefined();
      const e = await scrape(worker.metricsUrl!, null);
      expect(find(e, 'postbox_http_requests_total')).toEqual([]);
      expect(value(e, 'postbox_relay_messages_total', { result: 'accepted', role: 'worker' })).toBe(0);
      // The backlogs are the database's: the same from every process.
      expect(value(e, 'postbox_email_queue', { lane: 'transactional', state: 'scheduled' })).toBe(1);
      expect(value(e, 'nodejs_eventloop_lag_seconds', { role: 'worker' })).toBeGreaterThanOrEqual(0);
    } finally {
      await worker.stop();
    }
  });
});

describe('queue latency', () => {
  // A service without a worker: what enters a queue stays there, due, while the test looks. The
  // worker's steps that move work on (the campaign fan-out, the event dispatcher) are run by hand.
  let testDb: TestDatabase;
  let queues: RunningService;
  let api: Client;
  let publicKey: string;
  const FROM = `hello@${DOMAIN}`;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const config = loadConfig({
      PORT: '0',
      LOG_LEVEL: 'silent',
      METRICS_PORT: '0',
      DNS_SERVERS: mail.dns.address,
      ...testDb.env,
    });
    queues = await startService(config, 'serve');
    const project = await createProject(queues.ctx.db, 'queues');
    api = client(queues.url!, project.secretKey);
    publicKey = project.publicKey;
    await verifiedDomain(api, mail.dns, DOMAIN);
  });
  afterAll(async () => {
    await queues?.stop();
    await testDb?.drop();
  });

  const LANES = ['transactional', 'campaign'] as const;
  type Ages = Record<(typeof LANES)[number] | 'outbox' | 'workflows' | 'fanOut', number | undefined>;

  /** A scrape of the service without a worker and the ages it shows, once `ready` holds for them. */
  async function scrapeAges(ready: (a: Ages) => boolean): Promise<{ e: Exposition; ages: Ages }> {
    return eventually(async () => {
      const e = await scrape(queues.metricsUrl!, null);
      const ages: Ages = {
        transactional: value(e, 'postbox_email_queue_oldest_due_seconds', { lane: 'transactional' }),
        campaign: value(e, 'postbox_email_queue_oldest_due_seconds', { lane: 'campaign' }),
        outbox: value(e, 'postbox_event_outbox_oldest_due_seconds'),
        workflows: value(e, 'postbox_workflow_executions_oldest_due_seconds'),
        fanOut: value(e, 'postbox_job_queue_oldest_due_seconds', { queue: CAMPAIGN_FANOUT_QUEUE }),
      };
      return ready(ages) ? { e, ages } : undefined;
    });
  }

  /** An age read at `seen` of an item created after `since` (both Date.now()): within that window. */
  function expectAgeWithin(age: number | undefined, since: number, seen: number, what: string): void {
    expect(age, what).toBeGreaterThan(0);
    // The rows' times are stored to the millisecond.
    expect(age, what).toBeLessThanOrEqual((seen - since) / 1000 + 0.002);
  }

  it('is 0 for every queue while nothing is due', async () => {
    const { e, ages } = await scrapeAges(() => true);
    for (const lane of LANES) {
      expect(value(e, 'postbox_email_queue', { lane, state: 'due' }), lane).toBe(0);
      expect(ages[lane], lane).toBe(0);
    }
    expect(value(e, 'postbox_event_outbox', { state: 'due' })).toBe(0);
    expect(ages.outbox).toBe(0);
    expect(value(e, 'postbox_workflow_executions', { state: 'due' })).toBe(0);
    expect(ages.workflows).toBe(0);
    for (const s of find(e, 'postbox_job_queue_oldest_due_seconds')) expect(s.value, s.labels.queue).toBe(0);
    expect(e.types.get('postbox_email_queue_oldest_due_seconds')).toBe('gauge');
  });

  it('is the age of the next item of each queue: emails by lane, events, workflow steps and jobs', async () => {
    const templateId = await numberedTemplate(api, FROM);
    const workflow = await expectBody(
      api.post('/workflows', { name: 'Welcome', triggerConfig: { event: 'signed_up' } }),
      201,
    );
    await expectBody(api.post(`/workflows/${workflow.id}/steps`, sendEmail(templateId)), 201);
    await expectBody(api.patch(`/workflows/${workflow.id}`, { enabled: true }));
    await batchContacts(api, 'latency', ['one@rcpt.metrics.test', 'two@rcpt.metrics.test']);
    const campaign = await batchCampaign(api, FROM, 'latency');

    const first = Date.now();
    await sendNow(api, campaign.id);
    await sendOk(api, { to: ['reset@rcpt.metrics.test'], from: FROM, subject: 'Reset', body: '<p>Reset</p>' });
    await expectBody(api.post('/v1/track', { email: 'new@rcpt.metrics.test', event: 'signed_up' }, publicKey));
    const queued = await scrapeAges((a) => a.transactional! > 0 && a.outbox! > 0 && a.fanOut! > 0);
    const seen = Date.now();
    expect(value(queued.e, 'postbox_email_queue', { lane: 'transactional', state: 'due' })).toBe(1);
    expectAgeWithin(queued.ages.transactional, first, seen, 'transactional');
    expectAgeWithin(queued.ages.outbox, first, seen, 'outbox');
    expect(value(queued.e, 'postbox_job_queue', { queue: CAMPAIGN_FANOUT_QUEUE, state: 'due' })).toBe(1);
    expectAgeWithin(queued.ages.fanOut, first, seen, 'fan-out job');
    // The campaign's mail is not made yet, and no event has reached the workflow.
    expect(queued.ages.campaign).toBe(0);
    expect(queued.ages.workflows).toBe(0);

    // The fan-out stores the campaign's emails; the dispatcher hands every event on, starting an execution.
    const fannedOut = Date.now();
    await fanOutCampaign(queues.ctx, campaign.id, { heartbeat: async () => {}, signal: new AbortController().signal });
    await subscribeWorkflowTriggers(queues.ctx);
    const { ctx } = queues;
    await new EventDispatcher(ctx.database, ctx.bus, ctx.clock, ctx.log).dispatchBatch();

    const moved = await scrapeAges((a) => a.campaign! > 0 && a.workflows! > 0 && a.outbox === 0);
    const later = Date.now();
    expect(value(moved.e, 'postbox_email_queue', { lane: 'campaign', state: 'due' })).toBe(2);
    expectAgeWithin(moved.ages.campaign, fannedOut, later, 'campaign');
    expect(value(moved.e, 'postbox_workflow_executions', { state: 'due' })).toBe(1);
    expectAgeWithin(moved.ages.workflows, fannedOut, later, 'workflow step');
    expect(value(moved.e, 'postbox_event_outbox', { state: 'due' })).toBe(0);
    // The transactional email is older than anything that came after it, and still waiting.
    expect(value(moved.e, 'postbox_email_queue', { lane: 'transactional', state: 'due' })).toBe(1);
    expect(moved.ages.transactional).toBeGreaterThan(moved.ages.campaign!);
    expectAgeWithin(moved.ages.transactional, first, later, 'transactional');
  });
});
