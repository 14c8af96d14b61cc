import os from 'node:os';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { applyEventRetention, maintainEventPartitions } from '../../src/modules/events/storage.js';
import { createProject } from '../../src/modules/projects/service.js';
import type { AppContext } from '../../src/platform/context.js';
import { run } from '../../src/platform/db/client.js';
import { MONTHS_AHEAD, monthStart, partitionsOf } from '../../src/platform/db/partitions.js';
import { type RunningService, startService } from '../../src/start.js';
import { insertedId, migratedBefore, useCleanups } from '../support/database.js';
import { at, monthsMadeAhead } from '../support/partitions.js';
import { client, eventually, expectBody } from '../support/server.js';

const { cleanups, database } = useCleanups();
const DAY = 86_400_000;

/** The service; without its worker (`serve`) a test runs the maintenance itself, at the times it chooses. */
async function serve(env: Record<string, string>, role: 'all' | 'serve' = 'serve'): Promise<RunningService> {
  const service = await startService(loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...env }), role);
  cleanups.push(() => service.stop());
  return service;
}

async function rows(ctx: AppContext, query: ReturnType<typeof sql>) {
  return (await run(ctx.db, query)).rows;
}

/** Events stored directly with the times given: the API stamps events with the present only. */
async function storeEvents(ctx: AppContext, projectId: string, contactId: string, times: Date[], name = 'old') {
  await run(
    ctx.db,
    sql`insert into events (project_id, contact_id, name, created_at)
      select ${projectId}::uuid, ${contactId}::uuid, ${name}, t
      from unnest(${`{${times.map((t) => `"${t.toISOString()}"`).join(',')}}`}::timestamptz[]) t`,
  );
}

/** Where each of a project's events lives: partition name → count. */
async function placement(ctx: AppContext, projectId: string): Promise<Record<string, number>> {
  const r = await rows(
    ctx,
    sql`select tableoid::regclass::text as p, count(*)::int as n from events where project_id = ${projectId} group by 1`,
  );
  return Object.fromEntries(r.map((x) => [x.p, x.n]));
}

