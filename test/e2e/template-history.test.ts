import { beforeAll, describe, expect, it } from 'vitest';
import type { Template, Version, VersionSummary } from '../../src/api.js';
import { createUser } from '../../src/modules/accounts/service.js';
import { batchCampaign, batchContacts, campaignWhen, getCampaign, sendNow } from '../support/campaigns.js';
import { verifiedDomain } from '../support/domains.js';
import { useMailServer } from '../support/mail-server.js';
import { sinkMessagesTo, UNKNOWN_ID } from '../support/sending.js';
import {
  type Client,
  client,
  eventually,
  expectBody,
  expectErrorEnvelope,
  type TestProject,
} from '../support/server.js';

/**
 * Template history over HTTP: every save is a version saying who (a signed-in member or the API
 * key), when and what changed; versions are listed, read and restored as a new version; another
 * project sees none of it. A sent campaign keeps the content it went out with after the template it
 * was made from changes.
 */

const DOMAIN = 'news.history.test';
const FROM = `news@${DOMAIN}`;
const USER = 'editor@example.com';
const PASSWORD = 'history-correct-horse';

// Sign-ins are limited per address; in memory, this server has a budget of its own.
const mail = useMailServer({ REDIS_URL: '' });

/** The default project through its secret key, and through a signed-in owner's session. */
let key: Client;
let member: Client;
let userId: string;
let other: TestProject;

beforeAll(async () => {
  const server = mail.server;
  const project = server.service.defaultProject!;
  await createUser(server.service.ctx.db, USER, PASSWORD, new Date());
  const login = await client(server.url, '').post('/auth/login', { email: USER, password: PASSWORD }, null);
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  userId = login.body.id;
  const cookie = /^postbox_session=([^;]+)/.exec(login.headers.getSetCookie()[0] ?? '')![1]!;
  key = client(server.url, project.secretKey);
  const c = client(server.url, '');
  const headers = { cookie: `postbox_session=${cookie}`, 'x-project-id': project.id };
  const request: Client['request'] = (method, p, options = {}) =>
    c.request(method, p, { ...options, key: null, headers: { ...headers, ...options.headers } });
  member = {
    request,
    get: (p) => request('GET', p),
    post: (p, body) => request('POST', p, { body }),
    patch: (p, body) => request('PATCH', p, { body }),
    delete: (p) => request('DELETE', p),
  };
  await verifiedDomain(key, mail.dns, DOMAIN);
  other = await server.project('history-other');
});

const versionsOf = (
  api: Client,
  id: string,
  query = '',
): Promise<{ data: VersionSummary[]; cursor: string | null; hasMore: boolean; total: number }> =>
  expectBody(api.get(`/templates/${id}/versions${query}`));

async function newTemplate(api: Client, overrides: Record<string, unknown> = {}): Promise<Template> {
  return expectBody(
    api.post('/templates', {
      name: 'Welcome',
      subject: 'Welcome, {{ first ?? "friend" }}',
      body: '<p>First body</p>',
      from: FROM,
      ...overrides,
    }),
    201,
  );
}

