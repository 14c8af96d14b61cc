import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/platform/db/client.js';
import { movableClock } from '../support/clock.js';
import { verifiedDomain } from '../support/domains.js';
import { publishMailDomain, solve } from '../support/forms.js';
import { deliveredMessage, recordWhen, sendInbound, sendOk, useSinkAndDns } from '../support/sending.js';
import {
  type Client,
  client,
  eventually,
  expectBody,
  expectErrorEnvelope,
  pollUntil,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../support/server.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';
import { updateContact } from '../support/workflows.js';

/**
 * A contact's export and erase over HTTP, on the real PostgreSQL, with mail delivered to a real SMTP
 * sink and received over SMTP. The person has every kind of row the service keeps about someone;
 * after the erase, a scan of the text of every row of every table finds their address and data
 * nowhere, the hash of the address is what is left, and the aggregate counts are those of before.
 */

const mail = useSinkAndDns();
const clock = movableClock();
const DOMAIN = 'privacy-sender.test';
const PERSON_DOMAIN = 'analytical-engine.dev';
const FROM = `hello@${DOMAIN}`;
let server: TestServer;
let p: TestProject;
let receiver: Receiver;
let publicApi: Client;

beforeAll(async () => {
  publishMailDomain(mail.dns, PERSON_DOMAIN);
  server = await startTestServer(
    {
      SMTP_URL: mail.sink.url,
      DNS_SERVERS: mail.dns.address,
      INBOUND_SMTP_PORT: '0',
      TRUST_PROXY: 'true',
      REDIS_URL: '',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      DELIVERY_RETRY_BASE_SECONDS: '0.2',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '100000',
    },
    { clock },
  );
  p = await server.project('privacy');
  publicApi = client(server.url, p.publicKey);
  await verifiedDomain(p.api, mail.dns, DOMAIN);
  receiver = await startReceiver();
  // Every event of the project goes to a webhook: its deliveries carry the address.
  const hook = await p.api.post('/webhooks', { url: `${receiver.url}/all`, events: ['*'] });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
});

let n = 0;
/** A person of their own: an address and data no other test uses. */
const person = () => {
  const tag = `${++n}${Math.random().toString(36).slice(2, 8)}`;
  return { email: `ada.lovelace.${tag}@${PERSON_DOMAIN}`, city: `Marylebone-${tag}`, tag };
};

const db = () => server.service.ctx.db;

/**
 * Every table whose rows' text holds `needle` (case-insensitive), with how many rows; a partition's
 * rows count under its parent's name.
 */
async function tablesHolding(needle: string): Promise<Record<string, number>> {
  const tables = await run<{ name: string; shown: string }>(
    db(),
    sql`select c.relname as name, coalesce(parent.relname, c.relname) as shown
      from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
      left join pg_inherits i on i.inhrelid = c.oid left join pg_class parent on parent.oid = i.inhparent
      where ns.nspname = 'public' and c.relkind = 'r' order by 1`,
  );
  const found: Record<string, number> = {};
  for (const { name, shown } of tables.rows) {
    const r = await run<{ n: number }>(
      db(),
      sql`select count(*)::int as n from ${sql.raw(`"${name}"`)} t where strpos(lower(t::text), lower(${needle})) > 0`,
    );
    if (r.rows[0]!.n > 0) found[shown] = (found[shown] ?? 0) + r.rows[0]!.n;
  }
  return found;
}

/** The counts the statistics show, which an erase must leave as they are. */
async function aggregates(campaignId: string) {
  const campaign = (await expectBody(p.api.get(`/campaigns/${campaignId}`))) as Record<string, unknown>;
  const daily = await run<{ name: string; n: number }>(
    db(),
    sql`select name, sum(count)::int as n from event_daily_counts where project_id = ${p.id} group by 1 order by 1`,
  );
  const emails = await run<{ status: string; n: number }>(
    db(),
    sql`select status, count(*)::int as n from emails where project_id = ${p.id} group by 1 order by 1`,
  );
  const recipients = await run<{ outcome: string | null; n: number }>(
    db(),
    sql`select outcome, count(*)::int as n from campaign_recipients where campaign_id = ${campaignId} group by 1 order by 1`,
  );
  const counters = Object.fromEntries(Object.entries(campaign).filter(([k]) => /Count$|^totalRecipients$/.test(k)));
  return { counters, daily: daily.rows, emails: emails.rows, recipients: recipients.rows };
}

/**
 * The counts once they stand still: daily counts and campaign counters of deliveries just made may
 * still be on their way in when a test returns from making them.
 */
async function settledAggregates(campaignId: string) {
  let last = await aggregates(campaignId);
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await aggregates(campaignId);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  throw new Error('the counts did not settle within 10 s');
}

/** A contact with a row of every kind: what export must return and erase must remove. */
async function personWithEverything() {
  const who = person();
  const contact = await expectBody(
    p.api.post('/contacts', { email: who.email, subscribed: true, data: { city: who.city, batch: who.tag } }),
    201,
  );
  // An event through /v1/track, which starts a workflow execution for the contact.
  const workflow = await expectBody(
    p.api.post('/workflows', { name: `Welcome ${who.tag}`, triggerConfig: { event: `signed_up_${who.tag}` } }),
    201,
  );
  await expectBody(
    p.api.post(`/workflows/${workflow.id}/steps`, { name: 'mark', ...updateContact({ data: { welcomed: true } }) }),
    201,
  );
  await expectBody(p.api.patch(`/workflows/${workflow.id}`, { enabled: true }));
  await expectBody(
    publicApi.post('/v1/track', { email: who.email, event: `signed_up_${who.tag}`, data: { plan: 'pro' } }),
  );
  await eventually(async () => {
    const r = await run(
      db(),
      sql`select 1 from workflow_executions where contact_id = ${contact.id} and status = 'completed'`,
    );
    return r.rows.length > 0 ? true : undefined;
  });
  // A transactional email delivered through the SMTP sink, its body naming the person.
  const sent = await sendOk(p.api, {
    to: who.email,
    from: FROM,
    subject: `Your receipt, ${who.city}`,
    body: `<p>Dear {{ email }} of {{ data.city }}</p>`,
  });
  const emailId = sent.emails[0]!.email;
  await deliveredMessage(mail.sink, emailId);
  await recordWhen(p.api, emailId, (r) => r.status === 'sent');
  // A campaign to the person.
  const campaign = await expectBody(
    p.api.post('/campaigns', {
      name: `News ${who.tag}`,
      subject: 'News',
      body: '<p>News for {{ email }}</p>',
      from: FROM,
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.batch', operator: 'equals', value: who.tag }] }],
      },
    }),
    201,
  );
  await expectBody(p.api.post(`/campaigns/${campaign.data.id}/send`));
  await pollUntil(
    () => expectBody(p.api.get(`/campaigns/${campaign.data.id}`)),
    (c: { status: string; sentCount: number }) => c.status === 'SENT' && c.sentCount === 1,
    30_000,
  );
  // Inbound mail from the person, received over SMTP.
  const info = await sendInbound(
    server,
    { from: who.email, to: [`support@${DOMAIN}`] },
    `From: Ada <${who.email}>\r\nTo: support@${DOMAIN}\r\nSubject: Question from ${who.city}\r\nMessage-ID: <q-${who.tag}@${PERSON_DOMAIN}>\r\n\r\nHello, this is ${who.email}.\r\n`,
  );
  expect(info.accepted).toEqual([`support@${DOMAIN}`]);
  await eventually(async () => {
    const r = await run(db(), sql`select 1 from inbound_emails where contact_id = ${contact.id}`);
    return r.rows.length > 0 ? true : undefined;
  });
  // A static segment the person is a member of.
  const segment = await expectBody(p.api.post('/segments', { name: `Segment ${who.tag}`, type: 'STATIC' }), 201);
  const added = await p.api.post(`/segments/${segment.id}/members`, { emails: [who.email] });
  expect(added.status, JSON.stringify(added.body)).toBeLessThan(300);
  // A signup through a form with double opt-in (of someone who had unsubscribed meanwhile).
  await expectBody(p.api.patch(`/contacts/${contact.id}`, { subscribed: false }));
  const form = await expectBody(
    p.api.post('/forms', { name: `Form ${who.tag}`, senderEmail: FROM, consentText: { en: 'I agree.' } }),
    201,
  );
  const challenge = await (await fetch(`${server.url}/v1/forms/${form.id}/challenge`)).json();
  const altcha = solve((challenge as { data: Parameters<typeof solve>[0] }).data);
  clock.advance(3_000);
  const submitted = await fetch(`${server.url}/v1/forms/${form.id}/submissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${n}` },
    body: JSON.stringify({ email: who.email, altcha }),
  });
  expect(submitted.status, await submitted.clone().text()).toBeLessThan(300);
  await eventually(async () => {
    const r = await run(db(), sql`select 1 from form_signups where contact_id = ${contact.id}`);
    return r.rows.length > 0 ? true : undefined;
  });
  // Its confirmation email delivered too, so the daily counts stand still before an erase compares them.
  await eventually(async () => {
    const r = await run(db(), sql`select 1 from emails where contact_id = ${contact.id} and status = 'queued'`);
    return r.rows.length === 0 ? true : undefined;
  });
  // The address on the suppression list, added by hand (its audit entry names the address).
  await expectBody(p.api.post('/suppressions', { email: who.email, detail: `asked by ${who.city}` }), 201);
  // Every event reached the webhook, so deliveries hold the address.
  await eventually(async () => {
    const r = await run(db(), sql`select 1 from webhook_deliveries where strpos(payload::text, ${who.email}) > 0`);
    return r.rows.length > 0 ? true : undefined;
  });
  return { who, contact, campaignId: campaign.data.id as string, emailId, workflowId: workflow.id as string };
}