describe('events partitioned by month', () => {
  it('the worker makes the month partitions ahead on a new database, beside a default partition; events land in their month', async () => {
    const db = await database();
    const service = await serve(db.env, 'all');
    const ctx = service.ctx;
    const now = ctx.clock.now();
    const parts = await monthsMadeAhead(ctx, 'events');
    expect(parts.filter((p) => p.isDefault).map((p) => p.name)).toEqual(['events_default']);

    const p = await createProject(ctx.db, 'tracked');
    const api = client(service.url!, p.secretKey);
    const tracked = await expectBody(
      api.request('POST', '/v1/track', { body: { email: 'a@example.com', event: 'signed-up' }, key: p.publicKey }),
    );
    const name = `events_${now.getUTCFullYear()}_${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(await placement(ctx, p.id)).toEqual({ [name]: 1 });
    const listed = await expectBody(api.get('/events'));
    expect(listed.data.map((e: { id: string }) => e.id)).toEqual([tracked.data.event]);

    // A run again makes nothing new.
    expect((await maintainEventPartitions(ctx)).made).toEqual([]);
  });

  it('moves rows the default partition holds into the month partition made for them', async () => {
    const db = await database();
    const service = await serve(db.env);
    const ctx = service.ctx;
    await maintainEventPartitions(ctx);
    const p = await createProject(ctx.db, 'future');
    const contact = await rows(
      ctx,
      sql`insert into contacts (project_id, email, subscribed) values (${p.id}, 'f@example.com', true) returning id`,
    );
    const later = monthStart(ctx.clock.now(), MONTHS_AHEAD + 2);
    await storeEvents(ctx, p.id, contact[0]!.id, [
      new Date(later.getTime() + DAY),
      new Date(later.getTime() + 2 * DAY),
    ]);
    expect(await placement(ctx, p.id)).toEqual({ events_default: 2 });

    const { made } = await maintainEventPartitions(at(ctx, later));
    const name = `events_${later.getUTCFullYear()}_${String(later.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(made).toContain(name);
    expect(await placement(ctx, p.id)).toEqual({ [name]: 2 });
  });

  it('lets a reader waiting while rows move see them in their new partition', async () => {
    const db = await database();
    const service = await serve(db.env);
    const ctx = service.ctx;
    await maintainEventPartitions(ctx);
    const p = await createProject(ctx.db, 'moving');
    const contact = await rows(
      ctx,
      sql`insert into contacts (project_id, email, subscribed) values (${p.id}, 'm@example.com', true) returning id`,
    );
    const later = monthStart(ctx.clock.now(), MONTHS_AHEAD + 2);
    await storeEvents(ctx, p.id, contact[0]!.id, [new Date(later.getTime() + DAY)]);

    const connect = async () => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      cleanups.push(() => c.end());
      return c;
    };
    const [holder, reader, watcher] = await Promise.all([connect(), connect(), connect()]);
    const waitingOnLocks = async (n: number) =>
      eventually(async () => {
        const r = await watcher.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        return r.rows[0].n >= n ? true : undefined;
      });
    // The move waits for a row lock on the default partition; a reader comes while it waits.
    await holder.query('begin');
    await holder.query('select 1 from events_default for update');
    const moving = maintainEventPartitions(at(ctx, later));
    await waitingOnLocks(1);
    const read = reader.query('select count(*)::int as n from events where project_id = $1', [p.id]);
    await waitingOnLocks(2);
    await holder.query('commit');
    expect((await moving).made.length).toBeGreaterThan(0);
    expect((await read).rows[0].n).toBe(1);
  });

  it('converts a database with events in place, then seals the old table step by step; nothing is lost', async () => {
    const db = await database();
    // The template is migrated already: this test needs a database from before partitioning.
    await migratedBefore(db, '0030');

    const before = new pg.Client({ connectionString: db.url });
    await before.connect();
    const project = await insertedId(
      before,
      `insert into projects (name, public_key_hash, secret_key_hash) values ('old', 'pk-hash', 'sk-hash') returning id`,
    );
    const contact = await insertedId(
      before,
      `insert into contacts (project_id, email, subscribed) values ($1, 'old@example.com', true) returning id`,
      [project],
    );
    await before.query(
      `insert into events (project_id, contact_id, name, created_at)
       select $1, $2, 'e' || g, now() - g * interval '10 days' from generate_series(1, 60) g`,
      [project, contact],
    );
    await before.end();

    const service = await serve(db.env);
    const ctx = service.ctx;
    expect((await maintainEventPartitions(ctx)).sealed).toEqual(['constrained', 'validated', 'attached']);
    const parts = await partitionsOf(ctx.db, 'events');
    const old = parts.find((p) => p.name === 'events_unpartitioned')!;
    expect(old.isDefault).toBe(false);
    expect(old.from).toBeNull();
    expect(old.to!.toISOString()).toBe(monthStart(ctx.clock.now(), 2).toISOString());
    expect(parts.filter((p) => p.isDefault).map((p) => p.name)).toEqual(['events_default']);
    // Months from the old table's bound on have their own partitions.
    const months = parts.filter((p) => !p.isDefault && p.from).map((p) => p.from!.toISOString());
    expect(months).toContain(monthStart(ctx.clock.now(), 2).toISOString());
    expect(months).not.toContain(monthStart(ctx.clock.now(), 0).toISOString());

    expect(await placement(ctx, project)).toEqual({ events_unpartitioned: 60 });
    const sealed = await rows(
      ctx,
      sql`select convalidated from pg_constraint where conname = 'events_unpartitioned_bound'`,
    );
    expect(sealed).toEqual([{ convalidated: true }]);
    // A contact deleted takes its events with it, in the old table too (the foreign key carried over).
    await run(ctx.db, sql`delete from contacts where id = ${contact}`);
    expect(await placement(ctx, project)).toEqual({});
  });

  it('resumes a conversion stopped after any of its steps', async () => {
    const db = await database();
    await migratedBefore(db, '0030');
    const before = new pg.Client({ connectionString: db.url });
    await before.connect();
    await before.query(`insert into projects (name, public_key_hash, secret_key_hash) values ('old', 'a', 'b')`);
    await before.query(
      `insert into contacts (project_id, email, subscribed) select id, 'x@example.com', true from projects`,
    );
    await before.query(`insert into events (project_id, contact_id, name) select project_id, id, 'kept' from contacts`);
    await before.end();
    // The migration alone: the old table is the default partition, every row readable through `events`.
    const migrated = new pg.Client({ connectionString: db.url });
    await migrated.connect();
    cleanups.push(() => migrated.end());
    const { openDatabase } = await import('../../src/platform/db/client.js');
    const opened = await openDatabase({ databaseUrl: db.url, dataDir: os.tmpdir() });
    cleanups.push(() => opened.close());
    await opened.migrate();
    expect((await migrated.query(`select count(*)::int as n from events where name = 'kept'`)).rows[0].n).toBe(1);
    expect(
      (
        await migrated.query(
          `select pg_get_expr(c.relpartbound, c.oid) as bound from pg_class c where relname = 'events_unpartitioned'`,
        )
      ).rows[0].bound,
    ).toBe('DEFAULT');
    // Stopped after the first step: the constraint is there, not yet validated.
    await migrated.query(
      `alter table events_unpartitioned add constraint events_unpartitioned_bound check (created_at < '2100-01-01') not valid`,
    );
    const service = await serve(db.env);
    const ctx = service.ctx;
    expect((await maintainEventPartitions(ctx)).sealed).toEqual(['validated', 'attached']);
    const old = (await partitionsOf(ctx.db, 'events')).find((p) => p.name === 'events_unpartitioned')!;
    expect(old.to!.toISOString()).toBe('2100-01-01T00:00:00.000Z');
    expect((await migrated.query(`select count(*)::int as n from events where name = 'kept'`)).rows[0].n).toBe(1);
  });
});

describe('event retention', () => {
  /** Two projects with events 400, 100 and 10 days before `now`, a month partition for each. */
  async function setUp(env: Record<string, string>) {
    const db = await database();
    const service = await serve({ ...db.env, ...env });
    const ctx = service.ctx;
    const now = ctx.clock.now();
    const past = [400, 100, 10].map((d) => new Date(now.getTime() - d * DAY));
    // Partitions for the months of those events, as a service running for that long would have made.
    for (const t of past) await maintainEventPartitions(at(ctx, t));
    const projects = [];
    for (const name of ['short', 'long']) {
      const p = await createProject(ctx.db, name);
      const contact = await rows(
        ctx,
        sql`insert into contacts (project_id, email, subscribed) values (${p.id}, 'r@example.com', true) returning id`,
      );
      await storeEvents(ctx, p.id, contact[0]!.id, past);
      projects.push(p.id);
    }
    const ages = async (projectId: string) =>
      (
        await rows(
          ctx,
          sql`select round(extract(epoch from ${now}::timestamptz - created_at) / 86400)::int as days
            from events where project_id = ${projectId} order by created_at`,
        )
      ).map((r) => r.days);
    return { ctx, now, projects, ages };
  }

  it('keeps everything without a retention', async () => {
    const { ctx, projects, ages } = await setUp({});
    const result = await applyEventRetention(ctx);
    expect(result).toEqual({ dropped: [], deleted: 0 });
    for (const p of projects) expect(await ages(p)).toEqual([400, 100, 10]);
  });

  it('drops whole partitions past the instance retention, and deletes the rest of what is past in batches', async () => {
    const { ctx, now, projects, ages } = await setUp({ EVENT_RETENTION_DAYS: '30' });
    const before = await partitionsOf(ctx.db, 'events');
    const result = await applyEventRetention(ctx);
    const cutoff = new Date(now.getTime() - 30 * DAY);
    const expectedDrops = before.filter((p) => !p.isDefault && p.to! <= cutoff).map((p) => p.name);
    expect(expectedDrops.length).toBeGreaterThan(0);
    expect(result.dropped.sort()).toEqual(expectedDrops.sort());
    const left = (await partitionsOf(ctx.db, 'events')).map((p) => p.name);
    for (const name of expectedDrops) expect(left).not.toContain(name);
    for (const p of projects) expect(await ages(p)).toEqual([10]);
  });

  it('deletes only past each project’s own retention when projects differ, and drops nothing one keeps', async () => {
    const { ctx, projects, ages } = await setUp({});
    const [short, long] = projects as [string, string];
    await run(ctx.db, sql`update projects set event_retention_days = 50 where id = ${short}`);
    const before = (await partitionsOf(ctx.db, 'events')).map((p) => p.name);
    const result = await applyEventRetention(ctx);
    // The other project keeps its events for ever: no partition can go whole.
    expect(result).toEqual({ dropped: [], deleted: 2 });
    expect((await partitionsOf(ctx.db, 'events')).map((p) => p.name)).toEqual(before);
    expect(await ages(short)).toEqual([10]);
    expect(await ages(long)).toEqual([400, 100, 10]);

    // Every project with a retention (the service's first project too): partitions past the longest
    // go whole, the shorter one's rest in batches.
    await run(ctx.db, sql`update projects set event_retention_days = 200 where id <> ${short}`);
    const second = await applyEventRetention(ctx);
    expect(second.dropped.length).toBeGreaterThan(0);
    expect(await ages(short)).toEqual([10]);
    expect(await ages(long)).toEqual([100, 10]);
  });
});
