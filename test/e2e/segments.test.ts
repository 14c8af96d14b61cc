import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Contact, FilterCondition, Segment, segments, TrackedEvent } from '../../src/api.js';
import type { Filter } from '../../src/domain/filters/index.js';
import { run } from '../../src/platform/db/client.js';
import { verifiedDomain } from '../support/domains.js';
import { useServerWithDns } from '../support/mail-server.js';
import { UNKNOWN_ID, UUID, uniqueAddresses } from '../support/sending.js';
import {
  type ApiResponse,
  type Client,
  eventually,
  expectBody,
  expectErrorEnvelope,
  type TestProject,
} from '../support/server.js';

type MemberPage = z.infer<typeof segments.memberPageSchema>;
type AddResult = z.infer<typeof segments.addMembersResponse>;
type RemoveResult = z.infer<typeof segments.removeMembersResponse>;
type ComputeResult = z.infer<typeof segments.computeResponse>;

/** The project most tests share; tests that count contacts get a project of their own. */
let main: TestProject;
/** A second project, for isolation. */
let other: TestProject;

const stack = useServerWithDns();

beforeAll(async () => {
  main = await stack.server.project('segments-main');
  other = await stack.server.project('segments-other');
});

// ---------------------------------------------------------------------------------------------
// Shapes

const SEGMENT_KEYS = [
  'condition',
  'createdAt',
  'description',
  'id',
  'memberCount',
  'memberCountUpdatedAt',
  'name',
  'projectId',
  'slug',
  'trackMembership',
  'type',
  'updatedAt',
];
const CONTACT_KEYS = ['createdAt', 'data', 'email', 'id', 'snoozedUntil', 'subscribed', 'topics', 'updatedAt'];

// ---------------------------------------------------------------------------------------------
// Conditions

const where = (...filters: Filter[]): FilterCondition => ({ logic: 'AND', groups: [{ filters }] });
const equals = (field: string, value: unknown): Filter => ({ field, operator: 'equals', value });
const planIs = (plan: string) => where(equals('data.plan', plan));
const memberOf = (segmentId: string) => where({ field: 'segment', operator: 'memberOfSegment', value: segmentId });

// ---------------------------------------------------------------------------------------------
// Helpers

let seq = 0;
/** A fresh address per call, so tests never see each other's contacts. */
const uniqueEmail = uniqueAddresses('segments.test');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let lastWrite = 0;
/** Waits until the clock has moved past the last timestamped write, so orderings by time are exact. */
async function nextMillisecond() {
  while (Date.now() <= lastWrite) await sleep(2);
}