async function eraseAndWait(api: Client, contactId: string) {
  const res = await api.post(`/contacts/${contactId}/erase`);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const done = await pollUntil(
    () => expectBody(api.get(`/contacts/erase/${res.body.data.jobId}`)),
    (j: { status: string; total: number; errors: unknown[] }) => j.status === 'completed',
    30_000,
  ).catch(async (err) => {
    const jobs = await run(db(), sql`select state, attempts, last_error from jobs where queue = 'contacts.erase'`);
    throw new Error(`${err}: ${JSON.stringify(jobs.rows)}`);
  });
  return { answer: res.body, done };
}

describe('export', () => {
  it('returns every kind of row held about the contact, as one JSON document, and is audited', async () => {
    const { who, contact, emailId, workflowId } = await personWithEverything();
    const topic = await expectBody(p.api.post('/topics', { name: `Weekly ${who.tag}` }), 201);
    await expectBody(p.api.patch(`/contacts/${contact.id}`, { topics: { [topic.id]: true } }));
    const res = await fetch(`${server.url}/contacts/${contact.id}/export`, {
      headers: { authorization: `Bearer ${p.secretKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="contact-${contact.id}.json"`);
    const doc = (await res.json()) as Record<string, any>;
    expect(doc.contact).toMatchObject({ id: contact.id, email: who.email, data: { city: who.city } });
    expect(Object.keys(doc)).toEqual([
      'exportedAt',
      'projectId',
      'contact',
      'events',
      'emails',
      'inboundEmails',
      'consentHistory',
      'topics',
      'segments',
      'campaigns',
      'workflowExecutions',
      'formSignups',
      'suppressions',
    ]);
    const names = doc.events.map((e: { name: string }) => e.name);
    expect(names).toContain(`signed_up_${who.tag}`);
    expect(names).toContain('email.sent');
    const transactional = doc.emails.find((e: { id: string }) => e.id === emailId);
    expect(transactional.html).toContain(`Dear ${who.email} of ${who.city}`);
    expect(doc.emails.some((e: { campaignId: string | null }) => e.campaignId)).toBe(true);
    expect(doc.inboundEmails[0]).toMatchObject({ fromEmail: who.email, subject: `Question from ${who.city}` });
    expect(doc.inboundEmails[0].text).toContain(who.email);
    expect(doc.segments[0].name).toBe(`Segment ${who.tag}`);
    expect(doc.campaigns[0]).toMatchObject({ name: `News ${who.tag}`, outcome: expect.any(String) });
    expect(doc.workflowExecutions[0]).toMatchObject({ workflowId, status: 'completed' });
    expect(doc.workflowExecutions[0].steps.length).toBeGreaterThan(0);
    expect(doc.formSignups[0]).toMatchObject({ formName: `Form ${who.tag}`, consentText: 'I agree.' });
    expect(doc.suppressions[0]).toMatchObject({ email: who.email, reason: 'manual' });
    // The consent history: created with the key, unsubscribed, a signup on the form from the visitor's
    // address, then a topic chosen.
    expect(doc.consentHistory.map((r: { change: string; topicId: string | null }) => [r.change, r.topicId])).toEqual([
      ['subscribed', null],
      ['unsubscribed', null],
      ['pending', null],
      ['subscribed', topic.id],
    ]);
    expect(doc.topics).toContainEqual(
      expect.objectContaining({ id: topic.id, name: `Weekly ${who.tag}`, subscribed: true, chosen: true }),
    );
    expect(doc.consentHistory[2]).toMatchObject({
      source: 'form',
      consentText: 'I agree.',
      actor: 'visitor',
      ip: expect.stringMatching(/^198\.51\.100\./),
    });

    const audit = await run<{ changes: unknown }>(
      db(),
      sql`select changes from audit_log where action = 'contact.exported' and target_id = ${contact.id}`,
    );
    expect(audit.rows).toHaveLength(1);
    expect(JSON.stringify(audit.rows)).not.toContain(who.email);
    // A public key reads nothing of it.
    expect([401, 403]).toContain((await publicApi.get(`/contacts/${contact.id}/export`)).status);
  });

  it('streams a history of 30,000 events in pages, in order', async () => {
    const who = person();
    const contact = await expectBody(p.api.post('/contacts', { email: who.email }), 201);
    await run(
      db(),
      sql`insert into events (id, project_id, contact_id, name, data, created_at)
        select gen_random_uuid(), ${p.id}, ${contact.id}, 'page_view', jsonb_build_object('n', g),
          now() - (30000 - g) * interval '1 second'
        from generate_series(1, 30000) g`,
    );
    const res = await fetch(`${server.url}/contacts/${contact.id}/export`, {
      headers: { authorization: `Bearer ${p.secretKey}` },
    });
    const doc = (await res.json()) as { events: { data: { n: number } }[] };
    expect(doc.events).toHaveLength(30_000);
    expect(doc.events.map((e) => e.data.n)).toEqual(Array.from({ length: 30_000 }, (_, i) => i + 1));
  });
});

describe('erase', () => {
  it('leaves the address nowhere but as its salted hash, and keeps the aggregate counts', async () => {
    const { who, contact, campaignId } = await personWithEverything();
    const before = await tablesHolding(who.email);
    // Before: the address is in every kind of row.
    for (const table of ['contacts', 'emails', 'inbound_emails', 'suppressions', 'webhook_deliveries', 'audit_log'])
      expect(Object.keys(before)).toContain(table);
    const counts = await settledAggregates(campaignId);

    const { answer, done } = await eraseAndWait(p.api, contact.id);
    expect(answer.data.addressHash).toEqual({ kept: true, purpose: expect.stringContaining('salted hash') });
    expect(done).toMatchObject({ contactId: contact.id, progress: 1 });
    expect(done.total).toBeGreaterThan(5);

    // Nothing holds the address, the person's data or their words, in any table.
    expect(await tablesHolding(who.email)).toEqual({});
    expect(await tablesHolding(who.city)).toEqual({});
    expect(await tablesHolding(`q-${who.tag}`)).toEqual({});
    // Nothing is left by contact id either, but in the audit entries and the erase's own record
    // (which answers a repeated request and the job's progress; it holds no address).
    expect(await tablesHolding(contact.id)).toEqual({ audit_log: expect.any(Number), contact_jobs: 1 });
    const hashes = await run(db(), sql`select address_hash from erased_addresses where project_id = ${p.id}`);
    expect(hashes.rows.length).toBeGreaterThanOrEqual(1);
    expect((hashes.rows[0] as { address_hash: string }).address_hash).toMatch(/^[0-9a-f]{64}$/);

    expect(await aggregates(campaignId)).toEqual(counts);
    const audit = await run<{ action: string }>(
      db(),
      sql`select action from audit_log where target_type = 'contact' and target_id = ${contact.id} order by created_at, action`,
    );
    expect(audit.rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(['contact.erase_requested', 'contact.erased']),
    );

    expect((await p.api.get(`/contacts/${contact.id}`)).status).toBe(404);
    // Asking again answers the same, finished erase.
    const again = await p.api.post(`/contacts/${contact.id}/erase`);
    expect(again.status).toBe(200);
    expect(again.body.data.jobId).toBe(answer.data.jobId);
  });

  it('finds the mail of the address that no contact links to, exports it, and leaves nothing of it but the hash', async () => {
    const who = person();
    const inbound = (subject: string) =>
      sendInbound(
        server,
        { from: who.email, to: [`support@${DOMAIN}`] },
        `From: Ada <${who.email.toUpperCase()}>\r\nTo: support@${DOMAIN}\r\nSubject: ${subject} from ${who.city}\r\n\r\nThis is ${who.email}.\r\n`,
      );
    const inboundRows = async () =>
      (
        await run<{ subject: string; contact_id: string | null }>(
          db(),
          sql`select subject, contact_id from inbound_emails where from_email = ${who.email} order by received_at`,
        )
      ).rows;
    // Mail from the address while it is no contact: stored linked to nothing.
    await inbound('Before');
    await eventually(async () => ((await inboundRows()).length === 1 ? true : undefined));
    // A send makes the address a contact; its reply is that contact's, announced to the webhook.
    const sent = await sendOk(p.api, {
      to: who.email.toUpperCase(),
      from: FROM,
      subject: `Your receipt, ${who.city}`,
      body: '<p>Dear {{ email }}</p>',
    });
    const emailId = sent.emails[0]!.email;
    const first = sent.emails[0]!.contact.id;
    await deliveredMessage(mail.sink, emailId);
    await recordWhen(p.api, emailId, (r) => r.status === 'sent');
    await inbound('Reply');
    await eventually(async () => {
      const r = await run(
        db(),
        sql`select 1 from webhook_deliveries where event_name = 'email.received' and payload #>> '{data,from}' = ${who.email}`,
      );
      return r.rows.length > 0 ? true : undefined;
    });
    // That contact is deleted (not erased): its email, its mail and the deliveries stay, linked to nothing.
    expect((await p.api.delete(`/contacts/${first}`)).status).toBe(204);
    expect((await inboundRows()).map((r) => r.contact_id)).toEqual([null, null]);
    const unlinked = await run(db(), sql`select contact_id, to_email from emails where id = ${emailId}`);
    expect(unlinked.rows).toEqual([{ contact_id: null, to_email: who.email }]);

    // The address comes back as a contact: its export holds the mail of the address, linked or not.
    const contact = await expectBody(p.api.post('/contacts', { email: who.email, data: { city: who.city } }), 201);
    const res = await fetch(`${server.url}/contacts/${contact.id}/export`, {
      headers: { authorization: `Bearer ${p.secretKey}` },
    });
    const doc = (await res.json()) as Record<string, any>;
    expect(doc.emails.map((e: { id: string; toEmail: string }) => [e.id, e.toEmail])).toEqual([[emailId, who.email]]);
    expect(doc.inboundEmails.map((m: { subject: string }) => m.subject)).toEqual([
      `Before from ${who.city}`,
      `Reply from ${who.city}`,
    ]);
    expect(Object.keys(await tablesHolding(who.email))).toEqual(
      expect.arrayContaining(['emails', 'inbound_emails', 'webhook_deliveries']),
    );

    const { done } = await eraseAndWait(p.api, contact.id);
    expect(done.total).toBeGreaterThanOrEqual(3);
    expect(await tablesHolding(who.email)).toEqual({});
    expect(await tablesHolding(who.city)).toEqual({});
    // The email stays for the figures that count it, with nothing of the person.
    const kept = await run(db(), sql`select status, to_email, subject, html from emails where id = ${emailId}`);
    expect(kept.rows).toEqual([{ status: 'sent', to_email: '', subject: '', html: '' }]);
    expectErrorEnvelope(await p.api.post('/contacts', { email: who.email }), 422, 'ADDRESS_ERASED');
  });

  it('keeps the address out of the API, /v1/track, imports, sends and forms; with the setting off it comes back', async () => {
    const who = person();
    const contact = await expectBody(p.api.post('/contacts', { email: who.email, data: { city: who.city } }), 201);
    await eraseAndWait(p.api, contact.id);

    expectErrorEnvelope(await p.api.post('/contacts', { email: who.email }), 422, 'ADDRESS_ERASED');
    expectErrorEnvelope(await p.api.post('/contacts', { email: who.email.toUpperCase() }), 422, 'ADDRESS_ERASED');
    // Nor can another contact take the address.
    const someone = await expectBody(p.api.post('/contacts', { email: person().email }), 201);
    expectErrorEnvelope(await p.api.patch(`/contacts/${someone.id}`, { email: who.email }), 422, 'ADDRESS_ERASED');
    expectErrorEnvelope(
      await publicApi.post('/v1/track', { email: who.email, event: 'came_back' }),
      422,
      'ADDRESS_ERASED',
    );
    // A track of someone else in the same moment is written.
    const other = person();
    const [refused, accepted] = await Promise.all([
      publicApi.post('/v1/track', { email: who.email, event: 'came_back' }),
      publicApi.post('/v1/track', { email: other.email, event: 'came_back' }),
    ]);
    expect([refused.status, accepted.status]).toEqual([422, 200]);
    const send = await p.api.post('/v1/send', { to: who.email, from: FROM, subject: 'Hi', body: '<p>Hi</p>' });
    expectErrorEnvelope(send, 422, 'ADDRESS_ERASED');
    // A form refuses it, saying why, and stores nothing.
    const signupForm = await expectBody(
      p.api.post('/forms', { name: `Keep out ${who.tag}`, senderEmail: FROM, consentText: { en: 'I agree.' } }),
      201,
    );
    // In the visitor's language, beside the address field.
    for (const [language, words] of [
      ['en', 'removed from this list'],
      ['de', 'aus dieser Liste gelöscht'],
    ]) {
      const challenge = await (await fetch(`${server.url}/v1/forms/${signupForm.id}/challenge`)).json();
      const altcha = solve((challenge as { data: Parameters<typeof solve>[0] }).data);
      clock.advance(3_000);
      const submitted = await fetch(`${server.url}/v1/forms/${signupForm.id}/submissions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': '198.51.100.200',
          'accept-language': language!,
        },
        body: JSON.stringify({ email: who.email, altcha }),
      });
      expect(submitted.status).toBe(422);
      const { error } = (await submitted.json()) as { error: { code: string; message: string; errors: unknown[] } };
      expect(error.code).toBe('ADDRESS_ERASED');
      expect(error.message).toContain(words);
      expect(error.errors).toEqual([expect.objectContaining({ field: 'email', message: error.message })]);
    }

    const csv = `email,city\n${who.email},Back\n${other.email},Fine\n`;
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    const job = await p.api.request('POST', '/contacts/import', { raw: form });
    expect(job.status).toBe(202);
    const imported = await pollUntil(
      () => expectBody(p.api.get(`/contacts/import/${job.body.jobId}`)),
      (j: { status: string; total: number; errors: unknown[] }) => j.status === 'completed',
    );
    expect(imported).toMatchObject({ failed: 1, updated: 1, created: 0 });
    expect(imported.errors).toEqual([{ row: 2, message: expect.stringContaining('erased') }]);
    expect(await tablesHolding(who.email)).toEqual({});

    // With the setting off, the kept hashes go, and the address can be added again.
    const settings = await expectBody(p.api.patch('/privacy-settings', { keepErasedAddresses: false }));
    expect(settings).toMatchObject({ keepErasedAddresses: false, erasedAddresses: 0 });
    expect((await p.api.post('/contacts', { email: who.email })).status).toBe(201);

    // An erase with the setting off keeps nothing of the address: it can come back at once.
    const third = person();
    const c3 = await expectBody(p.api.post('/contacts', { email: third.email }), 201);
    const { answer } = await eraseAndWait(p.api, c3.id);
    expect(answer.data.addressHash.kept).toBe(false);
    expect(await tablesHolding(third.email)).toEqual({});
    expect((await p.api.post('/contacts', { email: third.email })).status).toBe(201);
    await expectBody(p.api.patch('/privacy-settings', { keepErasedAddresses: true }));
  });

  it('answers 404 for a contact of another project, and erases nothing there', async () => {
    const who = person();
    const contact = await expectBody(p.api.post('/contacts', { email: who.email }), 201);
    const other = await server.project('privacy-other');
    expect((await other.api.post(`/contacts/${contact.id}/erase`)).status).toBe(404);
    expect((await other.api.get(`/contacts/${contact.id}/export`)).status).toBe(404);
    expect((await p.api.get(`/contacts/${contact.id}`)).body.email).toBe(who.email);
  });
});

describe('retention of email bodies and inbound mail', () => {
  it('empties the content of emails and removes inbound mail past the project’s days, in batches', async () => {
    const project = await server.project('retention');
    await expectBody(project.api.patch('/privacy-settings', { emailBodyRetentionDays: 30, inboundRetentionDays: 10 }));
    const contact = await expectBody(project.api.post('/contacts', { email: person().email }), 201);
    const day = 86_400_000;
    const now = clock.now().getTime();
    // 2,500 emails 40 days old, 10 a day old; 1,200 inbound messages 20 days old, 5 of today.
    await run(
      db(),
      sql`insert into emails (id, project_id, contact_id, type, status, from_email, to_email, subject, html, text,
          headers, message_id, created_at, updated_at)
        select gen_random_uuid(), ${project.id}::uuid, ${contact.id}::uuid, 'TRANSACTIONAL', 'sent', ${FROM}, 'x@y.test',
          'Subject ' || g, '<p>old body</p>', 'old body', '{"X-A":"1"}'::jsonb, '<m' || g || '@x>',
          ${new Date(now - 40 * day)}::timestamptz + g * interval '1 ms', now()
        from generate_series(1, 2500) g
        union all
        select gen_random_uuid(), ${project.id}::uuid, ${contact.id}::uuid, 'TRANSACTIONAL', 'sent', ${FROM}, 'x@y.test',
          'Recent ' || g, '<p>new body</p>', 'new body', '{}'::jsonb, '<n' || g || '@x>', ${new Date(now - day)}, now()
        from generate_series(1, 10) g`,
    );
    await run(
      db(),
      sql`insert into inbound_emails (project_id, from_email, "to", subject, text, attachments, received_at)
        select ${project.id}::uuid, 'a@b.test', '[]'::jsonb, 'old', 'old', '[]'::jsonb, ${new Date(now - 20 * day)}::timestamptz from generate_series(1, 1200)
        union all
        select ${project.id}::uuid, 'a@b.test', '[]'::jsonb, 'new', 'new', '[]'::jsonb, ${new Date(now)}::timestamptz from generate_series(1, 5)`,
    );
    const { applyMailRetention } = await import('../../src/modules/privacy/retention.js');
    const first = await applyMailRetention(server.service.ctx);
    expect(first.emailBodies).toBeGreaterThanOrEqual(2500);
    const emails = await run<{ kept: number; emptied: number; subjects: number }>(
      db(),
      sql`select count(*) filter (where html <> '')::int as kept,
          count(*) filter (where html = '' and text is null and content_removed_at is not null)::int as emptied,
          count(*) filter (where subject like 'Subject %' or subject like 'Recent %')::int as subjects
        from emails where project_id = ${project.id}`,
    );
    expect(emails.rows[0]).toEqual({ kept: 10, emptied: 2500, subjects: 2510 });
    const inbound = await run<{ n: number }>(
      db(),
      sql`select count(*)::int as n from inbound_emails where project_id = ${project.id}`,
    );
    expect(inbound.rows[0]!.n).toBe(5);
    // The next run starts where this one stopped: nothing more to do.
    expect(await applyMailRetention(server.service.ctx)).toMatchObject({ inboundEmails: 0 });
    const shown = await expectBody(project.api.get('/privacy-settings'));
    expect(shown).toMatchObject({ emailBodyRetentionDays: 30, inboundRetentionDays: 10, eventRetentionDays: null });
    expectErrorEnvelope(
      await project.api.patch('/privacy-settings', { inboundRetentionDays: 0 }),
      422,
      'VALIDATION_ERROR',
    );
  });
});
