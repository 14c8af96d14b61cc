import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { campaignOutcomeEffects } from '../../src/modules/campaigns/counters.js';
import { claimDueEmails, type EmailKey, keyOf, recordOutcomes } from '../../src/modules/emails/delivery-repo.js';
import { createProject } from '../../src/modules/projects/service.js';
import type { AppContext } from '../../src/platform/context.js';
import { openDatabase, run } from '../../src/platform/db/client.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The delivery loop's claims and outcomes are named prepared statements, planned once per
// connection. On a new installation they are first planned while `emails` is empty, and a plan made
// then must not go on reading the whole table once a campaign has filled it.

const QUEUED = 3_000;
const ROUNDS = 8;

let database: TestDatabase | undefined;
afterEach(async () => database?.drop());

/** Rows of `emails` read by sequential scans while the delivery statements ran on `connections`. */
async function rowsScanned(connections: 'indexed' | 'db'): Promise<number> {
  database = await createTestDatabase();
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    // The plan kept from the first call on, as PostgreSQL settles on after five calls whose custom
    // plans cost no less; and no analyze in between to replace it.
    await admin.query(`alter database ${name} set plan_cache_mode = force_generic_plan`);
    // Without a worker, no month partition is made: every row goes to the default one.
    await admin.query('alter table emails_default set (autovacuum_enabled = false)');

    const opened = await openDatabase({ databaseUrl: database.url, dataDir: database.env.DATA_DIR! });
    const ex = opened[connections];
    const owner = opened.processKey;
    const effects = campaignOutcomeEffects({} as AppContext);
    let sent = 0;
    const limits = { transactional: 20, campaign: 20, total: 20 };
    const claim = () => claimDueEmails(ex, new Date(), new Date(Date.now() + 60_000), limits, owner);
    const record = (emails: EmailKey[]) =>
      recordOutcomes(
        ex,
        emails.map((e) => ({ ...e, status: 'sent', response: '250 2.0.0 queued' })),
        new Date(),
        owner,
        effects,
        sql`false`,
      );
    try {
      // Planned on the empty table.
      expect(await claim()).toEqual([]);
      expect(await record([{ id: randomUUID(), madeAt: new Date() }])).toEqual([]);

      const project = await createProject(opened.db, 'plans');
      await run(
        opened.db,
        sql`insert into emails (id, project_id, type, status, from_email, to_email, subject, html, message_id)
          select gen_random_uuid(), ${project.id}, 'TRANSACTIONAL', 'queued', 'news@plans.test',
            'reader-' || n || '@plans.test', 'Hello', '<p>Hello</p>', '<' || n || '@plans.test>'
          from generate_series(1, ${QUEUED}) n`,
      );
      for (let round = 0; round < ROUNDS; round++) {
        const claimed = await claim();
        expect(claimed).toHaveLength(limits.total);
        await record(claimed.map(keyOf));
        sent += claimed.length;
      }
    } finally {
      await opened.close();
    }
    // A session's counts reach the statistics when it ends.
    for (let i = 0; i < 100; i++) {
      const others = await admin.query(
        'select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      if (others.rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const stats = await admin.query(
      `select coalesce(sum(seq_tup_read), 0)::int as n from pg_stat_user_tables
        where relid in (select inhrelid from pg_inherits where inhparent = 'emails'::regclass)`,
    );
    const recorded = await admin.query(`select count(*)::int as n from emails where status = 'sent'`);
    expect(recorded.rows[0].n).toBe(sent);
    return stats.rows[0].n;
  } finally {
    await admin.end();
  }
}

it('claims and records outcomes by index on a table that was empty when they were planned', async () => {
  expect(await rowsScanned('indexed')).toBe(0);
});

// The statements name the span of creation times of their emails, which their plans use even
// without the delivery connections' setting: a guard against a change of statement that brings
// the whole-table reads back.
it('do so on the pool that serves everything else too', async () => {
  expect(await rowsScanned('db')).toBe(0);
});
