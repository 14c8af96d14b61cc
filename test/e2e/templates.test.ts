import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Domain, Template, templates } from '../../src/api.js';
import { publishRecords, verifiedDomain } from '../support/domains.js';
import { projectWithDomain, useServerWithDns } from '../support/mail-server.js';
import { UNKNOWN_ID, UUID } from '../support/sending.js';
import { type Client, expectBody, expectErrorEnvelope, type TestProject } from '../support/server.js';

type TemplatePage = z.infer<typeof templates.templatePageSchema>;

let main: TestProject;
let other: TestProject;

const MAIN_DOMAIN = 'main.templates.test';
const OTHER_DOMAIN = 'other.templates.test';

// A relay is configured (nothing is sent to it here), so the sender rules for mail that leaves apply.
const stack = useServerWithDns({ SMTP_URL: 'smtp://127.0.0.1:9' });

beforeAll(async () => {
  main = await projectWithDomain(stack, 'templates-main', MAIN_DOMAIN);
  other = await projectWithDomain(stack, 'templates-other', OTHER_DOMAIN);
});

const TEMPLATE_KEYS = [
  'body',
  'bodySource',
  'createdAt',
  'description',
  'from',
  'fromName',
  'id',
  'name',
  'projectId',
  'replyTo',
  'subject',
  'topicId',
  'trackClicks',
  'trackOpens',
  'type',
  'updatedAt',
  'version',
];

const valid = (overrides: Record<string, unknown> = {}) => ({
  name: 'Welcome',
  subject: 'Welcome, {{ first_name ?? "friend" }}',
  body: '<p>Hello {{ first_name ?? "there" }}</p>',
  from: `hello@${MAIN_DOMAIN}`,
  ...overrides,
});

