import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/api.js';
import { createUser } from '../../src/modules/accounts/service.js';
import { purgeExpiredEntries } from '../../src/modules/audit/service.js';
import { run } from '../../src/platform/db/client.js';
import { pgErrorCode } from '../../src/platform/db/errors.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { type ApiResponse, type Client, client, startTestServer, type TestServer } from '../support/server.js';

/**
 * The audit log over HTTP: every kind of change through the API (the secret key, a named key) and
 * through the dashboard (a signed-in session) leaves exactly one entry with its actor and origin; a
 * change that fails leaves none; nothing can write, change or delete an entry.
 */

const LOCAL = { REDIS_URL: '', TRUST_PROXY: 'true', RATE_LIMIT_PER_MINUTE: '100000' };
const PASSWORD = 'audit-correct-horse';
const OWNER = 'owner@audit.test';
const MEMBER = 'member@audit.test';
const BROWSER = 'Mozilla/5.0 (audit test)';

let server: TestServer;
let dns: DnsServer;
let projectId: string;
let api: Client;
let ownerId: string;
let ownerCookie: string;

const sessionCookie = (headers: Headers) => /^postbox_session=[^;]+/.exec(headers.getSetCookie()[0] ?? '')?.[0];

/** A dashboard request: the session cookie, the project header, a browser's address and user agent. */
function dashboard(cookie: string, project = projectId): Client {
  const c = client(server.url, '');
  const headers = { cookie, 'x-project-id': project, 'x-forwarded-for': '203.0.113.7', 'user-agent': BROWSER };
  return {
    request: (method, p, options) => c.request(method, p, { ...options, key: null, headers }),
    get: (p) => c.request('GET', p, { key: null, headers }),
    post: (p, body) => c.request('POST', p, { key: null, headers, body }),
    patch: (p, body) => c.request('PATCH', p, { key: null, headers, body }),
    delete: (p) => c.request('DELETE', p, { key: null, headers }),
  };
}

async function signIn(email: string, password = PASSWORD) {
  return client(server.url, '').request('POST', '/auth/login', {
    key: null,
    body: { email, password },
    headers: { 'x-forwarded-for': '198.51.100.4', 'user-agent': BROWSER },
  });
}

type Row = {
  id: string;
  project_id: string | null;
  actor: string;
  action: string;
  target_type: string;
  target_id: string | null;
  ip: string | null;
  user_agent: string | null;
  actor_name: string | null;
  changes: Record<string, unknown> | null;
};

const seen = new Set<string>();
/** The entries written since the last call, oldest first. */
async function newEntries(): Promise<Row[]> {
  const r = await run<Row>(server.service.ctx.db, sql`select * from audit_log order by created_at, id`);
  const fresh = r.rows.filter((row) => !seen.has(row.id));
  for (const row of fresh) seen.add(row.id);
  return fresh;
}