describe('template versions', () => {
  let template: Template;

  it('keeps version 1 at create, and one more for each save that changes something, saying who and what', async () => {
    template = await newTemplate(member);
    expect(template.version).toBe(1);

    const first = await expectBody<Template>(member.patch(`/templates/${template.id}`, { subject: 'Hello again' }));
    expect(first.version).toBe(2);
    const second = await expectBody<Template>(
      key.patch(`/templates/${template.id}`, { body: '<p>Second body</p>', fromName: 'News' }),
    );
    expect(second.version).toBe(3);
    // The same values again change nothing, and make no version.
    const same = await expectBody<Template>(key.patch(`/templates/${template.id}`, { body: '<p>Second body</p>' }));
    expect(same.version).toBe(3);
    expect(same.updatedAt).toBe(second.updatedAt);

    const page = await versionsOf(key, template.id);
    expect(page.total).toBe(3);
    expect(page.hasMore).toBe(false);
    expect(page.data.map((v) => [v.n, v.event, v.changed])).toEqual([
      [3, 'edited', ['body', 'fromName']],
      [2, 'edited', ['subject']],
      [1, 'created', []],
    ]);
    expect(page.data[2]!.author).toEqual({ kind: 'user', userId, email: USER });
    expect(page.data[1]!.author).toEqual({ kind: 'user', userId, email: USER });
    expect(page.data[0]!.author).toEqual({ kind: 'api_key', userId: null, email: null });
    expect(page.data[0]!.createdAt).toBe(second.updatedAt);
    expect(page.data.map((v) => v.subject)).toEqual(['Hello again', 'Hello again', 'Welcome, {{ first ?? "friend" }}']);
    // A list shows no bodies: a template may have hundreds of versions.
    expect(page.data[0]).not.toHaveProperty('body');
  });

  it('gives one version with its whole content', async () => {
    const v1 = await expectBody<Version>(key.get(`/templates/${template.id}/versions/1`));
    expect(v1).toMatchObject({
      n: 1,
      templateId: template.id,
      subject: 'Welcome, {{ first ?? "friend" }}',
      body: '<p>First body</p>',
      from: FROM,
      fromName: null,
      type: 'MARKETING',
    });
    const v3 = await expectBody<Version>(member.get(`/templates/${template.id}/versions/3`));
    expect(v3).toMatchObject({ subject: 'Hello again', body: '<p>Second body</p>', fromName: 'News' });
  });

  it('restores an old version as a new one: the template takes its content, history only grows', async () => {
    const restored = await expectBody<Template>(member.post(`/templates/${template.id}/versions/1/restore`));
    expect(restored).toMatchObject({
      version: 4,
      subject: 'Welcome, {{ first ?? "friend" }}',
      body: '<p>First body</p>',
      fromName: null,
    });
    expect(await expectBody<Template>(key.get(`/templates/${template.id}`))).toMatchObject({
      version: 4,
      body: '<p>First body</p>',
    });
    const [latest] = (await versionsOf(key, template.id)).data;
    expect(latest).toMatchObject({
      n: 4,
      event: 'restored',
      restoredFrom: 1,
      changed: ['subject', 'body', 'fromName'],
      author: { kind: 'user', userId, email: USER },
    });
    // Restoring what the template already has adds nothing.
    const again = await expectBody<Template>(key.post(`/templates/${template.id}/versions/4/restore`));
    expect(again.version).toBe(4);
  });

  it('pages through many versions with a cursor, newest first', async () => {
    const t = await newTemplate(key, { name: 'Busy' });
    for (let i = 1; i <= 6; i++) await expectBody(key.patch(`/templates/${t.id}`, { body: `<p>Body ${i}</p>` }));
    const seen: number[] = [];
    let page = await versionsOf(key, t.id, '?limit=3');
    expect(page.total).toBe(7);
    seen.push(...page.data.map((v) => v.n));
    while (page.hasMore) {
      page = await versionsOf(key, t.id, `?limit=3&cursor=${page.cursor}`);
      expect(page.total).toBe(0);
      seen.push(...page.data.map((v) => v.n));
    }
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  it('numbers concurrent saves one after another, each with its own version', async () => {
    const t = await newTemplate(key, { name: 'Raced' });
    const saves = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => expectBody<Template>(key.patch(`/templates/${t.id}`, { subject: `Subject ${i}` }))),
    );
    expect(saves.map((s) => s.version).sort()).toEqual([2, 3, 4, 5, 6]);
    const page = await versionsOf(key, t.id);
    expect(page.data.map((v) => v.n)).toEqual([6, 5, 4, 3, 2, 1]);
    // Each version holds the subject its own save wrote.
    for (const s of saves) {
      expect((await expectBody<Version>(key.get(`/templates/${t.id}/versions/${s.version}`))).subject).toBe(s.subject);
    }
  });

  it('keeps a duplicate’s history apart, starting at version 1', async () => {
    const copy = await expectBody<Template>(key.post(`/templates/${template.id}/duplicate`), 201);
    expect(copy.version).toBe(1);
    const page = await versionsOf(key, copy.id);
    expect(page.data.map((v) => [v.n, v.event, v.name])).toEqual([[1, 'created', 'Welcome (copy)']]);
  });

  it('answers 404 for another project’s template and an unknown version, and 4xx for a bad number', async () => {
    expectErrorEnvelope(await other.api.get(`/templates/${template.id}/versions`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await other.api.get(`/templates/${template.id}/versions/1`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await other.api.post(`/templates/${template.id}/versions/1/restore`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await key.get(`/templates/${UNKNOWN_ID}/versions`), 404, 'NOT_FOUND');
    const unknown = await key.get(`/templates/${template.id}/versions/99`);
    expectErrorEnvelope(unknown, 404, 'NOT_FOUND');
    expect(unknown.body.error.message).toBe('Template version not found');
    expectErrorEnvelope(await key.post(`/templates/${template.id}/versions/99/restore`), 404, 'NOT_FOUND');
    for (const bad of ['0', '-1', 'abc', '1.5', '99999999999']) {
      const res = await key.get(`/templates/${template.id}/versions/${bad}`);
      expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
      expect(res.body.error.errors[0].field, bad).toBe('n');
    }
    const badCursor = await key.get(
      `/templates/${template.id}/versions?cursor=${Buffer.from('["x"]').toString('base64url')}`,
    );
    expect(badCursor.status).toBe(422);
    expect(badCursor.body.error.errors[0].field).toBe('cursor');
    // The template as it stands is unaffected by all this.
    expect((await expectBody<Template>(key.get(`/templates/${template.id}`))).version).toBe(4);
  });

  it('goes with its template', async () => {
    const t = await newTemplate(key, { name: 'Short-lived' });
    expect((await key.delete(`/templates/${t.id}`)).status).toBe(204);
    expectErrorEnvelope(await key.get(`/templates/${t.id}/versions/1`), 404, 'NOT_FOUND');
  });
});

describe('a campaign made from a template', () => {
  it('keeps the content it was sent with after the template changes', async () => {
    const t = await newTemplate(key, {
      name: 'Launch',
      subject: 'Launch day',
      body: '<p>We launched</p>',
    });
    const to = ['one@rcpt.history.test', 'two@rcpt.history.test'];
    await batchContacts(key, 'launch', to);
    // The composer copies the template's content into the campaign, as the dashboard does.
    const campaign = await batchCampaign(key, FROM, 'launch', { subject: t.subject, body: t.body, name: 'Launch' });
    await sendNow(key, campaign.id);
    await campaignWhen(key, campaign.id, (c) => c.status === 'SENT');
    await eventually(async () => {
      for (const address of to) expect(sinkMessagesTo(mail.sink, address)).toHaveLength(1);
      return true;
    });
    expect(sinkMessagesTo(mail.sink, to[0]!)[0]!.raw.toString()).toContain('Subject: Launch day');

    await expectBody(key.patch(`/templates/${t.id}`, { subject: 'Launch week', body: '<p>Changed</p>' }));
    const sent = await getCampaign(key, campaign.id);
    expect(sent).toMatchObject({ status: 'SENT', subject: 'Launch day', body: '<p>We launched</p>', from: FROM });
    // And it cannot be changed after the fact.
    const edit = await key.request('PUT', `/campaigns/${campaign.id}`, {
      body: { ...campaign, subject: 'Rewritten' },
    });
    expect(edit.status).toBe(409);
    expect((await getCampaign(key, campaign.id)).subject).toBe('Launch day');
  });
});
