import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Contact, Topic, Webhook, WebhookDelivery } from '../../src/api.js';
import { verifiedDomain } from '../support/domains.js';
import { useMailServer } from '../support/mail-server.js';
import { deliveredMessage, sendOk, UNKNOWN_ID, UUID } from '../support/sending.js';
import {
  type ApiResponse,
  type Client,
  eventually,
  expectBody,
  type TestProject,
  useTestServer,
} from '../support/server.js';
import { type HookRequest, signatureValid, useReceiver } from '../support/webhook-receiver.js';

// ---------------------------------------------------------------------------------------------

const hooks = useReceiver();

const mail = useMailServer({
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  DELIVERY_RETRY_BASE_SECONDS: '0.2',
});

let seq = 0;
/** A receiver path no other test uses. */
const newPath = (tag: string) => `/${tag}-${++seq}`;

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status } });
}

async function createHook(api: Client, body: Record<string, unknown>): Promise<Webhook> {
  return expectBody(api.post('/webhooks', body), 201);
}

/** A webhook to `path` on the receiver. */
const hookTo = (api: Client, path: string, events: string[], extra: Record<string, unknown> = {}) =>
  createHook(api, { url: hooks.url + path, events, ...extra });

async function track(
  p: TestProject,
  email: string,
  event: string,
  data?: Record<string, unknown>,
): Promise<{ contact: string; event: string }> {
  const res = await p.api.post('/v1/track', { email, event, ...(data ? { data } : {}) }, p.publicKey);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function deliveries(
  api: Client,
  webhookId: string,
  query = '',
): Promise<{ data: WebhookDelivery[]; total: number; page: number; pageSize: number; totalPages: number }> {
  return expectBody(api.get(`/webhooks/${webhookId}/deliveries${query}`));
}

/** Waits until the webhook's delivery of `eventId` satisfies `done`. */
function deliveryWhen(
  api: Client,
  webhookId: string,
  eventId: string,
  done: (d: WebhookDelivery) => boolean,
  timeoutMs = 20_000,
): Promise<WebhookDelivery> {
  return eventually(async () => {
    const d = (await deliveries(api, webhookId, '?pageSize=100')).data.find((x) => x.eventId === eventId);
    return d && done(d) ? d : undefined;
  }, timeoutMs);
}

const settled = (d: WebhookDelivery) => d.status !== 'pending';
/** The body a webhook receives (the API types a delivery's payload only as a record). */
interface WebhookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}
const bodyOf = (r: HookRequest) => JSON.parse(r.body) as WebhookBody;
/** Waits for `count` requests at `path`. */
const received = (path: string, count = 1) =>
  eventually(async () => (hooks.to(path).length >= count ? hooks.to(path) : undefined), 20_000);

// ---------------------------------------------------------------------------------------------