function ok(res: ApiResponse, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

beforeAll(async () => {
  dns = await startDnsServer();
  server = await startTestServer({ ...LOCAL, DNS_SERVERS: dns.address });
  projectId = server.service.defaultProject!.id;
  api = client(server.url, server.service.defaultProject!.secretKey);
  // The first user claims the default project as its owner.
  ownerId = (await createUser(server.service.ctx.db, OWNER, PASSWORD, new Date()))!.id;
  ownerCookie = sessionCookie((await signIn(OWNER)).headers)!;
  await verifiedDomain(api, dns, 'audit.test');
  await newEntries();
});
afterAll(async () => {
  await server?.stop();
  await dns?.stop();
});

/** What a change through the API or the dashboard should leave: one entry with this action and target. */
interface Case {
  name: string;
  do: (c: Client) => Promise<{ targetId: string | null }>;
  action: string;
  targetType: string;
}

let n = 0;
const unique = () => `${Date.now().toString(36)}-${++n}`;

const cases: Case[] = [
  {
    name: 'create a contact',
    action: 'contact.created',
    targetType: 'contact',
    do: async (c) => ({ targetId: ok(await c.post('/contacts', { email: `c-${unique()}@example.com` }), 201).id }),
  },
  {
    name: 'update a contact',
    action: 'contact.updated',
    targetType: 'contact',
    do: async (c) => {
      const { id } = (await api.post('/contacts', { email: `u-${unique()}@example.com` })).body;
      await newEntries();
      ok(await c.patch(`/contacts/${id}`, { data: { plan: 'pro' } }));
      return { targetId: id };
    },
  },
  {
    name: 'delete a contact',
    action: 'contact.deleted',
    targetType: 'contact',
    do: async (c) => {
      const { id } = (await api.post('/contacts', { email: `d-${unique()}@example.com` })).body;
      await newEntries();
      ok(await c.delete(`/contacts/${id}`), 204);
      return { targetId: id };
    },
  },
  {
    name: 'create a segment',
    action: 'segment.created',
    targetType: 'segment',
    do: async (c) => ({ targetId: ok(await c.post('/segments', { name: `S ${unique()}`, type: 'STATIC' }), 201).id }),
  },
  {
    name: 'create a template',
    action: 'template.created',
    targetType: 'template',
    do: async (c) => {
      const body = { name: `T ${unique()}`, subject: 'Hi', body: '<p>Hi</p>', from: 'news@audit.test' };
      return { targetId: ok(await c.post('/templates', body), 201).id };
    },
  },
  {
    name: 'create a campaign',
    action: 'campaign.created',
    targetType: 'campaign',
    do: async (c) => {
      const body = {
        name: `C ${unique()}`,
        subject: 'Hi',
        body: '<p>Hi</p>',
        from: 'news@audit.test',
        audienceType: 'ALL',
      };
      const res = ok(await c.post('/campaigns', body), 201);
      return { targetId: res.data.id };
    },
  },
  {
    name: 'create a workflow',
    action: 'workflow.created',
    targetType: 'workflow',
    do: async (c) => ({ targetId: ok(await c.post('/workflows', { name: `W ${unique()}` }), 201).id }),
  },
  {
    name: 'create a webhook',
    action: 'webhook.created',
    targetType: 'webhook',
    do: async (c) => {
      const body = { url: 'https://hooks.example.com/in?token=very-secret', events: ['email.sent'] };
      return { targetId: ok(await c.post('/webhooks', body), 201).id };
    },
  },
  {
    name: 'suppress an address',
    action: 'suppression.created',
    targetType: 'suppression',
    do: async (c) => {
      const email = `s-${unique()}@example.com`;
      ok(await c.post('/suppressions', { email }), 201);
      return { targetId: email };
    },
  },
  {
    name: 'create an API key',
    action: 'api_key.created',
    targetType: 'api_key',
    do: async (c) => ({ targetId: ok(await c.post('/api-keys', { name: `K ${unique()}`, scopes: ['send'] }), 201).id }),
  },
  {
    name: 'change the tracking settings',
    action: 'tracking_settings.updated',
    targetType: 'tracking_settings',
    do: async (c) => {
      const current = ok(await c.get('/tracking-settings'));
      ok(await c.patch('/tracking-settings', { MARKETING: { opens: !current.MARKETING.opens } }));
      return { targetId: null };
    },
  },
  {
    name: 'change the campaign guardrails',
    action: 'campaign_settings.updated',
    targetType: 'campaign_settings',
    do: async (c) => {
      ok(await c.patch('/campaign-settings', { guardrails: { minSample: 100 + ++n } }));
      return { targetId: null };
    },
  },
];

describe('every change leaves exactly one entry', () => {
  for (const kase of cases) {
    it(`${kase.name}: through the API, as the secret key`, async () => {
      await newEntries();
      const { targetId } = await kase.do(api);
      const entries = await newEntries();
      expect(entries.map((e) => e.action)).toEqual([kase.action]);
      expect(entries[0]).toMatchObject({
        project_id: projectId,
        actor: 'secret-key',
        target_type: kase.targetType,
        target_id: targetId,
      });
    });

    it(`${kase.name}: through the dashboard, as the signed-in owner`, async () => {
      await newEntries();
      const { targetId } = await kase.do(dashboard(ownerCookie));
      const entries = await newEntries();
      expect(entries.map((e) => e.action)).toEqual([kase.action]);
      expect(entries[0]).toMatchObject({
        project_id: projectId,
        actor: `user:${ownerId}`,
        actor_name: OWNER,
        ip: '203.0.113.7',
        user_agent: BROWSER,
        target_type: kase.targetType,
        target_id: targetId,
      });
    });
  }

  it('a named key is the actor, by id and by its name', async () => {
    const key = ok(await api.post('/api-keys', { name: 'Importer', scopes: ['contacts:write'] }), 201);
    await newEntries();
    const contact = ok(await client(server.url, key.key).post('/contacts', { email: 'named@example.com' }), 201);
    const [entry, ...rest] = await newEntries();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ actor: `key:${key.id}`, actor_name: 'Importer', target_id: contact.id });
  });

  it('summaries name the fields, and never hold secrets or message bodies', async () => {
    await newEntries();
    const template = ok(
      await api.post('/templates', {
        name: 'Secretive',
        subject: 'S',
        body: '<p>private body</p>',
        from: 'a@audit.test',
      }),
      201,
    );
    ok(await api.patch(`/templates/${template.id}`, { body: '<p>another private body</p>', subject: 'New' }));
    const hook = ok(
      await api.post('/webhooks', { url: 'https://h.example.com/x?token=hunter2', events: ['email.sent'] }),
      201,
    );
    const entries = await newEntries();
    const text = JSON.stringify(entries);
    expect(text).not.toMatch(/private body|hunter2|whsec_/);
    const update = entries.find((e) => e.action === 'template.updated')!;
    expect((update.changes!.fields as string[]).sort()).toEqual(['body', 'subject']);
    expect(entries.find((e) => e.action === 'webhook.created')?.target_id).toBe(hook.id);
  });

  it('a role change records the role before and after', async () => {
    const member = (await createUser(server.service.ctx.db, MEMBER, PASSWORD, new Date()))!;
    await run(
      server.service.ctx.db,
      sql`insert into project_members (project_id, user_id, role, created_at) values (${projectId}, ${member.id}, 'member', now())`,
    );
    await newEntries();
    const owner = client(server.url, '');
    const res = await owner.request('PATCH', `/projects/${projectId}/members/${member.id}`, {
      key: null,
      headers: { cookie: ownerCookie },
      body: { role: 'admin' },
    });
    ok(res);
    const entries = await newEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'member.role_changed',
      actor: `user:${ownerId}`,
      target_type: 'member',
      target_id: member.id,
      changes: { values: { role: ['member', 'admin'] } },
    });
  });

  it('sign-ins and failed sign-ins are recorded, without the password', async () => {
    await newEntries();
    expect((await signIn(OWNER, 'not-the-password')).status).toBe(401);
    expect((await signIn('nobody@audit.test', 'whatever-it-is')).status).toBe(401);
    expect((await signIn(OWNER)).status).toBe(200);
    const entries = await newEntries();
    expect(entries.map((e) => [e.action, e.actor, e.actor_name, e.target_id])).toEqual([
      ['user.sign_in_failed', 'anonymous', OWNER, ownerId],
      ['user.sign_in_failed', 'anonymous', 'nobody@audit.test', null],
      ['user.signed_in', `user:${ownerId}`, OWNER, ownerId],
    ]);
    expect(entries.every((e) => e.project_id === null && e.ip === '198.51.100.4')).toBe(true);
    expect(JSON.stringify(entries)).not.toMatch(/not-the-password|whatever-it-is/);
  });
});

