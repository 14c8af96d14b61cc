import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  eventually,
  expectBody,
  expectErrorEnvelope,
  ownerSession,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../support/server.js';

/**
 * The consent history over HTTP: each path that changes a subscription adds what, how and by whom,
 * in the change's own transaction; a refused change adds nothing; a contact created as a side effect
 * of tracking has no history. Forms, pages and feedback reports are checked in their own suites.
 */

let server: TestServer;
let p: TestProject;
let owner: Client;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project('consent');
  owner = await ownerSession(server, { email: 'owner@consent.test', password: 'a long enough passphrase 1' });
});
afterAll(() => server?.stop());

interface Record {
  change: string;
  source: string;
  sourceId: string | null;
  actor: { kind: string; id: string | null; label: string | null };
  ip: string | null;
}

/** A change made in the dashboard: the owner's session, on this project. */
const asOwner = (path: string, body: unknown) =>
  owner.request('PATCH', path, { body, headers: { 'x-project-id': p.id } });

async function history(
  contactId: string,
  query = '',
): Promise<{ data: Record[]; total: number; cursor: string | null }> {
  return expectBody(p.api.get(`/contacts/${contactId}/consent${query}`));
}

describe('GET /contacts/{id}/consent', () => {
  it('records a creation, an unsubscribe and a snooze through the API, each with who made it', async () => {
    const contact = await expectBody(p.api.post('/contacts', { email: 'ann@consent.test' }), 201);
    await expectBody(asOwner(`/contacts/${contact.id}`, { subscribed: false }));
    const until = new Date(Date.now() + 86_400_000).toISOString();
    await expectBody(asOwner(`/contacts/${contact.id}`, { subscribed: true }));
    await expectBody(p.api.patch(`/contacts/${contact.id}`, { snoozedUntil: until }));

    const page = await history(contact.id);
    expect(page.total).toBe(4);
    expect(page.data.map((r) => [r.change, r.source, r.actor.kind])).toEqual([
      ['snoozed', 'api', 'secret-key'],
      ['subscribed', 'api', 'user'],
      ['unsubscribed', 'api', 'user'],
      ['subscribed', 'api', 'secret-key'],
    ]);
    expect(page.data[1]!.actor.label).toBe('owner@consent.test');
    // The dashboard's and the key's own addresses are not the contact's: none is kept.
    expect(page.data.every((r) => r.ip === null)).toBe(true);
  });

  it('adds nothing for a refused change or one that changes nothing', async () => {
    const contact = await expectBody(p.api.post('/contacts', { email: 'bob@consent.test', subscribed: false }), 201);
    const refused = await p.api.patch(`/contacts/${contact.id}`, {
      subscribed: true,
      snoozedUntil: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expectErrorEnvelope(refused, 422, 'VALIDATION_ERROR');
    await expectBody(p.api.patch(`/contacts/${contact.id}`, { subscribed: false }));
    const page = await history(contact.id);
    expect(page.data.map((r) => r.change)).toEqual(['unsubscribed']);
  });

  it('has nothing for a contact a tracked event created', async () => {
    const tracked = await p.api.post('/v1/track', { email: 'tracked@consent.test', event: 'signed_in' }, p.publicKey);
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    const contact = await expectBody(p.api.post('/contacts/lookup', { emails: ['tracked@consent.test'] }));
    const page = await history(contact.data[0].contactId);
    expect(page).toMatchObject({ data: [], total: 0, cursor: null });
  });

  it('names the import job that created contacts', async () => {
    const form = new FormData();
    const csv = 'email,subscribed\nimported1@consent.test,true\nimported2@consent.test,false\n';
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    const accepted = await p.api.request('POST', '/contacts/import', { raw: form });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    await eventually(async () =>
      (await p.api.get(`/contacts/import/${accepted.body.jobId}`)).body.status === 'completed' ? true : undefined,
    );
    const found = await expectBody(
      p.api.post('/contacts/lookup', { emails: ['imported1@consent.test', 'imported2@consent.test'] }),
    );
    const changes = await Promise.all(
      found.data.map(async (c: { contactId: string }) =>
        (await history(c.contactId)).data.map((r) => [r.change, r.source, r.sourceId]),
      ),
    );
    expect(changes).toEqual([
      [['subscribed', 'import', accepted.body.jobId]],
      [['unsubscribed', 'import', accepted.body.jobId]],
    ]);
  });

  it('pages by cursor, newest first', async () => {
    const contact = await expectBody(p.api.post('/contacts', { email: 'paged@consent.test' }), 201);
    for (const subscribed of [false, true, false, true]) {
      await expectBody(p.api.patch(`/contacts/${contact.id}`, { subscribed }));
    }
    const first = await history(contact.id, '?limit=3');
    expect(first.total).toBe(5);
    const second = await history(contact.id, `?limit=3&cursor=${first.cursor}`);
    expect([...first.data, ...second.data].map((r) => r.change)).toEqual([
      'subscribed',
      'unsubscribed',
      'subscribed',
      'unsubscribed',
      'subscribed',
    ]);
    expect(second.cursor).toBeNull();
  });

  it('answers 404 for another project’s contact and 422 for a bad cursor', async () => {
    const other = await server.project('other');
    const theirs = await expectBody(other.api.post('/contacts', { email: 'theirs@consent.test' }), 201);
    expectErrorEnvelope(await p.api.get(`/contacts/${theirs.id}/consent`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await p.api.get(`/contacts/${theirs.id}/consent?cursor=nonsense`), 422, 'VALIDATION_ERROR');
  });
});
