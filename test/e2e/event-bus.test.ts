import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/platform/db/client.js';
import type { RecordedEvent } from '../../src/platform/event-bus.js';
import { enqueue } from '../../src/platform/queue.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe('events published inside the service', () => {
  it('reach subscribers inside the transaction that stores them, from tracking and from subscription changes', async () => {
    const seen: RecordedEvent[] = [];
    server.service.ctx.bus.subscribe(async (tx, event) => {
      seen.push(event);
      // What a workflow trigger does: a job committed together with the event.
      await enqueue(tx, 'test.bus-observer', { eventId: event.id });
    });
    const { api, publicKey } = await server.project();

    const tracked = await api.request('POST', '/v1/track', { body: { email: 'bus@example.com', event: 'viewed_pricing' }, key: publicKey });
    expect(tracked.status).toBe(200);
    const flipped = await api.patch(`/contacts/${tracked.body.data.contact}`, { subscribed: false });
    expect(flipped.status).toBe(200);

    expect(seen.map((e) => e.name)).toEqual(['viewed_pricing', 'contact.unsubscribed']);
    expect(seen[0]).toMatchObject({ id: tracked.body.data.event, contactId: tracked.body.data.contact });
    const jobs = await run(server.service.ctx.db, sql`select payload from jobs where queue = 'test.bus-observer'`);
    expect(jobs.rows.map((r) => r.payload.eventId).sort()).toEqual(seen.map((e) => e.id).sort());
  });

  it('roll back with the event when a subscriber fails', async () => {
    const { api, publicKey } = await server.project();
    server.service.ctx.bus.subscribe(async (_tx, event) => {
      if (event.name === 'explode') throw new Error('subscriber failed');
    });
    const res = await api.request('POST', '/v1/track', { body: { email: 'boom@example.com', event: 'explode' }, key: publicKey });
    expect(res.status).toBe(500);
    const events = await api.get('/events?name=explode');
    expect(events.body.total).toBe(0);
    const contacts = await api.get('/contacts?search=boom');
    expect(contacts.body.total).toBe(0);
  });
});
