import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { contacts } from '../../src/api.js';
import { createContact, getContact } from '../support/contacts.js';
import { type Client, type TestProject, useTestServer } from '../support/server.js';

type Field = z.infer<typeof contacts.fieldsResponse>['fields'][number];

const server = useTestServer();

async function dataOf(api: Client, id: string) {
  return (await getContact(api, id)).data;
}

async function listFields(api: Client): Promise<Field[]> {
  const res = await api.get('/contacts/fields');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body)).toEqual(['fields']);
  return res.body.fields;
}

const STANDARD = (coverage: number): Field[] => [
  { field: 'email', type: 'string', isCustom: false, coverage },
  { field: 'subscribed', type: 'boolean', isCustom: false, coverage },
  { field: 'createdAt', type: 'date', isCustom: false, coverage },
];

describe('GET /contacts/fields', () => {
  it('lists only the standard fields, at zero coverage, for a project without contacts', async () => {
    const p = await server.project('fields-empty');
    expect(await listFields(p.api)).toEqual(STANDARD(0));
  });

  it('infers each custom field type at first sight and reports coverage', async () => {
    const p = await server.project('fields-types');
    await createContact(p.api, {
      email: 'one@fields.test',
      data: {
        age: 42,
        ratio: 3.14,
        vip: true,
        birthday: '1990-05-17',
        seenAt: '2024-01-15T10:20:30Z',
        seenAtMs: '2024-01-15T10:20:30.123Z',
        withOffset: '2024-01-15T10:20:30+02:00',
        notADate: '2024-13-01',
        city: 'Paris',
        zip: '02134',
      },
    });
    await createContact(p.api, { email: 'two@fields.test', data: { city: 'Rome', vip: false } });
    await createContact(p.api, { email: 'three@fields.test', data: { city: 'Paris' } });
    await createContact(p.api, { email: 'four@fields.test' });

    expect(await listFields(p.api)).toEqual([
      ...STANDARD(1),
      { field: 'data.age', type: 'number', isCustom: true, coverage: 0.25 },
      { field: 'data.birthday', type: 'date', isCustom: true, coverage: 0.25 },
      { field: 'data.city', type: 'string', isCustom: true, coverage: 0.75 },
      { field: 'data.notADate', type: 'string', isCustom: true, coverage: 0.25 },
      { field: 'data.ratio', type: 'number', isCustom: true, coverage: 0.25 },
      { field: 'data.seenAt', type: 'date', isCustom: true, coverage: 0.25 },
      { field: 'data.seenAtMs', type: 'date', isCustom: true, coverage: 0.25 },
      { field: 'data.vip', type: 'boolean', isCustom: true, coverage: 0.5 },
      { field: 'data.withOffset', type: 'string', isCustom: true, coverage: 0.25 },
      { field: 'data.zip', type: 'string', isCustom: true, coverage: 0.25 },
    ]);
  });

  it('keeps the first inferred type while storing later values of another type unchanged', async () => {
    const p = await server.project('fields-fixed');
    const a = await createContact(p.api, { email: 'a@fields.test', data: { score: 10, joined: '2024-02-01' } });
    const b = await createContact(p.api, { email: 'b@fields.test', data: { score: 'ten', joined: 'last spring' } });
    const patched = await p.api.patch(`/contacts/${a.id}`, { data: { score: true } });
    expect(patched.status).toBe(200);

    expect(await dataOf(p.api, a.id)).toEqual({ score: true, joined: '2024-02-01' });
    expect(await dataOf(p.api, b.id)).toEqual({ score: 'ten', joined: 'last spring' });
    const fields = await listFields(p.api);
    expect(fields.find((f) => f.field === 'data.score')).toEqual({
      field: 'data.score',
      type: 'number',
      isCustom: true,
      coverage: 1,
    });
    expect(fields.find((f) => f.field === 'data.joined')?.type).toBe('date');
  });

  it('types a key by its first non-null value', async () => {
    const p = await server.project('fields-null-first');
    const c = await createContact(p.api, { email: 'n@fields.test', data: { later: null, other: 1 } });
    expect((await listFields(p.api)).map((f) => f.field)).not.toContain('data.later');
    await p.api.patch(`/contacts/${c.id}`, { data: { later: false } });
    expect((await listFields(p.api)).find((f) => f.field === 'data.later')?.type).toBe('boolean');
  });

  it("types keys per project: another project's first value does not decide", async () => {
    const p1 = await server.project('fields-tenant-1');
    const p2 = await server.project('fields-tenant-2');
    await createContact(p1.api, { email: 'x@fields.test', data: { level: 5 } });
    await createContact(p2.api, { email: 'x@fields.test', data: { level: 'gold', only2: 'y' } });
    expect((await listFields(p1.api)).find((f) => f.field === 'data.level')?.type).toBe('number');
    expect((await listFields(p2.api)).find((f) => f.field === 'data.level')?.type).toBe('string');
    expect((await listFields(p1.api)).map((f) => f.field)).not.toContain('data.only2');
  });

  it('requires the secret key', async () => {
    const p = await server.project('fields-auth');
    expect((await p.api.get('/contacts/fields', p.publicKey)).status).toBe(401);
    expect((await p.api.get('/contacts/fields', null)).status).toBe(401);
  });
});

