import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueEmails } from '../../src/modules/emails/delivery-repo.js';
import { createProject } from '../../src/modules/projects/service.js';
import { type Database, openDatabase, run } from '../../src/platform/db/client.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { messageIdOf, sendOk } from '../support/sending.js';
import { eventually, type TestProject } from '../support/server.js';

describe('claiming due emails', () => {
  let testDb: TestDatabase;
  let database: Database;
  let projectId: string;
  const CAMPAIGN_DUE = 500;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await openDatabase({ databaseUrl: testDb.env.DATABASE_URL, dataDir: testDb.env.DATA_DIR! });
    projectId = (await createProject(database.db, 'claims')).id;
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  /** Queued emails due `secondsAgo` seconds ago (one second apart, the first the oldest); returns their ids. */
  async function queue(n: number, campaignId: string | null, secondsAgo: (i: number) => number): Promise<string[]> {
    const rows = Array.from({ length: n }, (_, i) => ({ id: randomUUID(), s: secondsAgo(i) }));
    await run(
      database.db,
      sql`insert into emails (id, project_id, campaign_id, type, status, from_email, to_email, subject, html,
          message_id, next_attempt_at)
        select (r->>'id')::uuid, ${projectId}, ${campaignId}::uuid, 'MARKETING', 'queued', 'a@claims.test',
          'r@claims.test', 's', '<p>x</p>', '<' || (r->>'id') || '@claims.test>',
          now() - make_interval(secs => (r->>'s')::float8)
        from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) r`,
    );
    await run(database.db, sql`analyze emails`);
    return rows.map((r) => r.id);
  }

  const claim = (transactional: number, campaign: number, total: number) =>
    claimDueEmails(
      database.db,
      new Date(),
      new Date(Date.now() + 60_000),
      { transactional, campaign, total },
      database.processKey,
    );

  // A claim's rows come back in no particular order: compared as sets.
  const sorted = (list: string[]) => [...list].sort();
  const ids = (claimed: { id: string }[]) => sorted(claimed.map((e) => e.id));

  it('takes mail without a campaign first, however many campaign emails fell due before it', async () => {
    const campaign = await queue(CAMPAIGN_DUE, randomUUID(), (i) => 3600 - i);
    const [reset] = await queue(1, null, () => 1);
    // Not due yet (a retry waiting for its backoff): never claimed early.
    const [later] = await queue(1, null, () => -600);

    const first = await claim(10, 10, 10);
    expect(ids(first)).toEqual(sorted([reset!, ...campaign.slice(0, 9)]));
    expect(first.find((e) => e.id === reset)).toMatchObject({ campaign_id: null, attempts: 1 });

    // The campaign lane keeps its own order and its own bound; claimed rows are not claimed again.
    const second = await claim(10, 4, 10);
    expect(ids(second)).toEqual(sorted(campaign.slice(9, 13)));
    expect((await claim(0, 0, 10)).length).toBe(0);

    const rest = await claim(0, CAMPAIGN_DUE, CAMPAIGN_DUE);
    expect(ids(rest)).toEqual(sorted(campaign.slice(13)));
    expect(ids(rest)).not.toContain(later);
  });

  it('reads each lane in due order from its own index, without sorting the queue', async () => {
    const plan = await run<{ 'QUERY PLAN': string }>(
      database.db,
      sql`explain select id from emails where campaign_id is not null and status = 'queued'
        and next_attempt_at <= now() order by next_attempt_at limit 10`,
    );
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    // Each partition of `emails` has its own part of the partitioned index, under a name of its own.
    const parts = await run<{ name: string }>(
      database.db,
      sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'emails_due_campaign'::regclass`,
    );
    expect(parts.rows.length).toBeGreaterThan(0);
    for (const { name } of parts.rows) expect(text).toContain(` ${name} `);
    expect(text).not.toMatch(/\bSort\b/);
  });
});

/** A campaign's messages go out through a slow relay; one `/v1/send` is made halfway. */
describe('a send made while a campaign is being delivered', () => {
  const RECIPIENTS = 3_000;
  const DOMAIN = 'lanes.test';
  /** The engine's window (DELIVERY_CONCURRENCY's default): campaign messages already claimed when the send came. */
  const WINDOW = 20;
  const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });
  let project: TestProject;

  beforeAll(async () => {
    project = await projectWithDomain(mail, 'lanes', DOMAIN);
    await run(
      mail.server.service.ctx.db,
      sql`insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
        select ${project.id}::uuid, 'c' || g || '@rcpt.lanes.test', true, '{}'::jsonb, now(), now()
        from generate_series(0, ${RECIPIENTS - 1}) g`,
    );
    // A relay that takes 10 ms per message: slower than the fan-out, so the campaign's queue stays long.
    mail.sink.respond(() => new Promise((accept) => setTimeout(() => accept({ accept: true }), 10)));
  });

  it('reaches the relay before the campaign messages queued ahead of it; the campaign still reaches everyone once', async () => {
    const created = await project.api.post('/campaigns', {
      name: 'Lanes',
      subject: 'News',
      body: '<p>News of the month</p>',
      from: `news@${DOMAIN}`,
      audienceType: 'ALL',
    });
    expect(created.status).toBe(201);
    const campaignId = created.body.data.id;
    expect((await project.api.post(`/campaigns/${campaignId}/send`)).status).toBe(200);

    // Campaign messages waiting, claimed by no worker.
    const waiting = async () =>
      (
        await run<{ n: number }>(
          mail.server.service.ctx.db,
          sql`select count(*)::int as n from emails
            where campaign_id = ${campaignId} and status = 'queued' and locked_by is null`,
        )
      ).rows[0]!.n;
    await eventually(
      async () => (mail.sink.messages.length >= 100 && (await waiting()) >= 500 ? true : undefined),
      120_000,
      20,
    );
    const data = await sendOk(project.api, {
      to: 'reset@rcpt.lanes.test',
      from: `security@${DOMAIN}`,
      subject: 'Your password reset',
      body: '<p>Reset it</p>',
    });
    const arrivedBefore = mail.sink.messages.length;
    // Without lanes, the send would wait behind all of these.
    expect(await waiting()).toBeGreaterThan(10 * WINDOW);

    const resetId = `<${data.emails[0]!.email}@`;
    const position = await eventually(async () => {
      const i = mail.sink.messages.findIndex((m) => messageIdOf(m.raw)?.startsWith(resetId));
      return i === -1 ? undefined : i;
    }, 60_000);
    // Ahead of it only what the worker held when the send came and what shared its claim: at
    // most a window's worth, never the campaign's waiting queue.
    expect(position - arrivedBefore).toBeLessThan(2 * WINDOW);

    const done = await eventually(
      async () => {
        const c = (await project.api.get(`/campaigns/${campaignId}`)).body;
        return c.status === 'SENT' ? c : undefined;
      },
      300_000,
      250,
    );
    expect(done).toMatchObject({ totalRecipients: RECIPIENTS, sentCount: RECIPIENTS });

    // Every recipient got exactly one message, and the reset went out once.
    const received = new Map<string, number>();
    for (const m of mail.sink.messages) for (const to of m.to) received.set(to, (received.get(to) ?? 0) + 1);
    const expected = [
      ...Array.from({ length: RECIPIENTS }, (_, i) => `c${i}@rcpt.lanes.test`),
      'reset@rcpt.lanes.test',
    ];
    expect(expected.filter((to) => received.get(to) !== 1)).toEqual([]);
    expect(mail.sink.messages.length).toBe(RECIPIENTS + 1);
  }, 360_000);
});
