import { sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Webhook, WebhookDelivery } from '../../src/api.js';
import { loadConfig } from '../../src/config.js';
import { createProject } from '../../src/modules/projects/service.js';
import { maintainDeliveryStorage } from '../../src/modules/webhooks/storage.js';
import type { AppContext } from '../../src/platform/context.js';
import { run } from '../../src/platform/db/client.js';
import { monthStart, partitionsOf } from '../../src/platform/db/partitions.js';
import { type RunningService, startService } from '../../src/start.js';
import { insertedId, migratedBefore, useCleanups } from '../support/database.js';
import { at, monthsMadeAhead } from '../support/partitions.js';
import { type Client, client, eventually, expectBody } from '../support/server.js';
import { useReceiver } from '../support/webhook-receiver.js';

const { cleanups, database } = useCleanups();
const hooks = useReceiver();
const DAY = 86_400_000;

async function serve(env: Record<string, string>, role: 'all' | 'serve' = 'serve'): Promise<RunningService> {
  const service = await startService(
    loadConfig({ PORT: '0', LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...env }),
    role,
  );
  cleanups.push(() => service.stop());
  return service;
}

const monthPartition = (at: Date) =>
  `webhook_deliveries_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;

/** Where the deliveries of a webhook live: partition name → count. */
async function placement(ctx: AppContext, webhookId: string): Promise<Record<string, number>> {
  const r = await run<{ p: string; n: number }>(
    ctx.db,
    sql`select tableoid::regclass::text as p, count(*)::int as n from webhook_deliveries
      where webhook_id = ${webhookId} group by 1`,
  );
  return Object.fromEntries(r.rows.map((x) => [x.p, x.n]));
}

/** Deliveries stored directly with the times given: the service stamps them with the present only. */
async function storeDeliveries(ctx: AppContext, webhookId: string, times: Date[]): Promise<void> {
  await run(
    ctx.db,
    sql`insert into webhook_deliveries (webhook_id, event_id, event_name, payload, status, created_at)
      select ${webhookId}::uuid, gen_random_uuid(), 'old', '{}', 'delivered', t
      from unnest(${`{${times.map((t) => `"${t.toISOString()}"`).join(',')}}`}::timestamptz[]) t`,
  );
}

async function listed(api: Client, webhookId: string): Promise<WebhookDelivery[]> {
  return (await expectBody(api.get(`/webhooks/${webhookId}/deliveries?pageSize=100`))).data;
}

describe('webhook deliveries partitioned by month', () => {
  it('the worker makes the month partitions ahead on a new database; a delivery lands in its month and is listed', async () => {
    const db = await database();
    const service = await serve(db.env, 'all');
    const ctx = service.ctx;
    const now = ctx.clock.now();
    const parts = await monthsMadeAhead(ctx, 'webhook_deliveries');
    expect(parts.filter((p) => p.isDefault).map((p) => p.name)).toEqual(['webhook_deliveries_default']);

    const p = await createProject(ctx.db, 'hooked');
    const api = client(service.url!, p.secretKey);
    const hook: Webhook = await expectBody(
      api.post('/webhooks', { url: `${hooks.url}/partitioned`, events: ['signed-up'] }),
      201,
    );
    const tracked = await expectBody(
      api.request('POST', '/v1/track', { body: { email: 'a@example.com', event: 'signed-up' }, key: p.publicKey }),
    );
    await eventually(async () => hooks.to('/partitioned').length === 1 || undefined);
    const delivered = await eventually(async () => {
      const found = await listed(api, hook.id);
      return found[0]?.status === 'delivered' ? found : undefined;
    });
    expect(delivered.map((d) => d.eventId)).toEqual([tracked.data.event]);
    expect(await placement(ctx, hook.id)).toEqual({ [monthPartition(now)]: 1 });
    expect((await maintainDeliveryStorage(ctx)).made).toEqual([]);
  });

  it('drops, whole, the months past WEBHOOK_DELIVERY_RETENTION_DAYS and keeps the rest', async () => {
    const db = await database();
    const service = await serve({ ...db.env, WEBHOOK_DELIVERY_RETENTION_DAYS: '30' });
    const ctx = service.ctx;
    const now = ctx.clock.now();
    const old = new Date(now.getTime() - 100 * DAY);
    const recent = new Date(now.getTime() - 5 * DAY);
    // The months from 100 days ago on, as a worker running then made them.
    await maintainDeliveryStorage(at(ctx, old));
    const p = await createProject(ctx.db, 'kept');
    const api = client(service.url!, p.secretKey);
    const hook: Webhook = await expectBody(api.post('/webhooks', { url: `${hooks.url}/kept`, events: ['x'] }), 201);
    await storeDeliveries(ctx, hook.id, [old, recent]);
    expect(await placement(ctx, hook.id)).toEqual({ [monthPartition(old)]: 1, [monthPartition(recent)]: 1 });

    const { dropped } = await maintainDeliveryStorage(ctx);
    expect(dropped).toContain(monthPartition(old));
    // Only months that end before the cutoff go: the month of 35 days ago may hold younger rows.
    const cutoff = now.getTime() - 30 * DAY;
    for (const name of dropped) expect(name < monthPartition(new Date(cutoff))).toBe(true);
    expect(await placement(ctx, hook.id)).toEqual({ [monthPartition(recent)]: 1 });
    expect((await listed(api, hook.id)).map((d) => d.createdAt)).toEqual([recent.toISOString()]);
  });

  it('converts a database with deliveries in place, seals the old table and drops it once all of it is past the retention', async () => {
    const db = await database();
    await migratedBefore(db, '0057');
    const before = new pg.Client({ connectionString: db.url });
    await before.connect();
    const project = await insertedId(
      before,
      `insert into projects (name, public_key_hash, secret_key_hash) values ('old', 'pk-hash', 'sk-hash') returning id`,
    );
    const hook = await insertedId(
      before,
      `insert into webhooks (project_id, url, events, secret) values ($1, 'https://example.com/h', '["x"]', 's') returning id`,
      [project],
    );
    await before.query(
      `insert into webhook_deliveries (webhook_id, event_id, event_name, payload, status, created_at)
       select $1, gen_random_uuid(), 'old', '{}', 'delivered', now() - g * interval '3 days'
       from generate_series(1, 20) g`,
      [hook],
    );
    await before.end();

    const service = await serve({ ...db.env, WEBHOOK_DELIVERY_RETENTION_DAYS: '30' });
    const ctx = service.ctx;
    const first = await maintainDeliveryStorage(ctx);
    expect(first.sealed).toEqual(['constrained', 'validated', 'attached']);
    // Its rows are within 60 days, so the old table's bound (two months ahead) keeps it whole.
    expect(first.dropped).toEqual([]);
    const bound = monthStart(ctx.clock.now(), 2);
    const sealed = (await partitionsOf(ctx.db, 'webhook_deliveries')).find(
      (p) => p.name === 'webhook_deliveries_unpartitioned',
    )!;
    expect([sealed.isDefault, sealed.from, sealed.to?.toISOString()]).toEqual([false, null, bound.toISOString()]);
    expect(await placement(ctx, hook)).toEqual({ webhook_deliveries_unpartitioned: 20 });
    // A webhook deleted takes its deliveries with it, in the old table too (the foreign key carried over).
    const later = new Date(bound.getTime() + 31 * DAY);
    await storeDeliveries(ctx, hook, [later]);
    const { dropped } = await maintainDeliveryStorage(at(ctx, later));
    expect(dropped).toEqual(['webhook_deliveries_unpartitioned']);
    expect(await placement(ctx, hook)).toEqual({ [monthPartition(later)]: 1 });
    await run(ctx.db, sql`delete from webhooks where id = ${hook}`);
    expect(await placement(ctx, hook)).toEqual({});
  });
});
