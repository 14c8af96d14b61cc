import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact } from '../../src/api.js';
import type { CursorPage } from '../../src/platform/http/pagination.js';
import { type Client, expectBody, startTestServer, type TestProject, type TestServer } from '../support/server.js';

type ContactPage = CursorPage<Contact>;

let server: TestServer;
/** 25 contacts user-00 … user-24; every third one (00, 03, …) unsubscribed. */
let listed: TestProject;
const contacts: Contact[] = [];
/** Shares some addresses with `listed`, so leaks across projects would show. */
let other: TestProject;
const otherContacts: Contact[] = [];

const pad = (n: number) => String(n).padStart(2, '0');

async function create(api: Client, body: Record<string, unknown>): Promise<Contact> {
  return expectBody(api.post('/contacts', body), 201);
}

beforeAll(async () => {
  server = await startTestServer();
  listed = await server.project('list');
  other = await server.project('list-other');
  for (let i = 0; i < 25; i++) {
    contacts.push(await create(listed.api, { email: `user-${pad(i)}@list.test`, subscribed: i % 3 !== 0 }));
  }
  for (const email of ['user-05@list.test', 'user-99@list.test', 'zzz-other@list.test']) {
    otherContacts.push(await create(other.api, { email }));
  }
});
afterAll(() => server?.stop());

