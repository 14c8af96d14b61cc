import { describe, expect, it } from 'vitest';
import { UUID } from '../support/sending.js';
import { type TestProject, useTestServer } from '../support/server.js';

const server = useTestServer();

function track(p: TestProject, body: unknown, key: string | null = p.publicKey) {
  return p.api.request('POST', '/v1/track', { body, key });
}

async function contact(p: TestProject, id: string) {
  const res = await p.api.get(`/contacts/${id}`);
  expect(res.status).toBe(200);
  return res.body as { id: string; email: string; subscribed: boolean; data: Record<string, unknown> };
}

async function events(p: TestProject, name?: string) {
  const res = await p.api.get(`/events?limit=100${name ? `&name=${encodeURIComponent(name)}` : ''}`);
  expect(res.status).toBe(200);
  return res.body as {
    data: { id: string; name: string; contactId: string; email: string; data: Record<string, unknown> }[];
    total: number;
  };
}

describe('POST /v1/track', () => {
  it('tracks with the public key and answers the wrapped contact, event and timestamp', async () => {
    const p = await server.project();
    const before = Date.now();
    const res = await track(p, { email: 'ann@example.com', event: 'signed_up' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { contact: expect.stringMatching(UUID), event: expect.stringMatching(UUID), timestamp: expect.any(String) },
    });
    const at = Date.parse(res.body.data.timestamp);
    expect(new Date(at).toISOString()).toBe(res.body.data.timestamp);
    expect(at).toBeGreaterThanOrEqual(before - 5_000);

    const stored = await events(p);
    expect(stored.total).toBe(1);
    expect(stored.data[0]).toMatchObject({
      id: res.body.data.event,
      name: 'signed_up',
      contactId: res.body.data.contact,
      email: 'ann@example.com',
    });
  });

  it('creates a new contact subscribed by default', async () => {
    const p = await server.project();
    const res = await track(p, { email: 'new@example.com', event: 'visited' });
    expect(res.status).toBe(200);
    const c = await contact(p, res.body.data.contact);
    expect(c).toMatchObject({ email: 'new@example.com', subscribed: true });
  });

  it('creates an unsubscribed contact when subscribed is false', async () => {
    const p = await server.project();
    const res = await track(p, { email: 'quiet@example.com', event: 'visited', subscribed: false });
    expect(res.status).toBe(200);
    expect((await contact(p, res.body.data.contact)).subscribed).toBe(false);
  });

  it('keeps an existing contact’s subscription when subscribed is omitted', async () => {
    const p = await server.project();
    const first = await track(p, { email: 'keep@example.com', event: 'a', subscribed: false });
    const again = await track(p, { email: 'keep@example.com', event: 'b' });
    expect(again.status).toBe(200);
    expect(again.body.data.contact).toBe(first.body.data.contact);
    expect((await contact(p, first.body.data.contact)).subscribed).toBe(false);

    const other = await track(p, { email: 'stay@example.com', event: 'a' });
    await track(p, { email: 'stay@example.com', event: 'b' });
    expect((await contact(p, other.body.data.contact)).subscribed).toBe(true);
  });

  it('keeps the tracked properties on the event record, one-request values included, reserved keys dropped', async () => {
    const p = await server.project();
    const res = await track(p, {
      email: 'props@example.com',
      event: 'purchased',
      data: {
        plan: 'pro',
        seats: 3,
        coupon: { value: 'SPRING', persistent: false },
        gone: null,
        blank: '',
        email: 'x@y.z',
      },
    });
    expect(res.status).toBe(200);
    const stored = await events(p);
    expect(stored.data[0]).toMatchObject({
      id: res.body.data.event,
      data: { plan: 'pro', seats: 3, coupon: 'SPRING' },
    });
    expect(Object.keys(stored.data[0].data).sort()).toEqual(['coupon', 'plan', 'seats']);
    expect((await contact(p, res.body.data.contact)).data).toEqual({ plan: 'pro', seats: 3 });
  });

  it('changes an existing contact’s subscription when subscribed is given', async () => {
    const p = await server.project();
    const first = await track(p, { email: 'flip@example.com', event: 'a', subscribed: false });
    await track(p, { email: 'flip@example.com', event: 'b', subscribed: true });
    expect((await contact(p, first.body.data.contact)).subscribed).toBe(true);
    const events = await p.api.get(`/events/contact/${first.body.data.contact}?dir=asc`);
    const names = events.body.data.map((e: { name: string }) => e.name);
    expect(names.slice(0, 1)).toEqual(['a']);
    expect(names.slice(1).sort()).toEqual(['b', 'contact.subscribed']);
    expect(events.body.data.find((e: { name: string }) => e.name === 'contact.subscribed').data).toEqual({
      source: 'track',
    });
  });

  it('matches the contact by normalised email', async () => {
    const p = await server.project();
    const a = await track(p, { email: 'Mixed.Case@Example.COM', event: 'a' });
    const b = await track(p, { email: '  mixed.case@example.com ', event: 'b' });
    expect(b.body.data.contact).toBe(a.body.data.contact);
    expect((await contact(p, a.body.data.contact)).email).toBe('mixed.case@example.com');
  });

  it('applies the data rules to the contact', async () => {
    const p = await server.project();
    const first = await track(p, {
      email: 'data@example.com',
      event: 'a',
      data: {
        plan: 'pro',
        seats: 3,
        trial: true,
        nickname: '',
        coupon: { value: 'ONCE', persistent: false },
        id: 'spoofed',
        email: 'spoofed@example.com',
        unsubscribeUrl: 'http://evil.example',
      },
    });
    expect(first.status).toBe(200);
    const id = first.body.data.contact;
    let c = await contact(p, id);
    expect(c.email).toBe('data@example.com');
    expect(c.data).toEqual({ plan: 'pro', seats: 3, trial: true });

    // A later patch: null deletes, an empty string is ignored, unmentioned keys stay.
    await track(p, { email: 'data@example.com', event: 'b', data: { plan: null, seats: '', city: 'Oslo' } });
    c = await contact(p, id);
    expect(c.data).toEqual({ seats: 3, trial: true, city: 'Oslo' });

    // Tracking without data leaves the data alone.
    await track(p, { email: 'data@example.com', event: 'c' });
    expect((await contact(p, id)).data).toEqual({ seats: 3, trial: true, city: 'Oslo' });
  });

  it('creates a new event record every time the same event is tracked', async () => {
    const p = await server.project();
    const ids = new Set<string>();
    let contactId: string | undefined;
    for (let i = 0; i < 3; i++) {
      const res = await track(p, { email: 'repeat@example.com', event: 'clicked' });
      expect(res.status).toBe(200);
      ids.add(res.body.data.event);
      contactId ??= res.body.data.contact;
      expect(res.body.data.contact).toBe(contactId);
    }
    expect(ids.size).toBe(3);
    const stored = await events(p, 'clicked');
    expect(stored.total).toBe(3);
    expect(new Set(stored.data.map((e) => e.id))).toEqual(ids);
  });

  it('rejects the secret key with 401 INVALID_API_KEY', async () => {
    const p = await server.project();
    const res = await track(p, { email: 'x@example.com', event: 'a' }, p.secretKey);
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
    expect((await events(p)).total).toBe(0);
  });

  it('rejects a missing, unknown or malformed key with 401', async () => {
    const p = await server.project();
    for (const key of [null, 'pk_doesnotexist000000000000000000', 'garbage', `${p.publicKey}x`]) {
      const res = await track(p, { email: 'x@example.com', event: 'a' }, key);
      expect(res.status, String(key)).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    }
  });

  it('stores the event in the project of the key, never another', async () => {
    const a = await server.project();
    const b = await server.project();
    const res = await track(a, { email: 'cross@example.com', event: 'a' }, b.publicKey);
    expect(res.status).toBe(200);
    expect((await events(a)).total).toBe(0);
    expect((await events(b)).total).toBe(1);
  });

  it('rejects malformed JSON with 400', async () => {
    const p = await server.project();
    const res = await p.api.request('POST', '/v1/track', {
      raw: '{"email": "x@example.com", "event": ',
      headers: { 'content-type': 'application/json' },
      key: p.publicKey,
    });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.statusCode).toBe(400);
    expect((await events(p)).total).toBe(0);
  });

  it('answers 422 with field errors for missing fields', async () => {
    const p = await server.project();
    const res = await track(p, {});
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['email', 'event']);
    for (const e of res.body.error.errors) expect(e.code).toBe('invalid_type');
  });

  it('answers 422 with field errors for mistyped fields', async () => {
    const p = await server.project();
    const cases: [unknown, string, string][] = [
      [{ email: 'not-an-email', event: 'a' }, 'email', 'invalid_string'],
      [{ email: 42, event: 'a' }, 'email', 'invalid_type'],
      [{ email: 'a@example.com', event: 42 }, 'event', 'invalid_type'],
      [{ email: 'a@example.com', event: '' }, 'event', 'too_small'],
      [{ email: 'a@example.com', event: 'x'.repeat(256) }, 'event', 'too_big'],
      [{ email: 'a@example.com', event: 'a', subscribed: 'yes' }, 'subscribed', 'invalid_type'],
      [{ email: 'a@example.com', event: 'a', data: ['x'] }, 'data', 'invalid_type'],
    ];
    for (const [body, field, code] of cases) {
      const res = await track(p, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
    }
    expect((await events(p)).total).toBe(0);
    expect((await p.api.get('/contacts')).body.total).toBe(0);
  });

  it('rejects reserved event names with 422 reserved_event and stores nothing', async () => {
    const p = await server.project();
    const reserved = [
      'email.opened',
      'email.anything',
      'contact.subscribed',
      'contact.unsubscribed',
      'segment.vip.entry',
      'segment.vip.exit',
    ];
    for (const event of reserved) {
      const res = await track(p, { email: 'reserved@example.com', event, data: { plan: 'pro' } });
      expect(res.status, event).toBe(422);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field: 'event', code: 'reserved_event' });
    }
    expect((await events(p)).total).toBe(0);
    expect((await p.api.get('/contacts')).body.total).toBe(0);
  });

  it('answers 422 for text PostgreSQL cannot store and stores nothing', async () => {
    const p = await server.project();
    const cases: [string, string][] = [
      ['{"email":"nul@example.com","event":"a\\u0000b"}', 'event'],
      ['{"email":"nul@example.com","event":"a","data":{"note":"x\\u0000y"}}', 'data.note'],
      ['{"email":"nul@example.com","event":"a","data":{"k\\u0000":1}}', 'data.k\u0000'],
      ['{"email":"nul@example.com","event":"a","data":{"note":"half \\ud83d pair"}}', 'data.note'],
      ['{"email":"nul@example.com","event":"a","data":{"list":[1,{"deep":"\\u0000"}]}}', 'data.list.1.deep'],
    ];
    for (const [raw, field] of cases) {
      const res = await p.api.request('POST', '/v1/track', {
        raw,
        headers: { 'content-type': 'application/json' },
        key: p.publicKey,
      });
      expect(res.status, raw).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field, code: 'invalid_string' });
    }
    // A well-formed pair is fine.
    const emoji = await track(p, { email: 'emoji@example.com', event: 'smile', data: { face: '\u{1F600}' } });
    expect(emoji.status).toBe(200);
    expect((await contact(p, emoji.body.data.contact)).data).toEqual({ face: '\u{1F600}' });
    expect((await events(p)).total).toBe(1);
  });

  it('answers 422 for data nested too deeply to store', async () => {
    const p = await server.project();
    for (const levels of [100, 50_000]) {
      const deep = `${'['.repeat(levels)}1${']'.repeat(levels)}`;
      const res = await p.api.request('POST', '/v1/track', {
        raw: `{"email":"deep@example.com","event":"a","data":{"k":${deep}}}`,
        headers: { 'content-type': 'application/json' },
        key: p.publicKey,
      });
      expect(res.status, String(levels)).toBe(422);
      expect(res.body.error.errors[0].code).toBe('too_big');
    }
    const shallow = await track(p, { email: 'deep@example.com', event: 'a', data: { k: [[[1]]] } });
    expect(shallow.status).toBe(200);
    expect((await events(p)).total).toBe(1);
  });

  it('accepts names that only resemble reserved ones', async () => {
    const p = await server.project();
    for (const event of ['emails.opened', 'contact.created', 'segment.vip', 'my.email.opened']) {
      const res = await track(p, { email: 'near@example.com', event });
      expect(res.status, event).toBe(200);
    }
    expect((await events(p)).total).toBe(4);
  });
});

