import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeUnconfirmedSignups } from '../../src/modules/forms/signup.js';
import { run } from '../../src/platform/db/client.js';
import { movableClock } from '../support/clock.js';
import { verifiedDomain } from '../support/domains.js';
import { confirmationLink, publishMailDomain, solve } from '../support/forms.js';
import { sinkMessagesTo, useSinkAndDns } from '../support/sending.js';
import {
  type ApiResponse,
  eventually,
  expectErrorEnvelope,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../support/server.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';
import { updateContact } from '../support/workflows.js';

/**
 * Signup forms over HTTP: the forms API, and the public pipeline as a browser or a static site
 * uses it (challenge, proof of work, submission, confirmation email at a real SMTP sink, the link).
 * Every refusal is checked to leave nothing behind.
 */

const mail = useSinkAndDns();
const clock = movableClock();
const SENDER = 'news@forms-sender.test';
const SITE = 'https://www.example-shop.test';
let server: TestServer;
let p: TestProject;
let formId: string;
let receiver: Receiver;
let welcomeWorkflow: string;

beforeAll(async () => {
  publishMailDomain(mail.dns, 'acme-widgets.dev');
  server = await startTestServer(
    {
      SMTP_URL: mail.sink.url,
      DNS_SERVERS: mail.dns.address,
      TRUST_PROXY: 'true',
      REDIS_URL: '',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    { clock },
  );
  p = await server.project('forms');
  await verifiedDomain(p.api, mail.dns, 'forms-sender.test');
  receiver = await startReceiver();
  const hook = await p.api.post('/webhooks', { url: `${receiver.url}/confirmed`, events: ['contact.confirmed'] });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  // A workflow that starts on a confirmation and marks the contact welcomed.
  const workflow = await p.api.post('/workflows', { name: 'Welcome', triggerConfig: { event: 'contact.confirmed' } });
  expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
  welcomeWorkflow = workflow.body.id;
  const step = await p.api.post(`/workflows/${welcomeWorkflow}/steps`, {
    name: 'welcome',
    ...updateContact({ data: { welcomed: true } }),
  });
  expect(step.status, JSON.stringify(step.body)).toBe(201);
  expect((await p.api.patch(`/workflows/${welcomeWorkflow}`, { enabled: true })).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
});

let ip = 0;
/** A visitor of its own: another client address, so the per-address limit is not what a test meets. */
const visitor = () => `198.51.100.${++ip}`;

async function challenge(id: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/v1/forms/${id}/challenge`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Parameters<typeof solve>[0] }).data;
}

/** A solved challenge, issued long enough ago to pass the minimum fill time. */
async function proof(id = formId): Promise<string> {
  const solved = await solve(await challenge(id));
  clock.advance(3_000);
  return solved;
}

async function submit(body: Record<string, unknown>, headers: Record<string, string> = {}, id = formId) {
  const res = await fetch(`${server.url}/v1/forms/${id}/submissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': visitor(), ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any } satisfies ApiResponse;
}

async function contactRow(email: string) {
  const r = await run<{ id: string; subscribed: boolean; data: Record<string, unknown> }>(
    server.service.ctx.db,
    sql`select id, subscribed, data from contacts where project_id = ${p.id} and email = ${email}`,
  );
  return r.rows[0];
}

async function storedCount(email: string) {
  const r = await run<{ n: number }>(
    server.service.ctx.db,
    sql`select (select count(*) from contacts where email = ${email})::int +
      (select count(*) from form_signups s join contacts c on c.id = s.contact_id where c.email = ${email})::int as n`,
  );
  return r.rows[0]!.n;
}

const validForm = {
  name: 'Newsletter',
  fields: [
    { key: 'firstName', type: 'string', required: true, label: { en: 'First name', de: 'Vorname' } },
    { key: 'age', type: 'number', label: { en: 'Age' } },
  ],
  senderEmail: SENDER,
  senderName: 'The Shop',
  consentText: { en: 'I agree to receive the newsletter.' },
  allowedOrigins: [SITE],
};

describe('the forms API', () => {
  it('creates a form, with topics empty, the hosted URL and an audit entry', async () => {
    const res = await p.api.post('/forms', validForm);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Newsletter',
      doubleOptIn: true,
      confirmationTtlDays: 7,
      topics: [],
      allowedOrigins: [SITE],
      url: `${server.service.ctx.config.publicUrl}/f/${res.body.id}`,
    });
    expect(res.body.fields[1]).toEqual({ key: 'age', type: 'number', required: false, label: { en: 'Age' } });
    formId = res.body.id;
    const audit = await run(
      server.service.ctx.db,
      sql`select action from audit_log where target_type = 'form' and target_id = ${formId}`,
    );
    expect(audit.rows).toEqual([{ action: 'form.created' }]);
  });

  it('refuses bad input field by field, and creates nothing', async () => {
    const res = await p.api.post('/forms', {
      name: '',
      fields: [{ key: 'email', label: {} }],
      allowedOrigins: ['https://ok.test/path'],
      title: { xx: 'Hello' },
    });
    expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
    const fields = res.body.error.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['allowedOrigins.0', 'fields.0.key', 'fields.0.label', 'name', 'title.xx']);

    const noSender = await p.api.post('/forms', { name: 'No sender' });
    expectErrorEnvelope(noSender, 422, 'VALIDATION_ERROR');
    expect(noSender.body.error.errors[0].field).toBe('senderEmail');

    const foreign = await p.api.post('/forms', { name: 'Foreign sender', senderEmail: 'me@not-ours.test' });
    expect(foreign.status).toBe(403);
    expect((await p.api.get('/forms')).body.total).toBe(1);
  });

  it('lists, shows with the embed code, changes and deletes, within the project only', async () => {
    const second = await p.api.post('/forms', { name: 'Second', doubleOptIn: false });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    const first = await p.api.get('/forms?limit=1');
    expect(first.body).toMatchObject({ total: 2, hasMore: true });
    expect(first.body.data[0].id).toBe(second.body.id);
    const next = await p.api.get(`/forms?limit=1&cursor=${first.body.cursor}`);
    expect(next.body).toMatchObject({ total: 0, hasMore: false, data: [{ id: formId }] });

    const shown = await p.api.get(`/forms/${formId}`);
    expect(shown.body.embedCode).toContain(
      `data-postbox-form="${server.service.ctx.config.publicUrl}/v1/forms/${formId}"`,
    );
    expect(shown.body.embedCode).toContain('<script src="');
    expect(shown.body.embedCode).toContain('First name');

    const patched = await p.api.patch(`/forms/${second.body.id}`, {
      name: 'Renamed',
      redirectUrl: 'https://x.test/thanks',
    });
    expect(patched.body).toMatchObject({ name: 'Renamed', redirectUrl: 'https://x.test/thanks', doubleOptIn: false });
    const bad = await p.api.patch(`/forms/${second.body.id}`, { doubleOptIn: true });
    expectErrorEnvelope(bad, 422, 'VALIDATION_ERROR');

    const other = await server.project('other');
    expect((await other.api.get(`/forms/${formId}`)).status).toBe(404);
    expect((await other.api.delete(`/forms/${formId}`)).status).toBe(404);
    expect((await p.api.delete(`/forms/${second.body.id}`)).status).toBe(204);
    expect((await p.api.get(`/forms/${second.body.id}`)).status).toBe(404);
  });
});

