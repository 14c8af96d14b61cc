import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { client, eventually, expectBody, expectErrorEnvelope, useTestServer } from '../support/server.js';

/**
 * A transaction that loses a deadlock keeps nothing. The test makes a real one: a session of its own
 * holds the partition a tracked event goes to, the track request's statement locks contacts and waits
 * for that partition, and the session then asks for contacts in a mode the request's lock excludes.
 * PostgreSQL undoes the request's transaction (the test's session waits much longer before it checks
 * for deadlocks, so it is never the one chosen).
 */
/**
 * Runs `request` against a session that holds `partition`, waits until the request waits for it,
 * then closes the cycle by asking for contacts in a mode the request's own lock excludes.
 */
async function collide<T>(session: pg.Client, partition: string, request: () => Promise<T>): Promise<T> {
  await session.query('begin');
  await session.query(`set local deadlock_timeout = '60s'`);
  await session.query(`lock table ${partition} in access exclusive mode`);
  const pending = request();
  await eventually(async () => {
    const waiting = await session.query('select 1 from pg_locks where not granted and relation = $1::regclass', [
      partition,
    ]);
    return waiting.rowCount! > 0 || undefined;
  });
  await session.query('lock table contacts in share mode');
  await session.query('rollback');
  return pending;
}

describe('a request that loses a deadlock', () => {
  const server = useTestServer();
  const email = 'deadlock@example.com';

  /** A project with one tracked contact, a session on the service's database, and where its events go. */
  async function setUp() {
    const p = await server.project();
    const api = client(server.url, p.publicKey);
    await expectBody(api.post('/v1/track', { email, event: 'warm_up' }));
    const session = new pg.Client({ connectionString: server.service.ctx.config.databaseUrl });
    await session.connect();
    const [{ id, partition }] = (
      await session.query(
        `select c.id, e.tableoid::regclass::text as partition
         from contacts c join events e on e.contact_id = c.id
         where c.project_id = $1 and c.email = $2`,
        [p.id, email],
      )
    ).rows;
    return { p, api, session, id: id as string, partition: partition as string };
  }

  it('POST /v1/track is written once more and answers 200, with one event', async () => {
    const { api, session, id, partition } = await setUp();
    try {
      const res = await collide(session, partition, () =>
        api.post('/v1/track', { email, event: 'collided', data: { n: 1 } }),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const events = await session.query(`select data from events where contact_id = $1 and name = 'collided'`, [id]);
      expect(events.rows).toEqual([{ data: { n: 1 } }]);
    } finally {
      await session.end();
    }
  });

  it('any other request answers 503 with Retry-After, and nothing of it is kept', async () => {
    const { p, session, id, partition } = await setUp();
    try {
      // An unsubscribe updates the contact, then records its event in the partition held.
      const res = await collide(session, partition, () =>
        p.api.patch(`/contacts/${id}`, { subscribed: false, data: { plan: 'lost' } }),
      );
      expectErrorEnvelope(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await expectBody(p.api.get(`/contacts/${id}`))).toMatchObject({ subscribed: true, data: {} });
      const events = await session.query(
        `select 1 from events where contact_id = $1 and name = 'contact.unsubscribed'`,
        [id],
      );
      expect(events.rows).toEqual([]);
    } finally {
      await session.end();
    }
  });

  it('DELETE /contacts/{id}, which keeps nothing when it loses, is run again and answers 204', async () => {
    const { p, session, id, partition } = await setUp();
    try {
      const res = await collide(session, partition, () => p.api.delete(`/contacts/${id}`));
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      expect((await p.api.get(`/contacts/${id}`)).status).toBe(404);
    } finally {
      await session.end();
    }
  });
});