describe('field values, usage and deletion', () => {
  let p: TestProject;
  let other: TestProject;
  let mine: { id: string; email: string; data: Record<string, unknown> }[];
  let theirs: { id: string }[];

  beforeAll(async () => {
    p = await server.project('fields-values');
    other = await server.project('fields-values-other');
    mine = [
      await createContact(p.api, { email: 'v1@fields.test', data: { city: 'Paris', tier: 1 } }),
      await createContact(p.api, { email: 'v2@fields.test', data: { city: 'Rome', tier: 2 } }),
      await createContact(p.api, {
        email: 'v3@fields.test',
        subscribed: false,
        data: { city: 'Paris', tier: 1, keep: 'x' },
      }),
      await createContact(p.api, { email: 'v4@fields.test', data: { keep: 'y' } }),
    ];
    theirs = [];
    for (let i = 0; i < 3; i++)
      theirs.push(await createContact(other.api, { email: `o${i}@fields.test`, data: { city: 'Paris' } }));
  });

  it('counts distinct values of a custom field, most frequent first, in this project only', async () => {
    const res = await p.api.get('/contacts/fields/data.city/values');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      field: 'data.city',
      values: [
        { value: 'Paris', count: 2 },
        { value: 'Rome', count: 1 },
      ],
    });
    const numbers = await p.api.get('/contacts/fields/data.tier/values');
    expect(numbers.body.values).toEqual([
      { value: 1, count: 2 },
      { value: 2, count: 1 },
    ]);
    const limited = await p.api.get('/contacts/fields/data.city/values?limit=1');
    expect(limited.body.values).toEqual([{ value: 'Paris', count: 2 }]);
    const unknown = await p.api.get('/contacts/fields/data.nothing/values');
    expect(unknown.body).toEqual({ field: 'data.nothing', values: [] });
  });

  it('counts values of the standard email and subscribed fields; createdAt has none to enumerate', async () => {
    const subscribed = await p.api.get('/contacts/fields/subscribed/values');
    expect(subscribed.status).toBe(200);
    expect(subscribed.body.values).toEqual([
      { value: true, count: 3 },
      { value: false, count: 1 },
    ]);
    const emails = await p.api.get('/contacts/fields/email/values');
    expect(emails.body.values.map((v: any) => v.value).sort()).toEqual(mine.map((c) => c.email).sort());
    expect(emails.body.values.every((v: any) => v.count === 1)).toBe(true);

    const createdAt = await p.api.get('/contacts/fields/createdAt/values');
    expect(createdAt.status).toBe(400);
    expect(createdAt.body).toMatchObject({ success: false, error: { statusCode: 400 } });
  });

  it('rejects a values limit below 1 with 422', async () => {
    const res = await p.api.get('/contacts/fields/data.city/values?limit=0');
    expect(res.status).toBe(422);
    expect(res.body.error.errors.map((e: any) => e.field)).toContain('limit');
  });

  it('reports usage as empty lists of segments, campaigns and workflows', async () => {
    const res = await p.api.get('/contacts/fields/data.city/usage');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field: 'data.city', segments: [], campaigns: [], workflows: [] });
    const standard = await p.api.get('/contacts/fields/email/usage');
    expect(standard.body).toEqual({ field: 'email', segments: [], campaigns: [], workflows: [] });
  });

  it('refuses to delete a standard field with 400 and changes nothing', async () => {
    for (const field of ['email', 'subscribed', 'createdAt']) {
      const res = await p.api.delete(`/contacts/fields/${field}`);
      expect(res.status, field).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { statusCode: 400, code: 'STANDARD_FIELD' } });
    }
    const list = await p.api.get('/contacts?limit=100');
    expect(list.body.total).toBe(4);
    expect((await listFields(p.api)).slice(0, 3)).toEqual(STANDARD(1));
  });

  it('removes a custom field from every contact of this project only', async () => {
    const res = await p.api.delete('/contacts/fields/data.city');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field: 'data.city', removedFrom: 3 });

    expect(await dataOf(p.api, mine[0]!.id)).toEqual({ tier: 1 });
    expect(await dataOf(p.api, mine[1]!.id)).toEqual({ tier: 2 });
    expect(await dataOf(p.api, mine[2]!.id)).toEqual({ tier: 1, keep: 'x' });
    expect(await dataOf(p.api, mine[3]!.id)).toEqual({ keep: 'y' });
    expect((await listFields(p.api)).map((f) => f.field)).toEqual([
      'email',
      'subscribed',
      'createdAt',
      'data.keep',
      'data.tier',
    ]);
    expect((await p.api.get('/contacts/fields/data.city/values')).body.values).toEqual([]);

    for (const c of theirs) expect(await dataOf(other.api, c.id)).toEqual({ city: 'Paris' });
    expect((await listFields(other.api)).find((f) => f.field === 'data.city')).toEqual({
      field: 'data.city',
      type: 'string',
      isCustom: true,
      coverage: 1,
    });

    const again = await p.api.delete('/contacts/fields/data.city');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ field: 'data.city', removedFrom: 0 });
  });
});