describe('a submission with double opt-in', () => {
  it('makes a pending contact and sends one confirmation, whose link confirms only by POST', async () => {
    const email = 'ann@acme-widgets.dev';
    const res = await submit({ email, data: { firstName: 'Ann', age: '41' }, altcha: await proof() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { status: 'pending', redirectUrl: null } });
    expect(res.body.data.message).toContain(email);

    const pending = await contactRow(email);
    expect(pending).toMatchObject({ subscribed: false });
    expect(pending!.data.firstName).toBeUndefined();

    const [message] = await mail.sink.waitFor(1);
    expect(message!.to).toEqual([email]);
    const link = await confirmationLink(message!, server.service.ctx.config.publicUrl, server.url);

    // A mail scanner fetches the link: the page shows, nothing is confirmed.
    const scanned = await fetch(link);
    expect(scanned.status).toBe(200);
    expect(await scanned.text()).toContain('Confirm my subscription');
    expect((await contactRow(email))!.subscribed).toBe(false);

    const confirmed = await fetch(link, { method: 'POST' });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Subscription confirmed');
    const contact = await contactRow(email);
    expect(contact).toMatchObject({ subscribed: true, data: { firstName: 'Ann', age: 41, locale: 'en' } });
    const events = await run(
      server.service.ctx.db,
      sql`select name, data from events where contact_id = ${contact!.id} and name = 'contact.confirmed'`,
    );
    expect(events.rows).toEqual([
      { name: 'contact.confirmed', data: { formId, consentText: 'I agree to receive the newsletter.' } },
    ]);
    // Webhooks carry it, as any other event.
    const delivered = await eventually(async () => receiver.to('/confirmed')[0]);
    expect(JSON.parse(delivered.body)).toMatchObject({ type: 'contact.confirmed' });
    expect(delivered.body).toContain(formId);
    // Workflows start on it: the welcome workflow marks the contact.
    await eventually(async () => ((await contactRow(email))!.data.welcomed === true ? true : undefined));
    const runs = await p.api.get(`/workflows/${welcomeWorkflow}/executions?limit=100`);
    expect(runs.body.data.filter((e: { contactId: string }) => e.contactId === contact!.id)).toHaveLength(1);
    // A second click says it is done, and records nothing more.
    const again = await fetch(link, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('Subscription confirmed');
    const recorded = await run(
      server.service.ctx.db,
      sql`select count(*)::int as n from events where contact_id = ${contact!.id} and name = 'contact.confirmed'`,
    );
    expect(recorded.rows).toEqual([{ n: 1 }]);
    // The consent history: the signup and its confirmation, each with the form, the text shown and where from.
    const consent = await p.api.get(`/contacts/${contact!.id}/consent`);
    expect(consent.status).toBe(200);
    const shown = { source: 'form', sourceId: formId, consentText: 'I agree to receive the newsletter.' };
    expect(consent.body.data).toEqual([
      expect.objectContaining({ ...shown, change: 'confirmed', actor: { kind: 'visitor', id: null, label: null } }),
      expect.objectContaining({ ...shown, change: 'pending', ip: expect.stringMatching(/^198\.51\.100\./) }),
    ]);
  });

  it('sends one confirmation an hour to one address, however often it is submitted', async () => {
    const email = 'bombed@acme-widgets.dev';
    for (let i = 0; i < 20; i++) {
      const res = await submit({ email, data: { firstName: 'X' }, altcha: await proof() });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await eventually(async () => (sinkMessagesTo(mail.sink, email).length === 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 500));
    expect(sinkMessagesTo(mail.sink, email)).toHaveLength(1);
    // One signup on record too: the submissions that sent nothing added nothing to the history.
    const contact = await contactRow(email);
    expect((await p.api.get(`/contacts/${contact!.id}/consent`)).body.total).toBe(1);
    // The link of that one email still works.
    const link = await confirmationLink(
      sinkMessagesTo(mail.sink, email)[0]!,
      server.service.ctx.config.publicUrl,
      server.url,
    );
    expect((await fetch(link)).status).toBe(200);
  });

  it('writes submissions that arrive together apart: each its email, its consent, its visitor', async () => {
    const instant = await p.api.post('/forms', { name: 'Together', doubleOptIn: false, consentText: { en: 'Yes.' } });
    const readers = Array.from({ length: 12 }, (_, i) => ({ email: `together${i}@acme-widgets.dev`, form: formId }));
    const repeated = Array.from({ length: 5 }, () => ({ email: 'twice@acme-widgets.dev', form: formId }));
    const instantly = Array.from({ length: 8 }, (_, i) => ({
      email: `at-once${i}@acme-widgets.dev`,
      form: instant.body.id,
    }));
    const all = [...readers, ...repeated, ...instantly];
    const proofs: string[] = [];
    for (const s of all) proofs.push(await proof(s.form));
    const sent = await Promise.all(
      all.map((s, i) =>
        submit(
          { email: s.email, data: { firstName: `Reader ${i}` }, altcha: proofs[i] },
          {
            'x-forwarded-for': `203.0.113.${i + 1}`,
            'user-agent': `Reader browser ${i + 1}`,
          },
          s.form,
        ),
      ),
    );
    expect(sent.map((r) => r.status)).toEqual(all.map(() => 200));
    expect(sent.map((r) => r.body.data.status)).toEqual(all.map((s) => (s.form === formId ? 'pending' : 'subscribed')));

    for (const email of [...readers.map((r) => r.email), 'twice@acme-widgets.dev']) {
      await eventually(async () => (sinkMessagesTo(mail.sink, email).length === 1 ? true : undefined));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(sinkMessagesTo(mail.sink, 'twice@acme-widgets.dev')).toHaveLength(1);
    // Each record names its own visitor, not another of the same batch.
    const records = await run<{ email: string; change: string; ip: string; user_agent: string }>(
      server.service.ctx.db,
      sql`select c.email, r.change, r.ip, r.user_agent from consent_records r join contacts c on c.id = r.contact_id
        where c.email like 'together%' or c.email like 'at-once%' or c.email = 'twice@acme-widgets.dev'`,
    );
    const expected = all.flatMap((s, i) =>
      s.email === 'twice@acme-widgets.dev'
        ? []
        : [
            {
              email: s.email,
              change: s.form === formId ? 'pending' : 'subscribed',
              ip: `203.0.113.${i + 1}`,
              user_agent: `Reader browser ${i + 1}`,
            },
          ],
    );
    const twice = records.rows.filter((r) => r.email === 'twice@acme-widgets.dev');
    expect(records.rows.filter((r) => r.email !== 'twice@acme-widgets.dev')).toEqual(expect.arrayContaining(expected));
    expect(records.rows).toHaveLength(expected.length + 1);
    expect(twice).toHaveLength(1);
    const twiceAt = repeated.map((_, k) => readers.length + k);
    expect(twiceAt.map((i) => `203.0.113.${i + 1}`)).toContain(twice[0]!.ip);
    for (const s of instantly) expect((await contactRow(s.email))!.subscribed).toBe(true);
  });

  it('expires links after the form’s days, and sends a new one on request', async () => {
    const email = 'late@acme-widgets.dev';
    expect((await submit({ email, data: { firstName: 'Late' }, altcha: await proof() })).status).toBe(200);
    const first = await eventually(async () => sinkMessagesTo(mail.sink, email)[0]);
    const link = await confirmationLink(first, server.service.ctx.config.publicUrl, server.url);
    clock.advance(8 * 86_400_000);
    const expired = await fetch(link, { method: 'POST' });
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('Send me a new link');
    expect((await contactRow(email))!.subscribed).toBe(false);
    const resent = await fetch(`${link}/resend`, { method: 'POST' });
    expect(resent.status).toBe(200);
    const second = await eventually(async () => sinkMessagesTo(mail.sink, email)[1]);
    const fresh = await confirmationLink(second, server.service.ctx.config.publicUrl, server.url);
    expect(fresh).not.toBe(link);
    expect((await fetch(fresh, { method: 'POST' })).status).toBe(200);
    expect((await contactRow(email))!.subscribed).toBe(true);
  });
});

describe('pending contacts never confirmed', () => {
  it('are removed with their signup after 30 days; a contact that existed before stays', async () => {
    const ghost = 'ghost@acme-widgets.dev';
    const known = 'known@acme-widgets.dev';
    expect((await p.api.post('/contacts', { email: known, subscribed: false })).status).toBe(201);
    for (const email of [ghost, known]) {
      expect((await submit({ email, data: { firstName: 'G' }, altcha: await proof() })).status).toBe(200);
    }
    expect(await contactRow(ghost)).toMatchObject({ subscribed: false });
    clock.advance(31 * 86_400_000);
    // The worker's hourly purge falls due on the same clock: whichever call runs first does the work.
    await purgeUnconfirmedSignups(server.service.ctx);
    await eventually(async () => ((await storedCount(ghost)) === 0 && (await storedCount(known)) === 1) || undefined);
    expect(await contactRow(known)).toMatchObject({ subscribed: false });
  });
});

describe('refusals, each in words and storing nothing', () => {
  const email = (tag: string) => `${tag}@acme-widgets.dev`;
  const expectRefused = async (res: ApiResponse, status: number, code: string, address: string) => {
    expectErrorEnvelope(res, status, code);
    expect(res.body.error.message).not.toMatch(/^\s*$/);
    expect(await storedCount(address)).toBe(0);
  };

  it('a filled honeypot', async () => {
    const res = await submit({
      email: email('hp'),
      data: { firstName: 'B' },
      website: 'http://spam',
      altcha: await proof(),
    });
    await expectRefused(res, 400, 'BOT_SUSPECTED', email('hp'));
  });

  it('a form sent faster than a person fills it', async () => {
    const issued = await challenge(formId);
    // Solving takes this test a moment of its own: the clock says no time passed since the challenge.
    clock.advance(-60_000);
    const res = await submit({ email: email('fast'), data: { firstName: 'B' }, altcha: await solve(issued) });
    clock.advance(60_000);
    await expectRefused(res, 400, 'TOO_FAST', email('fast'));
    expect(res.body.error.message).toContain('quicker than a person');
  });

  it('a missing, forged or replayed proof of work', async () => {
    await expectRefused(
      await submit({ email: email('nopow'), data: { firstName: 'B' } }),
      400,
      'CHALLENGE_FAILED',
      email('nopow'),
    );
    const solved = JSON.parse(Buffer.from(await proof(), 'base64').toString());
    const forged = Buffer.from(JSON.stringify({ ...solved, number: solved.number + 1 })).toString('base64');
    await expectRefused(
      await submit({ email: email('forged'), data: { firstName: 'B' }, altcha: forged }),
      400,
      'CHALLENGE_FAILED',
      email('forged'),
    );
    const once = await proof();
    expect((await submit({ email: email('replay1'), data: { firstName: 'B' }, altcha: once })).status).toBe(200);
    await expectRefused(
      await submit({ email: email('replay2'), data: { firstName: 'B' }, altcha: once }),
      400,
      'CHALLENGE_FAILED',
      email('replay2'),
    );
  });

  it('a disposable or mistyped address, with a suggestion', async () => {
    mail.dns.set('mailinator.com', 'MX', [{ exchange: 'mx.mailinator.com', priority: 10 }]);
    const disposable = await submit({ email: 'temp@mailinator.com', data: { firstName: 'B' }, altcha: await proof() });
    await expectRefused(disposable, 422, 'ADDRESS_REFUSED', 'temp@mailinator.com');
    expect(disposable.body.error.errors[0].field).toBe('email');
    const typo = await submit({ email: 'ann@gmial.com', data: { firstName: 'B' }, altcha: await proof() });
    await expectRefused(typo, 422, 'ADDRESS_REFUSED', 'ann@gmial.com');
    expect(typo.body.error.suggestion).toBe('ann@gmail.com');
    expect(typo.body.error.message).toContain('ann@gmail.com');
  });

  it('missing required fields, in the visitor’s language', async () => {
    const res = await submit({ email: email('missing'), data: {}, altcha: await proof() }, { 'accept-language': 'de' });
    await expectRefused(res, 422, 'VALIDATION_ERROR', email('missing'));
    expect(res.body.error.errors).toEqual([
      { field: 'data.firstName', message: 'Bitte füllen Sie dieses Feld aus.', code: 'required' },
    ]);
  });

  it('too many submissions from one address', async () => {
    const from = { 'x-forwarded-for': '203.0.113.99' };
    for (let i = 0; i < 30; i++) expect((await submit({ email: '' }, from)).status).toBe(422);
    const res = await submit({ email: email('limited'), data: { firstName: 'B' }, altcha: await proof() }, from);
    await expectRefused(res, 429, 'RATE_LIMIT_EXCEEDED', email('limited'));
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('CORS', () => {
  it('answers an allowed origin with its CORS headers, preflight included', async () => {
    const preflight = await fetch(`${server.url}/v1/forms/${formId}/submissions`, {
      method: 'OPTIONS',
      headers: {
        origin: SITE,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    const res = await submit(
      { email: 'cors@acme-widgets.dev', data: { firstName: 'C' }, altcha: await proof() },
      { origin: SITE },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SITE);
  });

  it('refuses another origin and stores nothing', async () => {
    const evil = 'https://evil.test';
    const preflight = await fetch(`${server.url}/v1/forms/${formId}/submissions`, {
      method: 'OPTIONS',
      headers: { origin: evil, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const res = await submit(
      { email: 'evil@acme-widgets.dev', data: { firstName: 'E' }, altcha: await proof() },
      { origin: evil },
    );
    expectErrorEnvelope(res, 403, 'ORIGIN_NOT_ALLOWED');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await storedCount('evil@acme-widgets.dev')).toBe(0);
  });
});

describe('without double opt-in', () => {
  it('subscribes at once and sends nothing', async () => {
    const form = await p.api.post('/forms', { name: 'Instant', doubleOptIn: false });
    const email = 'instant@acme-widgets.dev';
    const res = await submit({ email, altcha: await proof(form.body.id) }, {}, form.body.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe('subscribed');
    expect((await contactRow(email))!.subscribed).toBe(true);
    expect(sinkMessagesTo(mail.sink, email)).toHaveLength(0);
  });
});

describe('a form whose sender the project lost', () => {
  it('tells the visitor it cannot take signups now, and stores nothing', async () => {
    const domain = await verifiedDomain(p.api, mail.dns, 'lost-sender.test');
    const form = await p.api.post('/forms', { name: 'Lost', senderEmail: 'news@lost-sender.test' });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    expect((await p.api.delete(`/domains/${domain.id}`)).status).toBe(204);
    const email = 'lost@acme-widgets.dev';
    const res = await submit({ email, altcha: await proof(form.body.id) }, {}, form.body.id);
    expectErrorEnvelope(res, 503, 'FORM_UNAVAILABLE');
    expect(res.body.error.message).toBe('Please try again later.');
    expect(res.headers.get('retry-after')).toBe('300');
    expect(await storedCount(email)).toBe(0);
  });
});

describe('topics offered by a form', () => {
  it('shows each offered topic unticked, and applies the visitor’s choices when the link is used', async () => {
    const launches = await p.api.post('/topics', { name: 'Launches', description: 'New things' });
    const digest = await p.api.post('/topics', { name: 'Digest', defaultOn: true });
    expect(launches.status).toBe(201);
    const bad = await p.api.post('/forms', { ...validForm, topics: ['00000000-0000-4000-8000-000000000000'] });
    expectErrorEnvelope(bad, 422, 'VALIDATION_ERROR');
    expect(bad.body.error.errors[0]).toMatchObject({ code: 'unknown_topic' });
    const made = await p.api.post('/forms', {
      ...validForm,
      name: 'With topics',
      topics: [launches.body.id, digest.body.id],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.topics).toEqual([launches.body.id, digest.body.id]);
    const id = made.body.id as string;

    const page = await (await fetch(`${server.url}/f/${id}`)).text();
    expect(page).toContain('<legend>What you receive</legend>');
    expect(page).toMatch(new RegExp(`type="checkbox" name="topic" value="${launches.body.id}" data-topic="[^"]+">`));
    expect(page).toContain('Launches');
    expect((await p.api.get(`/forms/${id}`)).body.embedCode).toContain(`data-topic="${digest.body.id}"`);

    const email = 'topics@acme-widgets.dev';
    const res = await submit(
      { email, data: { firstName: 'Tia' }, topics: [launches.body.id, 'not-offered'], altcha: await proof(id) },
      {},
      id,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const message = await eventually(async () => sinkMessagesTo(mail.sink, email)[0]);
    const link = await confirmationLink(message, server.service.ctx.config.publicUrl, server.url);
    const pending = await p.api.get(`/contacts/${(await contactRow(email))!.id}`);
    // Pending: nothing chosen yet is applied.
    expect(pending.body.topics).toEqual(expect.objectContaining({ [launches.body.id]: false, [digest.body.id]: true }));
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    const confirmed = await p.api.get(`/contacts/${(await contactRow(email))!.id}`);
    expect(confirmed.body).toMatchObject({ subscribed: true });
    // Ticked: on; offered and left unticked: off, even a topic on by default.
    expect(confirmed.body.topics).toEqual(
      expect.objectContaining({ [launches.body.id]: true, [digest.body.id]: false }),
    );
  });
});