describe('the webhooks API', () => {
  it('creates, lists, reads, updates, rotates and deletes webhooks', async () => {
    const p = await mail.server.project('wh-crud');
    const first = await createHook(p.api, {
      url: 'https://hooks.example.com/a',
      events: ['email.*', 'signed_up', 'signed_up'],
      description: 'CRM',
    });
    expect(first).toEqual({
      id: expect.stringMatching(UUID),
      url: 'https://hooks.example.com/a',
      events: ['email.*', 'signed_up'],
      description: 'CRM',
      enabled: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      projectId: p.id,
      createdAt: expect.any(String),
      updatedAt: first.createdAt,
    });
    expect(Buffer.from(first.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const second = await createHook(p.api, { url: 'http://hooks.example.com/b', events: ['*'], enabled: false });
    expect(second).toMatchObject({ description: null, enabled: false, events: ['*'] });
    expect(second.secret).not.toBe(first.secret);

    const list = await p.api.get('/webhooks');
    expect(list.status).toBe(200);
    const newestFirst = [first, second].sort(
      (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id),
    );
    expect(list.body).toEqual(newestFirst);
    expect((await p.api.get(`/webhooks/${first.id}`)).body).toEqual(first);

    // PATCH is partial: only the given fields change; null clears the description.
    const patched = await p.api.patch(`/webhooks/${first.id}`, { events: ['contact.*'], description: null });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      id: first.id,
      url: first.url,
      events: ['contact.*'],
      description: null,
      enabled: true,
      secret: first.secret,
    });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.updatedAt));
    const enabled = await p.api.patch(`/webhooks/${second.id}`, {
      enabled: true,
      url: 'https://hooks.example.com/c',
      description: 'Audit',
    });
    expect(enabled.body).toMatchObject({
      enabled: true,
      url: 'https://hooks.example.com/c',
      events: ['*'],
      description: 'Audit',
    });
    expect((await p.api.patch(`/webhooks/${second.id}`, {})).body).toMatchObject({
      enabled: true,
      url: 'https://hooks.example.com/c',
      events: ['*'],
      description: 'Audit',
    });

    const rotated = await p.api.post(`/webhooks/${first.id}/rotate-secret`);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first.secret);
    expect((await p.api.get(`/webhooks/${first.id}`)).body.secret).toBe(rotated.body.secret);

    const deleted = await p.api.delete(`/webhooks/${first.id}`);
    expect(deleted.status).toBe(204);
    expectError(await p.api.get(`/webhooks/${first.id}`), 404, 'NOT_FOUND');
    expectError(await p.api.delete(`/webhooks/${first.id}`), 404, 'NOT_FOUND');
    expect((await p.api.get('/webhooks')).body.map((w: Webhook) => w.id)).toEqual([second.id]);
  });

  it('refuses invalid webhooks with 422 and unknown ones with 404', async () => {
    const p = await mail.server.project('wh-invalid');
    const invalid: [Record<string, unknown>, string][] = [
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: 'ftp://hooks.example.com/x', events: ['*'] }, 'url'],
      [{ url: 'javascript:alert(1)', events: ['*'] }, 'url'],
      [{ events: ['*'] }, 'url'],
      [{ url: 'https://hooks.example.com/x', events: [] }, 'events'],
      [{ url: 'https://hooks.example.com/x' }, 'events'],
      [{ url: 'https://hooks.example.com/x', events: ['email*'] }, 'events.0'],
      [{ url: 'https://hooks.example.com/x', events: ['ok', 'a b'] }, 'events.1'],
      [{ url: 'https://hooks.example.com/x', events: ['*.*'] }, 'events.0'],
      [{ url: 'https://hooks.example.com/x', events: Array.from({ length: 51 }, (_, i) => `e${i}`) }, 'events'],
      [{ url: 'https://hooks.example.com/x', events: ['*'], enabled: 'yes' }, 'enabled'],
      [{ url: 'https://hooks.example.com/x', events: ['*'], description: 'x'.repeat(501) }, 'description'],
    ];
    for (const [body, field] of invalid) {
      const res = await p.api.post('/webhooks', body);
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(
        res.body.error.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect((await p.api.get('/webhooks')).body).toEqual([]);
    // Fifty patterns are fine.
    await createHook(p.api, {
      url: 'https://hooks.example.com/x',
      events: Array.from({ length: 50 }, (_, i) => `e${i}`),
    });

    const hook = await createHook(p.api, { url: 'https://hooks.example.com/y', events: ['*'] });
    expectError(await p.api.patch(`/webhooks/${hook.id}`, { url: 'gopher://x' }), 422, 'VALIDATION_ERROR');
    expectError(await p.api.patch(`/webhooks/${hook.id}`, { events: [] }), 422, 'VALIDATION_ERROR');
    expectError(await p.api.get(`/webhooks/${hook.id}/deliveries?status=lost`), 422, 'VALIDATION_ERROR');
    expect((await p.api.get(`/webhooks/${hook.id}`)).body).toEqual(hook);

    expectError(await p.api.get(`/webhooks/${UNKNOWN_ID}`), 404, 'NOT_FOUND');
    expectError(await p.api.patch(`/webhooks/${UNKNOWN_ID}`, { enabled: false }), 404, 'NOT_FOUND');
    expectError(await p.api.delete(`/webhooks/${UNKNOWN_ID}`), 404, 'NOT_FOUND');
    expectError(await p.api.post(`/webhooks/${UNKNOWN_ID}/rotate-secret`), 404, 'NOT_FOUND');
    expectError(await p.api.get(`/webhooks/${UNKNOWN_ID}/deliveries`), 404, 'NOT_FOUND');
    // The public key does not manage webhooks.
    expect((await p.api.get('/webhooks', p.publicKey)).status).toBe(401);
  });

  it("keeps each project's webhooks and events to itself", async () => {
    const a = await mail.server.project('wh-iso-a');
    const b = await mail.server.project('wh-iso-b');
    const pathA = newPath('iso-a');
    const pathB = newPath('iso-b');
    const hookA = await hookTo(a.api, pathA, ['*']);
    const hookB = await hookTo(b.api, pathB, ['*']);

    expect((await b.api.get('/webhooks')).body.map((w: Webhook) => w.id)).toEqual([hookB.id]);
    expectError(await b.api.get(`/webhooks/${hookA.id}`), 404, 'NOT_FOUND');
    expectError(await b.api.patch(`/webhooks/${hookA.id}`, { enabled: false }), 404, 'NOT_FOUND');
    expectError(await b.api.post(`/webhooks/${hookA.id}/rotate-secret`), 404, 'NOT_FOUND');
    expectError(await b.api.get(`/webhooks/${hookA.id}/deliveries`), 404, 'NOT_FOUND');
    expectError(await b.api.delete(`/webhooks/${hookA.id}`), 404, 'NOT_FOUND');
    expect((await a.api.get(`/webhooks/${hookA.id}`)).body).toEqual(hookA);

    // B's event reaches B's webhook only, and A's only A's.
    const inB = await track(b, 'iso@example.com', 'happened_in_b');
    const [toB] = await received(pathB);
    expect(bodyOf(toB!).data.eventId).toBe(inB.event);
    const inA = await track(a, 'iso@example.com', 'happened_in_a');
    const toA = await received(pathA);
    expect(toA.map((r) => bodyOf(r).data.eventId)).toEqual([inA.event]);
    expect(hooks.to(pathB)).toHaveLength(1);
    expect((await deliveries(a.api, hookA.id)).data.map((d) => d.eventId)).toEqual([inA.event]);
  });
});

