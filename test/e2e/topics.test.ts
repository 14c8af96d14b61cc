import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact, Topic } from '../../src/api.js';
import { uniqueAddresses } from '../support/sending.js';
import {
  eventually,
  expectBody,
  expectErrorEnvelope,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../support/server.js';

/** Topics over HTTP: the CRUD, a contact's topics (defaults and choices), refusals that change nothing. */

let server: TestServer;
let p: TestProject;
const email = uniqueAddresses('topics.test');

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project('topics');
});
afterAll(() => server?.stop());

const createTopic = (body: Record<string, unknown>) => expectBody<Topic>(p.api.post('/topics', body), 201);

describe('/topics', () => {
  it('creates, reads, lists, updates and deletes topics, each change audited', async () => {
    const news = await createTopic({ name: 'Newsletter', description: 'Every Friday', defaultOn: true });
    expect(news).toMatchObject({
      name: 'Newsletter',
      description: 'Every Friday',
      public: true,
      defaultOn: true,
      subscribers: 0,
      projectId: p.id,
    });
    const internal = await createTopic({ name: 'Beta testers', public: false });
    expect(internal).toMatchObject({ public: false, defaultOn: false, description: '' });

    expect(await expectBody(p.api.get(`/topics/${news.id}`))).toMatchObject({ id: news.id, name: 'Newsletter' });
    const page = await expectBody(p.api.get('/topics?limit=1'));
    expect(page).toMatchObject({ total: 2, hasMore: true });
    expect(page.data.map((t: Topic) => t.id)).toEqual([internal.id]);
    const next = await expectBody(p.api.get(`/topics?limit=1&cursor=${page.cursor}`));
    expect(next.data.map((t: Topic) => t.id)).toEqual([news.id]);

    const renamed = await expectBody<Topic>(p.api.patch(`/topics/${internal.id}`, { name: 'Early access' }));
    expect(renamed).toMatchObject({ name: 'Early access', public: false });

    expect((await p.api.delete(`/topics/${internal.id}`)).status).toBe(204);
    expectErrorEnvelope(await p.api.get(`/topics/${internal.id}`), 404, 'NOT_FOUND');

    const log = await expectBody(p.api.get('/audit-log?targetType=topic&limit=100'));
    expect(log.data.map((e: { action: string }) => e.action).sort()).toEqual([
      'topic.created',
      'topic.created',
      'topic.deleted',
      'topic.updated',
    ]);
    await p.api.delete(`/topics/${news.id}`);
  });

  it('refuses bad input with a 422 on the field, changing nothing', async () => {
    const before = await expectBody(p.api.get('/topics'));
    expectErrorEnvelope(await p.api.post('/topics', { name: '' }), 422, 'VALIDATION_ERROR');
    const wrongType = await p.api.post('/topics', { name: 'Ok', defaultOn: 'yes' });
    expectErrorEnvelope(wrongType, 422, 'VALIDATION_ERROR');
    expect(wrongType.body.error.errors.map((e: { field: string }) => e.field)).toEqual(['defaultOn']);
    const t = await createTopic({ name: 'Offers' });
    const dup = await p.api.post('/topics', { name: 'offers' });
    expectErrorEnvelope(dup, 422, 'VALIDATION_ERROR');
    expect(dup.body.error.errors[0]).toMatchObject({ field: 'name', code: 'duplicate_name' });
    const longName = await p.api.patch(`/topics/${t.id}`, { name: 'x'.repeat(101) });
    expectErrorEnvelope(longName, 422, 'VALIDATION_ERROR');
    expect(longName.body.error.errors[0].field).toBe('name');
    expect(await expectBody(p.api.get(`/topics/${t.id}`))).toMatchObject({ name: 'Offers' });
    const after = await expectBody(p.api.get('/topics'));
    expect(after.total).toBe(before.total + 1);
    await p.api.delete(`/topics/${t.id}`);
  });
});