/** Follows cursors to the end, checking the page contract on the way. */
async function walk(
  api: Client,
  query: Record<string, string>,
  limit: number,
): Promise<{ pages: ContactPage[]; items: Contact[] }> {
  const pages: ContactPage[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const q = new URLSearchParams({ ...query, limit: String(limit) });
    if (cursor) q.set('cursor', cursor);
    const res = await api.get(`/contacts?${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['cursor', 'data', 'hasMore', 'total']);
    pages.push(res.body);
    if (!res.body.hasMore) break;
    expect(typeof res.body.cursor).toBe('string');
    cursor = res.body.cursor;
  }
  const last = pages[pages.length - 1]!;
  expect(last.hasMore).toBe(false);
  expect(last.cursor).toBeNull();
  for (const p of pages.slice(0, -1)) expect(p.data).toHaveLength(limit);
  expect(last.data.length).toBeLessThanOrEqual(limit);
  for (const p of pages.slice(1)) expect(p.total).toBe(0);
  const items = pages.flatMap((p) => p.data);
  expect(new Set(items.map((c) => c.id)).size).toBe(items.length);
  return { pages, items };
}

const ids = (list: Contact[]) => list.map((c) => c.id);
const sortedIds = (list: Contact[]) => ids(list).sort();

function expectCreatedDesc(items: Contact[]) {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const ordered = a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);
    expect(ordered, `${a.email} (${a.createdAt}) before ${b.email} (${b.createdAt})`).toBe(true);
  }
}

function expectValidationError(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', statusCode: 422 } });
  const fields = res.body.error.errors.map((e: any) => e.field);
  expect(fields).toContain(field);
}

describe('GET /contacts pagination', () => {
  it('walks every contact once, newest first, with total only on the first page', async () => {
    const { pages, items } = await walk(listed.api, {}, 7);
    expect(pages).toHaveLength(4);
    expect(pages[0]!.total).toBe(25);
    expect(sortedIds(items)).toEqual(sortedIds(contacts));
    expectCreatedDesc(items);
  });

  it('uses 20 as the default page size', async () => {
    const res = await listed.api.get('/contacts');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(20);
    expect(res.body.hasMore).toBe(true);
    expect(res.body.total).toBe(25);
  });

  it('walks ascending by creation time as the reverse of descending', async () => {
    const desc = (await walk(listed.api, {}, 25)).items;
    const asc = (await walk(listed.api, { dir: 'asc' }, 4)).items;
    expect(ids(asc)).toEqual(ids(desc).reverse());
  });

  it('sorts by email in both directions across pages', async () => {
    const byEmail = contacts.map((c) => c.email).sort();
    const asc = await walk(listed.api, { sort: 'email', dir: 'asc' }, 6);
    expect(asc.pages[0]!.total).toBe(25);
    expect(asc.items.map((c) => c.email)).toEqual(byEmail);
    const desc = await walk(listed.api, { sort: 'email', dir: 'desc' }, 10);
    expect(desc.items.map((c) => c.email)).toEqual([...byEmail].reverse());
  });

  it('falls back to createdAt for an unknown sort and to desc for an unknown dir', async () => {
    const reference = ids((await walk(listed.api, {}, 25)).items);
    const unknownSort = await listed.api.get('/contacts?limit=25&sort=favourite');
    expect(unknownSort.status).toBe(200);
    expect(ids(unknownSort.body.data)).toEqual(reference);
    const unknownDir = await listed.api.get('/contacts?limit=25&dir=sideways');
    expect(unknownDir.status).toBe(200);
    expect(ids(unknownDir.body.data)).toEqual(reference);

    const emailDesc = contacts
      .map((c) => c.email)
      .sort()
      .reverse();
    const emailUnknownDir = await listed.api.get('/contacts?limit=25&sort=email&dir=UP');
    expect(emailUnknownDir.body.data.map((c: Contact) => c.email)).toEqual(emailDesc);
  });

  it('does not repeat or skip contacts when one is added during the walk', async () => {
    const p = await server.project('list-churn');
    const originals: Contact[] = [];
    for (let i = 0; i < 6; i++) originals.push(await create(p.api, { email: `churn-${i}@list.test` }));
    const first = await p.api.get('/contacts?limit=2');
    expect(first.body.total).toBe(6);
    await create(p.api, { email: 'churn-late@list.test' });
    const seen: Contact[] = [...first.body.data];
    let cursor: string | null = first.body.cursor;
    while (cursor) {
      const res = await p.api.get(`/contacts?limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(0);
      seen.push(...res.body.data);
      cursor = res.body.hasMore ? res.body.cursor : null;
    }
    expect(sortedIds(seen)).toEqual(sortedIds(originals));
  });

  it('clamps a limit above 100 to 100', async () => {
    const p = await server.project('list-big');
    const made: Contact[] = [];
    for (let start = 0; start < 105; start += 15) {
      const batch = Array.from({ length: Math.min(15, 105 - start) }, (_, i) =>
        create(p.api, { email: `big-${start + i}@list.test` }),
      );
      made.push(...(await Promise.all(batch)));
    }
    for (const limit of ['101', '500', '100000']) {
      const res = await p.api.get(`/contacts?limit=${limit}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(100);
      expect(res.body.hasMore).toBe(true);
      expect(res.body.total).toBe(105);
    }
    const { items } = await walk(p.api, {}, 100);
    expect(sortedIds(items)).toEqual(sortedIds(made));
  });

  it('rejects a limit that is not a positive integer with 422', async () => {
    for (const limit of ['0', '-3', 'abc', '2.5', '']) {
      expectValidationError(await listed.api.get(`/contacts?limit=${limit}`), 'limit');
    }
  });

  it('rejects a garbage cursor with 422', async () => {
    const forged = Buffer.from(JSON.stringify(['not-a-date', 'not-a-uuid'])).toString('base64url');
    for (const cursor of ['garbage!!', 'e30', forged]) {
      expectValidationError(await listed.api.get(`/contacts?cursor=${encodeURIComponent(cursor)}`), 'cursor');
    }
  });

  it('rejects a cursor taken from a list with another sort with 422', async () => {
    const byEmail = await listed.api.get('/contacts?sort=email&limit=3');
    expect(byEmail.body.hasMore).toBe(true);
    const res = await listed.api.get(`/contacts?limit=3&cursor=${encodeURIComponent(byEmail.body.cursor)}`);
    expectValidationError(res, 'cursor');
  });
});

describe('GET /contacts filters', () => {
  it('searches email case-insensitively by substring', async () => {
    const { pages, items } = await walk(listed.api, { search: 'USER-1' }, 4);
    const expected = contacts.filter((c) => c.email.startsWith('user-1'));
    expect(expected).toHaveLength(10);
    expect(pages[0]!.total).toBe(10);
    expect(sortedIds(items)).toEqual(sortedIds(expected));

    const middle = await listed.api.get('/contacts?search=R-2&limit=100');
    expect(sortedIds(middle.body.data)).toEqual(sortedIds(contacts.filter((c) => c.email.includes('r-2'))));

    const none = await listed.api.get('/contacts?search=nobody-here');
    expect(none.body).toEqual({ data: [], cursor: null, hasMore: false, total: 0 });
  });

  it('treats % and _ in the search as literal characters', async () => {
    const p = await server.project('list-like');
    const underscore = await create(p.api, { email: 'a_b@like.test' });
    await create(p.api, { email: 'axb@like.test' });
    await create(p.api, { email: 'aab@like.test' });

    const res = await p.api.get(`/contacts?search=${encodeURIComponent('a_b')}`);
    expect(res.status).toBe(200);
    expect(ids(res.body.data)).toEqual([underscore.id]);
    expect(res.body.total).toBe(1);

    const percent = await p.api.get(`/contacts?search=${encodeURIComponent('%')}`);
    expect(percent.body.total).toBe(0);
    expect(percent.body.data).toEqual([]);
    const inside = await p.api.get(`/contacts?search=${encodeURIComponent('a%b')}`);
    expect(inside.body.total).toBe(0);
  });

  it('filters by subscription state', async () => {
    const unsub = await walk(listed.api, { subscribed: 'false' }, 4);
    const expectedUnsub = contacts.filter((c) => !c.subscribed);
    expect(expectedUnsub).toHaveLength(9);
    expect(unsub.pages[0]!.total).toBe(9);
    expect(sortedIds(unsub.items)).toEqual(sortedIds(expectedUnsub));
    expect(unsub.items.every((c) => c.subscribed === false)).toBe(true);

    const sub = await walk(listed.api, { subscribed: 'true' }, 5);
    expect(sub.pages[0]!.total).toBe(16);
    expect(sortedIds(sub.items)).toEqual(sortedIds(contacts.filter((c) => c.subscribed)));

    const combined = await listed.api.get('/contacts?subscribed=false&search=user-1&limit=100');
    expect(sortedIds(combined.body.data)).toEqual(
      sortedIds(contacts.filter((c) => !c.subscribed && c.email.startsWith('user-1'))),
    );
  });

  it('rejects a subscribed value that is not true or false with 422', async () => {
    for (const value of ['maybe', 'yes', '1']) {
      expectValidationError(await listed.api.get(`/contacts?subscribed=${value}`), 'subscribed');
    }
  });

  it("never lists another project's contacts", async () => {
    const foreign = new Set(ids(otherContacts));
    const all = (await walk(listed.api, {}, 50)).items;
    expect(all.some((c) => foreign.has(c.id))).toBe(false);

    const shared = await listed.api.get('/contacts?search=user-05');
    expect(ids(shared.body.data)).toEqual([contacts[5]!.id]);
    expect(shared.body.total).toBe(1);
    for (const search of ['user-99', 'zzz-other']) {
      const res = await listed.api.get(`/contacts?search=${search}`);
      expect(res.body.total).toBe(0);
      expect(res.body.data).toEqual([]);
    }

    const theirs = (await walk(other.api, {}, 2)).items;
    expect(sortedIds(theirs)).toEqual(sortedIds(otherContacts));
  });

  it('requires the secret key', async () => {
    expect((await listed.api.get('/contacts', listed.publicKey)).status).toBe(401);
    expect((await listed.api.get('/contacts', null)).status).toBe(401);
  });
});

describe('POST /contacts/lookup', () => {
  it('answers found or missing for each email, in request order', async () => {
    const emails = [
      'user-03@list.test',
      'missing-1@list.test',
      'USER-10@List.Test',
      'user-99@list.test',
      'user-03@list.test',
    ];
    const res = await listed.api.post('/contacts/lookup', { emails });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { email: 'user-03@list.test', exists: true, contactId: contacts[3]!.id },
        { email: 'missing-1@list.test', exists: false, contactId: null },
        { email: 'user-10@list.test', exists: true, contactId: contacts[10]!.id },
        // Exists only in the other project.
        { email: 'user-99@list.test', exists: false, contactId: null },
        { email: 'user-03@list.test', exists: true, contactId: contacts[3]!.id },
      ],
    });
  });

  it('accepts 500 emails and rejects 501 with 422', async () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => (i === 7 ? 'user-07@list.test' : `bulk-${i}@lookup.test`));
    const ok = await listed.api.post('/contacts/lookup', { emails: many(500) });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toHaveLength(500);
    expect(ok.body.data.filter((r: any) => r.exists)).toEqual([
      { email: 'user-07@list.test', exists: true, contactId: contacts[7]!.id },
    ]);

    const res = await listed.api.post('/contacts/lookup', { emails: many(501) });
    expectValidationError(res, 'emails');
    expect(res.body.error.errors.find((e: any) => e.field === 'emails').code).toBe('too_big');
  });

  it('rejects an empty list, a missing list and an invalid email with 422', async () => {
    const empty = await listed.api.post('/contacts/lookup', { emails: [] });
    expectValidationError(empty, 'emails');
    expect(empty.body.error.errors[0].code).toBe('too_small');
    expectValidationError(await listed.api.post('/contacts/lookup', {}), 'emails');
    expectValidationError(
      await listed.api.post('/contacts/lookup', { emails: ['user-01@list.test', 'nope'] }),
      'emails.1',
    );
  });
});