describe('a change that fails leaves no entry', () => {
  it('422: a contact with an invalid address, a snooze in the past', async () => {
    await newEntries();
    expect((await api.post('/contacts', { email: 'not an address' })).status).toBe(422);
    const contact = ok(await api.post('/contacts', { email: 'valid@example.com' }), 201);
    await newEntries();
    const past = new Date(Date.now() - 60_000).toISOString();
    expect((await dashboard(ownerCookie).patch(`/contacts/${contact.id}`, { snoozedUntil: past })).status).toBe(422);
    expect(await newEntries()).toEqual([]);
  });

  it('409: an address another contact has, a segment a campaign is sending to', async () => {
    const a = ok(await api.post('/contacts', { email: 'first@conflict.test' }), 201);
    ok(await api.post('/contacts', { email: 'second@conflict.test' }), 201);
    await newEntries();
    const conflict = await dashboard(ownerCookie).patch(`/contacts/${a.id}`, { email: 'second@conflict.test' });
    expect(conflict.status).toBe(409);
    expect(await newEntries()).toEqual([]);
  });

  it('404: changing what the project does not have', async () => {
    await newEntries();
    expect((await api.delete(`/webhooks/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await api.patch(`/api-keys/${crypto.randomUUID()}`, { name: 'x' })).status).toBe(404);
    expect(await newEntries()).toEqual([]);
  });

  it('an entry that cannot be written takes its change with it, one statement or several', async () => {
    const hook = ok(
      await api.post('/webhooks', { url: 'https://hooks.example.com/atomic', events: ['email.sent'] }),
      201,
    );
    const contact = ok(await api.post('/contacts', { email: `atomic-${unique()}@example.com` }), 201);
    await newEntries();
    // The database refuses these two targets' entries, as it would a full disk or a lost connection.
    const db = server.service.ctx.db;
    await run(
      db,
      sql`create function audit_test_refuse() returns trigger language plpgsql as $$
        begin raise exception 'the test refuses this entry'; end $$`,
    );
    await run(
      db,
      sql.raw(`create trigger audit_test_refuse before insert on audit_log for each row
        when (new.target_id in ('${hook.id}', '${contact.id}')) execute function audit_test_refuse()`),
    );
    try {
      const owner = dashboard(ownerCookie);
      // One statement before the audit log (the webhook's update): its entry is written by the same statement.
      expect((await owner.patch(`/webhooks/${hook.id}`, { description: 'must not stay' })).status).toBe(500);
      expect((await owner.post(`/webhooks/${hook.id}/rotate-secret`, {})).status).toBe(500);
      expect((await owner.delete(`/webhooks/${hook.id}`)).status).toBe(500);
      const kept = ok(await api.get(`/webhooks/${hook.id}`));
      expect(kept.description).toBe(hook.description);
      expect(kept.secret).toBe(hook.secret);
      // Several statements in a transaction (the contact's update writes the entry).
      expect((await owner.patch(`/contacts/${contact.id}`, { data: { plan: 'must-not-stay' } })).status).toBe(500);
      expect(ok(await api.get(`/contacts/${contact.id}`)).data).toEqual(contact.data);
    } finally {
      await run(db, sql`drop trigger audit_test_refuse on audit_log`);
      await run(db, sql`drop function audit_test_refuse()`);
    }
    expect(await newEntries()).toEqual([]);
    // And a change that finds nothing writes nothing.
    expect((await api.patch(`/webhooks/${crypto.randomUUID()}`, { description: 'x' })).status).toBe(404);
    expect(await newEntries()).toEqual([]);
    // Once the database takes entries again, the same change is written with its entry.
    ok(await dashboard(ownerCookie).patch(`/webhooks/${hook.id}`, { description: 'now it stays' }));
    expect((await newEntries()).map((e) => [e.action, e.target_id])).toEqual([['webhook.updated', hook.id]]);
  });

  it('a column added while the service runs does not break the changes that write their entry with them', async () => {
    // Those statements are prepared once per connection; one answering `*` would fail once the table changes.
    const hook = ok(
      await api.post('/webhooks', { url: 'https://hooks.example.com/columns', events: ['email.sent'] }),
      201,
    );
    const contact = ok(await api.post('/contacts', { email: `columns-${unique()}@example.com` }), 201);
    const owner = dashboard(ownerCookie);
    const change = async (i: number) => {
      ok(await owner.patch(`/webhooks/${hook.id}`, { description: `before ${i}` }));
      ok(await owner.patch(`/contacts/${contact.id}`, { data: { n: i } }));
    };
    for (let i = 0; i < 5; i++) await change(i);
    const db = server.service.ctx.db;
    await run(db, sql`alter table webhooks add column audit_test_extra int`);
    await run(db, sql`alter table contacts add column audit_test_extra int`);
    try {
      for (let i = 5; i < 10; i++) await change(i);
    } finally {
      await run(db, sql`alter table webhooks drop column audit_test_extra`);
      await run(db, sql`alter table contacts drop column audit_test_extra`);
    }
    for (let i = 10; i < 15; i++) await change(i);
    await newEntries();
  });

  it('403: a member may not change the campaign guardrails', async () => {
    const memberCookie = sessionCookie((await signIn(MEMBER)).headers)!;
    await run(
      server.service.ctx.db,
      sql`update project_members set role = 'member' where user_id = (select id from users where email = ${MEMBER})`,
    );
    await newEntries();
    const res = await dashboard(memberCookie).patch('/campaign-settings', { guardrails: { minSample: 999 } });
    expect(res.status).toBe(403);
    expect(await newEntries()).toEqual([]);
  });
});

describe('GET /audit-log', () => {
  it('lists entries newest first, with filters and a cursor', async () => {
    const contact = ok(await api.post('/contacts', { email: 'listed@example.com' }), 201);
    for (const plan of ['a', 'b', 'c'])
      ok(await dashboard(ownerCookie).patch(`/contacts/${contact.id}`, { data: { plan } }));
    const page1 = ok(await api.get(`/audit-log?targetType=contact&targetId=${contact.id}&limit=2`));
    expect(page1.total).toBe(4);
    expect(page1.totalCapped).toBe(false);
    expect(page1.hasMore).toBe(true);
    expect(page1.data.map((e: AuditEntry) => e.action)).toEqual(['contact.updated', 'contact.updated']);
    expect(page1.data[0]).toMatchObject({
      actor: { kind: 'user', id: ownerId, label: OWNER },
      target: { type: 'contact', id: contact.id },
      changes: { fields: ['data.plan'] },
      ip: '203.0.113.7',
      userAgent: BROWSER,
    });
    const page2 = ok(
      await api.get(`/audit-log?targetType=contact&targetId=${contact.id}&limit=2&cursor=${page1.cursor}`),
    );
    expect(page2.hasMore).toBe(false);
    expect(page2.data.map((e: AuditEntry) => [e.action, e.actor.kind])).toEqual([
      ['contact.updated', 'user'],
      ['contact.created', 'secret-key'],
    ]);
    const ids = [...page1.data, ...page2.data].map((e: AuditEntry) => e.id);
    expect(new Set(ids).size).toBe(4);

    const byActor = ok(await api.get(`/audit-log?actor=user:${ownerId}&action=contact.updated&limit=100`));
    expect(byActor.data.every((e: AuditEntry) => e.actor.id === ownerId && e.action === 'contact.updated')).toBe(true);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(ok(await api.get(`/audit-log?from=${encodeURIComponent(future)}`)).data).toEqual([]);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    expect(ok(await api.get(`/audit-log?to=${encodeURIComponent(past)}`)).total).toBe(0);
    // Project-less entries (sign-ins) are not a project's.
    expect(ok(await api.get('/audit-log?action=user.signed_in')).total).toBe(0);
  });

  it('is for owners, admins, the secret key and keys with the admin scope', async () => {
    expect((await dashboard(ownerCookie).get('/audit-log')).status).toBe(200);
    const memberCookie = sessionCookie((await signIn(MEMBER)).headers)!;
    const member = await dashboard(memberCookie).get('/audit-log');
    expect(member.status).toBe(403);
    expect(member.body.error.code).toBe('FORBIDDEN_ROLE');
    const sender = ok(await api.post('/api-keys', { name: 'Sender', scopes: ['send'] }), 201);
    expect((await client(server.url, sender.key).get('/audit-log')).status).toBe(403);
    const admin = ok(await api.post('/api-keys', { name: 'Admin', scopes: ['admin'] }), 201);
    expect((await client(server.url, admin.key).get('/audit-log')).status).toBe(200);
    expect((await client(server.url, server.service.defaultProject!.publicKey).get('/audit-log')).status).toBe(401);
    expect((await client(server.url, '').get('/audit-log', null)).status).toBe(401);
  });

  it('refuses a forged cursor and malformed filters with 422', async () => {
    const forged = Buffer.from(JSON.stringify(["'; drop table audit_log; --", 'x'])).toString('base64url');
    expect((await api.get(`/audit-log?cursor=${forged}`)).status).toBe(422);
    expect((await api.get('/audit-log?actor=root')).status).toBe(422);
    expect((await api.get('/audit-log?from=yesterday')).status).toBe(422);
    expect((await api.get('/audit-log?targetId=abc')).status).toBe(422);
  });
});

describe('nothing writes, changes or deletes an entry but the change itself', () => {
  it('no route writes, changes or deletes an entry, with any credentials', async () => {
    const [entry] = ok(await api.get('/audit-log?limit=1')).data as AuditEntry[];
    const before = ok(await api.get('/audit-log?limit=1')).total;
    const forged = { action: 'contact.deleted', target: { type: 'contact', id: 'x' }, actor: { kind: 'system' } };
    for (const c of [api, dashboard(ownerCookie)]) {
      for (const [method, path] of [
        ['POST', '/audit-log'],
        ['PUT', '/audit-log'],
        ['DELETE', '/audit-log'],
        ['PATCH', `/audit-log/${entry!.id}`],
        ['PUT', `/audit-log/${entry!.id}`],
        ['DELETE', `/audit-log/${entry!.id}`],
      ] as const) {
        const res = await c.request(method, path, method === 'DELETE' ? {} : { body: forged });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    // A cross-site form post carries the cookie but cannot name the project: refused before any route.
    const crossSite = await client(server.url, '').request('POST', '/contacts', {
      key: null,
      headers: { cookie: ownerCookie, origin: 'https://evil.example' },
      body: { email: 'csrf@example.com' },
    });
    expect(crossSite.status).toBe(401);
    expect(ok(await api.get('/audit-log?limit=1')).total).toBe(before);
    const still = ok(await api.get(`/audit-log?limit=100`)).data.find((e: AuditEntry) => e.id === entry!.id);
    expect(still).toEqual(entry);
  });

  it('the database itself refuses to change or delete an entry outside the retention', async () => {
    const db = server.service.ctx.db;
    for (const statement of [
      sql`update audit_log set action = 'x'`,
      sql`delete from audit_log`,
      sql`truncate audit_log`,
    ]) {
      const err = await run(db, statement).then(
        () => null,
        (e: unknown) => e,
      );
      expect(pgErrorCode(err)).toBe('42501');
    }
    expect((await run(db, sql`select count(*)::int as n from audit_log`)).rows[0].n).toBeGreaterThan(0);
  });

  it('the retention removes entries older than AUDIT_RETENTION_DAYS, in batches', async () => {
    const db = server.service.ctx.db;
    await run(
      db,
      sql`insert into audit_log (id, project_id, created_at, actor, action, target_type)
        select gen_random_uuid(), ${projectId}, now() - interval '400 days', 'system', 'old.entry', 'test'
        from generate_series(1, 25)`,
    );
    const kept = (await run(db, sql`select count(*)::int as n from audit_log where action <> 'old.entry'`)).rows[0].n;
    expect(await purgeExpiredEntries(server.service.ctx, { batch: 10 })).toBe(25);
    const left = await run(db, sql`select action, count(*)::int as n from audit_log group by 1`);
    expect(left.rows.find((r) => r.action === 'old.entry')).toBeUndefined();
    expect(left.rows.reduce((sum, r) => sum + r.n, 0)).toBe(kept);
  });
});
