import { sql } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/platform/db/client.js';
import { movableClock } from '../support/clock.js';
import { verifiedDomain } from '../support/domains.js';
import { confirmationLink, publishMailDomain, solve } from '../support/forms.js';
import { sinkMessagesTo, useSinkAndDns } from '../support/sending.js';
import {
  eventually,
  expectErrorEnvelope,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../support/server.js';

/**
 * What the dashboard's Forms page reads besides the form itself, over HTTP: the statistics per day
 * (views, submissions, confirmations and their rates), the preview of a form being built, a
 * confirmation email from a template of the project (checked at the SMTP sink, its link working),
 * and which contacts wait on their confirmation link.
 */

const mail = useSinkAndDns();
// Real time: a challenge's expiry is checked against it. The days below are counted from today.
const clock = movableClock();
const dayOf = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const SENDER = 'news@stats-sender.test';
let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  publishMailDomain(mail.dns, 'readers-mail.dev');
  server = await startTestServer(
    { SMTP_URL: mail.sink.url, DNS_SERVERS: mail.dns.address, TRUST_PROXY: 'true', REDIS_URL: '' },
    { clock },
  );
  p = await server.project('form stats');
  await verifiedDomain(p.api, mail.dns, 'stats-sender.test');
});
afterAll(async () => {
  await server?.stop();
});

let ip = 0;
const visitor = () => `203.0.113.${++ip}`;

/** A form's challenge, fetched as its script does when the form is shown: one view. */
async function view(id: string) {
  const res = await fetch(`${server.url}/v1/forms/${id}/challenge`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Parameters<typeof solve>[0] }).data;
}