describe('key kinds', () => {
  it('rejects the public key on /events/track and on every other endpoint with 401', async () => {
    const p = await server.project();
    const attempts: [string, string, unknown?][] = [
      ['POST', '/events/track', { email: 'x@example.com', event: 'a' }],
      ['GET', '/events'],
      ['GET', '/events/names'],
      ['GET', '/events/stats'],
      ['GET', '/contacts'],
      ['POST', '/contacts', { email: 'x@example.com' }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await p.api.request(method, path, { body, key: p.publicKey });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    }
    expect((await events(p)).total).toBe(0);
    expect((await p.api.get('/contacts')).body.total).toBe(0);
  });
});

describe('POST /events/track', () => {
  it('works with the secret key like /v1/track', async () => {
    const p = await server.project();
    const res = await p.api.post('/events/track', {
      email: 'dash@example.com',
      event: 'from_dashboard',
      data: { a: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { contact: expect.stringMatching(UUID), event: expect.stringMatching(UUID), timestamp: expect.any(String) },
    });
    const c = await contact(p, res.body.data.contact);
    expect(c).toMatchObject({ email: 'dash@example.com', subscribed: true, data: { a: 1 } });
    const stored = await events(p, 'from_dashboard');
    expect(stored.data.map((e) => e.id)).toEqual([res.body.data.event]);
  });

  it('applies the same validation', async () => {
    const p = await server.project();
    const reserved = await p.api.post('/events/track', { email: 'dash@example.com', event: 'email.clicked' });
    expect(reserved.status).toBe(422);
    expect(reserved.body.error.errors[0].code).toBe('reserved_event');
    const missing = await p.api.post('/events/track', { event: 'a' });
    expect(missing.status).toBe(422);
    expect(missing.body.error.errors[0].field).toBe('email');
    expect((await events(p)).total).toBe(0);
  });
});