describe("a contact's topics", () => {
  it('shows every topic with its default, takes choices on POST and PATCH, and counts subscribers', async () => {
    const on = await createTopic({ name: 'Product news', defaultOn: true });
    const off = await createTopic({ name: 'Events' });
    const third = await createTopic({ name: 'Tips' });

    const plain = await expectBody<Contact>(p.api.post('/contacts', { email: email('plain') }), 201);
    expect(plain.topics).toEqual({ [on.id]: true, [off.id]: false, [third.id]: false });

    const chosenEmail = email('chosen');
    const chosen = await expectBody<Contact>(
      p.api.post('/contacts', { email: chosenEmail, topics: { [off.id]: true, [on.id]: false } }),
      201,
    );
    expect(chosen.topics).toEqual({ [on.id]: false, [off.id]: true, [third.id]: false });

    const patched = await expectBody<Contact>(p.api.patch(`/contacts/${plain.id}`, { topics: { [third.id]: true } }));
    expect(patched.topics).toEqual({ [on.id]: true, [off.id]: false, [third.id]: true });
    expect((await expectBody<Contact>(p.api.get(`/contacts/${plain.id}`))).topics).toEqual(patched.topics);
    const listed = await expectBody(p.api.get(`/contacts?search=${encodeURIComponent(chosenEmail)}`));
    expect(listed.data[0].topics).toEqual(chosen.topics);

    // An unsubscribed contact receives no topic, whatever it chose: it is not counted.
    await expectBody(
      p.api.post('/contacts', { email: email('gone'), subscribed: false, topics: { [off.id]: true } }),
      201,
    );
    const counts = Object.fromEntries(
      (await expectBody(p.api.get('/topics'))).data.map((t: Topic) => [t.name, t.subscribers]),
    );
    expect(counts).toMatchObject({ 'Product news': 1, Events: 1, Tips: 1 });

    // A changed default is for new contacts: those who never chose keep what they had.
    await expectBody(p.api.patch(`/topics/${off.id}`, { defaultOn: true }));
    expect((await expectBody<Contact>(p.api.get(`/contacts/${plain.id}`))).topics![off.id]).toBe(false);
    const later = await expectBody<Contact>(p.api.post('/contacts', { email: email('later') }), 201);
    expect(later.topics![off.id]).toBe(true);
  });

  it('refuses a topic of no project or another project with a 422 that changes nothing', async () => {
    const other = await server.project('topics-other');
    const foreign = await expectBody<Topic>(other.api.post('/topics', { name: 'Theirs' }), 201);
    const c = await expectBody<Contact>(p.api.post('/contacts', { email: email('careful'), data: { a: 1 } }), 201);
    const res = await p.api.patch(`/contacts/${c.id}`, { data: { a: 2 }, topics: { [foreign.id]: true } });
    expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
    expect(res.body.error.errors[0]).toMatchObject({ field: `topics.${foreign.id}`, code: 'unknown_topic' });
    const notUuid = await p.api.patch(`/contacts/${c.id}`, { topics: { nope: true } });
    expectErrorEnvelope(notUuid, 422, 'VALIDATION_ERROR');
    const never = email('never');
    const created = await p.api.post('/contacts', { email: never, topics: { [foreign.id]: true } });
    expectErrorEnvelope(created, 422, 'VALIDATION_ERROR');
    expect((await expectBody(p.api.post('/contacts/lookup', { emails: [never] }))).data[0].exists).toBe(false);
    expect((await expectBody<Contact>(p.api.get(`/contacts/${c.id}`))).data).toEqual({ a: 1 });
  });
});

describe('topic membership in filters', () => {
  it('counts members by choice and by default with memberOfTopic, the others with notMemberOfTopic', async () => {
    const q = await server.project('topics-filters');
    const on = await expectBody<Topic>(q.api.post('/topics', { name: 'On by default', defaultOn: true }), 201);
    const off = await expectBody<Topic>(q.api.post('/topics', { name: 'Off by default' }), 201);
    const mk = (tag: string, topics: Record<string, boolean> = {}) =>
      expectBody<Contact>(q.api.post('/contacts', { email: email(tag), topics }), 201);
    const a = await mk('a');
    const b = await mk('b', { [on.id]: false, [off.id]: true });
    const c = await mk('c', { [off.id]: true });
    const count = async (operator: string, topicId: string) => {
      const res = await expectBody(
        q.api.post('/segments/count', {
          condition: { logic: 'AND', groups: [{ filters: [{ field: 'topic', operator, value: topicId }] }] },
          preview: 10,
        }),
      );
      return (res.contacts as Contact[]).map((x) => x.email).sort();
    };
    expect(await count('memberOfTopic', on.id)).toEqual([a.email, c.email].sort());
    expect(await count('notMemberOfTopic', on.id)).toEqual([b.email]);
    expect(await count('memberOfTopic', off.id)).toEqual([b.email, c.email].sort());
    // An unknown topic has no members.
    expect(await count('memberOfTopic', '00000000-0000-4000-8000-000000000000')).toEqual([]);
    const bad = await q.api.post('/segments/count', {
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'topic', operator: 'memberOfTopic', value: 'x' }] }] },
    });
    expectErrorEnvelope(bad, 422, 'VALIDATION_ERROR');
  });
});

