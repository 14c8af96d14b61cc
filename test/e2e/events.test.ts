import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { contacts, TrackedEvent } from '../../src/api.js';
import type { CursorPage } from '../../src/platform/http/pagination.js';
import { type ApiResponse, expectBody, type TestProject, useTestServer } from '../support/server.js';

type EventPage = CursorPage<TrackedEvent>;

const server = useTestServer();

/** A 422 VALIDATION_ERROR whose first error has these properties. */
function expectValidationError(res: ApiResponse, first: Record<string, unknown>, label?: string) {
  expect(res.status, label).toBe(422);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.errors[0]).toMatchObject(first);
}

let lastTimestamp = 0;
/** Tracks one event; successive events get distinct millisecond timestamps so time filters have edges. */
async function track(p: TestProject, email: string, event: string) {
  while (Date.now() <= lastTimestamp) await new Promise((r) => setTimeout(r, 2));
  const res = await p.api.request('POST', '/v1/track', { body: { email, event }, key: p.publicKey });
  expect(res.status).toBe(200);
  lastTimestamp = Date.parse(res.body.data.timestamp);
  return res.body.data as z.infer<typeof contacts.trackResponse>['data'];
}

async function page(p: TestProject, query: string): Promise<EventPage> {
  return expectBody(p.api.get(`/events${query}`));
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('GET /events', () => {
  let p: TestProject;
  let tracked: { contact: string; event: string; timestamp: string }[];
  beforeAll(async () => {
    p = await server.project();
    tracked = [];
    for (let i = 0; i < 5; i++) tracked.push(await track(p, `u${i % 2}@example.com`, i % 2 ? 'odd' : 'even'));
  });

  it('lists the newest events first with their contact', async () => {
    const res = await page(p, '');
    expect(res.total).toBe(5);
    expect(res.hasMore).toBe(false);
    expect(res.cursor).toBeNull();
    expect(res.data.map((e) => e.id)).toEqual(tracked.map((t) => t.event).reverse());
    expect(res.data[0]).toEqual({
      id: tracked[4]!.event,
      name: 'even',
      contactId: tracked[4]!.contact,
      email: 'u0@example.com',
      data: {},
      createdAt: tracked[4]!.timestamp,
    });
  });

  it('pages by cursor with total only on the first page', async () => {
    const first = await page(p, '?limit=2');
    expect(first.data).toHaveLength(2);
    expect(first.total).toBe(5);
    expect(first.hasMore).toBe(true);
    expect(first.cursor).toEqual(expect.any(String));

    const second = await page(p, `?limit=2&cursor=${encodeURIComponent(first.cursor!)}`);
    expect(second.data).toHaveLength(2);
    expect(second.total).toBe(0);
    expect(second.hasMore).toBe(true);

    const third = await page(p, `?limit=2&cursor=${encodeURIComponent(second.cursor!)}`);
    expect(third.data).toHaveLength(1);
    expect(third.total).toBe(0);
    expect(third.hasMore).toBe(false);
    expect(third.cursor).toBeNull();

    const ids = [...first.data, ...second.data, ...third.data].map((e) => e.id);
    expect(ids).toEqual(tracked.map((t) => t.event).reverse());
  });

  it('pages in ascending order with dir=asc', async () => {
    const first = await page(p, '?limit=3&dir=asc');
    const second = await page(p, `?limit=3&dir=asc&cursor=${encodeURIComponent(first.cursor!)}`);
    expect([...first.data, ...second.data].map((e) => e.id)).toEqual(tracked.map((t) => t.event));
    expect(second.hasMore).toBe(false);
  });

  it('clamps limit above 100 and rejects limit 0', async () => {
    expect((await page(p, '?limit=1000')).data).toHaveLength(5);
    const res = await p.api.get('/events?limit=0');
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0].field).toBe('limit');
  });

  it('filters by name', async () => {
    const odd = await page(p, '?name=odd');
    expect(odd.total).toBe(2);
    expect(odd.data.map((e) => e.id)).toEqual([tracked[3]!.event, tracked[1]!.event]);
    expect(odd.data.every((e) => e.name === 'odd')).toBe(true);
    const none = await page(p, '?name=nothing');
    expect(none).toEqual({ data: [], cursor: null, hasMore: false, total: 0 });
  });

  it('filters by since (inclusive) and until (exclusive)', async () => {
    const since = await page(p, `?since=${encodeURIComponent(tracked[2]!.timestamp)}`);
    expect(since.data.map((e) => e.id)).toEqual([tracked[4]!.event, tracked[3]!.event, tracked[2]!.event]);
    expect(since.total).toBe(3);

    const until = await page(p, `?until=${encodeURIComponent(tracked[2]!.timestamp)}`);
    expect(until.data.map((e) => e.id)).toEqual([tracked[1]!.event, tracked[0]!.event]);

    const both = await page(
      p,
      `?since=${encodeURIComponent(tracked[1]!.timestamp)}&until=${encodeURIComponent(tracked[3]!.timestamp)}&name=even`,
    );
    expect(both.data.map((e) => e.id)).toEqual([tracked[2]!.event]);
  });

  it('rejects a since that is not a date-time', async () => {
    const res = await p.api.get('/events?since=yesterday');
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'since' });
  });

  it('rejects a cursor it did not issue with 422', async () => {
    const bad = [
      'not-a-cursor!!',
      b64({ a: 1 }),
      b64([]),
      b64(['not a date', randomUUID()]),
      b64([new Date().toISOString(), 'not-a-uuid']),
      b64([12, randomUUID()]),
      b64([new Date().toISOString()]),
    ];
    for (const cursor of bad) {
      const res = await p.api.get(`/events?cursor=${encodeURIComponent(cursor)}`);
      expectValidationError(res, { field: 'cursor' }, cursor);
    }
  });
});