describe('deliveries', () => {
  it('sends a tracked event to every matching webhook, signed, and to no other', async () => {
    const p = await mail.server.project('wh-track');
    const [all, exact, orders] = [newPath('all'), newPath('exact'), newPath('orders')];
    const allHook = await hookTo(p.api, all, ['*']);
    const exactHook = await hookTo(p.api, exact, ['signed_up']);
    const ordersHook = await hookTo(p.api, orders, ['order.*']);

    const before = Math.floor(Date.now() / 1000);
    const tracked = await track(p, 'ann@example.com', 'signed_up', { plan: 'pro', seats: 3 });
    const [toAll] = await received(all);
    const [toExact] = await received(exact);
    const events = await p.api.get('/events?name=signed_up');
    const event = events.body.data.find((e: { id: string }) => e.id === tracked.event);
    for (const [r, hook] of [
      [toAll!, allHook],
      [toExact!, exactHook],
    ] as const) {
      expect(bodyOf(r)).toEqual({
        type: 'signed_up',
        timestamp: event.createdAt,
        data: { plan: 'pro', seats: 3, eventId: tracked.event, contactId: tracked.contact },
      });
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(signatureValid(hook.secret, r)).toBe(true);
      expect(signatureValid(ordersHook.secret, r)).toBe(false);
      expect(Number(r.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
      // The webhook-id is the delivery's id, and the delivery records the answer.
      const d = await deliveryWhen(p.api, hook.id, tracked.event, settled);
      expect(d).toMatchObject({
        id: r.headers['webhook-id'],
        webhookId: hook.id,
        eventName: 'signed_up',
        status: 'delivered',
        attempts: 1,
        responseStatus: 200,
        lastError: null,
      });
      expect(d.payload).toEqual(bodyOf(r));
      expect(d.deliveredAt).not.toBeNull();
    }
    // A tampered body does not verify.
    expect(signatureValid(allHook.secret, { ...toAll!, body: toAll!.body.replace('pro', 'max') })).toBe(false);

    // order.* takes order.created but neither signed_up nor a bare "order".
    await track(p, 'ann@example.com', 'order');
    const created = await track(p, 'ann@example.com', 'order.created', { total: 12 });
    const toOrders = await received(orders);
    expect(toOrders.map((r) => bodyOf(r).type)).toEqual(['order.created']);
    expect(bodyOf(toOrders[0]!).data).toEqual({ total: 12, eventId: created.event, contactId: tracked.contact });
    expect((await deliveries(p.api, ordersHook.id)).total).toBe(1);
    await received(all, 3);
    expect(hooks.to(exact)).toHaveLength(1);
    expect((await deliveries(p.api, exactHook.id)).total).toBe(1);
  });

  it('reports email.sent for a send, with the email id', async () => {
    const p = await mail.server.project('wh-send');
    await verifiedDomain(p.api, mail.dns, 'mail.webhooks.test');
    const path = newPath('emails');
    const hook = await hookTo(p.api, path, ['email.*']);
    const to = `sent-${++seq}@rcpt.webhooks.test`;
    const sent = await sendOk(p.api, { to, from: 'hello@mail.webhooks.test', subject: 'Hi', body: '<p>Hi</p>' });
    const { email: emailId, contact } = sent.emails[0]!;
    await deliveredMessage(mail.sink, emailId);

    const [r] = await received(path);
    const body = bodyOf(r!);
    expect(body).toMatchObject({
      type: 'email.sent',
      data: { emailId, contactId: contact.id, eventId: expect.stringMatching(UUID) },
    });
    expect(body.data).not.toHaveProperty('campaignId');
    expect(signatureValid(hook.secret, r!)).toBe(true);
    const d = await deliveryWhen(p.api, hook.id, body.data.eventId as string, settled);
    expect(d).toMatchObject({ id: r!.headers['webhook-id'], eventName: 'email.sent', status: 'delivered' });
  });

  it('reports contact.unsubscribed and contact.subscribed from PATCH /contacts to a contact.* webhook', async () => {
    const p = await mail.server.project('wh-contact');
    const path = newPath('contacts');
    const hook = await hookTo(p.api, path, ['contact.*']);
    const created = await p.api.post('/contacts', { email: 'bob@example.com', subscribed: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await track(p, 'bob@example.com', 'not_a_contact_event');

    expect((await p.api.patch(`/contacts/${created.body.id}`, { subscribed: false })).status).toBe(200);
    const [off] = await received(path);
    expect(bodyOf(off!)).toMatchObject({
      type: 'contact.unsubscribed',
      data: { contactId: created.body.id, source: 'api' },
    });
    expect(signatureValid(hook.secret, off!)).toBe(true);

    expect((await p.api.patch(`/contacts/${created.body.id}`, { subscribed: true })).status).toBe(200);
    const both = await received(path, 2);
    expect(both.map((r) => bodyOf(r).type)).toEqual(['contact.unsubscribed', 'contact.subscribed']);
    expect((await deliveries(p.api, hook.id)).data.map((d) => d.eventName)).toEqual([
      'contact.subscribed',
      'contact.unsubscribed',
    ]);
  });

  it('reports a preference-center submit that changes two topics once, and one that changes nothing not at all', async () => {
    const p = await mail.server.project('wh-topics');
    const path = newPath('topics');
    const hook = await hookTo(p.api, path, ['contact.topics_changed']);
    const topic = async (name: string, defaultOn: boolean) =>
      expectBody<Topic>(p.api.post('/topics', { name, defaultOn }), 201);
    const [digest, launches, events] = [
      await topic('Digest', true),
      await topic('Launches', false),
      await topic('Events', false),
    ];
    const contact = await expectBody<Contact>(p.api.post('/contacts', { email: 'topics@example.com' }), 201);
    const token = mail.server.service.ctx.links.subscriberToken({ projectId: p.id, contactId: contact.id });
    // The preference center's one submit: Digest unticked, Launches ticked, Events left unticked.
    const submit = async () => {
      const res = await fetch(`${mail.server.url}/manage/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ action: 'save', days: '', [`topic.${launches.id}`]: 'on' }).toString(),
      });
      expect(res.status).toBe(200);
    };

    await submit();
    const [changed] = await received(path);
    expect(signatureValid(hook.secret, changed!)).toBe(true);
    expect(bodyOf(changed!)).toEqual({
      type: 'contact.topics_changed',
      timestamp: expect.any(String),
      data: {
        contactId: contact.id,
        email: 'topics@example.com',
        source: 'manage_page',
        topics: [
          { id: digest.id, name: 'Digest', subscribed: false },
          { id: launches.id, name: 'Launches', subscribed: true },
        ],
        eventId: expect.any(String),
      },
    });

    // The same submit again changes nothing, nor does the API naming a topic as it is: no event. A
    // later change through the API is the next delivery.
    await submit();
    expect((await p.api.patch(`/contacts/${contact.id}`, { topics: { [digest.id]: false } })).status).toBe(200);
    expect((await p.api.patch(`/contacts/${contact.id}`, { topics: { [events.id]: true } })).status).toBe(200);
    const both = await received(path, 2);
    expect(bodyOf(both[1]!).data).toMatchObject({
      source: 'api',
      topics: [{ id: events.id, name: 'Events', subscribed: true }],
    });
    await deliveryWhen(p.api, hook.id, bodyOf(both[1]!).data.eventId as string, settled);
    expect((await deliveries(p.api, hook.id)).total).toBe(2);
    expect(hooks.to(path)).toHaveLength(2);
    const stored = await expectBody(p.api.get(`/events/contact/${contact.id}?name=contact.topics_changed`));
    expect(stored.data).toHaveLength(2);
    // Clients cannot track it, and the API document names it among the events a webhook takes.
    const tracked = await p.api.post(
      '/v1/track',
      { email: 'x@example.com', event: 'contact.topics_changed' },
      p.publicKey,
    );
    expect(tracked.status).toBe(422);
    const doc = await (await fetch(`${mail.server.url}/openapi.json`)).json();
    for (const method of ['post', 'patch'] as const) {
      const path = method === 'post' ? '/webhooks' : '/webhooks/{id}';
      const body = doc.paths[path][method].requestBody.content['application/json'].schema;
      expect(body.properties.events.description, method).toContain('contact.topics_changed');
    }
  });

  it('signs new deliveries with the new secret only after a rotation', async () => {
    const p = await mail.server.project('wh-rotate');
    const path = newPath('rotate');
    const hook = await hookTo(p.api, path, ['rotate.*']);
    await track(p, 'rot@example.com', 'rotate.before');
    const [before] = await received(path);
    expect(signatureValid(hook.secret, before!)).toBe(true);

    const rotated: Webhook = (await p.api.post(`/webhooks/${hook.id}/rotate-secret`)).body;
    await track(p, 'rot@example.com', 'rotate.after');
    const after = (await received(path, 2))[1]!;
    expect(bodyOf(after).type).toBe('rotate.after');
    expect(signatureValid(rotated.secret, after)).toBe(true);
    expect(signatureValid(hook.secret, after)).toBe(false);
    expect(signatureValid(rotated.secret, before!)).toBe(false);
  });

  it('retries 500, 429 and 408 with the same webhook-id until a 2xx, counting attempts', async () => {
    const p = await mail.server.project('wh-retry');
    const path = newPath('flaky');
    hooks.answer(path, 500, 429, 408, 503);
    const hook = await hookTo(p.api, path, ['*']);
    const tracked = await track(p, 'retry@example.com', 'flaky_event');
    const d = await deliveryWhen(p.api, hook.id, tracked.event, settled);
    expect(d).toMatchObject({ status: 'delivered', attempts: 5, responseStatus: 200, lastError: null });
    expect(d.deliveredAt).not.toBeNull();
    const attempts = hooks.to(path);
    expect(attempts).toHaveLength(5);
    for (const r of attempts) {
      expect(r.headers['webhook-id']).toBe(d.id);
      expect(r.body).toBe(attempts[0]!.body);
      expect(signatureValid(hook.secret, r)).toBe(true);
    }
  });

  it('keeps a delivery pending while it is retried, and fails it when its webhook is disabled', async () => {
    const p = await mail.server.project('wh-pending');
    const path = newPath('down');
    hooks.answer(path, ...Array<number>(10).fill(503));
    const hook = await hookTo(p.api, path, ['*']);
    const tracked = await track(p, 'down@example.com', 'down_event');
    await received(path, 2);
    const pending = await deliveryWhen(p.api, hook.id, tracked.event, (d) => d.attempts >= 2);
    expect(pending).toMatchObject({ status: 'pending', responseStatus: 503, deliveredAt: null });
    expect(pending.lastError).toMatch(/503/);
    expect((await deliveries(p.api, hook.id, '?status=pending')).total).toBe(1);

    expect((await p.api.patch(`/webhooks/${hook.id}`, { enabled: false })).status).toBe(200);
    const failed = await deliveryWhen(p.api, hook.id, tracked.event, settled);
    expect(failed).toMatchObject({ status: 'failed', deliveredAt: null });
    expect(failed.lastError).toMatch(/disabled/);
  });

  it('retries a refused connection and delivers to the URL the webhook has by then', async () => {
    const p = await mail.server.project('wh-refused');
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const hook = await createHook(p.api, { url: `http://127.0.0.1:${port}/nobody`, events: ['*'] });
    const tracked = await track(p, 'refused@example.com', 'refused_event');
    const pending = await deliveryWhen(p.api, hook.id, tracked.event, (d) => d.attempts >= 1);
    expect(pending).toMatchObject({ status: 'pending', responseStatus: null });
    expect(pending.lastError).toMatch(/ECONNREFUSED/);

    const path = newPath('recovered');
    expect((await p.api.patch(`/webhooks/${hook.id}`, { url: hooks.url + path })).status).toBe(200);
    const [r] = await received(path);
    expect(r!.headers['webhook-id']).toBe(pending.id);
    const d = await deliveryWhen(p.api, hook.id, tracked.event, settled);
    expect(d).toMatchObject({ status: 'delivered', responseStatus: 200, lastError: null });
    expect(d.attempts).toBeGreaterThanOrEqual(2);
  });

  it('fails at once on a 410, without a retry, and lists deliveries by status, newest first', async () => {
    const p = await mail.server.project('wh-gone');
    const path = newPath('gone');
    hooks.answer(path, 410);
    const hook = await hookTo(p.api, path, ['*']);
    const first = await track(p, 'gone@example.com', 'first');
    const failed = await deliveryWhen(p.api, hook.id, first.event, settled);
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 1,
      responseStatus: 410,
      deliveredAt: null,
      eventName: 'first',
    });
    expect(failed.lastError).toMatch(/410/);

    const second = await track(p, 'gone@example.com', 'second');
    const delivered = await deliveryWhen(p.api, hook.id, second.event, settled);
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 1 });
    // The 410 got no second request: the receiver saw one request per event.
    expect(hooks.to(path).map((r) => bodyOf(r).type)).toEqual(['first', 'second']);

    const all = await deliveries(p.api, hook.id);
    expect(all).toMatchObject({ total: 2, page: 1, pageSize: 20, totalPages: 1 });
    expect(all.data.map((d) => d.id)).toEqual([delivered.id, failed.id]);
    expect((await deliveries(p.api, hook.id, '?status=failed')).data.map((d) => d.id)).toEqual([failed.id]);
    expect((await deliveries(p.api, hook.id, '?status=delivered')).data.map((d) => d.id)).toEqual([delivered.id]);
    expect(await deliveries(p.api, hook.id, '?status=pending')).toMatchObject({ data: [], total: 0, totalPages: 0 });
    const page2 = await deliveries(p.api, hook.id, '?page=2&pageSize=1');
    expect(page2).toMatchObject({ total: 2, page: 2, pageSize: 1, totalPages: 2 });
    expect(page2.data.map((d) => d.id)).toEqual([failed.id]);
  });

  it('gives a disabled webhook no deliveries, not even later', async () => {
    const p = await mail.server.project('wh-disabled');
    const [off, on] = [newPath('off'), newPath('on')];
    const offHook = await hookTo(p.api, off, ['*'], { enabled: false });
    const onHook = await hookTo(p.api, on, ['*']);
    const whileOff = await track(p, 'dis@example.com', 'while_off');
    await deliveryWhen(p.api, onHook.id, whileOff.event, settled);
    expect((await deliveries(p.api, offHook.id)).total).toBe(0);

    expect((await p.api.patch(`/webhooks/${offHook.id}`, { enabled: true })).status).toBe(200);
    const whileOn = await track(p, 'dis@example.com', 'while_on');
    const [r] = await received(off);
    expect(bodyOf(r!).data.eventId).toBe(whileOn.event);
    await deliveryWhen(p.api, offHook.id, whileOn.event, settled);
    expect((await deliveries(p.api, offHook.id)).data.map((d) => d.eventId)).toEqual([whileOn.event]);
    expect(hooks.to(off)).toHaveLength(1);
  });
});

describe('private network targets', () => {
  const strict = useTestServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });

  it('fails a delivery to a loopback address at once, without sending it', async () => {
    const p = await strict.project('wh-private');
    const [byIp, byName] = [newPath('private-ip'), newPath('private-name')];
    const port = new URL(hooks.url).port;
    const ipHook = await createHook(p.api, { url: hooks.url + byIp, events: ['*'] });
    const nameHook = await createHook(p.api, { url: `http://localhost:${port}${byName}`, events: ['*'] });
    const tracked = await track(p, 'private@example.com', 'inside');

    const viaIp = await deliveryWhen(p.api, ipHook.id, tracked.event, settled);
    expect(viaIp).toMatchObject({ status: 'failed', attempts: 1, responseStatus: null, deliveredAt: null });
    expect(viaIp.lastError).toBe('127.0.0.1 is a private or loopback address; webhooks to it are not allowed');
    // A name is checked on the address it resolves to.
    const viaName = await deliveryWhen(p.api, nameHook.id, tracked.event, settled);
    expect(viaName).toMatchObject({ status: 'failed', attempts: 1, responseStatus: null });
    expect(viaName.lastError).toMatch(/^localhost \((127\.0\.0\.1|::1)\) is a private or loopback address/);
    expect(hooks.to(byIp)).toHaveLength(0);
    expect(hooks.to(byName)).toHaveLength(0);
  });
});