describe('topics in a CSV import', () => {
  it('sets topics from topic:<name or id> columns; an empty cell keeps the default; an unknown topic fails its row', async () => {
    const q = await server.project('topics-import');
    const news = await expectBody<Topic>(q.api.post('/topics', { name: 'News', defaultOn: true }), 201);
    const deals = await expectBody<Topic>(q.api.post('/topics', { name: 'Deals' }), 201);
    const csv = [
      `email,name,topic:news,topic:${deals.id}`,
      'ann@import.topics.test,Ann,false,yes',
      'ben@import.topics.test,Ben,,',
      'cat@import.topics.test,Cat,true,maybe',
    ].join('\n');
    const unknown = 'email,topic:Nope\ndan@import.topics.test,true\n';
    const run = async (content: string) => {
      const form = new FormData();
      form.append('file', new Blob([content], { type: 'text/csv' }), 'contacts.csv');
      const res = await fetch(`${server.url}/contacts/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${q.secretKey}` },
        body: form,
      });
      expect(res.status).toBe(202);
      const { jobId } = (await res.json()) as { jobId: string };
      return eventually(async () => {
        const job = await expectBody(q.api.get(`/contacts/import/${jobId}`));
        return job.status === 'completed' ? job : undefined;
      }, 30_000);
    };
    const job = await run(csv);
    expect(job).toMatchObject({ created: 2, failed: 1 });
    expect(job.errors[0]).toMatchObject({ row: 4, message: `topic:${deals.id} must be true or false, got "maybe"` });
    const byEmail = async (email: string) => {
      const found = await expectBody(q.api.get(`/contacts?search=${encodeURIComponent(email)}`));
      return found.data[0] as Contact;
    };
    expect((await byEmail('ann@import.topics.test')).topics).toEqual({ [news.id]: false, [deals.id]: true });
    expect((await byEmail('ben@import.topics.test')).topics).toEqual({ [news.id]: true, [deals.id]: false });
    expect((await byEmail('ann@import.topics.test')).data).toEqual({ name: 'Ann' });

    const refused = await run(unknown);
    expect(refused).toMatchObject({ created: 0, failed: 1 });
    expect(refused.errors[0].message).toBe('No topic of this project is named "Nope"');
  });
});