async function createSegment(api: Client, body: Record<string, unknown>): Promise<Segment> {
  await nextMillisecond();
  const res = await api.post('/segments', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  lastWrite = Date.parse(res.body.createdAt);
  return res.body;
}

const dynamicSegment = (api: Client, name: string, condition: FilterCondition, extra: Record<string, unknown> = {}) =>
  createSegment(api, { name, condition, ...extra });
const staticSegment = (api: Client, name: string, extra: Record<string, unknown> = {}) =>
  createSegment(api, { name, type: 'STATIC', ...extra });

async function getSegment(api: Client, id: string): Promise<Segment> {
  return expectBody(api.get(`/segments/${id}`));
}

async function patchSegment(api: Client, id: string, body: Record<string, unknown>): Promise<Segment> {
  return expectBody(api.patch(`/segments/${id}`, body));
}

async function createContact(
  api: Client,
  email: string,
  data: Record<string, unknown> = {},
  subscribed?: boolean,
): Promise<Contact> {
  await nextMillisecond();
  const res = await api.post('/contacts', { email, data, ...(subscribed === undefined ? {} : { subscribed }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  lastWrite = Date.parse(res.body.createdAt);
  const { _meta, ...contact } = res.body;
  return contact;
}

async function setPlan(api: Client, contactId: string, plan: string): Promise<void> {
  const res = await api.patch(`/contacts/${contactId}`, { data: { plan } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The contact with this address, or undefined. */
async function findContact(api: Client, email: string): Promise<Contact | undefined> {
  const res = await api.get(`/contacts?search=${encodeURIComponent(email)}&limit=100`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as Contact[]).find((c) => c.email === email);
}

async function memberPage(api: Client, id: string, query = ''): Promise<MemberPage> {
  return expectBody(api.get(`/segments/${id}/contacts${query}`));
}

const memberEmails = async (api: Client, id: string) =>
  (await memberPage(api, id, '?pageSize=100')).data.map((c) => c.email);

async function addMembers(api: Client, id: string, body: Record<string, unknown>): Promise<AddResult> {
  await nextMillisecond();
  const res = await api.post(`/segments/${id}/members`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  lastWrite = Date.now();
  return res.body;
}

async function removeMembers(api: Client, id: string, emails: string[]): Promise<RemoveResult> {
  return expectBody(api.request('DELETE', `/segments/${id}/members`, { body: { emails } }));
}

async function compute(api: Client, id: string): Promise<ComputeResult> {
  return expectBody(api.post(`/segments/${id}/compute`));
}

async function refresh(api: Client, id: string): Promise<Segment> {
  return expectBody(api.post(`/segments/${id}/refresh`));
}

/** Every event of the project with this name (the suite never records more than 100 of one name). */
async function eventsNamed(api: Client, name: string): Promise<TrackedEvent[]> {
  const res = await api.get(`/events?name=${encodeURIComponent(name)}&limit=100`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** The entry and exit events of a segment, as sorted lists of contact ids. */
async function membershipEvents(api: Client, slug: string): Promise<{ entry: string[]; exit: string[] }> {
  const [entry, exit] = await Promise.all([
    eventsNamed(api, `segment.${slug}.entry`),
    eventsNamed(api, `segment.${slug}.exit`),
  ]);
  return { entry: entry.map((e) => e.contactId).sort(), exit: exit.map((e) => e.contactId).sort() };
}

/** Waits for the count job: the segment has been counted at least once and holds `count`. */
function counted(api: Client, id: string, count: number): Promise<Segment> {
  return eventually(async () => {
    const s = await getSegment(api, id);
    return s.memberCountUpdatedAt !== null && s.memberCount === count ? s : undefined;
  });
}

const ids = (items: { id: string }[]) => items.map((i) => i.id).sort();

/** The standard error envelope, with a suggestion. */
function expectEnvelope(res: ApiResponse, status: number, code: string) {
  expectErrorEnvelope(res, status, code);
  expect(typeof res.body.error.suggestion).toBe('string');
}

function expectFieldError(res: ApiResponse, field: string, code?: string) {
  expectEnvelope(res, 422, 'VALIDATION_ERROR');
  const err = res.body.error.errors.find((e: { field: string }) => e.field === field);
  expect(err, `no field error for ${field}: ${JSON.stringify(res.body.error.errors)}`).toBeDefined();
  expect(typeof err.message).toBe('string');
  if (code) expect(err.code).toBe(code);
  return err;
}

function expectLegacy400(res: ApiResponse, mentions: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toEqual({ error: expect.any(String) });
  expect(res.body.error).toContain(mentions);
}

// ---------------------------------------------------------------------------------------------

describe('POST /segments', () => {
  it('creates a dynamic segment: 201 with every Segment field and the defaults', async () => {
    const condition = planIs('pro');
    const res = await main.api.post('/segments', { name: 'Pro customers', condition });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SEGMENT_KEYS);
    expect(res.body).toMatchObject({
      name: 'Pro customers',
      slug: 'pro-customers',
      description: null,
      type: 'DYNAMIC',
      condition,
      trackMembership: false,
      memberCount: 0,
      memberCountUpdatedAt: null,
      projectId: main.id,
    });
    expect(res.body.id).toMatch(UUID);
    expect(Number.isNaN(Date.parse(res.body.createdAt))).toBe(false);
    expect(res.body.updatedAt).toBe(res.body.createdAt);
    const stored = await getSegment(main.api, res.body.id);
    expect({ ...stored, memberCount: 0, memberCountUpdatedAt: null }).toEqual(res.body);
  });

  it('stores description, type and trackMembership as given', async () => {
    const s = await createSegment(main.api, {
      name: 'Tracked pros',
      description: 'Pro plan, with entry and exit events',
      type: 'DYNAMIC',
      condition: planIs('pro'),
      trackMembership: true,
    });
    expect(s).toMatchObject({
      description: 'Pro plan, with entry and exit events',
      type: 'DYNAMIC',
      trackMembership: true,
    });
    expect(await getSegment(main.api, s.id)).toMatchObject({
      description: 'Pro plan, with entry and exit events',
      trackMembership: true,
    });
  });

  it('accepts a deep AND/OR tree and returns it unchanged', async () => {
    const condition: FilterCondition = {
      logic: 'OR',
      groups: [
        { filters: [equals('data.plan', 'pro'), { field: 'email', operator: 'contains', value: '@acme.' }] },
        {
          filters: [{ field: 'purchase', operator: 'triggeredWithin', value: 30, unit: 'days' }],
          conditions: { logic: 'AND', groups: [{ filters: [{ field: 'data.phone', operator: 'exists' }] }] },
        },
      ],
    };
    const s = await dynamicSegment(main.api, 'Deep tree', condition);
    expect(s.condition).toEqual(condition);
  });

  describe('slugs', () => {
    it('derives the slug from the name and suffixes -2, -3 when it is taken in the project', async () => {
      const first = await dynamicSegment(main.api, 'Trial users (EU)', planIs('trial'));
      const second = await dynamicSegment(main.api, 'Trial users (EU)', planIs('trial'));
      const third = await dynamicSegment(main.api, 'TRIAL users: EU!', planIs('trial'));
      expect([first.slug, second.slug, third.slug]).toEqual(['trial-users-eu', 'trial-users-eu-2', 'trial-users-eu-3']);

      // A name whose own slug looks like a suffixed one takes it, and the next duplicate skips it.
      const lookalike = await dynamicSegment(main.api, 'Trial users EU 4', planIs('trial'));
      expect(lookalike.slug).toBe('trial-users-eu-4');
      expect((await dynamicSegment(main.api, 'Trial users (EU)', planIs('trial'))).slug).toBe('trial-users-eu-5');

      // Slugs are unique per project only.
      expect((await dynamicSegment(other.api, 'Trial users (EU)', planIs('trial'))).slug).toBe('trial-users-eu');
    });

    it('gives concurrent creates with one name distinct slugs', async () => {
      const responses = await Promise.all(
        [1, 2, 3, 4].map(() => main.api.post('/segments', { name: 'Race day', type: 'STATIC' })),
      );
      for (const r of responses) expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(responses.map((r) => r.body.slug).sort()).toEqual(['race-day', 'race-day-2', 'race-day-3', 'race-day-4']);
    });

    it('makes a slug of lower-case ASCII letters and digits from accents and symbols', async () => {
      expect((await staticSegment(main.api, 'Café Crème & Co — 2024')).slug).toBe('cafe-creme-co-2024');
    });
  });

  describe('legacy 400 { error } for missing required fields', () => {
    it('answers it when name is missing', async () => {
      expectLegacy400(await main.api.post('/segments', { condition: planIs('pro') }), 'name');
      expectLegacy400(await main.api.post('/segments', { type: 'STATIC' }), 'name');
    });

    it('answers it when a dynamic segment has no condition, with type DYNAMIC or omitted', async () => {
      expectLegacy400(await main.api.post('/segments', { name: 'No condition' }), 'condition');
      expectLegacy400(await main.api.post('/segments', { name: 'No condition', type: 'DYNAMIC' }), 'condition');
    });

    it.each([
      ['a string', 'data.plan = pro'],
      ['an array', [planIs('pro')]],
      ['null', null],
      ['a number', 42],
    ])('answers it when a dynamic condition is %s', async (_label, condition) => {
      expectLegacy400(await main.api.post('/segments', { name: 'Bad condition', condition }), 'condition');
      expectLegacy400(
        await main.api.post('/segments', { name: 'Bad condition', type: 'DYNAMIC', condition }),
        'condition',
      );
    });

    it('answers it for an empty body', async () => {
      const res = await main.api.post('/segments', {});
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    });
  });

  describe('static segments', () => {
    it('creates a static segment with no condition', async () => {
      const s = await staticSegment(main.api, 'Hand-picked');
      expect(s).toMatchObject({ type: 'STATIC', condition: null, trackMembership: false, memberCount: 0 });
    });

    it.each([
      ['a string', 'data.plan = pro'],
      ['an object', planIs('pro')],
      ['an invalid tree', { logic: 'XOR', groups: [] }],
      ['an array', []],
    ])('ignores a condition that is %s', async (_label, condition) => {
      const s = await createSegment(main.api, { name: 'Static with condition', type: 'STATIC', condition });
      expect(s.type).toBe('STATIC');
      expect(s.condition).toBeNull();
      expect((await getSegment(main.api, s.id)).condition).toBeNull();
    });
  });

  describe('422 validation', () => {
    it('limits name to 100 and description to 500 characters', async () => {
      expect((await staticSegment(main.api, 'n'.repeat(100), { description: 'd'.repeat(500) })).name).toHaveLength(100);
      expectFieldError(await main.api.post('/segments', { name: 'n'.repeat(101), type: 'STATIC' }), 'name', 'too_big');
      expectFieldError(
        await main.api.post('/segments', { name: 'Long', type: 'STATIC', description: 'd'.repeat(501) }),
        'description',
        'too_big',
      );
    });

    it.each([
      ['type', { type: 'SMART', condition: planIs('pro') }, 'invalid_enum_value'],
      ['type', { type: 'static' }, 'invalid_enum_value'],
      ['name', { name: 42, type: 'STATIC' }, 'invalid_type'],
      ['trackMembership', { condition: planIs('pro'), trackMembership: 'yes' }, 'invalid_type'],
      ['description', { condition: planIs('pro'), description: 7 }, 'invalid_type'],
    ])('refuses an invalid %s (%j)', async (field, overrides, code) => {
      expectFieldError(await main.api.post('/segments', { name: 'Invalid', ...overrides }), field, code);
    });

    it.each<[string, unknown, string, string]>([
      [
        'an unknown operator',
        where({ field: 'data.plan', operator: 'like' as Filter['operator'], value: 'x' }),
        'condition.groups.0.filters.0.operator',
        'invalid_enum_value',
      ],
      [
        'an operator the field does not support',
        where({ field: 'subscribed', operator: 'contains', value: 'x' }),
        'condition.groups.0.filters.0.operator',
        'invalid_operator',
      ],
      [
        'a field without the data. prefix',
        where(equals('plan', 'pro')),
        'condition.groups.0.filters.0.field',
        'invalid_field',
      ],
      [
        'a missing value',
        where({ field: 'data.plan', operator: 'equals' }),
        'condition.groups.0.filters.0.value',
        'invalid_type',
      ],
      [
        'a missing unit',
        where({ field: 'createdAt', operator: 'within', value: 7 }),
        'condition.groups.0.filters.0.unit',
        'invalid_type',
      ],
      [
        'a non-positive window',
        where({ field: 'login', operator: 'triggeredWithin', value: 0, unit: 'days' }),
        'condition.groups.0.filters.0.value',
        'too_small',
      ],
      [
        'a segment id that is not a uuid',
        where({ field: 'segment', operator: 'memberOfSegment', value: 'vip' }),
        'condition.groups.0.filters.0.value',
        'invalid_string',
      ],
      ['empty groups', { logic: 'AND', groups: [] }, 'condition.groups', 'too_small'],
      [
        'an unknown logic',
        { logic: 'XOR', groups: [{ filters: [equals('data.plan', 'pro')] }] },
        'condition.logic',
        'invalid_enum_value',
      ],
      ['missing groups', { logic: 'AND' }, 'condition.groups', 'invalid_type'],
      [
        'a fault deep in a nested condition',
        {
          logic: 'AND',
          groups: [
            {
              filters: [],
              conditions: {
                logic: 'OR',
                groups: [{ filters: [equals('data.a', 1), { field: 'data.b', operator: 'equals' }] }],
              },
            },
          ],
        },
        'condition.groups.0.conditions.groups.0.filters.1.value',
        'invalid_type',
      ],
    ])('refuses a condition with %s', async (_label, condition, field, code) => {
      expectFieldError(await main.api.post('/segments', { name: 'Invalid tree', condition }), field, code);
    });

    it('refuses a memberOfSegment naming an unknown segment or another project’s segment with unknown_segment', async () => {
      const foreign = await staticSegment(other.api, 'Foreign list');
      for (const id of [UNKNOWN_ID, foreign.id]) {
        const err = expectFieldError(
          await main.api.post('/segments', { name: 'Unknown ref', condition: memberOf(id) }),
          'condition',
          'unknown_segment',
        );
        expect(err.message).toContain(id);
      }
      const nested: FilterCondition = {
        logic: 'OR',
        groups: [
          { filters: [equals('data.plan', 'pro')] },
          { filters: [], conditions: where({ field: 'segment', operator: 'notMemberOfSegment', value: UNKNOWN_ID }) },
        ],
      };
      expectFieldError(
        await main.api.post('/segments', { name: 'Unknown ref', condition: nested }),
        'condition',
        'unknown_segment',
      );
    });

    it('refuses segments that include each other with segment_cycle', async () => {
      const a = await dynamicSegment(main.api, 'Cycle A', planIs('a'));
      const b = await dynamicSegment(main.api, 'Cycle B', memberOf(a.id));
      const res = await main.api.patch(`/segments/${a.id}`, { condition: memberOf(b.id) });
      const err = expectFieldError(res, 'condition', 'segment_cycle');
      expect(err.message).toContain(a.id);
      expect(err.message).toContain(b.id);
      // A condition naming its own segment is the shortest loop.
      expectFieldError(
        await main.api.patch(`/segments/${b.id}`, { condition: memberOf(b.id) }),
        'condition',
        'segment_cycle',
      );
      // Nothing was saved.
      expect((await getSegment(main.api, a.id)).condition).toEqual(planIs('a'));
      expect((await getSegment(main.api, b.id)).condition).toEqual(memberOf(a.id));
    });
  });

  it('answers 401 without the secret key', async () => {
    const none = await main.api.request('POST', '/segments', { body: { name: 'x', type: 'STATIC' }, key: null });
    expectEnvelope(none, 401, 'INVALID_API_KEY');
    const publicKey = await main.api.request('POST', '/segments', {
      body: { name: 'x', type: 'STATIC' },
      key: main.publicKey,
    });
    expectEnvelope(publicKey, 401, 'INVALID_API_KEY');
  });
});

describe('GET /segments', () => {
  it('lists the project’s segments as a bare array, newest first', async () => {
    const p = await stack.server.project('segments-list');
    const created = [
      await staticSegment(p.api, 'First'),
      await dynamicSegment(p.api, 'Second', planIs('x')),
      await staticSegment(p.api, 'Third'),
    ];
    const res = await p.api.get('/segments');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((s: Segment) => s.id)).toEqual(created.map((s) => s.id).reverse());
    for (const s of res.body) expect(Object.keys(s).sort()).toEqual(SEGMENT_KEYS);
    expect(res.body[0]).toEqual(await getSegment(p.api, created[2]!.id));
  });

  it('answers an empty array for a project without segments', async () => {
    const p = await stack.server.project('segments-empty');
    const res = await p.api.get('/segments');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('never lists another project’s segments', async () => {
    const mine = await staticSegment(main.api, 'Only mine');
    const theirs = (await other.api.get('/segments')).body as Segment[];
    expect(theirs.map((s) => s.id)).not.toContain(mine.id);
    expect(theirs.every((s) => s.projectId === other.id)).toBe(true);
  });
});

describe('/segments/{id} routes: not found, isolation, bad ids', () => {
  type Call = [string, (api: Client, id: string) => Promise<ApiResponse>];
  const routes: Call[] = [
    ['GET /segments/{id}', (api, id) => api.get(`/segments/${id}`)],
    ['PATCH /segments/{id}', (api, id) => api.patch(`/segments/${id}`, { name: 'Renamed' })],
    ['DELETE /segments/{id}', (api, id) => api.delete(`/segments/${id}`)],
    ['GET /segments/{id}/contacts', (api, id) => api.get(`/segments/${id}/contacts`)],
    [
      'POST /segments/{id}/members',
      (api, id) => api.post(`/segments/${id}/members`, { emails: ['someone@segments.test'] }),
    ],
    [
      'DELETE /segments/{id}/members',
      (api, id) => api.request('DELETE', `/segments/${id}/members`, { body: { emails: ['someone@segments.test'] } }),
    ],
    ['POST /segments/{id}/compute', (api, id) => api.post(`/segments/${id}/compute`)],
    ['POST /segments/{id}/refresh', (api, id) => api.post(`/segments/${id}/refresh`)],
  ];

  it.each(routes)('%s answers 404 for an unknown id and for another project’s segment', async (_route, call) => {
    const foreignStatic = await staticSegment(other.api, 'Theirs', { trackMembership: true });
    const foreignTracked = await dynamicSegment(other.api, 'Theirs tracked', planIs('x'), { trackMembership: true });
    for (const id of [UNKNOWN_ID, foreignStatic.id, foreignTracked.id]) {
      const res = await call(main.api, id);
      expectEnvelope(res, 404, 'NOT_FOUND');
      expect(JSON.stringify(res.body)).not.toContain('Theirs');
    }
    // The other project's segments are untouched.
    expect(await getSegment(other.api, foreignStatic.id)).toMatchObject({ name: 'Theirs', memberCount: 0 });
    expect((await getSegment(other.api, foreignTracked.id)).name).toBe('Theirs tracked');
  });

  it.each(routes)('%s answers 422 for an id that is not a uuid', async (_route, call) => {
    expectFieldError(await call(main.api, 'not-a-uuid'), 'id', 'invalid_string');
  });
});

describe('GET /segments/{id}', () => {
  it('returns the segment with its cached memberCount', async () => {
    const p = await stack.server.project('segments-get');
    await createContact(p.api, uniqueEmail('get'), { plan: 'gold' });
    const s = await dynamicSegment(p.api, 'Gold', planIs('gold'));
    const got = await counted(p.api, s.id, 1);
    expect(Object.keys(got).sort()).toEqual(SEGMENT_KEYS);
    expect(got).toMatchObject({ id: s.id, name: 'Gold', slug: 'gold', condition: planIs('gold'), memberCount: 1 });
  });
});

describe('PATCH /segments/{id}', () => {
  it('updates name, description and trackMembership; the slug never changes', async () => {
    const s = await dynamicSegment(main.api, 'Before rename', planIs('x'), { description: 'old' });
    await nextMillisecond();
    const renamed = await patchSegment(main.api, s.id, {
      name: 'After rename',
      description: 'new',
      trackMembership: true,
    });
    expect(renamed).toMatchObject({
      id: s.id,
      name: 'After rename',
      description: 'new',
      trackMembership: true,
      slug: 'before-rename',
    });
    expect(Date.parse(renamed.updatedAt)).toBeGreaterThan(Date.parse(s.updatedAt));
    expect(renamed.createdAt).toBe(s.createdAt);
    expect(await getSegment(main.api, s.id)).toMatchObject({ name: 'After rename', slug: 'before-rename' });

    const cleared = await patchSegment(main.api, s.id, { description: null });
    expect(cleared).toMatchObject({ description: null, name: 'After rename', trackMembership: true });

    // The old name is free for a new segment; the renamed one keeps its slug.
    expect((await dynamicSegment(main.api, 'After rename', planIs('x'))).slug).toBe('after-rename');
    expect((await dynamicSegment(main.api, 'Before rename', planIs('x'))).slug).toBe('before-rename-2');
  });

  it('leaves fields that are not sent unchanged', async () => {
    const s = await dynamicSegment(main.api, 'Partial patch', planIs('x'), {
      description: 'kept',
      trackMembership: true,
    });
    const patched = await patchSegment(main.api, s.id, { name: 'Partial patch 2' });
    expect(patched).toMatchObject({
      description: 'kept',
      trackMembership: true,
      condition: planIs('x'),
      type: 'DYNAMIC',
    });
  });

  it('replaces a dynamic segment’s condition and recounts it in the background', async () => {
    const p = await stack.server.project('segments-patch-condition');
    for (const plan of ['pro', 'pro', 'free']) await createContact(p.api, uniqueEmail('recount'), { plan });
    const s = await dynamicSegment(p.api, 'Changing', planIs('pro'));
    await counted(p.api, s.id, 2);
    const patched = await patchSegment(p.api, s.id, { condition: planIs('free') });
    expect(patched.condition).toEqual(planIs('free'));
    await counted(p.api, s.id, 1);
    expect((await memberPage(p.api, s.id)).total).toBe(1);
  });

  it('refuses a condition on a static segment with 422', async () => {
    const s = await staticSegment(main.api, 'Static patch');
    expectFieldError(await main.api.patch(`/segments/${s.id}`, { condition: planIs('pro') }), 'condition');
    expect((await getSegment(main.api, s.id)).condition).toBeNull();
    // Other fields of a static segment can change.
    expect(await patchSegment(main.api, s.id, { name: 'Static renamed', trackMembership: true })).toMatchObject({
      name: 'Static renamed',
      trackMembership: true,
      type: 'STATIC',
      condition: null,
    });
  });

  it('never changes the type', async () => {
    const s = await dynamicSegment(main.api, 'Typed', planIs('x'));
    const res = await main.api.patch(`/segments/${s.id}`, { type: 'STATIC' });
    expect([200, 422]).toContain(res.status);
    expect(await getSegment(main.api, s.id)).toMatchObject({ type: 'DYNAMIC', condition: planIs('x') });
  });

  it('keeps a static segment’s members when its tracking is turned off', async () => {
    const s = await staticSegment(main.api, 'Static untracking', { trackMembership: true });
    const email = uniqueEmail('untrack');
    await addMembers(main.api, s.id, { emails: [email], createMissing: true });
    await patchSegment(main.api, s.id, { trackMembership: false });
    expect(await memberEmails(main.api, s.id)).toEqual([email]);
    expect((await getSegment(main.api, s.id)).memberCount).toBe(1);
    // Untracked now: removing emits no exit.
    await removeMembers(main.api, s.id, [email]);
    expect(await eventsNamed(main.api, `segment.${s.slug}.exit`)).toEqual([]);
    expect(await eventsNamed(main.api, `segment.${s.slug}.entry`)).toHaveLength(1);
  });

  it('refuses invalid values with 422 and changes nothing', async () => {
    const s = await dynamicSegment(main.api, 'Patch validation', planIs('x'));
    expectFieldError(await main.api.patch(`/segments/${s.id}`, { name: 'n'.repeat(101) }), 'name', 'too_big');
    expectFieldError(
      await main.api.patch(`/segments/${s.id}`, { description: 'd'.repeat(501) }),
      'description',
      'too_big',
    );
    expectFieldError(
      await main.api.patch(`/segments/${s.id}`, { condition: { logic: 'AND', groups: [] } }),
      'condition.groups',
      'too_small',
    );
    expectFieldError(
      await main.api.patch(`/segments/${s.id}`, { condition: where({ field: 'data.plan', operator: 'equals' }) }),
      'condition.groups.0.filters.0.value',
    );
    expectFieldError(
      await main.api.patch(`/segments/${s.id}`, { condition: memberOf(UNKNOWN_ID) }),
      'condition',
      'unknown_segment',
    );
    expectFieldError(
      await main.api.patch(`/segments/${s.id}`, { trackMembership: 'yes' }),
      'trackMembership',
      'invalid_type',
    );
    const after = await getSegment(main.api, s.id);
    expect(after).toMatchObject({
      name: 'Patch validation',
      description: null,
      condition: planIs('x'),
      trackMembership: false,
    });
    expect(after.updatedAt).toBe(s.updatedAt);
  });
});

describe('DELETE /segments/{id}', () => {
  it('deletes: 204 with no body, then 404', async () => {
    const s = await dynamicSegment(main.api, 'Doomed', planIs('x'));
    const res = await main.api.delete(`/segments/${s.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectEnvelope(await main.api.get(`/segments/${s.id}`), 404, 'NOT_FOUND');
    expectEnvelope(await main.api.delete(`/segments/${s.id}`), 404, 'NOT_FOUND');
    expect(((await main.api.get('/segments')).body as Segment[]).map((x) => x.id)).not.toContain(s.id);
  });

  it('refuses with 409 SEGMENT_IN_USE while another segment’s condition names it', async () => {
    const base = await staticSegment(main.api, 'Base list');
    const user = await dynamicSegment(main.api, 'Uses base', {
      logic: 'AND',
      // The id in upper case names the same segment.
      groups: [
        {
          filters: [],
          conditions: where({ field: 'segment', operator: 'notMemberOfSegment', value: base.id.toUpperCase() }),
        },
      ],
    });
    const res = await main.api.delete(`/segments/${base.id}`);
    expectEnvelope(res, 409, 'SEGMENT_IN_USE');
    expect(res.body.error.details.segments).toEqual([{ id: user.id, name: 'Uses base' }]);
    expect((await getSegment(main.api, base.id)).id).toBe(base.id);

    // Once the user no longer names it, it can go.
    await patchSegment(main.api, user.id, { condition: planIs('x') });
    expect((await main.api.delete(`/segments/${base.id}`)).status).toBe(204);
  });

  describe('segments of campaigns', () => {
    let p: TestProject;
    const DOMAIN = 'campaigns.segments.test';
    beforeAll(async () => {
      p = await stack.server.project('segments-campaigns');
      await verifiedDomain(p.api, stack.dns, DOMAIN);
    });

    async function campaignFor(segmentId: string): Promise<{ id: string; name: string }> {
      const res = await p.api.post('/campaigns', {
        name: `Campaign ${++seq}`,
        subject: 'News',
        body: '<p>Hello</p>',
        from: `news@${DOMAIN}`,
        audienceType: 'SEGMENT',
        segmentId,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data;
    }

    it('refuses with 409 SEGMENT_IN_USE while a scheduled campaign targets it, and allows it once cancelled', async () => {
      const s = await staticSegment(p.api, 'Campaign audience');
      const campaign = await campaignFor(s.id);
      const scheduledFor = new Date(Date.now() + 7 * 86_400_000).toISOString();
      const sent = await p.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body.data.status).toBe('SCHEDULED');

      const res = await p.api.delete(`/segments/${s.id}`);
      expectEnvelope(res, 409, 'SEGMENT_IN_USE');
      expect(res.body.error.details.campaigns).toEqual([{ id: campaign.id, name: campaign.name }]);
      expect((await getSegment(p.api, s.id)).id).toBe(s.id);

      expect((await p.api.post(`/campaigns/${campaign.id}/cancel`)).status).toBe(200);
      expect((await p.api.delete(`/segments/${s.id}`)).status).toBe(204);
    });

    it('refuses with 409 SEGMENT_IN_USE while a scheduled filtered campaign names it in its condition', async () => {
      const s = await staticSegment(p.api, 'Filtered audience');
      const created = await p.api.post('/campaigns', {
        name: 'Filtered campaign',
        subject: 'News',
        body: '<p>Hello</p>',
        from: `news@${DOMAIN}`,
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [{ filters: [equals('data.plan', 'pro')], conditions: memberOf(s.id) }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const campaign = created.body.data;
      const scheduledFor = new Date(Date.now() + 7 * 86_400_000).toISOString();
      expect((await p.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor })).body.data.status).toBe('SCHEDULED');

      const res = await p.api.delete(`/segments/${s.id}`);
      expectEnvelope(res, 409, 'SEGMENT_IN_USE');
      expect(res.body.error.details.campaigns).toEqual([{ id: campaign.id, name: 'Filtered campaign' }]);
      expect((await p.api.delete(`/campaigns/${campaign.id}`)).status).toBe(204);
      expect((await p.api.delete(`/segments/${s.id}`)).status).toBe(204);
    });

    it('deletes a segment a draft campaign targets; the draft loses its segmentId', async () => {
      const s = await staticSegment(p.api, 'Draft audience');
      const campaign = await campaignFor(s.id);
      expect((await p.api.delete(`/segments/${s.id}`)).status).toBe(204);
      const after = await p.api.get(`/campaigns/${campaign.id}`);
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({ status: 'DRAFT', audienceType: 'SEGMENT', segmentId: null });
    });
  });
});

describe('memberCount and POST /segments/{id}/refresh', () => {
  let p: TestProject;
  beforeAll(async () => {
    p = await stack.server.project('segments-refresh');
  });

  it('is filled by the background job shortly after a dynamic segment is created', async () => {
    for (const plan of ['gold', 'gold', 'gold', 'silver']) await createContact(p.api, uniqueEmail('count'), { plan });
    const before = Date.now();
    const s = await dynamicSegment(p.api, 'Gold members', planIs('gold'));
    expect(s.memberCount).toBe(0);
    expect(s.memberCountUpdatedAt).toBeNull();
    const done = await counted(p.api, s.id, 3);
    expect(Date.parse(done.memberCountUpdatedAt!)).toBeGreaterThanOrEqual(before);
  });

  it('recounts on refresh after contacts change, and only then', async () => {
    const contacts = [];
    for (let i = 0; i < 2; i++) contacts.push(await createContact(p.api, uniqueEmail('refresh'), { plan: 'bronze' }));
    const s = await dynamicSegment(p.api, 'Bronze members', planIs('bronze'));
    const first = await counted(p.api, s.id, 2);

    await setPlan(p.api, contacts[0]!.id, 'iron');
    for (let i = 0; i < 3; i++) await createContact(p.api, uniqueEmail('refresh'), { plan: 'bronze' });
    // Reads never count: the cached figure stays until the next count.
    expect(await getSegment(p.api, s.id)).toMatchObject({
      memberCount: 2,
      memberCountUpdatedAt: first.memberCountUpdatedAt,
    });

    await nextMillisecond();
    const before = Date.now();
    const refreshed = await refresh(p.api, s.id);
    expect(Object.keys(refreshed).sort()).toEqual(SEGMENT_KEYS);
    expect(refreshed).toMatchObject({
      id: s.id,
      name: 'Bronze members',
      slug: 'bronze-members',
      memberCount: 4,
      condition: planIs('bronze'),
    });
    expect(Date.parse(refreshed.memberCountUpdatedAt!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(refreshed.memberCountUpdatedAt!)).toBeGreaterThan(Date.parse(first.memberCountUpdatedAt!));
    expect(await getSegment(p.api, s.id)).toEqual(refreshed);
  });

  it('counts a static segment’s listed members', async () => {
    const s = await staticSegment(p.api, 'Refresh static');
    const emails = [uniqueEmail('rs'), uniqueEmail('rs')];
    await addMembers(p.api, s.id, { emails, createMissing: true });
    const refreshed = await refresh(p.api, s.id);
    expect(refreshed.memberCount).toBe(2);
    expect(refreshed.memberCountUpdatedAt).not.toBeNull();
  });

  it('writes no events and no member list for a tracked segment; compute still sees every contact as new', async () => {
    const q = await stack.server.project('segments-refresh-tracked');
    for (let i = 0; i < 3; i++) await createContact(q.api, uniqueEmail('rt'), { plan: 'tracked' });
    const t = await dynamicSegment(q.api, 'Tracked refresh', planIs('tracked'), { trackMembership: true });
    const reader = await dynamicSegment(q.api, 'Reads tracked', memberOf(t.id));

    expect((await refresh(q.api, t.id)).memberCount).toBe(3);
    expect(await membershipEvents(q.api, t.slug)).toEqual({ entry: [], exit: [] });
    // The member list is still empty: a memberOfSegment of it matches nobody.
    expect((await memberPage(q.api, reader.id)).total).toBe(0);
    expect((await refresh(q.api, reader.id)).memberCount).toBe(0);

    expect(await compute(q.api, t.id)).toEqual({ segmentId: t.id, entered: 3, exited: 0, memberCount: 3 });
    expect((await membershipEvents(q.api, t.slug)).entry).toHaveLength(3);
  });
});

describe('GET /segments/{id}/contacts', () => {
  let p: TestProject;
  beforeAll(async () => {
    p = await stack.server.project('segments-contacts');
  });

  it('pages a dynamic segment’s matching contacts, newest contacts first, in the Contact shape', async () => {
    const made: Contact[] = [];
    for (let i = 0; i < 5; i++)
      made.push(await createContact(p.api, uniqueEmail('page'), { plan: 'paged', n: i }, i % 2 === 0));
    await createContact(p.api, uniqueEmail('page'), { plan: 'other' });
    const s = await dynamicSegment(p.api, 'Paged', planIs('paged'));
    const newestFirst = made.map((c) => c.id).reverse();

    const first = await memberPage(p.api, s.id, '?page=1&pageSize=2');
    expect(Object.keys(first).sort()).toEqual(['data', 'page', 'pageSize', 'total', 'totalPages']);
    expect(first).toMatchObject({ total: 5, page: 1, pageSize: 2, totalPages: 3 });
    const second = await memberPage(p.api, s.id, '?page=2&pageSize=2');
    const third = await memberPage(p.api, s.id, '?page=3&pageSize=2');
    expect(third.data).toHaveLength(1);
    expect([...first.data, ...second.data, ...third.data].map((c) => c.id)).toEqual(newestFirst);

    for (const c of first.data) expect(Object.keys(c).sort()).toEqual(CONTACT_KEYS);
    const oldest = third.data[0]!;
    expect(oldest).toEqual(made[0]);
    expect((await p.api.get(`/contacts/${oldest.id}`)).body).toEqual(oldest);

    expect(await memberPage(p.api, s.id, '?page=4&pageSize=2')).toEqual({
      data: [],
      total: 5,
      page: 4,
      pageSize: 2,
      totalPages: 3,
    });
    expect(await memberPage(p.api, s.id)).toMatchObject({ page: 1, pageSize: 20, total: 5, totalPages: 1 });
  });

  it('is live for a dynamic segment: contacts appear and leave without any refresh', async () => {
    const first = await createContact(p.api, uniqueEmail('live'), { plan: 'live' });
    const s = await dynamicSegment(p.api, 'Live', planIs('live'));
    await counted(p.api, s.id, 1);
    const second = await createContact(p.api, uniqueEmail('live'), { plan: 'live' });
    expect((await memberPage(p.api, s.id)).data.map((c) => c.id)).toEqual([second.id, first.id]);
    await setPlan(p.api, first.id, 'dead');
    const page = await memberPage(p.api, s.id);
    expect(page.data.map((c) => c.id)).toEqual([second.id]);
    expect(page.total).toBe(1);
    // The cached count was not touched by the reads.
    expect((await getSegment(p.api, s.id)).memberCount).toBe(1);
  });

  it('is live for a tracked dynamic segment too, whatever was last computed', async () => {
    const s = await dynamicSegment(p.api, 'Live tracked', planIs('live-tracked'), { trackMembership: true });
    const a = await createContact(p.api, uniqueEmail('lt'), { plan: 'live-tracked' });
    expect((await compute(p.api, s.id)).memberCount).toBe(1);
    const b = await createContact(p.api, uniqueEmail('lt'), { plan: 'live-tracked' });
    expect((await memberPage(p.api, s.id)).data.map((c) => c.id)).toEqual([b.id, a.id]);
  });

  it('lists a static segment’s members most recently added first', async () => {
    // Created c, b, a (newest contact a); added a, b, c (most recently added c).
    const c = await createContact(p.api, uniqueEmail('c'));
    const b = await createContact(p.api, uniqueEmail('b'));
    const a = await createContact(p.api, uniqueEmail('a'));
    const s = await staticSegment(p.api, 'Ordered');
    for (const contact of [a, b, c]) await addMembers(p.api, s.id, { emails: [contact.email] });
    const page = await memberPage(p.api, s.id);
    expect(page.data.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect(page).toMatchObject({ total: 3, totalPages: 1 });
    expect(page.data[0]).toEqual(c);
  });

  it('clamps pageSize to 100 and refuses pageSize 0 and page 0', async () => {
    const s = await staticSegment(p.api, 'Big list');
    const emails = Array.from({ length: 101 }, () => uniqueEmail('big'));
    expect((await addMembers(p.api, s.id, { emails, createMissing: true })).added).toBe(101);
    const big = await memberPage(p.api, s.id, '?pageSize=500');
    expect(big.data).toHaveLength(100);
    expect(big).toMatchObject({ total: 101, page: 1, pageSize: 100, totalPages: 2 });
    expect((await memberPage(p.api, s.id, '?pageSize=500&page=2')).data).toHaveLength(1);

    expectFieldError(await p.api.get(`/segments/${s.id}/contacts?pageSize=0`), 'pageSize', 'too_small');
    expectFieldError(await p.api.get(`/segments/${s.id}/contacts?page=0`), 'page', 'too_small');
  });
});

describe('GET /contacts/{id}/segments', () => {
  it('names the dynamic segments whose condition matches the contact now and the static ones listing it', async () => {
    const project = await stack.server.project('segments-of-contact');
    const api = project.api;
    const ada = await createContact(api, uniqueEmail('ada'), { plan: 'pro' });
    const bob = await createContact(api, uniqueEmail('bob'), { plan: 'free' });
    const pro = await dynamicSegment(api, 'Pro plans', planIs('pro'));
    await dynamicSegment(api, 'Free plans', planIs('free'));
    const vip = await staticSegment(api, 'VIP');
    await addMembers(api, vip.id, { emails: [ada.email] });
    const inPro = await dynamicSegment(api, 'Members of Pro', memberOf(pro.id));

    const names = async (id: string) =>
      (await expectBody(api.get(`/contacts/${id}/segments`))).data.map((s: Segment) => s.name).sort();
    expect((await expectBody(api.get(`/contacts/${ada.id}/segments`))).data).toContainEqual({
      id: vip.id,
      name: 'VIP',
      slug: vip.slug,
      type: 'STATIC',
    });
    expect(await names(ada.id)).toEqual(['Members of Pro', 'Pro plans', 'VIP']);
    expect(await names(bob.id)).toEqual(['Free plans']);

    // A change of data moves the contact at once; a deleted segment is gone.
    await setPlan(api, bob.id, 'pro');
    expect(await names(bob.id)).toEqual(['Members of Pro', 'Pro plans']);
    expect((await api.delete(`/segments/${inPro.id}`)).status).toBe(204);
    expect(await names(bob.id)).toEqual(['Pro plans']);
  });

  it('answers 404 for a contact of another project and 422 for a malformed id', async () => {
    const contact = await createContact(main.api, uniqueEmail('foreign'));
    expectEnvelope(await other.api.get(`/contacts/${contact.id}/segments`), 404, 'NOT_FOUND');
    expectFieldError(await main.api.get('/contacts/not-a-uuid/segments'), 'id', 'invalid_string');
  });
});

describe('POST /segments/estimate', () => {
  it('counts exactly in a small project, without saving anything', async () => {
    const project = await stack.server.project('estimate-small');
    for (const plan of ['pro', 'pro', 'free']) await createContact(project.api, uniqueEmail('estimate'), { plan });
    const answer = await expectBody(project.api.post('/segments/estimate', { condition: planIs('pro') }));
    expect(answer).toEqual({
      estimate: 2,
      margin: 0,
      subscribed: 2,
      subscribedMargin: 0,
      exact: true,
      contacts: 3,
      sampled: 3,
    });
    expect(await expectBody(project.api.get('/segments'))).toEqual([]);
  });

  it('estimates from a sample of a large table, within its margin, saying so', async () => {
    const project = await stack.server.project('estimate-large');
    const CONTACTS = 60_000;
    // A quarter on the pro plan, spread evenly over the table's pages; every other contact unsubscribed.
    await run(
      stack.server.service.ctx.db,
      sql`insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
        select ${project.id}::uuid, 'e' || g || '@estimate.test', g % 2 = 0,
          jsonb_build_object('plan', case when g % 4 = 0 then 'pro' else 'free' end), now(), now()
        from generate_series(1, ${CONTACTS}) g`,
    );
    await run(stack.server.service.ctx.db, sql`analyze contacts`);
    const answer = await expectBody(project.api.post('/segments/estimate', { condition: planIs('pro') }));
    expect(answer.exact).toBe(false);
    expect(answer.sampled).toBeGreaterThan(2_000);
    expect(answer.sampled).toBeLessThan(CONTACTS);
    expect(answer.margin).toBeGreaterThan(0);
    expect(Math.abs(answer.estimate - CONTACTS / 4)).toBeLessThanOrEqual(Math.max(answer.margin * 2, CONTACTS / 100));
    expect(Math.abs(answer.contacts - CONTACTS)).toBeLessThan(CONTACTS / 10);
    // Every pro contact (g % 4 = 0) is subscribed, so the subscribed share is the same sample's.
    expect(answer.subscribed).toBe(answer.estimate);
    expect(answer.subscribedMargin).toBe(answer.margin);
    const free = await expectBody(project.api.post('/segments/estimate', { condition: planIs('free') }));
    // Free contacts: g % 4 in 1, 2, 3, of which only g % 4 = 2 is subscribed, a third.
    expect(free.subscribed).toBeLessThan(free.estimate);
    expect(Math.abs(free.subscribed - CONTACTS / 4)).toBeLessThanOrEqual(
      Math.max(free.subscribedMargin * 2, CONTACTS / 100),
    );
  });

  it('splits the count by subscription: unsubscribed and snoozed contacts match but are not subscribed', async () => {
    const project = await stack.server.project('estimate-split');
    await createContact(project.api, uniqueEmail('split'), { plan: 'pro' });
    await createContact(project.api, uniqueEmail('split'), { plan: 'pro' }, false);
    const snoozed = await createContact(project.api, uniqueEmail('split'), { plan: 'pro' });
    const until = new Date(Date.now() + 86_400_000).toISOString();
    expect((await project.api.patch(`/contacts/${snoozed.id}`, { snoozedUntil: until })).status).toBe(200);
    const answer = await expectBody(project.api.post('/segments/estimate', { condition: planIs('pro') }));
    expect(answer).toMatchObject({ estimate: 3, subscribed: 1, exact: true });
  });

  it('refuses a condition the filter engine refuses, as a segment would be', async () => {
    const res = await main.api.post('/segments/estimate', {
      condition: where({ field: 'segment', operator: 'memberOfSegment', value: UNKNOWN_ID }),
    });
    expectFieldError(res, 'condition', 'unknown_segment');
  });
});

describe('POST /segments/count', () => {
  let p: TestProject;
  const DOMAIN = 'count.segments.test';
  /** pro AND (seats > 2 OR city contains "on"): an OR group inside an AND, as the builder nests it. */
  const nested: FilterCondition = {
    logic: 'AND',
    groups: [
      {
        filters: [equals('data.plan', 'pro')],
        conditions: {
          logic: 'OR',
          groups: [
            { filters: [{ field: 'data.seats', operator: 'greaterThan', value: 2 }] },
            { filters: [{ field: 'data.city', operator: 'contains', value: 'on' }] },
          ],
        },
      },
    ],
  };
  const matching: string[] = [];
  beforeAll(async () => {
    p = await stack.server.project('segments-count');
    await verifiedDomain(p.api, stack.dns, DOMAIN);
    const people: [Record<string, unknown>, boolean, boolean][] = [
      // data, subscribed, matches
      [{ plan: 'pro', seats: 5, city: 'Paris' }, true, true],
      [{ plan: 'pro', seats: 1, city: 'London' }, true, true],
      [{ plan: 'pro', seats: 9, city: 'Boston' }, false, true],
      [{ plan: 'pro', seats: 1, city: 'Paris' }, true, false],
      [{ plan: 'free', seats: 9, city: 'London' }, true, false],
      [{ plan: 'pro', seats: 3 }, false, true],
    ];
    for (const [data, subscribed, matches] of people) {
      const c = await createContact(p.api, uniqueEmail('count'), data, subscribed);
      if (matches) matching.push(c.email);
    }
  });

  it('counts exactly, split by subscription, with the newest matching contacts when asked', async () => {
    expect(await expectBody(p.api.post('/segments/count', { condition: nested }))).toEqual({
      total: 4,
      subscribed: 2,
      contacts: [],
    });
    const previewed = await expectBody(p.api.post('/segments/count', { condition: nested, preview: 3 }));
    expect(previewed.total).toBe(4);
    expect(previewed.contacts.map((c: Contact) => c.email)).toEqual(matching.slice(-3).reverse());
    expect(Object.keys(previewed.contacts[0]).sort()).toEqual(CONTACT_KEYS);
    // The sampled estimate of a small project is the same exact count.
    expect(await expectBody(p.api.post('/segments/estimate', { condition: nested }))).toMatchObject({
      estimate: 4,
      subscribed: 2,
      exact: true,
    });
  });

  it('agrees with the recipients of a MARKETING and a TRANSACTIONAL campaign sent to the same tree', async () => {
    const counted = await expectBody(p.api.post('/segments/count', { condition: nested }));
    for (const [type, expected] of [
      ['MARKETING', counted.subscribed],
      ['TRANSACTIONAL', counted.total],
    ] as const) {
      const created = await p.api.post('/campaigns', {
        name: `Counted ${type}`,
        subject: 'News',
        body: '<p>Hello</p>',
        from: `news@${DOMAIN}`,
        type,
        audienceType: 'FILTERED',
        audienceCondition: nested,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.data.id;
      expect((await p.api.post(`/campaigns/${id}/send`)).status).toBe(200);
      const sent = await eventually(async () => {
        const c = await expectBody(p.api.get(`/campaigns/${id}`));
        return c.status === 'SENT' ? c : undefined;
      });
      expect(sent.totalRecipients, type).toBe(expected);
    }
  });

  it('refuses what a segment would refuse, and a preview above 50, with 422 field errors', async () => {
    expectFieldError(
      await p.api.post('/segments/count', {
        condition: where({ field: 'segment', operator: 'memberOfSegment', value: UNKNOWN_ID }),
      }),
      'condition',
      'unknown_segment',
    );
    expectFieldError(
      await p.api.post('/segments/count', { condition: where({ field: 'data.x', operator: 'within', value: 0 }) }),
      'condition.groups.0.filters.0.value',
      'too_small',
    );
    expectFieldError(await p.api.post('/segments/count', { condition: nested, preview: 51 }), 'preview', 'too_big');
    expectFieldError(await p.api.post('/segments/count', {}), 'condition', 'invalid_type');
  });

  it('is documented in the OpenAPI document with the estimate’s subscribed figures', async () => {
    const doc = await (await fetch(`${stack.server.url}/openapi.json`)).json();
    const count = doc.paths['/segments/count'].post;
    expect(Object.keys(count.requestBody.content['application/json'].schema.properties).sort()).toEqual([
      'condition',
      'preview',
    ]);
    expect(Object.keys(count.responses['200'].content['application/json'].schema.properties).sort()).toEqual([
      'contacts',
      'subscribed',
      'total',
    ]);
    const estimate = doc.paths['/segments/estimate'].post.responses['200'].content['application/json'].schema;
    expect(Object.keys(estimate.properties)).toEqual(expect.arrayContaining(['subscribed', 'subscribedMargin']));
  });

  it('counts only the project’s own contacts', async () => {
    expect(await expectBody(other.api.post('/segments/count', { condition: nested }))).toMatchObject({
      total: 0,
      subscribed: 0,
    });
  });
});

describe('static members: POST and DELETE /segments/{id}/members', () => {
  let p: TestProject;
  beforeAll(async () => {
    p = await stack.server.project('segments-members');
  });

  it('adds existing contacts, reports unknown emails and counts duplicates once', async () => {
    const s = await staticSegment(p.api, 'Members');
    const one = await createContact(p.api, uniqueEmail('one'));
    const two = await createContact(p.api, uniqueEmail('two'));
    const unknown = uniqueEmail('unknown');

    const res = await addMembers(p.api, s.id, {
      emails: [one.email, one.email.toUpperCase(), ` ${one.email} `, unknown],
    });
    expect(res).toEqual({
      segmentId: s.id,
      added: 1,
      alreadyMembers: 0,
      created: 0,
      notFound: [unknown],
      memberCount: 1,
    });
    expect(await findContact(p.api, unknown)).toBeUndefined();
    expect((await getSegment(p.api, s.id)).memberCount).toBe(1);

    const again = await addMembers(p.api, s.id, { emails: [one.email, two.email] });
    expect(again).toEqual({ segmentId: s.id, added: 1, alreadyMembers: 1, created: 0, notFound: [], memberCount: 2 });
    expect((await getSegment(p.api, s.id)).memberCount).toBe(2);
    expect((await memberEmails(p.api, s.id)).sort()).toEqual([one.email, two.email].sort());
  });

  it('knows only the project’s own contacts, and creates missing ones in the project', async () => {
    const s = await staticSegment(p.api, 'Own contacts');
    const theirs = await createContact(other.api, uniqueEmail('theirs'), { owner: 'other' }, false);
    expect(await addMembers(p.api, s.id, { emails: [theirs.email] })).toMatchObject({
      added: 0,
      notFound: [theirs.email],
      memberCount: 0,
    });
    expect(await addMembers(p.api, s.id, { emails: [theirs.email], createMissing: true })).toMatchObject({
      added: 1,
      created: 1,
    });
    const mine = (await findContact(p.api, theirs.email))!;
    expect(mine.id).not.toBe(theirs.id);
    expect(mine).toMatchObject({ subscribed: true, data: {} });
    expect(await findContact(other.api, theirs.email)).toMatchObject({
      id: theirs.id,
      subscribed: false,
      data: { owner: 'other' },
    });
  });

  it('creates missing contacts with createMissing; subscribed applies to the created ones only', async () => {
    const s = await staticSegment(p.api, 'Create missing');
    const subscribedBefore = await createContact(p.api, uniqueEmail('sub'), { keep: 1 }, true);
    const unsubscribedBefore = await createContact(p.api, uniqueEmail('unsub'), {}, false);
    const newOff = uniqueEmail('new-off');
    const newOn = uniqueEmail('new-on');
    const newDefault = uniqueEmail('new-default');

    const off = await addMembers(p.api, s.id, {
      emails: [subscribedBefore.email, newOff],
      createMissing: true,
      subscribed: false,
    });
    expect(off).toEqual({ segmentId: s.id, added: 2, alreadyMembers: 0, created: 1, notFound: [], memberCount: 2 });
    expect(await findContact(p.api, newOff)).toMatchObject({ email: newOff, subscribed: false, data: {} });
    expect(await findContact(p.api, subscribedBefore.email)).toMatchObject({
      id: subscribedBefore.id,
      subscribed: true,
      data: { keep: 1 },
    });

    const on = await addMembers(p.api, s.id, {
      emails: [unsubscribedBefore.email, newOn, newOff],
      createMissing: true,
      subscribed: true,
    });
    expect(on).toEqual({ segmentId: s.id, added: 2, alreadyMembers: 1, created: 1, notFound: [], memberCount: 4 });
    expect(await findContact(p.api, newOn)).toMatchObject({ subscribed: true });
    expect(await findContact(p.api, unsubscribedBefore.email)).toMatchObject({
      id: unsubscribedBefore.id,
      subscribed: false,
    });
    // newOff existed by then, so subscribed: true did not touch it.
    expect(await findContact(p.api, newOff)).toMatchObject({ subscribed: false });

    const byDefault = await addMembers(p.api, s.id, { emails: [newDefault, newDefault], createMissing: true });
    expect(byDefault).toMatchObject({ added: 1, created: 1, alreadyMembers: 0, memberCount: 5 });
    expect(await findContact(p.api, newDefault)).toMatchObject({ subscribed: true });

    expect((await memberEmails(p.api, s.id)).sort()).toEqual(
      [subscribedBefore.email, unsubscribedBefore.email, newOff, newOn, newDefault].sort(),
    );
    expect((await getSegment(p.api, s.id)).memberCount).toBe(5);
  });

  it('removes members, reports emails that were not members, and adjusts memberCount at once', async () => {
    const s = await staticSegment(p.api, 'Removal');
    const [a, b, c] = [uniqueEmail('ra'), uniqueEmail('rb'), uniqueEmail('rc')];
    await addMembers(p.api, s.id, { emails: [a, b, c], createMissing: true });
    const outsider = await createContact(p.api, uniqueEmail('outsider'));
    const unknown = uniqueEmail('nobody');

    const res = await removeMembers(p.api, s.id, [a, b.toUpperCase(), outsider.email, unknown, a]);
    expect(res.segmentId).toBe(s.id);
    expect(res.removed).toBe(2);
    expect(res.notMembers.sort()).toEqual([outsider.email, unknown].sort());
    expect(res.memberCount).toBe(1);
    expect((await getSegment(p.api, s.id)).memberCount).toBe(1);
    expect(await memberEmails(p.api, s.id)).toEqual([c]);

    // Removing is not deleting: the contacts still exist.
    expect(await findContact(p.api, a)).toBeDefined();
    expect(await removeMembers(p.api, s.id, [a])).toEqual({
      segmentId: s.id,
      removed: 0,
      notMembers: [a],
      memberCount: 1,
    });
  });

  it('refuses both on a dynamic segment with 400 SEGMENT_NOT_STATIC', async () => {
    const s = await dynamicSegment(p.api, 'Not static', planIs('x'));
    const contact = await createContact(p.api, uniqueEmail('ns'));
    const add = await p.api.post(`/segments/${s.id}/members`, { emails: [contact.email] });
    expectEnvelope(add, 400, 'SEGMENT_NOT_STATIC');
    const remove = await p.api.request('DELETE', `/segments/${s.id}/members`, { body: { emails: [contact.email] } });
    expectEnvelope(remove, 400, 'SEGMENT_NOT_STATIC');
    const created = await p.api.post(`/segments/${s.id}/members`, {
      emails: [uniqueEmail('ns-new')],
      createMissing: true,
    });
    expectEnvelope(created, 400, 'SEGMENT_NOT_STATIC');
    expect((await p.api.get(`/contacts?search=ns-new`)).body.data).toEqual([]);
  });

  it('takes 1 to 1,000 valid emails, else 422', async () => {
    const s = await staticSegment(p.api, 'Limits');
    const emails = Array.from({ length: 1000 }, (_, i) => `limit-${i}@segments.test`);
    expect(await addMembers(p.api, s.id, { emails })).toMatchObject({ added: 0, notFound: { length: 1000 } });

    const tooMany = [...emails, 'one-more@segments.test'];
    expectFieldError(await p.api.post(`/segments/${s.id}/members`, { emails: tooMany }), 'emails', 'too_big');
    expectFieldError(
      await p.api.request('DELETE', `/segments/${s.id}/members`, { body: { emails: tooMany } }),
      'emails',
      'too_big',
    );
    expectFieldError(await p.api.post(`/segments/${s.id}/members`, { emails: [] }), 'emails', 'too_small');
    expectFieldError(
      await p.api.post(`/segments/${s.id}/members`, { emails: ['ok@segments.test', 'not-an-email'] }),
      'emails.1',
      'invalid_string',
    );
    expectFieldError(
      await p.api.request('DELETE', `/segments/${s.id}/members`, { body: { emails: ['nope'] } }),
      'emails.0',
      'invalid_string',
    );
    expectFieldError(await p.api.post(`/segments/${s.id}/members`, {}), 'emails', 'invalid_type');
    expectFieldError(
      await p.api.post(`/segments/${s.id}/members`, { emails: ['a@segments.test'], createMissing: 'yes' }),
      'createMissing',
      'invalid_type',
    );
    // Nothing was created by the refused requests.
    expect(await findContact(p.api, 'ok@segments.test')).toBeUndefined();
    expect((await getSegment(p.api, s.id)).memberCount).toBe(0);
  });

  it('emits segment.<slug>.entry and .exit for exactly the contacts added and removed when tracked', async () => {
    const s = await staticSegment(p.api, 'VIP list', { trackMembership: true });
    expect(s.slug).toBe('vip-list');
    const a = await createContact(p.api, uniqueEmail('vip-a'));
    const b = await createContact(p.api, uniqueEmail('vip-b'));
    const cEmail = uniqueEmail('vip-c');

    await addMembers(p.api, s.id, { emails: [a.email, b.email] });
    let events = await membershipEvents(p.api, 'vip-list');
    expect(events).toEqual({ entry: [a.id, b.id].sort(), exit: [] });
    const [entry] = await eventsNamed(p.api, 'segment.vip-list.entry');
    expect(entry!.data).toEqual({ segmentId: s.id });

    // a is already a member: only the newly created c enters.
    const added = await addMembers(p.api, s.id, { emails: [a.email, cEmail], createMissing: true });
    expect(added).toMatchObject({ added: 1, alreadyMembers: 1, created: 1 });
    const c = (await findContact(p.api, cEmail))!;
    events = await membershipEvents(p.api, 'vip-list');
    expect(events.entry).toEqual([a.id, b.id, c.id].sort());

    // Only a was a member of the two removed.
    const outsider = await createContact(p.api, uniqueEmail('vip-out'));
    await removeMembers(p.api, s.id, [a.email, outsider.email]);
    events = await membershipEvents(p.api, 'vip-list');
    expect(events).toEqual({ entry: [a.id, b.id, c.id].sort(), exit: [a.id] });
    const exits = await eventsNamed(p.api, 'segment.vip-list.exit');
    expect(exits[0]).toMatchObject({ contactId: a.id, email: a.email, data: { segmentId: s.id } });
    const ofA = (await p.api.get(`/events/contact/${a.id}`)).body.data as TrackedEvent[];
    expect(ofA.map((e) => e.name).sort()).toEqual(['segment.vip-list.entry', 'segment.vip-list.exit']);
  });

  it('emits one entry per contact when the same emails are added concurrently', async () => {
    const s = await staticSegment(p.api, 'Concurrent adds', { trackMembership: true });
    const emails = [uniqueEmail('ca1'), uniqueEmail('ca2'), uniqueEmail('ca3')];
    const results = await Promise.all(
      [1, 2, 3].map(() => p.api.post(`/segments/${s.id}/members`, { emails, createMissing: true })),
    );
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(results.reduce((n, r) => n + r.body.added, 0)).toBe(3);
    expect((await membershipEvents(p.api, s.slug)).entry).toHaveLength(3);
    expect((await getSegment(p.api, s.id)).memberCount).toBe(3);
  });

  it('emits no events for an untracked static segment', async () => {
    const s = await staticSegment(p.api, 'Quiet list');
    const email = uniqueEmail('quiet');
    await addMembers(p.api, s.id, { emails: [email], createMissing: true });
    await removeMembers(p.api, s.id, [email]);
    expect(await membershipEvents(p.api, s.slug)).toEqual({ entry: [], exit: [] });
  });
});

/**
 * A project of its own with two pro contacts, a segment of pro contacts that tracks its members, and
 * a segment of that segment's members.
 */
async function trackedProsAndReader(project: string, trackedName: string, readerName: string) {
  const p = await stack.server.project(project);
  const a = await createContact(p.api, uniqueEmail(`${project}-a`), { plan: 'pro' });
  const b = await createContact(p.api, uniqueEmail(`${project}-b`), { plan: 'pro' });
  const tracked = await dynamicSegment(p.api, trackedName, planIs('pro'), { trackMembership: true });
  const reader = await dynamicSegment(p.api, readerName, memberOf(tracked.id));
  return { p, a, b, tracked, reader };
}

describe('POST /segments/{id}/compute', () => {
  it('emits an entry per matching contact, then exactly the changes, then nothing', async () => {
    const p = await stack.server.project('segments-compute');
    const a = await createContact(p.api, uniqueEmail('ca'), { plan: 'pro' });
    const b = await createContact(p.api, uniqueEmail('cb'), { plan: 'pro' });
    const c = await createContact(p.api, uniqueEmail('cc'), { plan: 'free' });
    const s = await dynamicSegment(p.api, 'Pro tracked', planIs('pro'), { trackMembership: true });

    const first = await compute(p.api, s.id);
    expect(first).toEqual({ segmentId: s.id, entered: 2, exited: 0, memberCount: 2 });
    expect(await membershipEvents(p.api, 'pro-tracked')).toEqual({ entry: [a.id, b.id].sort(), exit: [] });
    for (const e of await eventsNamed(p.api, 'segment.pro-tracked.entry')) expect(e.data).toEqual({ segmentId: s.id });
    const afterFirst = await getSegment(p.api, s.id);
    expect(afterFirst.memberCount).toBe(2);
    expect(afterFirst.memberCountUpdatedAt).not.toBeNull();

    // b stops matching, c starts; a is unchanged.
    await setPlan(p.api, b.id, 'free');
    await setPlan(p.api, c.id, 'pro');
    expect(await compute(p.api, s.id)).toEqual({ segmentId: s.id, entered: 1, exited: 1, memberCount: 2 });
    expect(await membershipEvents(p.api, 'pro-tracked')).toEqual({ entry: [a.id, b.id, c.id].sort(), exit: [b.id] });
    const ofA = (await p.api.get(`/events/contact/${a.id}?name=segment.pro-tracked.entry`)).body;
    expect(ofA.total).toBe(1);

    // Nothing changed: nothing emitted.
    expect(await compute(p.api, s.id)).toEqual({ segmentId: s.id, entered: 0, exited: 0, memberCount: 2 });
    expect(await membershipEvents(p.api, 'pro-tracked')).toEqual({ entry: [a.id, b.id, c.id].sort(), exit: [b.id] });

    // A deleted contact simply is no member any more; compute then counts one.
    expect((await p.api.delete(`/contacts/${c.id}`)).status).toBe(204);
    expect(await compute(p.api, s.id)).toMatchObject({ memberCount: 1 });
  });

  it('emits one entry per contact when computations run concurrently', async () => {
    const p = await stack.server.project('segments-compute-race');
    for (let i = 0; i < 4; i++) await createContact(p.api, uniqueEmail('race'), { plan: 'race' });
    const s = await dynamicSegment(p.api, 'Raced', planIs('race'), { trackMembership: true });
    const results = await Promise.all([1, 2, 3].map(() => compute(p.api, s.id)));
    expect(results.reduce((n, r) => n + r.entered, 0)).toBe(4);
    for (const r of results) expect(r).toMatchObject({ exited: 0, memberCount: 4 });
    expect((await membershipEvents(p.api, 'raced')).entry).toHaveLength(4);
  });

  it('refuses an untracked dynamic segment and static segments with 400 SEGMENT_NOT_TRACKED', async () => {
    const untracked = await dynamicSegment(main.api, 'Untracked compute', planIs('x'));
    const staticUntracked = await staticSegment(main.api, 'Static compute');
    const staticTracked = await staticSegment(main.api, 'Static tracked compute', { trackMembership: true });
    for (const s of [untracked, staticUntracked, staticTracked]) {
      expectEnvelope(await main.api.post(`/segments/${s.id}/compute`), 400, 'SEGMENT_NOT_TRACKED');
    }
  });

  it('starts from an empty list when tracking is turned off and on again', async () => {
    const { p, a, b, tracked, reader } = await trackedProsAndReader('segments-retrack', 'Retracked', 'Reads retracked');
    expect((await compute(p.api, tracked.id)).entered).toBe(2);
    expect((await memberPage(p.api, reader.id)).total).toBe(2);

    await patchSegment(p.api, tracked.id, { trackMembership: false });
    expectEnvelope(await p.api.post(`/segments/${tracked.id}/compute`), 400, 'SEGMENT_NOT_TRACKED');
    await patchSegment(p.api, tracked.id, { trackMembership: true });
    // The list was forgotten: a memberOfSegment of it matches nobody until the next compute.
    expect((await memberPage(p.api, reader.id)).total).toBe(0);

    expect(await compute(p.api, tracked.id)).toEqual({ segmentId: tracked.id, entered: 2, exited: 0, memberCount: 2 });
    const entries = await eventsNamed(p.api, 'segment.retracked.entry');
    expect(entries.map((e) => e.contactId).sort()).toEqual([a.id, a.id, b.id, b.id].sort());
    expect(await eventsNamed(p.api, 'segment.retracked.exit')).toEqual([]);
  });

  it('keeps the slug of the segment’s creation in the event names after a rename', async () => {
    const p = await stack.server.project('segments-rename-events');
    const a = await createContact(p.api, uniqueEmail('rn'), { plan: 'pro' });
    const s = await dynamicSegment(p.api, 'Original name', planIs('pro'), { trackMembership: true });
    await patchSegment(p.api, s.id, { name: 'Brand new name' });
    await compute(p.api, s.id);
    expect((await membershipEvents(p.api, 'original-name')).entry).toEqual([a.id]);
    expect((await membershipEvents(p.api, 'brand-new-name')).entry).toEqual([]);
  });
});

describe('memberOfSegment of a tracked segment', () => {
  it('reads the computed member list, not the live matches', async () => {
    const { p, a, b, tracked, reader } = await trackedProsAndReader(
      'segments-member-of-tracked',
      'Tracked source',
      'Member of tracked',
    );
    const notReader = await dynamicSegment(
      p.api,
      'Not member of tracked',
      where({ field: 'segment', operator: 'notMemberOfSegment', value: tracked.id }),
    );

    // Until the first compute the list is empty.
    expect((await memberPage(p.api, tracked.id)).total).toBe(2);
    expect((await memberPage(p.api, reader.id)).total).toBe(0);
    expect((await memberPage(p.api, notReader.id)).total).toBe(2);
    await counted(p.api, reader.id, 0);

    await compute(p.api, tracked.id);
    expect((await memberPage(p.api, reader.id)).data.map((c) => c.id).sort()).toEqual([a.id, b.id].sort());
    expect((await memberPage(p.api, notReader.id)).total).toBe(0);

    // A new match shows in the tracked segment's live list, not in its member list.
    const z = await createContact(p.api, uniqueEmail('mz'), { plan: 'pro' });
    expect((await memberPage(p.api, tracked.id)).total).toBe(3);
    expect((await memberPage(p.api, reader.id)).total).toBe(2);
    expect((await refresh(p.api, reader.id)).memberCount).toBe(2);
    expect((await refresh(p.api, tracked.id)).memberCount).toBe(3);
    expect((await memberPage(p.api, reader.id)).total).toBe(2);

    expect(await compute(p.api, tracked.id)).toMatchObject({ entered: 1, exited: 0, memberCount: 3 });
    expect((await memberPage(p.api, reader.id)).data.map((c) => c.id)).toContain(z.id);
    expect((await refresh(p.api, reader.id)).memberCount).toBe(3);
  });

  it('inlines an untracked dynamic segment’s condition and reads a static segment’s list', async () => {
    const p = await stack.server.project('segments-member-of-untracked');
    const pro = await createContact(p.api, uniqueEmail('ip'), { plan: 'pro' });
    const free = await createContact(p.api, uniqueEmail('if'), { plan: 'free' });
    const inner = await dynamicSegment(p.api, 'Inner', planIs('pro'));
    const list = await staticSegment(p.api, 'Inner list');
    await addMembers(p.api, list.id, { emails: [free.email] });
    const either = await dynamicSegment(p.api, 'Either', {
      logic: 'OR',
      groups: [
        { filters: [{ field: 'segment', operator: 'memberOfSegment', value: inner.id }] },
        { filters: [{ field: 'segment', operator: 'memberOfSegment', value: list.id }] },
      ],
    });
    expect((await memberPage(p.api, either.id)).data.map((c) => c.id).sort()).toEqual([pro.id, free.id].sort());
    await removeMembers(p.api, list.id, [free.email]);
    expect((await memberPage(p.api, either.id)).data.map((c) => c.id)).toEqual([pro.id]);
  });
});

describe('usage of fields and events', () => {
  it('lists the segments whose condition names a field (or a key under it) or an event', async () => {
    const p = await stack.server.project('segments-usage');
    await createContact(p.api, uniqueEmail('usage'), { plan: { tier: 'gold' }, city: 'Paris' });
    const direct = await dynamicSegment(p.api, 'Plan direct', where({ field: 'data.plan', operator: 'exists' }));
    const nested = await dynamicSegment(p.api, 'Plan tier nested', {
      logic: 'AND',
      groups: [{ filters: [], conditions: { logic: 'OR', groups: [{ filters: [equals('data.plan.tier', 'gold')] }] } }],
    });
    const city = await dynamicSegment(p.api, 'City only', where(equals('data.city', 'Paris')));
    const planner = await dynamicSegment(p.api, 'Planner lookalike', where(equals('data.planner', 'x')));
    const event = await dynamicSegment(
      p.api,
      'Purchasers',
      where({ field: 'purchase', operator: 'triggeredWithin', value: 7, unit: 'days' }),
    );
    const notEvent = await dynamicSegment(
      p.api,
      'Never signed up',
      where({ field: 'signup', operator: 'notTriggered' }),
    );
    await staticSegment(p.api, 'Static usage');

    const plan = await p.api.get('/contacts/fields/data.plan/usage');
    expect(plan.status).toBe(200);
    expect(plan.body.field).toBe('data.plan');
    expect(ids(plan.body.segments)).toEqual(ids([direct, nested]));
    expect(plan.body.segments).toContainEqual({ id: nested.id, name: 'Plan tier nested' });
    expect(plan.body).toMatchObject({ campaigns: [], workflows: [] });

    const tier = await p.api.get('/contacts/fields/data.plan.tier/usage');
    expect(tier.body.segments).toEqual([{ id: nested.id, name: 'Plan tier nested' }]);
    expect((await p.api.get('/contacts/fields/data.city/usage')).body.segments).toEqual([
      { id: city.id, name: 'City only' },
    ]);
    expect((await p.api.get('/contacts/fields/data.planner/usage')).body.segments).toEqual([
      { id: planner.id, name: 'Planner lookalike' },
    ]);

    const purchase = await p.api.get('/events/purchase/usage');
    expect(purchase.status).toBe(200);
    expect(purchase.body).toEqual({
      event: 'purchase',
      segments: [{ id: event.id, name: 'Purchasers' }],
      campaigns: [],
      workflows: [],
    });
    expect((await p.api.get('/events/signup/usage')).body.segments).toEqual([
      { id: notEvent.id, name: 'Never signed up' },
    ]);
    expect((await p.api.get('/events/data.plan/usage')).body.segments).toEqual([]);

    // A renamed segment is listed by its new name; a deleted one no more.
    await patchSegment(p.api, direct.id, { name: 'Plan direct renamed' });
    expect((await p.api.get('/contacts/fields/data.plan/usage')).body.segments).toContainEqual({
      id: direct.id,
      name: 'Plan direct renamed',
    });
    expect((await p.api.delete(`/segments/${direct.id}`)).status).toBe(204);
    expect((await p.api.get('/contacts/fields/data.plan/usage')).body.segments).toEqual([
      { id: nested.id, name: 'Plan tier nested' },
    ]);
    // Another project's usage is its own.
    expect((await other.api.get('/events/purchase/usage')).body.segments).toEqual([]);
  });
});

describe('segment events are the service’s own', () => {
  it('refuses POST /v1/track of segment.<slug>.entry or .exit with 422 reserved_event', async () => {
    const s = await dynamicSegment(main.api, 'Reserved names', planIs('x'), { trackMembership: true });
    for (const kind of ['entry', 'exit']) {
      const event = `segment.${s.slug}.${kind}`;
      const res = await main.api.request('POST', '/v1/track', {
        body: { email: uniqueEmail('track'), event },
        key: main.publicKey,
      });
      const err = expectFieldError(res, 'event', 'reserved_event');
      expect(err.received).toBe(event);
      expect(await eventsNamed(main.api, event)).toEqual([]);
    }
  });
});
