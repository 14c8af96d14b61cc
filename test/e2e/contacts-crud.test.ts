import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { contacts, TrackedEvent } from '../../src/api.js';
import { createContact, getContact } from '../support/contacts.js';
import { UNKNOWN_ID, UUID, uniqueAddresses } from '../support/sending.js';
import { type Client, startTestServer, type TestProject, type TestServer } from '../support/server.js';

let server: TestServer;
let main: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  main = await server.project('crud-main');
  other = await server.project('crud-other');
});
afterAll(() => server?.stop());

/** A fresh address per test, so tests in this file never see each other's contacts. */
const uniqueEmail = uniqueAddresses('crud.test');

async function eventsOf(api: Client, contactId: string, name?: string) {
  const q = name ? `&name=${encodeURIComponent(name)}` : '';
  const res = await api.get(`/events/contact/${contactId}?limit=100${q}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as TrackedEvent[];
}

async function lookup(api: Client, email: string) {
  const res = await api.post('/contacts/lookup', { emails: [email] });
  expect(res.status).toBe(200);
  return res.body.data[0] as z.infer<typeof contacts.lookupResponse>['data'][number];
}

function expectEnvelope(body: any, status: number, code: string) {
  expect(body).toMatchObject({ success: false, error: { code, statusCode: status } });
  expect(typeof body.error.message).toBe('string');
  expect(typeof body.error.requestId).toBe('string');
  expect(body.error.requestId.length).toBeGreaterThan(0);
  expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
}

function expectValidationError(res: { status: number; body: any }, field: string, code?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expectEnvelope(res.body, 422, 'VALIDATION_ERROR');
  expect(Array.isArray(res.body.error.errors)).toBe(true);
  const err = res.body.error.errors.find((e: any) => e.field === field);
  expect(err, `no field error for ${field}: ${JSON.stringify(res.body.error.errors)}`).toBeDefined();
  expect(typeof err.message).toBe('string');
  if (code) expect(err.code).toBe(code);
  return err;
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** A fresh contact snoozed for an hour: the snooze is still running when the test ends it. */
async function snoozedContact(label: string) {
  const c = await createContact(main.api, { email: uniqueEmail(label) });
  const snooze = await main.api.patch(`/contacts/${c.id}`, { snoozedUntil: inAnHour() });
  expect(snooze.status, JSON.stringify(snooze.body)).toBe(200);
  return c;
}

const CONTACT_KEYS = ['createdAt', 'data', 'email', 'id', 'snoozedUntil', 'subscribed', 'topics', 'updatedAt'];

describe('POST /contacts', () => {
  it('creates a contact: 201, _meta isNew, subscribed by default, email normalised', async () => {
    const res = await main.api.post('/contacts', { email: '  Ada.Lovelace@Example.TEST ', data: { plan: 'pro' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...CONTACT_KEYS, '_meta'].sort());
    expect(res.body).toMatchObject({
      email: 'ada.lovelace@example.test',
      subscribed: true,
      snoozedUntil: null,
      data: { plan: 'pro' },
      _meta: { isNew: true, isUpdate: false },
    });
    expect(res.body.id).toMatch(UUID);
    expect(Number.isNaN(Date.parse(res.body.createdAt))).toBe(false);
    expect(Number.isNaN(Date.parse(res.body.updatedAt))).toBe(false);

    const stored = await getContact(main.api, res.body.id);
    expect(Object.keys(stored).sort()).toEqual(CONTACT_KEYS);
    const { _meta, ...withoutMeta } = res.body;
    expect(stored).toEqual(withoutMeta);
  });

  it('upserts by email: 200 with _meta isUpdate, same id, and keeps the subscription when omitted', async () => {
    const email = uniqueEmail('upsert');
    const created = await createContact(main.api, { email, subscribed: false, data: { a: 1 } });
    expect(created.subscribed).toBe(false);

    const res = await main.api.post('/contacts', { email: email.toUpperCase(), data: { b: 2 } });
    expect(res.status).toBe(200);
    expect(res.body._meta).toEqual({ isNew: false, isUpdate: true });
    expect(res.body.id).toBe(created.id);
    expect(res.body.email).toBe(email);
    expect(res.body.subscribed).toBe(false);
    expect(res.body.data).toEqual({ a: 1, b: 2 });

    const again = await main.api.post('/contacts', { email, subscribed: true });
    expect(again.status).toBe(200);
    expect(again.body.subscribed).toBe(true);
    expect((await getContact(main.api, created.id)).subscribed).toBe(true);
  });

  it('applies the data patch rules: patch, null deletes, empty string ignored, transient values and reserved keys dropped', async () => {
    const email = uniqueEmail('rules');
    const created = await createContact(main.api, {
      email,
      data: { plan: 'pro', age: 30, vip: true, city: 'Paris', nickname: 'ada' },
    });
    expect(created.data).toEqual({ plan: 'pro', age: 30, vip: true, city: 'Paris', nickname: 'ada' });

    const res = await main.api.post('/contacts', {
      email,
      data: {
        age: 31,
        city: null,
        nickname: '',
        coupon: { value: 'SAVE10', persistent: false },
        id: 'forged-id',
        svc_id: 'x',
        svc_email: 'x@x.test',
        email: 'someone-else@crud.test',
        unsubscribeUrl: 'https://evil.test/u',
        subscribeUrl: 'https://evil.test/s',
        manageUrl: 'https://evil.test/m',
        newKey: 'fresh',
      },
    });
    expect(res.status).toBe(200);
    const expected = { plan: 'pro', age: 31, vip: true, nickname: 'ada', newKey: 'fresh' };
    expect(res.body.data).toEqual(expected);
    expect(res.body.email).toBe(email);
    expect(res.body.id).toBe(created.id);

    const stored = await getContact(main.api, created.id);
    expect(stored.data).toEqual(expected);
    expect(stored.email).toBe(email);
    expect((await lookup(main.api, 'someone-else@crud.test')).exists).toBe(false);
  });

  it('drops reserved keys on creation too, with no error', async () => {
    const res = await main.api.post('/contacts', {
      email: uniqueEmail('reserved'),
      data: { id: 'x', email: 'y@crud.test', manageUrl: 'z', kept: 1, transient: { value: 1, persistent: false } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ kept: 1 });
  });

  it('answers the legacy 400 { error } when email is missing, and creates nothing', async () => {
    for (const body of [{}, { subscribed: true, data: { a: 1 } }]) {
      const res = await main.api.post('/contacts', body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(typeof res.body.error).toBe('string');
      expect(res.body.error).toMatch(/email/);
    }
    const list = await main.api.get('/contacts?limit=1');
    const before = list.body.total;
    expect(typeof before).toBe('number');
    await main.api.post('/contacts', { data: { a: 1 } });
    expect((await main.api.get('/contacts?limit=1')).body.total).toBe(before);
  });

  it('rejects an invalid email with a 422 VALIDATION_ERROR envelope naming the field', async () => {
    const res = await main.api.post('/contacts', { email: 'not-an-email' });
    const err = expectValidationError(res, 'email', 'invalid_string');
    expect(err.received).toBe('not-an-email');
    expect(typeof res.body.error.suggestion).toBe('string');
    expect((await lookup(main.api, 'someone@crud.test')).exists).toBe(false);
  });

  it('rejects a non-string email and a non-boolean subscribed with 422, not the legacy body', async () => {
    const wrongType = await main.api.post('/contacts', { email: 42 });
    const err = expectValidationError(wrongType, 'email', 'invalid_type');
    expect(err.received).toBe('number');

    const badSubscribed = await main.api.post('/contacts', { email: uniqueEmail('sub'), subscribed: 'yes' });
    expectValidationError(badSubscribed, 'subscribed', 'invalid_type');
  });

  it('answers 400 to malformed JSON', async () => {
    const res = await main.api.request('POST', '/contacts', {
      raw: '{"email": "broken@crud.test",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 400, 'INVALID_JSON');
    expect((await lookup(main.api, 'broken@crud.test')).exists).toBe(false);
  });

  it('accepts data of exactly 64 KiB of JSON and rejects one byte more with 422', async () => {
    // {"v":"…"} is 8 characters around the value.
    const fits = await main.api.post('/contacts', {
      email: uniqueEmail('big'),
      data: { v: 'x'.repeat(64 * 1024 - 8) },
    });
    expect(fits.status, JSON.stringify(fits.body).slice(0, 300)).toBe(201);

    const email = uniqueEmail('too-big');
    const tooBig = await main.api.post('/contacts', { email, data: { v: 'x'.repeat(64 * 1024 - 7) } });
    expectValidationError(tooBig, 'data');
    expect((await lookup(main.api, email)).exists).toBe(false);
  });

  it('accepts a 256-character data key and rejects a 257-character one with 422', async () => {
    const okKey = 'k'.repeat(256);
    const ok = await main.api.post('/contacts', { email: uniqueEmail('key'), data: { [okKey]: 1 } });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toEqual({ [okKey]: 1 });

    const email = uniqueEmail('long-key');
    const res = await main.api.post('/contacts', { email, data: { ['k'.repeat(257)]: 1 } });
    expect(res.status).toBe(422);
    expectEnvelope(res.body, 422, 'VALIDATION_ERROR');
    expect(res.body.error.errors.length).toBeGreaterThan(0);
    expect(res.body.error.errors.every((e: any) => e.field.startsWith('data'))).toBe(true);
    expect((await lookup(main.api, email)).exists).toBe(false);
  });

  it('refuses a public key, no key and an unknown key with 401 INVALID_API_KEY, creating nothing', async () => {
    const email = uniqueEmail('auth');
    const attempts = [main.publicKey, null, 'sk_this-key-does-not-exist', 'not-a-key'];
    for (const key of attempts) {
      const res = await main.api.request('POST', '/contacts', { body: { email }, key });
      expect(res.status, String(key)).toBe(401);
      expectEnvelope(res.body, 401, 'INVALID_API_KEY');
    }
    const read = await main.api.get('/contacts', main.publicKey);
    expect(read.status).toBe(401);
    expect((await lookup(main.api, email)).exists).toBe(false);
  });

  it("another project's secret key writes to that project only", async () => {
    const email = uniqueEmail('tenant');
    const mine = await createContact(main.api, { email, data: { owner: 'main' } });
    const theirs = await other.api.post('/contacts', { email, data: { owner: 'other' } });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.id);
    expect((await getContact(main.api, mine.id)).data).toEqual({ owner: 'main' });
  });
});

describe('GET, PATCH, DELETE /contacts/{id}', () => {
  it('answers 422 naming the id for a path id that is not a uuid', async () => {
    for (const [method, body] of [['GET'], ['PATCH', { subscribed: false }], ['DELETE']] as const) {
      const res = await main.api.request(method, '/contacts/not-a-uuid', { body });
      expectValidationError(res, 'id', 'invalid_string');
    }
  });

  it('answers 404 NOT_FOUND for an unknown id', async () => {
    for (const [method, body] of [['GET'], ['PATCH', { subscribed: false }], ['DELETE']] as const) {
      const res = await main.api.request(method, `/contacts/${UNKNOWN_ID}`, { body });
      expect(res.status, method).toBe(404);
      expectEnvelope(res.body, 404, 'NOT_FOUND');
    }
  });

  it("answers 404 for another project's contact and leaves it unchanged", async () => {
    const theirs = await createContact(other.api, { email: uniqueEmail('foreign'), data: { keep: 'me' } });

    const get = await main.api.get(`/contacts/${theirs.id}`);
    expect(get.status).toBe(404);
    expectEnvelope(get.body, 404, 'NOT_FOUND');

    const patch = await main.api.patch(`/contacts/${theirs.id}`, {
      email: uniqueEmail('hijack'),
      subscribed: false,
      data: { keep: null, injected: true },
    });
    expect(patch.status).toBe(404);

    const snooze = await main.api.patch(`/contacts/${theirs.id}`, {
      snoozedUntil: inAnHour(),
    });
    expect(snooze.status).toBe(404);

    const del = await main.api.delete(`/contacts/${theirs.id}`);
    expect(del.status).toBe(404);

    const events = await main.api.get(`/events/contact/${theirs.id}`);
    expect(events.status).toBe(404);

    expect(await getContact(other.api, theirs.id)).toEqual(withoutMeta(theirs));
    expect(await eventsOf(other.api, theirs.id)).toEqual([]);
  });

  it('PATCH changes the email (normalised) and 409s on a clash, leaving the contact unchanged', async () => {
    const a = await createContact(main.api, { email: uniqueEmail('clash-a'), data: { n: 1 } });
    const b = await createContact(main.api, { email: uniqueEmail('clash-b'), data: { n: 2 } });

    const clash = await main.api.patch(`/contacts/${a.id}`, {
      email: b.email.toUpperCase(),
      data: { n: 99 },
      subscribed: false,
    });
    expect(clash.status).toBe(409);
    expectEnvelope(clash.body, 409, 'EMAIL_ALREADY_EXISTS');
    expect(await getContact(main.api, a.id)).toEqual(withoutMeta(a));
    expect(await getContact(main.api, b.id)).toEqual(withoutMeta(b));
    expect(await eventsOf(main.api, a.id)).toEqual([]);

    const same = await main.api.patch(`/contacts/${a.id}`, { email: a.email });
    expect(same.status).toBe(200);
    expect(same.body.email).toBe(a.email);

    const renamed = uniqueEmail('renamed');
    const moved = await main.api.patch(`/contacts/${a.id}`, { email: `  ${renamed.toUpperCase()}` });
    expect(moved.status).toBe(200);
    expect(moved.body.email).toBe(renamed);
    expect((await getContact(main.api, a.id)).email).toBe(renamed);

    // The old address is free again: upserting it makes a new contact.
    const reused = await main.api.post('/contacts', { email: a.email });
    expect(reused.status).toBe(201);
    expect(reused.body.id).not.toBe(a.id);
  });

  it('PATCH applies the data patch rules', async () => {
    const c = await createContact(main.api, { email: uniqueEmail('patch-data'), data: { a: 1, b: 'two', c: true } });
    const res = await main.api.patch(`/contacts/${c.id}`, {
      data: { a: 2, b: '', c: null, d: { value: 'once', persistent: false }, id: 'x', svc_email: 'y', e: 'new' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(CONTACT_KEYS);
    expect(res.body.data).toEqual({ a: 2, b: 'two', e: 'new' });
    expect((await getContact(main.api, c.id)).data).toEqual({ a: 2, b: 'two', e: 'new' });
  });

  it('PATCH rejects invalid fields with 422 and changes nothing', async () => {
    const c = await createContact(main.api, { email: uniqueEmail('patch-invalid') });
    const invalid: [patch: Record<string, unknown>, field: string, code?: string][] = [
      [{ email: 'nope' }, 'email', 'invalid_string'],
      [{ subscribed: 'no' }, 'subscribed', 'invalid_type'],
      [{ snoozedUntil: 'tomorrow' }, 'snoozedUntil'],
    ];
    for (const [patch, field, code] of invalid) {
      expectValidationError(await main.api.patch(`/contacts/${c.id}`, patch), field, code);
    }
    expect(await getContact(main.api, c.id)).toEqual(withoutMeta(c));
  });

  it('an upsert that flips the subscription emits its event; one that keeps it emits none', async () => {
    const email = uniqueEmail('upsert-flip');
    const created = await createContact(main.api, { email });
    const same = await main.api.post('/contacts', { email, subscribed: true, data: { a: 1 } });
    expect(same.status).toBe(200);
    expect(await eventsOf(main.api, created.id)).toEqual([]);

    const off = await main.api.post('/contacts', { email, subscribed: false });
    expect(off.status).toBe(200);
    expect(off.body.subscribed).toBe(false);
    const events = await eventsOf(main.api, created.id);
    expect(events.map((e) => e.name)).toEqual(['contact.unsubscribed']);
    expect(events[0]!.data).toEqual({ source: 'api' });
  });

  it('a subscription flip emits exactly one event; an unchanged value emits none', async () => {
    const c = await createContact(main.api, { email: uniqueEmail('flip') });
    expect(await eventsOf(main.api, c.id)).toEqual([]);

    const unchanged = await main.api.patch(`/contacts/${c.id}`, { subscribed: true });
    expect(unchanged.status).toBe(200);
    expect(await eventsOf(main.api, c.id)).toEqual([]);

    const off = await main.api.patch(`/contacts/${c.id}`, { subscribed: false });
    expect(off.status).toBe(200);
    expect(off.body.subscribed).toBe(false);
    let events = await eventsOf(main.api, c.id);
    expect(events.map((e) => e.name)).toEqual(['contact.unsubscribed']);
    expect(events[0]).toMatchObject({ contactId: c.id, email: c.email });

    await main.api.patch(`/contacts/${c.id}`, { subscribed: false });
    await main.api.patch(`/contacts/${c.id}`, { data: { touched: true } });
    expect((await eventsOf(main.api, c.id)).map((e) => e.name)).toEqual(['contact.unsubscribed']);

    const on = await main.api.patch(`/contacts/${c.id}`, { subscribed: true });
    expect(on.body.subscribed).toBe(true);
    await main.api.patch(`/contacts/${c.id}`, { subscribed: true });
    events = await eventsOf(main.api, c.id);
    expect(events.map((e) => e.name).sort()).toEqual(['contact.subscribed', 'contact.unsubscribed']);

    // The project-wide list sees the same single events.
    const byName = await main.api.get('/events?name=contact.subscribed&limit=100');
    expect(byName.status).toBe(200);
    expect(byName.body.data.filter((e: any) => e.contactId === c.id)).toHaveLength(1);
    expect((await getContact(main.api, c.id)).subscribed).toBe(true);
  });

  it('PATCH snoozedUntil in the future unsubscribes and records the snooze; in the past it is a 422', async () => {
    const c = await createContact(main.api, { email: uniqueEmail('snooze') });
    const until = inAnHour();
    const res = await main.api.patch(`/contacts/${c.id}`, { snoozedUntil: until });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscribed).toBe(false);
    expect(res.body.snoozedUntil).toBe(until);
    const stored = await getContact(main.api, c.id);
    expect(stored.subscribed).toBe(false);
    expect(stored.snoozedUntil).toBe(until);
    expect((await eventsOf(main.api, c.id)).map((e) => e.name)).toEqual(['contact.unsubscribed']);

    const fresh = await createContact(main.api, { email: uniqueEmail('snooze-past') });
    const past = await main.api.patch(`/contacts/${fresh.id}`, {
      snoozedUntil: new Date(Date.now() - 60_000).toISOString(),
    });
    expectValidationError(past, 'snoozedUntil');
    expect(await getContact(main.api, fresh.id)).toEqual(withoutMeta(fresh));
    expect(await eventsOf(main.api, fresh.id)).toEqual([]);
  });

  it('an explicit subscription change ends a snooze', async () => {
    const c = await snoozedContact('snooze-cancel');
    const res = await main.api.patch(`/contacts/${c.id}`, { subscribed: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subscribed: true, snoozedUntil: null });
    expect(await getContact(main.api, c.id)).toMatchObject({ subscribed: true, snoozedUntil: null });
  });

  it('snoozedUntil null ends a running snooze and resubscribes, but does not resubscribe an unsnoozed contact', async () => {
    const snoozed = await snoozedContact('snooze-end-early');
    const ended = await main.api.patch(`/contacts/${snoozed.id}`, { snoozedUntil: null });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ subscribed: true, snoozedUntil: null });
    expect((await eventsOf(main.api, snoozed.id, 'contact.subscribed')).length).toBe(1);

    const unsubscribed = await createContact(main.api, { email: uniqueEmail('never-snoozed'), subscribed: false });
    const res = await main.api.patch(`/contacts/${unsubscribed.id}`, { snoozedUntil: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subscribed: false, snoozedUntil: null });
    expect(await eventsOf(main.api, unsubscribed.id)).toEqual([]);
  });

  it('refuses to snooze and subscribe in one request', async () => {
    const c = await createContact(main.api, { email: uniqueEmail('snooze-contradiction') });
    const res = await main.api.patch(`/contacts/${c.id}`, {
      subscribed: true,
      snoozedUntil: inAnHour(),
    });
    expectValidationError(res, 'subscribed');
    expect(await getContact(main.api, c.id)).toMatchObject({ subscribed: true, snoozedUntil: null });
  });

  it('DELETE answers 204 with no body, then the contact is gone', async () => {
    const c = await createContact(main.api, { email: uniqueEmail('delete'), data: { x: 1 } });
    const res = await fetch(`${server.url}/contacts/${c.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${main.secretKey}` },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');

    const get = await main.api.get(`/contacts/${c.id}`);
    expect(get.status).toBe(404);
    expect((await main.api.delete(`/contacts/${c.id}`)).status).toBe(404);
    expect((await main.api.patch(`/contacts/${c.id}`, { subscribed: false })).status).toBe(404);
    expect((await lookup(main.api, c.email)).exists).toBe(false);

    const again = await main.api.post('/contacts', { email: c.email });
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual({});
  });
});

function withoutMeta(c: Record<string, unknown>) {
  const { _meta, ...rest } = c;
  return rest;
}