describe('the unsubscribe link of an email about a topic', () => {
  it('asks before leaving the topic, in the reader’s language, and leaves only that topic', async () => {
    const q = await server.project('topics-links');
    const t = await expectBody<Topic>(q.api.post('/topics', { name: 'Wochenpost', defaultOn: true }), 201);
    const other = await expectBody<Topic>(q.api.post('/topics', { name: 'Angebote', defaultOn: true }), 201);
    const c = await expectBody<Contact>(q.api.post('/contacts', { email: email('de'), data: { locale: 'de' } }), 201);
    const token = server.service.ctx.links.subscriberToken({ projectId: q.id, contactId: c.id, topicId: t.id });
    const asked = await fetch(`${server.url}/unsubscribe/${token}`);
    const html = await asked.text();
    expect(asked.status).toBe(200);
    expect(html).toContain('<title>Von Wochenpost abmelden?</title>');
    expect(html).toContain('Andere E-Mails kommen weiterhin.');
    // Opening it changed nothing.
    expect((await expectBody<Contact>(q.api.get(`/contacts/${c.id}`))).topics![t.id]).toBe(true);
    const done = await fetch(`${server.url}/unsubscribe/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'confirm=yes',
    });
    expect(await done.text()).toContain('Sie haben Wochenpost abbestellt');
    const after = await expectBody<Contact>(q.api.get(`/contacts/${c.id}`));
    expect(after).toMatchObject({ subscribed: true, topics: { [t.id]: false, [other.id]: true } });
    // A token whose topic part was changed is not valid.
    const forged = token.replace(t.id, other.id);
    expect((await fetch(`${server.url}/unsubscribe/${forged}`)).status).toBe(404);
    // Once the topic is deleted, its link leaves all marketing: a reader who asks to stop is stopped.
    expect((await q.api.delete(`/topics/${t.id}`)).status).toBe(204);
    await fetch(`${server.url}/unsubscribe/${token}`, { method: 'POST', body: 'List-Unsubscribe=One-Click' });
    expect((await expectBody<Contact>(q.api.get(`/contacts/${c.id}`))).subscribed).toBe(false);
  });

  it('offers, after leaving the topic, a resubscribe that rejoins that topic only, on record', async () => {
    const q = await server.project('topics-rejoin');
    const t = await expectBody<Topic>(q.api.post('/topics', { name: 'Weekly', defaultOn: true }), 201);
    const other = await expectBody<Topic>(q.api.post('/topics', { name: 'Offers' }), 201);
    const c = await expectBody<Contact>(q.api.post('/contacts', { email: email('rejoin') }), 201);
    const token = server.service.ctx.links.subscriberToken({ projectId: q.id, contactId: c.id, topicId: t.id });
    const page = async (method: 'GET' | 'POST', path: string, body?: string) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }),
      });
      return { status: res.status, html: await res.text() };
    };
    const consent = async () =>
      (await expectBody(q.api.get(`/contacts/${c.id}/consent`))).data as {
        change: string;
        topicId: string | null;
        source: string;
        actor: { kind: string };
      }[];

    const left = await page('POST', `/unsubscribe/${token}`, 'List-Unsubscribe=One-Click');
    expect(left.status).toBe(200);
    expect(left.html).toContain('<title>You have left Weekly</title>');
    expect(left.html).toContain(`href="../subscribe/${token}"`);

    // Opening the resubscribe page asks, and changes nothing.
    const asked = await page('GET', `/subscribe/${token}`);
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('<title>Receive Weekly again?</title>');
    expect((await expectBody<Contact>(q.api.get(`/contacts/${c.id}`))).topics![t.id]).toBe(false);
    expect(await consent()).toHaveLength(2);

    const done = await page('POST', `/subscribe/${token}`, 'confirm=yes');
    expect(done.status).toBe(200);
    expect(done.html).toContain('<title>You receive Weekly again</title>');
    const after = await expectBody<Contact>(q.api.get(`/contacts/${c.id}`));
    expect(after).toMatchObject({ subscribed: true, topics: { [t.id]: true, [other.id]: false } });
    expect(await consent()).toEqual([
      expect.objectContaining({
        change: 'subscribed',
        topicId: t.id,
        source: 'subscribe_page',
        actor: expect.objectContaining({ kind: 'visitor' }),
      }),
      expect.objectContaining({ change: 'unsubscribed', topicId: t.id, source: 'one_click' }),
      expect.objectContaining({ change: 'subscribed', topicId: null, source: 'api' }),
    ]);
    // The whole subscription was never touched: no contact.subscribed beyond the creation's.
    const events = await expectBody(q.api.get(`/events/contact/${c.id}?limit=100&name=contact.subscribed`));
    expect(events.data.filter((e: { data: { source?: string } }) => e.data.source === 'subscribe_page')).toEqual([]);

    // Once more changes nothing; the page says it is done.
    expect((await page('POST', `/subscribe/${token}`, 'confirm=yes')).status).toBe(200);
    expect(await consent()).toHaveLength(3);
    expect((await page('GET', `/subscribe/${token}`)).html).toContain('<title>You receive Weekly again</title>');
    // The topic is under the signature: moved to another topic, the link is refused.
    const forged = await page('POST', `/subscribe/${token.replace(t.id, other.id)}`, 'confirm=yes');
    expect(forged.status).toBe(404);
    expect((await expectBody<Contact>(q.api.get(`/contacts/${c.id}`))).topics![other.id]).toBe(false);
  });

  it('rejoins the whole subscription too when the reader had left everything', async () => {
    const q = await server.project('topics-rejoin-all');
    const t = await expectBody<Topic>(q.api.post('/topics', { name: 'Weekly', defaultOn: true }), 201);
    const c = await expectBody<Contact>(q.api.post('/contacts', { email: email('rejoin-all') }), 201);
    await expectBody(q.api.patch(`/contacts/${c.id}`, { subscribed: false, topics: { [t.id]: false } }), 200);
    const token = server.service.ctx.links.subscriberToken({ projectId: q.id, contactId: c.id, topicId: t.id });
    const done = await fetch(`${server.url}/subscribe/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'confirm=yes',
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('<title>You receive Weekly again</title>');
    expect(await expectBody<Contact>(q.api.get(`/contacts/${c.id}`))).toMatchObject({
      subscribed: true,
      topics: { [t.id]: true },
    });
    const history = (await expectBody(q.api.get(`/contacts/${c.id}/consent`))).data as {
      change: string;
      topicId: string | null;
      source: string;
    }[];
    expect(history.slice(0, 2)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ change: 'subscribed', topicId: null, source: 'subscribe_page' }),
        expect.objectContaining({ change: 'subscribed', topicId: t.id, source: 'subscribe_page' }),
      ]),
    );
  });
});
