import { sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { generateKey, hashKey } from '../../src/domain/api-keys.js';
import { campaignOutcomeEffects } from '../../src/modules/campaigns/counters.js';
import { claimDueEmails, type EmailKey, keyOf, recordOutcomes } from '../../src/modules/emails/delivery-repo.js';
import { maintainEmailStorage } from '../../src/modules/emails/storage.js';
import { createProject } from '../../src/modules/projects/service.js';
import type { AppContext } from '../../src/platform/context.js';
import { run } from '../../src/platform/db/client.js';
import { maintainPartitions, monthStart, partitionsOf } from '../../src/platform/db/partitions.js';
import { type RunningService, startService } from '../../src/start.js';
import { insertedId, migratedBefore, useCleanups } from '../support/database.js';
import { verifiedDomain } from '../support/domains.js';
import { at, monthsMadeAhead } from '../support/partitions.js';
import { deliveredMessage, emailRecord, recordWhen, sendOk, useSinkAndDns } from '../support/sending.js';
import { client, eventually } from '../support/server.js';

/**
 * `emails` partitioned by month of `created_at`: the months made ahead by the worker, mail sent and
 * delivered through them to a real SMTP sink, a database with a queue converted in place, and the
 * months dropped whole past EMAIL_RETENTION_DAYS.
 */

const { cleanups, database } = useCleanups();
const mail = useSinkAndDns();
const DAY = 86_400_000;
const DOMAIN = 'mail.partitions.test';

async function serve(env: Record<string, string>, role: 'all' | 'serve' = 'all'): Promise<RunningService> {
  const service = await startService(
    loadConfig({
      PORT: '0',
      LOG_LEVEL: 'silent',
      SMTP_URL: mail.sink.url,
      DNS_SERVERS: mail.dns.address,
      DELIVERY_RETRY_BASE_SECONDS: '0.2',
      ...env,
    }),
    role,
  );
  cleanups.push(() => service.stop());
  return service;
}

const monthPartition = (at: Date) => `emails_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;

/** Where a project's emails live: partition name → count. */
async function placement(ctx: AppContext, projectId: string): Promise<Record<string, number>> {
  const r = await run<{ p: string; n: number }>(
    ctx.db,
    sql`select tableoid::regclass::text as p, count(*)::int as n from emails where project_id = ${projectId} group by 1`,
  );
  return Object.fromEntries(r.rows.map((x) => [x.p, x.n]));
}

/**
 * Emails stored directly, made at the times given (the service stamps them with the present only),
 * with their status, and due at `due` (by default years ahead: nothing sends them).
 */
async function storeEmails(
  ctx: AppContext,
  projectId: string,
  rows: { at: Date; status: string; due?: Date }[],
): Promise<void> {
  await run(
    ctx.db,
    sql`insert into emails (id, project_id, type, status, from_email, to_email, subject, html, message_id,
        next_attempt_at, created_at)
      select gen_random_uuid(), ${projectId}::uuid, 'TRANSACTIONAL', r.status, ${`a@${DOMAIN}`}, 'b@example.com', 's', 'h',
        '<' || gen_random_uuid() || '@x>', coalesce(r.due, r.at + interval '1000 days'), r.at
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(at timestamptz, status text, due timestamptz)`,
  );
}

describe('emails partitioned by month', () => {
  it('the worker makes the month partitions ahead on a new database; an email sent lands in its month, is delivered and read by id', async () => {
    const db = await database();
    const service = await serve(db.env);
    const ctx = service.ctx;
    const parts = await monthsMadeAhead(ctx, 'emails');
    expect(parts.filter((p) => p.isDefault).map((p) => p.name)).toEqual(['emails_default']);

    const p = await createProject(ctx.db, 'partitioned');
    const api = client(service.url!, p.secretKey);
    await verifiedDomain(api, mail.dns, DOMAIN);
    const sent = await sendOk(api, {
      to: 'reader@example.com',
      from: `hello@${DOMAIN}`,
      subject: 'Hi',
      body: '<p>Hi</p>',
    });
    const id = sent.emails[0]!.email;
    const message = await deliveredMessage(mail.sink, id);
    expect(message.to).toEqual(['reader@example.com']);
    expect((await recordWhen(api, id, (r) => r.status === 'sent')).to).toBe('reader@example.com');
    expect(await placement(ctx, p.id)).toEqual({ [monthPartition(ctx.clock.now())]: 1 });
    expect((await maintainEmailStorage(ctx)).made).toEqual([]);
  });

  it('claims and records in one statement emails made in different months, and only by their id and time', async () => {
    const db = await database();
    const service = await serve(db.env, 'serve');
    const ctx = service.ctx;
    const now = ctx.clock.now();
    const earlier = new Date(now.getTime() - 70 * DAY);
    await maintainPartitions(ctx.database, 'emails', earlier);
    await maintainPartitions(ctx.database, 'emails', now);
    const p = await createProject(ctx.db, 'spanned');
    // A retry made ten weeks ago and a new email, both due.
    const due = new Date(now.getTime() - 1000);
    await storeEmails(ctx, p.id, [
      { at: earlier, status: 'queued', due },
      { at: now, status: 'queued', due },
    ]);
    expect(await placement(ctx, p.id)).toEqual({ [monthPartition(earlier)]: 1, [monthPartition(now)]: 1 });

    const owner = ctx.database.processKey;
    const claimed = await claimDueEmails(
      ctx.database.indexed,
      now,
      new Date(now.getTime() + 60_000),
      { transactional: 10, campaign: 10, total: 10 },
      owner,
    );
    expect(claimed.map((e) => e.created_at.toISOString()).sort()).toEqual(
      [earlier.toISOString(), now.toISOString()].sort(),
    );
    const record = (keys: EmailKey[]) =>
      recordOutcomes(
        ctx.database.indexed,
        keys.map((k) => ({ ...k, status: 'sent', response: '250 2.0.0 queued' })),
        now,
        owner,
        campaignOutcomeEffects(ctx),
        sql`false`,
      );
    // Named with the wrong time, an email is not found: its outcome changes nothing.
    await record(claimed.map((e) => ({ id: e.id, madeAt: new Date(e.created_at.getTime() + DAY) })));
    const statuses = () =>
      run<{ status: string }>(ctx.db, sql`select status from emails where project_id = ${p.id} order by created_at`);
    expect((await statuses()).rows.map((r) => r.status)).toEqual(['queued', 'queued']);
    await record(claimed.map(keyOf));
    expect((await statuses()).rows.map((r) => r.status)).toEqual(['sent', 'sent']);
  });

  it('drops, whole, the months past EMAIL_RETENTION_DAYS, but not one that holds an email still queued', async () => {
    const db = await database();
    const service = await serve({ ...db.env, EMAIL_RETENTION_DAYS: '30' }, 'serve');
    const ctx = service.ctx;
    const now = ctx.clock.now();
    const oldest = new Date(now.getTime() - 160 * DAY);
    const old = new Date(now.getTime() - 100 * DAY);
    const recent = new Date(now.getTime() - 5 * DAY);
    // The months from 160 days ago on, as a worker running then and now made them.
    await maintainPartitions(ctx.database, 'emails', oldest);
    await maintainPartitions(ctx.database, 'emails', now);
    const p = await createProject(ctx.db, 'kept');
    await storeEmails(ctx, p.id, [
      { at: oldest, status: 'sent' },
      { at: old, status: 'queued' },
      { at: recent, status: 'sent' },
    ]);
    expect(await placement(ctx, p.id)).toEqual({
      [monthPartition(oldest)]: 1,
      [monthPartition(old)]: 1,
      [monthPartition(recent)]: 1,
    });

    const first = await maintainEmailStorage(ctx);
    expect(first.dropped).toContain(monthPartition(oldest));
    expect(first.dropped).not.toContain(monthPartition(old));
    const cutoff = now.getTime() - 30 * DAY;
    for (const name of first.dropped) expect(name < monthPartition(new Date(cutoff))).toBe(true);
    expect(await placement(ctx, p.id)).toEqual({ [monthPartition(old)]: 1, [monthPartition(recent)]: 1 });

    // Once the queued email has failed, its month goes too.
    await run(ctx.db, sql`update emails set status = 'failed' where project_id = ${p.id} and status = 'queued'`);
    expect((await maintainEmailStorage(ctx)).dropped).toEqual([monthPartition(old)]);
    expect(await placement(ctx, p.id)).toEqual({ [monthPartition(recent)]: 1 });
  });

  it('keeps every month when EMAIL_RETENTION_DAYS is unset', async () => {
    const db = await database();
    const service = await serve(db.env, 'serve');
    const ctx = service.ctx;
    const old = new Date(ctx.clock.now().getTime() - 400 * DAY);
    await maintainEmailStorage(at(ctx, old));
    const p = await createProject(ctx.db, 'forever');
    await storeEmails(ctx, p.id, [{ at: old, status: 'sent' }]);
    expect((await maintainEmailStorage(ctx)).dropped).toEqual([]);
    expect(await placement(ctx, p.id)).toEqual({ [monthPartition(old)]: 1 });
  });

  it('converts a database with a queue in place: the old table is sealed, and its queued emails are delivered', async () => {
    const db = await database();
    await migratedBefore(db, '0058');
    const secretKey = generateKey('secret');
    const before = new pg.Client({ connectionString: db.url });
    await before.connect();
    const project = await insertedId(
      before,
      `insert into projects (name, public_key_hash, secret_key_hash) values ('old', 'pk-hash', $1) returning id`,
      [hashKey(secretKey)],
    );
    // 20 sent over the last two months, and 3 queued for later: the queue the upgrade must keep.
    await before.query(
      `insert into emails (id, project_id, type, status, from_email, to_email, subject, html, message_id, next_attempt_at, created_at)
       select id, $1, 'TRANSACTIONAL', case when g <= 20 then 'sent' else 'queued' end, $2,
         'queued' || g || '@example.com', 'Before the upgrade', '<p>Kept</p>', '<' || id || '@x>',
         now() + interval '1 day', now() - (g % 21) * interval '3 days'
       from (select g, gen_random_uuid() as id from generate_series(1, 23) g) made`,
      [project, `hello@${DOMAIN}`],
    );
    await before.end();

    const service = await serve(db.env);
    const ctx = service.ctx;
    const bound = monthStart(ctx.clock.now(), 2);
    // The worker's first run seals the old table.
    const sealed = await eventually(async () => {
      const found = await partitionsOf(ctx.db, 'emails');
      return found.some((p) => p.name === 'emails_default') ? found : undefined;
    });
    const old = sealed.find((p) => p.name === 'emails_unpartitioned')!;
    expect([old.isDefault, old.from, old.to?.toISOString()]).toEqual([false, null, bound.toISOString()]);
    expect(sealed.filter((p) => p.isDefault).map((p) => p.name)).toEqual(['emails_default']);
    expect(await placement(ctx, project)).toEqual({ emails_unpartitioned: 23 });

    const api = client(service.url!, secretKey);
    await verifiedDomain(api, mail.dns, DOMAIN);
    const queued = await run<{ id: string }>(
      ctx.db,
      sql`update emails set next_attempt_at = now() where project_id = ${project} and status = 'queued' returning id`,
    );
    expect(queued.rows).toHaveLength(3);
    for (const { id } of queued.rows) {
      const message = await deliveredMessage(mail.sink, id);
      expect(message.raw.toString()).toContain('Before the upgrade');
      expect((await recordWhen(api, id, (r) => r.status === 'sent')).subject).toBe('Before the upgrade');
    }
    expect((await emailRecord(api, queued.rows[0]!.id)).status).toBe('sent');
    expect(await placement(ctx, project)).toEqual({ emails_unpartitioned: 23 });
  });
});