let lastCreated = 0;
/** Creates a template; successive ones get distinct millisecond timestamps so sort orders are exact. */
async function create(api: Client, body: Record<string, unknown>): Promise<Template> {
  while (Date.now() <= lastCreated) await new Promise((r) => setTimeout(r, 2));
  const res = await api.post('/templates', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  lastCreated = Date.parse(res.body.createdAt);
  return res.body;
}

async function list(api: Client, query = ''): Promise<TemplatePage> {
  return expectBody(api.get(`/templates${query}`));
}

/** The standard error envelope, with a suggestion. */
function expectEnvelope(res: { status: number; body: any }, status: number, code: string) {
  expectErrorEnvelope(res, status, code);
  expect(typeof res.body.error.suggestion).toBe('string');
}

function expectFieldError(res: { status: number; body: any }, field: string, code?: string) {
  expectEnvelope(res, 422, 'VALIDATION_ERROR');
  const err = res.body.error.errors.find((e: any) => e.field === field);
  expect(err, `no field error for ${field}: ${JSON.stringify(res.body.error.errors)}`).toBeDefined();
  if (code) expect(err.code).toBe(code);
  return err;
}

describe('POST /templates', () => {
  it('creates a template with defaults: 201, type MARKETING, optional fields null', async () => {
    const res = await main.api.post('/templates', valid({ from: `Hello@${MAIN_DOMAIN.toUpperCase()}` }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(TEMPLATE_KEYS);
    expect(res.body).toMatchObject({
      name: 'Welcome',
      description: null,
      subject: 'Welcome, {{ first_name ?? "friend" }}',
      body: '<p>Hello {{ first_name ?? "there" }}</p>',
      from: `hello@${MAIN_DOMAIN}`,
      fromName: null,
      replyTo: null,
      type: 'MARKETING',
      bodySource: null,
      trackOpens: null,
      trackClicks: null,
      projectId: main.id,
    });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.updatedAt).toBe(res.body.createdAt);
    expect((await main.api.get(`/templates/${res.body.id}`)).body).toEqual(res.body);
  });

  it('stores every field', async () => {
    const t = await create(
      main.api,
      valid({
        description: 'Sent on sign-up',
        fromName: 'Postbox Team',
        replyTo: 'Support@Example.test',
        type: 'TRANSACTIONAL',
      }),
    );
    expect(t).toMatchObject({
      description: 'Sent on sign-up',
      fromName: 'Postbox Team',
      replyTo: 'support@example.test',
      type: 'TRANSACTIONAL',
    });
  });

  it.each(['name', 'subject', 'body', 'from'])('answers the legacy 400 { error } when %s is missing', async (field) => {
    const body: Record<string, unknown> = valid();
    delete body[field];
    const res = await main.api.post('/templates', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(res.body.error).toContain(field);
  });

  it('answers the legacy 400 for an empty body', async () => {
    const res = await main.api.post('/templates', {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it.each([
    ['name', { name: 42 }, 'invalid_type'],
    ['name', { name: '   ' }, 'too_small'],
    ['name', { name: null }, 'invalid_type'],
    ['subject', { subject: '' }, 'too_small'],
    ['subject', { subject: 'x'.repeat(999) }, 'too_big'],
    ['subject', { subject: 'Hello\r\nBcc: victim@example.test' }, 'invalid_string'],
    ['subject', { subject: 'Line\nbreak' }, 'invalid_string'],
    ['body', { body: '' }, 'too_small'],
    ['body', { body: ['<p>'] }, 'invalid_type'],
    ['from', { from: 'not-an-email' }, 'invalid_string'],
    ['replyTo', { replyTo: 'nope' }, 'invalid_string'],
    ['fromName', { fromName: 'Evil\nBcc: x@y.test' }, 'invalid_string'],
    ['type', { type: 'BULK' }, 'invalid_enum_value'],
    ['description', { description: 7 }, 'invalid_type'],
  ])('refuses an invalid %s with 422 (%j)', async (field, overrides, code) => {
    expectFieldError(await main.api.post('/templates', valid(overrides)), field, code);
  });

  it('accepts a 998-character subject', async () => {
    await create(main.api, valid({ subject: 's'.repeat(998) }));
  });

  it('refuses invalid Liquid with 422 invalid_template on the part', async () => {
    const body = expectFieldError(
      await main.api.post('/templates', valid({ body: '<p>{% if plan %}unclosed</p>' })),
      'body',
      'invalid_template',
    );
    expect(body.message.length).toBeGreaterThan(0);
    expectFieldError(
      await main.api.post('/templates', valid({ subject: 'Hi {{ name | no_such_filter }}' })),
      'subject',
      'invalid_template',
    );
  });

  it('refuses an unregistered sender domain with the 403 envelope', async () => {
    const res = await main.api.post('/templates', valid({ from: 'ada@unregistered.templates.test' }));
    expectEnvelope(res, 403, 'INTERNAL_SERVER_ERROR');
    expect(res.body.error.message).toContain('unregistered.templates.test');
    expect(res.body.error.details).toEqual({
      domain: 'unregistered.templates.test',
      registered: false,
      verified: false,
    });
    expect(res.body.error.suggestion).toContain('POST /domains');
  });

  it('refuses a registered but unverified domain, then accepts it once verified', async () => {
    const domain = 'pending.templates.test';
    const added = await main.api.post('/domains', { domain });
    expect(added.status).toBe(201);
    const res = await main.api.post('/templates', valid({ from: `ada@${domain}` }));
    expectEnvelope(res, 403, 'INTERNAL_SERVER_ERROR');
    expect(res.body.error.message).toContain(domain);
    expect(res.body.error.details).toEqual({ domain, registered: true, verified: false });

    publishRecords(stack.dns, added.body as Domain);
    expect((await main.api.get(`/domains/${added.body.id}/verify`)).body.verified).toBe(true);
    const t = await create(main.api, valid({ from: `ada@${domain}` }));
    expect(t.from).toBe(`ada@${domain}`);
  });

  it("refuses a subdomain of a verified domain and another project's domain", async () => {
    const sub = await main.api.post('/templates', valid({ from: `ada@news.${MAIN_DOMAIN}` }));
    expectEnvelope(sub, 403, 'INTERNAL_SERVER_ERROR');
    expect(sub.body.error.details).toEqual({ domain: `news.${MAIN_DOMAIN}`, registered: false, verified: false });
    const foreign = await main.api.post('/templates', valid({ from: `ada@${OTHER_DOMAIN}` }));
    expectEnvelope(foreign, 403, 'INTERNAL_SERVER_ERROR');
    expect(foreign.body.error.details).toMatchObject({ registered: false });
  });

  it('refuses requests without a key or with the public key (401)', async () => {
    expectEnvelope(await main.api.request('POST', '/templates', { body: valid(), key: null }), 401, 'INVALID_API_KEY');
    expectEnvelope(
      await main.api.request('POST', '/templates', { body: valid(), key: main.publicKey }),
      401,
      'INVALID_API_KEY',
    );
  });
});

describe('GET /templates/{id}', () => {
  it("answers 404 for another project's template or an unknown id, 422 for a non-uuid", async () => {
    const t = await create(main.api, valid({ name: 'Mine' }));
    expect((await main.api.get(`/templates/${t.id}`)).body).toEqual(t);
    expectEnvelope(await other.api.get(`/templates/${t.id}`), 404, 'NOT_FOUND');
    expectEnvelope(await main.api.get(`/templates/${UNKNOWN_ID}`), 404, 'NOT_FOUND');
    expectFieldError(await main.api.get('/templates/xyz'), 'id');
    expectEnvelope(await main.api.get(`/templates/${t.id}`, null), 401, 'INVALID_API_KEY');
  });
});

describe('PATCH /templates/{id}', () => {
  it('changes only the fields sent', async () => {
    const t = await create(
      main.api,
      valid({ name: 'Patch me', description: 'Before', fromName: 'Team', replyTo: 'r@example.test' }),
    );
    await new Promise((r) => setTimeout(r, 5));
    const res = await main.api.patch(`/templates/${t.id}`, { name: 'Patched', type: 'HEADLESS' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ ...t, name: 'Patched', type: 'HEADLESS', version: 2, updatedAt: res.body.updatedAt });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(t.updatedAt));
    expect((await main.api.get(`/templates/${t.id}`)).body).toEqual(res.body);
  });

  it('sets the nullable fields to null', async () => {
    const t = await create(main.api, valid({ description: 'x', fromName: 'Team', replyTo: 'r@example.test' }));
    const res = await main.api.patch(`/templates/${t.id}`, { description: null, fromName: null, replyTo: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      description: null,
      fromName: null,
      replyTo: null,
      name: t.name,
      subject: t.subject,
    });
  });

  it('accepts an empty patch and changes nothing', async () => {
    const t = await create(main.api, valid());
    const res = await main.api.patch(`/templates/${t.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(t);
  });

  it('checks a changed sender: 403 when unverified, 200 when verified', async () => {
    const t = await create(main.api, valid());
    const refused = await main.api.patch(`/templates/${t.id}`, { from: 'ada@elsewhere.templates.test' });
    expectEnvelope(refused, 403, 'INTERNAL_SERVER_ERROR');
    expect(refused.body.error.details).toEqual({
      domain: 'elsewhere.templates.test',
      registered: false,
      verified: false,
    });
    expect((await main.api.get(`/templates/${t.id}`)).body.from).toBe(t.from);

    const ok = await main.api.patch(`/templates/${t.id}`, { from: `news@${MAIN_DOMAIN}` });
    expect(ok.status).toBe(200);
    expect(ok.body.from).toBe(`news@${MAIN_DOMAIN}`);
  });

  it('validates like create: types, subject, Liquid', async () => {
    const t = await create(main.api, valid());
    expectFieldError(await main.api.patch(`/templates/${t.id}`, { name: null }), 'name', 'invalid_type');
    expectFieldError(await main.api.patch(`/templates/${t.id}`, { subject: 'a\r\nb' }), 'subject', 'invalid_string');
    expectFieldError(await main.api.patch(`/templates/${t.id}`, { type: 'OTHER' }), 'type', 'invalid_enum_value');
    expectFieldError(
      await main.api.patch(`/templates/${t.id}`, { body: '{% for x in y %}' }),
      'body',
      'invalid_template',
    );
    expectFieldError(await main.api.patch(`/templates/${t.id}`, { replyTo: 'bad' }), 'replyTo');
    expect((await main.api.get(`/templates/${t.id}`)).body).toEqual(t);
  });

  it("answers 404 for another project's template, 422 for a non-uuid", async () => {
    const t = await create(main.api, valid());
    expectEnvelope(await other.api.patch(`/templates/${t.id}`, { name: 'Stolen' }), 404, 'NOT_FOUND');
    expectEnvelope(await main.api.patch(`/templates/${UNKNOWN_ID}`, { name: 'x' }), 404, 'NOT_FOUND');
    expectFieldError(await main.api.patch('/templates/123', { name: 'x' }), 'id');
    expect((await main.api.get(`/templates/${t.id}`)).body.name).toBe(t.name);
  });
});

describe('DELETE /templates/{id}', () => {
  it('deletes: 204, then 404', async () => {
    const t = await create(main.api, valid());
    expectEnvelope(await other.api.delete(`/templates/${t.id}`), 404, 'NOT_FOUND');
    const res = await main.api.delete(`/templates/${t.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectEnvelope(await main.api.get(`/templates/${t.id}`), 404, 'NOT_FOUND');
    expectEnvelope(await main.api.delete(`/templates/${t.id}`), 404, 'NOT_FOUND');
    expectFieldError(await main.api.delete('/templates/nope'), 'id');
  });
});

describe('POST /templates/{id}/duplicate', () => {
  it('creates a copy named "<name> (copy)": 201 with the full template', async () => {
    const t = await create(
      main.api,
      valid({
        name: 'Original',
        description: 'd',
        fromName: 'Team',
        replyTo: 'r@example.test',
        type: 'HEADLESS',
        trackClicks: false,
      }),
    );
    const res = await main.api.post(`/templates/${t.id}/duplicate`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(TEMPLATE_KEYS);
    expect(res.body.id).not.toBe(t.id);
    expect(res.body).toEqual({
      ...t,
      id: res.body.id,
      name: 'Original (copy)',
      createdAt: res.body.createdAt,
      updatedAt: res.body.updatedAt,
    });
    expect((await main.api.get(`/templates/${res.body.id}`)).body).toEqual(res.body);
    expect((await main.api.get(`/templates/${t.id}`)).body).toEqual(t);
  });

  it("answers 404 for another project's template, 422 for a non-uuid", async () => {
    const t = await create(main.api, valid());
    expectEnvelope(await other.api.post(`/templates/${t.id}/duplicate`), 404, 'NOT_FOUND');
    expectFieldError(await main.api.post('/templates/1/duplicate'), 'id');
  });
});

describe('bodySource', () => {
  const doc = {
    editor: 'blocks',
    version: 1,
    bodyHash: 'abc',
    document: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hi "you" & <me>' }] }] },
  };

  it('is stored as given beside the body, returned, replaced, cleared and copied; sending uses the body', async () => {
    const t = await create(main.api, valid({ bodySource: doc }));
    expect(t.bodySource).toEqual(doc);
    expect((await main.api.get(`/templates/${t.id}`)).body.bodySource).toEqual(doc);
    const listed = await list(main.api, `?search=${encodeURIComponent(t.name)}&pageSize=100`);
    expect(listed.data.find((x) => x.id === t.id)?.bodySource).toEqual(doc);

    const copy = await main.api.post(`/templates/${t.id}/duplicate`);
    expect(copy.body.bodySource).toEqual(doc);

    // A body changed without the document keeps the document (the dashboard sees it is stale).
    const bodyOnly = await main.api.patch(`/templates/${t.id}`, { body: '<p>Edited as code</p>' });
    expect(bodyOnly.status, JSON.stringify(bodyOnly.body)).toBe(200);
    expect(bodyOnly.body).toMatchObject({ body: '<p>Edited as code</p>', bodySource: doc });

    const next = { ...doc, bodyHash: 'def' };
    const replaced = await main.api.patch(`/templates/${t.id}`, { bodySource: next });
    expect(replaced.body.bodySource).toEqual(next);
    const cleared = await main.api.patch(`/templates/${t.id}`, { bodySource: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.bodySource).toBeNull();
    expect((await main.api.get(`/templates/${t.id}`)).body.bodySource).toBeNull();
  });

  it('refuses a document that is not an object, or too large, with 422 on bodySource and changes nothing', async () => {
    for (const bad of ['<p>html</p>', [1, 2], 42]) {
      expectFieldError(await main.api.post('/templates', valid({ bodySource: bad })), 'bodySource');
    }
    const t = await create(main.api, valid({ bodySource: doc }));
    const huge = { document: 'x'.repeat(600_000) };
    expectFieldError(await main.api.patch(`/templates/${t.id}`, { bodySource: huge }), 'bodySource');
    expectFieldError(await main.api.patch(`/templates/${t.id}`, { bodySource: 'text' }), 'bodySource');
    expect((await main.api.get(`/templates/${t.id}`)).body).toEqual(t);
  });
});

describe('GET /templates/{id}/usage', () => {
  it('lists the campaigns and workflows using the template (none yet)', async () => {
    const t = await create(main.api, valid());
    const res = await main.api.get(`/templates/${t.id}/usage`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ templateId: t.id, campaigns: [], workflows: [] });
    expectEnvelope(await other.api.get(`/templates/${t.id}/usage`), 404, 'NOT_FOUND');
    expectEnvelope(await main.api.get(`/templates/${UNKNOWN_ID}/usage`), 404, 'NOT_FOUND');
    expectFieldError(await main.api.get('/templates/x/usage'), 'id');
  });
});

describe('GET /templates', () => {
  let p: TestProject;
  const t: Record<string, Template> = {};
  const names = (page: TemplatePage) => page.data.map((x) => x.name);
  beforeAll(async () => {
    p = await stack.server.project('templates-list');
    const from = `hi@list.templates.test`;
    await verifiedDomain(p.api, stack.dns, 'list.templates.test');
    const specs = [
      { name: 'Alpha', type: 'MARKETING', subject: 'Spring sale' },
      { name: 'bravo', type: 'TRANSACTIONAL', subject: 'Your receipt', description: 'Sent after purchase' },
      { name: 'Charlie', type: 'TRANSACTIONAL', subject: 'Password reset' },
      { name: 'delta', type: 'HEADLESS', subject: 'Data export', description: 'Carries the RECEIPT number' },
      { name: 'Echo', type: 'MARKETING', subject: 'Autumn SALE', description: '100% off_today' },
    ];
    for (const spec of specs) t[spec.name] = await create(p.api, { body: '<p>hi</p>', from, ...spec });
  });

  it('lists newest first with page metadata by default', async () => {
    const page = await list(p.api);
    expect(page).toEqual({ data: expect.any(Array), total: 5, page: 1, pageSize: 20, totalPages: 1 });
    expect(names(page)).toEqual(['Echo', 'delta', 'Charlie', 'bravo', 'Alpha']);
    expect(page.data[0]).toEqual(t.Echo);
  });

  it('only lists the project of the key', async () => {
    const page = await list(other.api);
    expect(page.data.every((x) => x.projectId === other.id)).toBe(true);
    expect(page.data.some((x) => Object.values(t).some((mine) => mine.id === x.id))).toBe(false);
  });

  it('sorts by createdAt, name (case-insensitive) or updatedAt, in either direction', async () => {
    expect(names(await list(p.api, '?dir=asc'))).toEqual(['Alpha', 'bravo', 'Charlie', 'delta', 'Echo']);
    expect(names(await list(p.api, '?sort=name&dir=asc'))).toEqual(['Alpha', 'bravo', 'Charlie', 'delta', 'Echo']);
    expect(names(await list(p.api, '?sort=name'))).toEqual(['Echo', 'delta', 'Charlie', 'bravo', 'Alpha']);
    const patched = await p.api.patch(`/templates/${t.Charlie!.id}`, { description: 'touched' });
    expect(patched.status).toBe(200);
    expect(names(await list(p.api, '?sort=updatedAt'))).toEqual(['Charlie', 'Echo', 'delta', 'bravo', 'Alpha']);
    expect(names(await list(p.api, '?sort=updatedAt&dir=asc'))).toEqual(['Alpha', 'bravo', 'delta', 'Echo', 'Charlie']);
  });

  it('falls back to createdAt and desc for unrecognised sort and dir', async () => {
    expect(names(await list(p.api, '?sort=subject&dir=sideways'))).toEqual([
      'Echo',
      'delta',
      'Charlie',
      'bravo',
      'Alpha',
    ]);
    expect(names(await list(p.api, '?sort=&dir=ASC'))).toEqual(['Echo', 'delta', 'Charlie', 'bravo', 'Alpha']);
  });

  it('pages by page and pageSize', async () => {
    const first = await list(p.api, '?pageSize=2');
    expect(first).toMatchObject({ total: 5, page: 1, pageSize: 2, totalPages: 3 });
    expect(names(first)).toEqual(['Echo', 'delta']);
    expect(names(await list(p.api, '?pageSize=2&page=2'))).toEqual(['Charlie', 'bravo']);
    const last = await list(p.api, '?pageSize=2&page=3');
    expect(names(last)).toEqual(['Alpha']);
    expect(last).toMatchObject({ total: 5, page: 3, pageSize: 2, totalPages: 3 });
    const beyond = await list(p.api, '?pageSize=2&page=4');
    expect(beyond).toEqual({ data: [], total: 5, page: 4, pageSize: 2, totalPages: 3 });
  });

  it('clamps pageSize to 100 and refuses values below 1', async () => {
    expect(await list(p.api, '?pageSize=1000')).toMatchObject({ pageSize: 100, totalPages: 1, total: 5 });
    expectFieldError(await p.api.get('/templates?pageSize=0'), 'pageSize', 'too_small');
    expectFieldError(await p.api.get('/templates?page=0'), 'page', 'too_small');
    expectFieldError(await p.api.get('/templates?page=abc'), 'page');
    expectFieldError(await p.api.get('/templates?pageSize=1.5'), 'pageSize');
  });

  it('filters by type, and refuses an unknown type with 422', async () => {
    const transactional = await list(p.api, '?type=TRANSACTIONAL');
    expect(names(transactional)).toEqual(['Charlie', 'bravo']);
    expect(transactional).toMatchObject({ total: 2, totalPages: 1 });
    expect(names(await list(p.api, '?type=HEADLESS'))).toEqual(['delta']);
    expectFieldError(await p.api.get('/templates?type=BULK'), 'type', 'invalid_enum_value');
    expectFieldError(await p.api.get('/templates?type=marketing'), 'type', 'invalid_enum_value');
  });

  it('searches name, description and subject case-insensitively', async () => {
    expect(names(await list(p.api, '?search=receipt'))).toEqual(['delta', 'bravo']);
    expect(names(await list(p.api, '?search=SALE'))).toEqual(['Echo', 'Alpha']);
    expect(names(await list(p.api, '?search=charl'))).toEqual(['Charlie']);
    expect(names(await list(p.api, '?search=nothing-matches'))).toEqual([]);
    expect(names(await list(p.api, `?search=${encodeURIComponent('100%')}`))).toEqual(['Echo']);
    expect(names(await list(p.api, `?search=${encodeURIComponent('%')}`))).toEqual(['Echo']);
    expect(names(await list(p.api, '?search=f_t'))).toEqual(['Echo']);
    expect(names(await list(p.api, '?search=ff_'))).toEqual(['Echo']);
    expect((await list(p.api, '?search=e_r')).total).toBe(0);
    const combined = await list(p.api, '?type=TRANSACTIONAL&search=receipt&pageSize=1');
    expect(combined).toMatchObject({ total: 1, totalPages: 1, pageSize: 1 });
    expect(names(combined)).toEqual(['bravo']);
  });

  it('breaks ties on id, so pages neither repeat nor skip', async () => {
    const q = await stack.server.project('templates-ties');
    await verifiedDomain(q.api, stack.dns, 'ties.templates.test');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await q.api.post('/templates', {
        name: 'Same',
        subject: 's',
        body: 'b',
        from: 'a@ties.templates.test',
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    for (const dir of ['asc', 'desc']) {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++)
        seen.push(...(await list(q.api, `?sort=name&dir=${dir}&pageSize=2&page=${page}`)).data.map((x) => x.id));
      const sorted = [...ids].sort();
      expect(seen).toEqual(dir === 'asc' ? sorted : sorted.reverse());
    }
  });

  it('refuses requests without a key (401)', async () => {
    expectEnvelope(await p.api.get('/templates', null), 401, 'INVALID_API_KEY');
    expectEnvelope(await p.api.get('/templates', p.publicKey), 401, 'INVALID_API_KEY');
  });
});

describe('POST /templates/preview', () => {
  const preview = (body: Record<string, unknown>, api: Client = main.api) => api.post('/templates/preview', body);

  it("renders unsaved content for one of the project's contacts, with the footer marketing mail gets", async () => {
    const contact = await expectBody(
      main.api.post('/contacts', { email: 'preview-ada@example.com', data: { firstName: 'Ada', plan: 'pro' } }),
      201,
    );
    const out = await expectBody(
      preview({
        subject: 'Hello {{ firstName }}',
        body: '<p>Your plan: <b>{{ plan | upcase }}</b> <a href="https://example.com/x">open</a></p>',
        contactId: contact.id,
      }),
    );
    expect(out.subject).toBe('Hello Ada');
    expect(out.html).toContain('<b>PRO</b>');
    // Nothing is sent: links stay as written, no open pixel.
    expect(out.html).toContain('href="https://example.com/x"');
    expect(out.html).not.toMatch(/\/t\/(open|click)\//);
    expect(out.html).toMatch(/\/unsubscribe\//);
    expect(out.text).toMatch(/Your plan: PRO/);
    const transactional = await expectBody(
      preview({ subject: 'S', body: '<p>{{ firstName }}</p>', type: 'TRANSACTIONAL', contactId: contact.id }),
    );
    expect(transactional.html).toBe('<p>Ada</p>');
  });

  it('renders sample data when no contact is named, as the preview address', async () => {
    const out = await expectBody(
      preview({ subject: 'For {{ email }}', body: '{{ team.name }}', data: { team: { name: 'Ops' } } }),
    );
    expect(out.subject).toBe('For preview@example.com');
    expect(out.html).toMatch(/^Ops/);
  });

  it('answers a render error as 422 naming the part and its line, and stores nothing', async () => {
    const before = await expectBody<{ total: number }>(main.api.get('/templates'));
    const res = await preview({ subject: 'ok', body: '<p>line one</p>\n<p>{% if %}</p>' });
    expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'body', code: 'invalid_template' })]);
    expect(res.body.error.errors[0].message).toMatch(/line:? ?2/);
    expect((await expectBody<{ total: number }>(main.api.get('/templates'))).total).toBe(before.total);
  });

  it("answers 404 for another project's contact and 422 for a malformed one", async () => {
    const theirs = await expectBody(other.api.post('/contacts', { email: 'preview-theirs@example.com' }), 201);
    expectErrorEnvelope(await preview({ subject: 's', body: 'b', contactId: theirs.id }), 404, 'NOT_FOUND');
    expectErrorEnvelope(await preview({ subject: 's', body: 'b', contactId: 'nope' }), 422, 'VALIDATION_ERROR');
  });
});