async function submit(id: string, email: string, data: Record<string, unknown> = {}) {
  const altcha = solve(await view(id));
  clock.advance(3_000);
  const res = await fetch(`${server.url}/v1/forms/${id}/submissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': visitor() },
    body: JSON.stringify({ email, data, altcha }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function linkFor(email: string) {
  const message = await eventually(async () => sinkMessagesTo(mail.sink, email)[0]);
  return confirmationLink(message, server.service.ctx.config.publicUrl, server.url);
}

describe('statistics of a form', () => {
  it('counts views, submissions and confirmations per day, with their rates', async () => {
    const today = clock.now().toISOString().slice(0, 10);
    const form = await p.api.post('/forms', { name: 'Weekly', senderEmail: SENDER });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    const id = form.body.id as string;

    // Day 1: three views without a submission, two submissions (each shows the form first), one confirmed.
    for (let i = 0; i < 3; i++) await view(id);
    await submit(id, 'one@readers-mail.dev');
    await submit(id, 'two@readers-mail.dev');
    const confirmed = await fetch(await linkFor('one@readers-mail.dev'), { method: 'POST' });
    expect(confirmed.status).toBe(200);
    // A second click confirms nothing more, and counts nothing more.
    await fetch(await linkFor('one@readers-mail.dev'), { method: 'POST' });

    // Day 3: one view, one submission.
    clock.advance(2 * 86_400_000);
    await submit(id, 'three@readers-mail.dev');

    const stats = await p.api.get(`/forms/${id}/stats?days=7`);
    expect(stats.status, JSON.stringify(stats.body)).toBe(200);
    expect(stats.body).toMatchObject({
      formId: id,
      from: dayOf(-4),
      to: dayOf(2),
      totals: { views: 6, submissions: 3, confirmations: 1, submissionRate: 0.5, confirmationRate: 0.3333 },
    });
    expect(stats.body.days).toHaveLength(7);
    expect(stats.body.days.filter((d: { views: number }) => d.views > 0)).toEqual([
      { day: today, views: 5, submissions: 2, confirmations: 1 },
      { day: dayOf(2), views: 1, submissions: 1, confirmations: 0 },
    ]);
    expect(stats.body.days[0]).toEqual({ day: dayOf(-4), views: 0, submissions: 0, confirmations: 0 });

    // One row per form and day, whatever the number of views.
    const rows = await run<{ n: number }>(
      server.service.ctx.db,
      sql`select count(*)::int as n from form_daily_stats where form_id = ${id}`,
    );
    expect(rows.rows).toEqual([{ n: 2 }]);
  });

  it('refuses a bad range, and answers 404 for another project’s form', async () => {
    const form = await p.api.post('/forms', { name: 'Quiet', doubleOptIn: false });
    const none = await p.api.get(`/forms/${form.body.id}/stats`);
    expect(none.body.totals).toEqual({
      views: 0,
      submissions: 0,
      confirmations: 0,
      submissionRate: null,
      confirmationRate: null,
    });
    expect(none.body.days).toHaveLength(30);
    expectErrorEnvelope(await p.api.get(`/forms/${form.body.id}/stats?days=0`), 422, 'VALIDATION_ERROR');
    expectErrorEnvelope(await p.api.get(`/forms/${form.body.id}/stats?days=366`), 422, 'VALIDATION_ERROR');
    const other = await server.project('someone else');
    expect((await other.api.get(`/forms/${form.body.id}/stats`)).status).toBe(404);
  });
});

describe('a confirmation email from a template', () => {
  it('is refused when the template is missing, another project’s, or lacks the link', async () => {
    const noLink = await p.api.post('/templates', {
      name: 'No link',
      subject: 'Hello',
      body: '<p>Welcome {{ email }}</p>',
      from: SENDER,
    });
    expect(noLink.status, JSON.stringify(noLink.body)).toBe(201);
    const refused = await p.api.post('/forms', {
      name: 'T',
      senderEmail: SENDER,
      confirmationTemplateId: noLink.body.id,
    });
    expectErrorEnvelope(refused, 422, 'VALIDATION_ERROR');
    expect(refused.body.error.errors[0]).toMatchObject({ field: 'confirmationTemplateId' });
    expect(refused.body.error.errors[0].message).toContain('{{ confirmationUrl }}');

    const missing = await p.api.post('/forms', {
      name: 'T',
      senderEmail: SENDER,
      confirmationTemplateId: '00000000-0000-4000-8000-000000000001',
    });
    expectErrorEnvelope(missing, 422, 'VALIDATION_ERROR');
    const other = await server.project('template owner');
    await verifiedDomain(other.api, mail.dns, 'other-sender.test');
    const theirs = await other.api.post('/templates', {
      name: 'Theirs',
      subject: 'S',
      body: '<a href="{{ confirmationUrl }}">go</a>',
      from: 'a@other-sender.test',
    });
    expect(theirs.status).toBe(201);
    const foreign = await p.api.post('/forms', {
      name: 'T',
      senderEmail: SENDER,
      confirmationTemplateId: theirs.body.id,
    });
    expectErrorEnvelope(foreign, 422, 'VALIDATION_ERROR');
  });

  it('sends the template with the form’s data and a link that confirms', async () => {
    const template = await p.api.post('/templates', {
      name: 'Our confirmation',
      subject: 'One click left, {{ firstName ?? "reader" }}',
      body:
        '<h1>Hi {{ firstName }}</h1><p><a href="{{ confirmationUrl }}">Yes, sign {{ email }} up</a></p>' +
        '<p>The link works for {{ confirmationDays }} days.</p>',
      from: SENDER,
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const form = await p.api.post('/forms', {
      name: 'Templated',
      senderEmail: SENDER,
      confirmationTtlDays: 3,
      fields: [{ key: 'firstName', type: 'string', required: true, label: { en: 'First name' } }],
      confirmationTemplateId: template.body.id,
    });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    expect(form.body.confirmationTemplateId).toBe(template.body.id);

    const email = 'grace@readers-mail.dev';
    await submit(form.body.id, email, { firstName: 'Grace' });
    const message = await eventually(async () => sinkMessagesTo(mail.sink, email)[0]);
    const parsed = await simpleParser(message.raw);
    expect(parsed.subject).toBe('One click left, Grace');
    expect(String(parsed.html)).toContain('<h1>Hi Grace</h1>');
    expect(String(parsed.html)).toContain(`Yes, sign ${email} up`);
    expect(String(parsed.html)).toContain('works for 3 days');

    const link = await confirmationLink(message, server.service.ctx.config.publicUrl, server.url);
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    const contact = await p.api.get(`/contacts?search=${encodeURIComponent(email)}`);
    expect(contact.body.data[0]).toMatchObject({ email, subscribed: true, data: { firstName: 'Grace' } });

    // Back to the built-in email: the next signup gets it, in the visitor's language.
    const back = await p.api.patch(`/forms/${form.body.id}`, { confirmationTemplateId: null });
    expect(back.body.confirmationTemplateId).toBeNull();
    const res = await fetch(`${server.url}/v1/forms/${form.body.id}/submissions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': visitor(), 'accept-language': 'de' },
      body: JSON.stringify({
        email: 'hans@readers-mail.dev',
        data: { firstName: 'Hans' },
        altcha: await (async () => {
          const solved = solve(await view(form.body.id));
          clock.advance(3_000);
          return solved;
        })(),
      }),
    });
    expect(res.status).toBe(200);
    const builtIn = await eventually(async () => sinkMessagesTo(mail.sink, 'hans@readers-mail.dev')[0]);
    const german = await simpleParser(builtIn.raw);
    expect(german.subject).not.toBe('One click left, Hans');
    expect(String(german.html)).toContain('lang="de"');
    expect(String(german.html)).toContain('hans@readers-mail.dev');
    await confirmationLink(builtIn, server.service.ctx.config.publicUrl, server.url);
  });
});

