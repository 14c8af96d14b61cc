import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type ChildServer, client, eventually, printedKeys, spawnService } from '../support/server.js';

/**
 * An erase whose process is killed (SIGKILL) between two of its batches resumes after a restart
 * and finishes: nothing of the person is left, and nothing was removed twice or skipped.
 */

let db: TestDatabase;
let server: ChildServer | undefined;
let sql: pg.Client;
beforeEach(async () => {
  db = await createTestDatabase();
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
afterEach(async () => {
  await server?.kill();
  server = undefined;
  await sql?.end();
  await db.drop();
});

const one = async <T>(text: string, values: unknown[] = []) => (await sql.query(text, values)).rows[0] as T;

/** The service started on the test's database, with a client holding its secret key. */
async function startService(secret?: string) {
  server = await spawnService(db.env);
  const key = secret ?? printedKeys(server.output()).secretKey;
  return { secret: key, api: client(server.url, key) };
}

/** A contact of the project, and the project's id. */
async function contactOf(api: ReturnType<typeof client>, body: Record<string, unknown>) {
  const created = await api.post('/contacts', body);
  expect(created.status).toBe(201);
  const contactId: string = created.body.id;
  const row = await one<{ project_id: string }>('select project_id from contacts where id = $1', [contactId]);
  return { contactId, projectId: row.project_id };
}

/** Starts the erase of `total` rows and kills the service (SIGKILL) once some batches, not all, are committed. */
async function eraseKilledMidway(api: ReturnType<typeof client>, contactId: string, total: number) {
  const accepted = await api.post(`/contacts/${contactId}/erase`);
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const jobId: string = accepted.body.data.jobId;
  expect(accepted.body.data.total).toBe(total);
  await eventually(
    async () => {
      const job = await one<{ processed: number }>('select processed from contact_jobs where id = $1', [jobId]);
      return job.processed > 0 ? true : undefined;
    },
    30_000,
    10,
  );
  await server!.kill('SIGKILL');
  const atKill = await one<{ status: string; processed: number }>(
    'select status, processed from contact_jobs where id = $1',
    [jobId],
  );
  expect(atKill.status).toBe('running');
  expect(atKill.processed).toBeGreaterThan(0);
  expect(atKill.processed).toBeLessThan(total);
  return { jobId, processedAtKill: atKill.processed };
}

/** Restarts the service and waits for the erase to finish, every row counted once. */
async function finishedAfterRestart(secret: string, jobId: string, total: number) {
  const { api } = await startService(secret);
  const done = await eventually(
    async () => {
      const res = await api.get(`/contacts/erase/${jobId}`);
      return res.body.status === 'completed' ? res.body : undefined;
    },
    60_000,
    200,
  );
  expect(done).toMatchObject({ total, processed: total, progress: 1 });
  return api;
}

describe('an erase killed in the middle', () => {
  it('resumes after restart and finishes', async () => {
    const { secret, api } = await startService();
    const email = 'grace.hopper@crash-erase.test';
    const { contactId, projectId } = await contactOf(api, { email, data: { ship: 'USS Hopper' } });
    // A long history: 150,000 events, 75 batches of the erase.
    const events = 150_000;
    await sql.query(
      `insert into events (id, project_id, contact_id, name, data, created_at)
       select gen_random_uuid(), $1, $2, 'page_view', jsonb_build_object('path', '/p/' || g, 'who', $3::text),
         now() - (g * interval '1 second')
       from generate_series(1, $4::int) g`,
      [projectId, contactId, email, events],
    );

    const { jobId, processedAtKill } = await eraseKilledMidway(api, contactId, events);
    const left = await one<{ n: number }>('select count(*)::int as n from events where contact_id = $1', [contactId]);
    // What the job says it did is what is gone: each batch commits with its progress.
    expect(left.n).toBe(events - processedAtKill);
    // Already at the kill, the contact has neither its address nor its data.
    const contact = await one<{ email: string; data: unknown }>('select email, data from contacts where id = $1', [
      contactId,
    ]);
    expect(contact).toEqual({ email: `erased-${contactId}@erased.invalid`, data: {} });

    const restarted = await finishedAfterRestart(secret, jobId, events);
    expect(await one('select count(*)::int as n from events where contact_id = $1', [contactId])).toEqual({ n: 0 });
    expect(await one('select count(*)::int as n from contacts where id = $1', [contactId])).toEqual({ n: 0 });
    const holding = await one<{ n: number }>(
      `select (select count(*) from contact_jobs j where strpos(j::text, $1) > 0)
        + (select count(*) from events e where strpos(e::text, $1) > 0) as n`,
      [email],
    );
    expect(Number(holding.n)).toBe(0);
    expect((await restarted.post('/contacts', { email })).status).toBe(422);
  });

  it('resumes in the middle of the emails to the address that no contact links to, and empties each once', async () => {
    const { secret, api } = await startService();
    const email = 'ada.byron@crash-erase.test';
    const { contactId, projectId } = await contactOf(api, { email });
    // 60,000 emails to the address, in another case, sent before it was a contact: 30 batches.
    const emails = 60_000;
    await sql.query(
      `insert into emails (id, project_id, type, status, from_email, to_email, subject, html, message_id, sent_at,
         created_at, updated_at)
       select gen_random_uuid(), $1, 'TRANSACTIONAL', 'sent', 'app@crash-erase.test', $2, 'Receipt ' || g,
         '<p>Dear ' || $2 || '</p>', '<r' || g || '@crash-erase.test>', now(), now() - g * interval '1 second', now()
       from generate_series(1, $3::int) g`,
      [projectId, 'Ada.Byron@Crash-Erase.test', emails],
    );
    const emptied = async () =>
      (
        await one<{ n: number }>(
          `select count(*)::int as n from emails where project_id = $1 and to_email = '' and subject = ''
            and content_removed_at is not null and status = 'sent'`,
          [projectId],
        )
      ).n;

    const { jobId, processedAtKill } = await eraseKilledMidway(api, contactId, emails);
    expect(await emptied()).toBe(processedAtKill);

    await finishedAfterRestart(secret, jobId, emails);
    // Every email is kept, emptied, and counted once.
    expect(await emptied()).toBe(emails);
    expect(await one('select count(*)::int as n from emails where project_id = $1', [projectId])).toEqual({
      n: emails,
    });
    const holding = await one<{ n: number }>(
      `select (select count(*) from emails e where strpos(lower(e::text), $1) > 0)
        + (select count(*) from contact_jobs j where strpos(j::text, $1) > 0) as n`,
      [email],
    );
    expect(Number(holding.n)).toBe(0);
  });
});
