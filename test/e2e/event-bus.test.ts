import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/platform/db/client.js';
import type { RecordedEvent } from '../../src/platform/event-bus.js';
import { enqueue } from '../../src/platform/queue.js';
import { eventually, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
const seen: RecordedEvent[] = [];
let failuresLeft = 0;

beforeAll(async () => {
  server = await startTestServer();
  server.service.ctx.bus.subscribe(async (tx, events) => {
    if (events.some((e) => e.name === 'flaky') && failuresLeft-- > 0) throw new Error('subscriber not ready');
    for (const event of events) {
      seen.push(event);
      // What a workflow trigger does: a job that commits with the event's delivery.
      await enqueue(tx, 'test.bus-observer', { eventId: event.id });
    }
  });
});
afterAll(() => server.stop());

const observedJobs = async () =>
  (await run(server.service.ctx.db, sql`select payload from jobs where queue = 'test.bus-observer'`)).rows.map(
    (r) => r.payload.eventId,
  );

describe('events published inside the service', () => {
  it('reach subscribers once stored, from tracking and from subscription changes, in order', async () => {
    const { api, publicKey } = await server.project();
    const tracked = await api.request('POST', '/v1/track', {
      body: { email: 'bus@example.com', event: 'viewed_pricing' },
      key: publicKey,
    });
    expect(tracked.status).toBe(200);
    const flipped = await api.patch(`/contacts/${tracked.body.data.contact}`, { subscribed: false });
    expect(flipped.status).toBe(200);

    const mine = await eventually(async () => {
      const events = seen.filter((e) => e.contactId === tracked.body.data.contact);
      return events.length === 2 ? events : undefined;
    });
    expect(mine.map((e) => e.name)).toEqual(['viewed_pricing', 'contact.unsubscribed']);
    expect(mine[0]).toMatchObject({ id: tracked.body.data.event, data: {} });
    await eventually(async () => {
      const jobs = await observedJobs();
      return mine.every((e) => jobs.includes(e.id)) ? true : undefined;
    });
    const outbox = await run(server.service.ctx.db, sql`select count(*)::int as n from event_outbox`);
    expect(outbox.rows[0].n).toBe(0);
  });

  it('retries an event whose subscriber failed, without affecting the request that tracked it', async () => {
    const { api, publicKey } = await server.project();
    failuresLeft = 2;
    const res = await api.request('POST', '/v1/track', {
      body: { email: 'flaky@example.com', event: 'flaky' },
      key: publicKey,
    });
    expect(res.status).toBe(200);
    expect((await api.get('/events?name=flaky')).body.total).toBe(1);
    await eventually(async () => (seen.some((e) => e.id === res.body.data.event) ? true : undefined), 20_000);
    expect(failuresLeft).toBe(-1);
    expect(seen.filter((e) => e.id === res.body.data.event)).toHaveLength(1);
    // The subscriber saw the event inside the delivery's transaction; its job is visible once that commits.
    const jobs = await eventually(async () => {
      const mine = (await observedJobs()).filter((id) => id === res.body.data.event);
      return mine.length > 0 ? mine : undefined;
    });
    expect(jobs).toHaveLength(1);
  });
});