describe('the builder’s preview', () => {
  it('renders the hosted page and the embed code of a form not saved, without saving it', async () => {
    const before = (await p.api.get('/forms')).body.total;
    const res = await p.api.post('/forms/preview', {
      title: { en: 'Join the <club>' },
      fields: [{ key: 'city', type: 'string', label: { en: 'Your city' } }],
      consentText: { en: 'I agree.' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.html).toContain('Join the &lt;club&gt;');
    expect(res.body.html).toContain('Your city');
    expect(res.body.html).toContain('I agree.');
    expect(res.body.html).not.toContain('<script');
    expect(res.body.embedCode).toContain('<form class="postbox-form"');
    expect(res.body.embedCode).toContain('/f/script.js');
    expect((await p.api.get('/forms')).body.total).toBe(before);

    // A saved form's preview carries its own id, so its code is the code to paste.
    const saved = await p.api.post('/forms', { name: 'Saved', doubleOptIn: false });
    const own = await p.api.post('/forms/preview', { id: saved.body.id, name: 'Saved', doubleOptIn: false });
    expect(own.body.embedCode).toBe((await p.api.get(`/forms/${saved.body.id}`)).body.embedCode);
  });
});

describe('contacts waiting on their confirmation', () => {
  it('are named by id, and no longer once confirmed', async () => {
    const form = await p.api.post('/forms', { name: 'Pending', senderEmail: SENDER });
    await submit(form.body.id, 'wait@readers-mail.dev');
    await submit(form.body.id, 'done@readers-mail.dev');
    const ids: Record<string, string> = {};
    for (const email of ['wait@readers-mail.dev', 'done@readers-mail.dev']) {
      ids[email] = (await p.api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.data[0].id;
    }
    await fetch(await linkFor('done@readers-mail.dev'), { method: 'POST' });
    const other = await p.api.post('/contacts', { email: 'plain@readers-mail.dev' });

    const res = await p.api.get(
      `/forms/pending-signups?contactIds=${[ids['wait@readers-mail.dev'], ids['done@readers-mail.dev'], other.body.id].join(',')}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual([
      {
        contactId: ids['wait@readers-mail.dev'],
        formId: form.body.id,
        formName: 'Pending',
        confirmationSentAt: expect.any(String),
        expiresAt: expect.any(String),
      },
    ]);
    // Another project sees none of them.
    const stranger = await server.project('stranger');
    const theirs = await stranger.api.get(`/forms/pending-signups?contactIds=${ids['wait@readers-mail.dev']}`);
    expect(theirs.body.data).toEqual([]);
    expectErrorEnvelope(await p.api.get('/forms/pending-signups?contactIds=nope'), 422, 'VALIDATION_ERROR');
  });
});