describe('GET /events/stats', () => {
  it('counts events by name with unique contacts', async () => {
    const p = await server.project();
    await track(p, 'a@example.com', 'view');
    await track(p, 'a@example.com', 'view');
    await track(p, 'b@example.com', 'view');
    const lastBuy = await track(p, 'b@example.com', 'buy');

    const res = await p.api.get('/events/stats');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(4);
    expect(res.body.uniqueContacts).toBe(2);
    expect(res.body.byName).toEqual([
      { name: 'view', count: 3, uniqueContacts: 2, lastSeenAt: expect.any(String) },
      { name: 'buy', count: 1, uniqueContacts: 1, lastSeenAt: lastBuy.timestamp },
    ]);
    expect(Date.parse(res.body.since)).toBeLessThan(Date.parse(res.body.until));
  });

  it('limits the counts to the since/until window', async () => {
    const p = await server.project();
    await track(p, 'a@example.com', 'view');
    const second = await track(p, 'b@example.com', 'view');
    const res = await p.api.get(`/events/stats?since=${encodeURIComponent(second.timestamp)}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.uniqueContacts).toBe(1);
    expect(res.body.since).toBe(second.timestamp);

    const empty = await p.api.get(`/events/stats?until=${encodeURIComponent('2000-01-01T00:00:00Z')}`);
    expect(empty.body).toMatchObject({ total: 0, uniqueContacts: 0, byName: [] });
  });
});

describe('GET /events/names', () => {
  it('lists the distinct names in order', async () => {
    const p = await server.project();
    for (const name of ['zeta', 'alpha', 'zeta', 'mid', 'alpha']) await track(p, 'n@example.com', name);
    const res = await p.api.get('/events/names');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ names: ['alpha', 'mid', 'zeta'] });
  });
});

describe('GET /events/contact/{contactId}', () => {
  it('lists only that contact’s events', async () => {
    const p = await server.project();
    const a1 = await track(p, 'a@example.com', 'one');
    await track(p, 'b@example.com', 'one');
    const a2 = await track(p, 'a@example.com', 'two');
    const res = await p.api.get(`/events/contact/${a1.contact}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.data.map((e: TrackedEvent) => e.id)).toEqual([a2.event, a1.event]);
    expect(res.body.data.every((e: TrackedEvent) => e.contactId === a1.contact)).toBe(true);

    const named = await p.api.get(`/events/contact/${a1.contact}?name=two`);
    expect(named.body.data.map((e: TrackedEvent) => e.id)).toEqual([a2.event]);
  });

  it('answers 404 for another project’s contact and for an unknown id', async () => {
    const owner = await server.project();
    const other = await server.project();
    const { contact } = await track(owner, 'private@example.com', 'secret_thing');
    for (const id of [contact, randomUUID()]) {
      const res = await other.api.get(`/events/contact/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect(JSON.stringify(res.body)).not.toContain('secret_thing');
    }
  });

  it('answers 422 for an id that is not a uuid', async () => {
    const p = await server.project();
    const res = await p.api.get('/events/contact/not-a-uuid');
    expectValidationError(res, { field: 'contactId' });
  });
});

describe('GET /events/{name}/usage', () => {
  it('answers where the name is referenced', async () => {
    const p = await server.project();
    await track(p, 'a@example.com', 'signup');
    const res = await p.api.get('/events/signup/usage');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ event: 'signup', segments: [], campaigns: [], workflows: [] });
  });
});

describe('DELETE /events/{name}', () => {
  it('deletes every event with that name in the project only and returns the count', async () => {
    const p = await server.project();
    const other = await server.project();
    await track(p, 'a@example.com', 'gone');
    await track(p, 'b@example.com', 'gone');
    const kept = await track(p, 'a@example.com', 'kept');
    const foreign = await track(other, 'a@example.com', 'gone');

    const res = await p.api.delete('/events/gone');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ event: 'gone', deleted: 2 });

    expect((await page(p, '?name=gone')).total).toBe(0);
    expect((await page(p, '')).data.map((e) => e.id)).toEqual([kept.event]);
    expect((await page(other, '?name=gone')).data.map((e) => e.id)).toEqual([foreign.event]);
    expect((await p.api.get('/events/names')).body.names).toEqual(['kept']);

    const again = await p.api.delete('/events/gone');
    expect(again.body).toEqual({ event: 'gone', deleted: 0 });
  });

  it('handles names up to the 255-character limit in the path', async () => {
    const p = await server.project();
    const long = `${'n'.repeat(200)}-é-${'x'.repeat(52)}`;
    expect(long).toHaveLength(255);
    await track(p, 'long@example.com', long);
    const usage = await p.api.get(`/events/${encodeURIComponent(long)}/usage`);
    expect(usage.status).toBe(200);
    expect(usage.body.event).toBe(long);
    const res = await p.api.delete(`/events/${encodeURIComponent(long)}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ event: long, deleted: 1 });

    const tooLong = await p.api.delete(`/events/${'y'.repeat(256)}`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.errors[0]).toMatchObject({ field: 'eventName', code: 'too_big' });
    const absurd = await p.api.delete(`/events/${'y'.repeat(5000)}`);
    expect(absurd.status).toBe(414);
    expect(absurd.body.success).toBe(false);
    expect(absurd.body.error.statusCode).toBe(414);
    expect(absurd.headers.get('x-request-id')).toBe(absurd.body.error.requestId);
  });

  it('completes while the contacts those events belong to are deleted at the same time', async () => {
    // Deleting a contact takes its events' daily counts, then its events: deleting a name must take
    // them in that order too, or each waits on the other and one is undone.
    const p = await server.project();
    for (let round = 0; round < 3; round++) {
      const tracked = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          p.api.request('POST', '/v1/track', {
            body: { email: `race${round}-${i}@example.com`, event: 'raced' },
            key: p.publicKey,
          }),
        ),
      );
      const contacts = tracked.map((res) => res.body.data.contact as string);
      const answers = await Promise.all([
        ...contacts.map((id) => p.api.delete(`/contacts/${id}`)),
        p.api.delete('/events/raced'),
        p.api.delete('/events/raced'),
      ]);
      expect(answers.map((res) => res.status)).toEqual([...contacts.map(() => 204), 200, 200]);
      expect((await page(p, '?name=raced')).total).toBe(0);
    }
    expect((await p.api.get('/events/stats')).body.byName).toEqual([]);
  });

  it('refuses a reserved name with 422', async () => {
    const p = await server.project();
    for (const name of ['email.opened', 'contact.unsubscribed', 'segment.vip.entry']) {
      const res = await p.api.delete(`/events/${name}`);
      expectValidationError(res, { code: 'reserved_event' }, name);
    }
  });
});

describe('isolation', () => {
  it('never shows one project’s events to another', async () => {
    const a = await server.project();
    const b = await server.project();
    const tracked = await track(a, 'iso@example.com', 'isolated_event');

    expect(await page(b, '')).toEqual({ data: [], cursor: null, hasMore: false, total: 0 });
    expect((await page(b, '?name=isolated_event')).total).toBe(0);
    expect((await b.api.get('/events/names')).body).toEqual({ names: [] });
    expect((await b.api.get('/events/stats')).body).toMatchObject({ total: 0, uniqueContacts: 0, byName: [] });
    expect((await b.api.delete('/events/isolated_event')).body).toEqual({ event: 'isolated_event', deleted: 0 });

    // A cursor holds positions, not permissions: B replaying A's position still sees only B's events.
    const cursor = b64([new Date(Date.parse(tracked.timestamp) + 1).toISOString(), randomUUID()]);
    expect((await page(b, `?cursor=${encodeURIComponent(cursor)}`)).data).toEqual([]);

    expect((await page(a, '')).data.map((e) => e.id)).toEqual([tracked.event]);
  });
});
