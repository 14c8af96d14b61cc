import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Domain, EmailRecord, TrackedEvent } from '../../src/api.js';
import { checkAllDomains } from '../../src/modules/domains/service.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { verifiedDomain } from '../support/domains.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import {
  emailRecord,
  messageIdOf,
  recordWhen,
  sendOk,
  sinkMessagesFor,
  sinkMessagesTo,
  uniqueAddresses,
} from '../support/sending.js';
import {
  type ChildServer,
  type Client,
  client,
  eventually,
  expectErrorEnvelope,
  spawnService,
  startTestServer,
  type TestProject,
} from '../support/server.js';
import { type SmtpSink, startSmtpSink, type Verdict } from '../support/smtp-sink.js';

const DOMAIN = 'faults.test';
const FROM = `alerts@${DOMAIN}`;
const ACCEPT: Verdict = { accept: true };

let sinkDown = false;
let project: TestProject;

const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });

beforeAll(async () => {
  project = await projectWithDomain(mail, 'faults', DOMAIN);
});
afterEach(async () => {
  // Whatever a test did to the sink, the next one starts with a listening sink that accepts.
  mail.sink.respond(() => ACCEPT);
  if (sinkDown) {
    await mail.sink.start();
    sinkDown = false;
  }
});

const rcpt = uniqueAddresses('rcpt.faults.test');

/** Has the sink refuse every message to `to` with this answer, and accept the rest; gives the refusals so far. */
function refuse(to: string, code: number, message: string): () => number {
  let refusals = 0;
  mail.sink.respond((m) => {
    if (!m.to.includes(to)) return ACCEPT;
    refusals++;
    return { accept: false, code, message };
  });
  return () => refusals;
}

async function sendOne(api: Client, to: string, from = FROM): Promise<string> {
  const data = await sendOk(api, { to, from, subject: `To ${to}`, body: `<p>Message for ${to}</p>` });
  return data.emails[0]!.email;
}

async function eventsFor(api: Client, name: string, emailId: string) {
  const res = await api.get(`/events?limit=100&name=${encodeURIComponent(name)}`);
  expect(res.status).toBe(200);
  return (res.body.data as TrackedEvent[]).filter((e) => e.data.emailId === emailId);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('temporary failures', () => {
  it('keeps mail queued while the SMTP server is down, and delivers each message exactly once when it is back', async () => {
    await mail.sink.stop();
    sinkDown = true;
    const recipients = Array.from({ length: 5 }, (_, i) => rcpt(`down${i}`));
    const ids: string[] = [];
    for (const to of recipients) ids.push(await sendOne(project.api, to));

    const waiting = await eventually(
      async () => {
        const records = await Promise.all(ids.map((id) => emailRecord(project.api, id)));
        return records.every((r) => r.attempts >= 2 && r.lastError) ? records : undefined;
      },
      15_000,
      50,
    );
    for (const r of waiting) {
      expect(r).toMatchObject({ status: 'queued', sentAt: null, failedAt: null, smtpResponse: null });
      expect(r.lastError).toMatch(/ECONNREFUSED/);
      expect(r.nextAttemptAt).toEqual(expect.any(String));
    }

    await mail.sink.start();
    sinkDown = false;
    const sent = await eventually(
      async () => {
        const records = await Promise.all(ids.map((id) => emailRecord(project.api, id)));
        return records.every((r) => r.status === 'sent') ? records : undefined;
      },
      20_000,
      50,
    );
    for (const [i, r] of sent.entries()) {
      expect(r).toMatchObject({ status: 'sent', lastError: null, failedAt: null, nextAttemptAt: null });
      expect(r.attempts).toBeGreaterThanOrEqual(2);
      expect(r.smtpResponse).toMatch(/^250\b/);
      expect(sinkMessagesFor(mail.sink, ids[i]!)).toHaveLength(1);
      expect(sinkMessagesTo(mail.sink, recipients[i]!)).toHaveLength(1);
      expect(await eventsFor(project.api, 'email.sent', ids[i]!)).toHaveLength(1);
    }
    await sleep(500);
    for (const to of recipients) expect(sinkMessagesTo(mail.sink, to)).toHaveLength(1);
  });

  it('retries a 451 answer and delivers once the server accepts; attempts count every try', async () => {
    const to = rcpt('greylisted');
    const refusals = refuse(to, 451, 'Greylisted, try again later');
    const id = await sendOne(project.api, to);
    const retrying = await recordWhen(project.api, id, (r) => r.attempts >= 2 && r.lastError !== null);
    expect(retrying.status).toBe('queued');
    expect(retrying.lastError).toContain('451');
    expect(retrying.nextAttemptAt).toEqual(expect.any(String));

    mail.sink.respond(() => ACCEPT);
    const sent = await recordWhen(project.api, id, (r) => r.status === 'sent');
    expect(sent.attempts).toBe(refusals() + 1);
    expect(sent.lastError).toBeNull();
    expect(sinkMessagesFor(mail.sink, id)).toHaveLength(1);
  });
});

describe('permanent failures', () => {
  it('a 550 answer fails the email at once: status failed, lastError with 550, an email.failed event, no retry', async () => {
    const to = rcpt('nosuchuser');
    const seen = refuse(to, 550, 'No such user');
    const id = await sendOne(project.api, to);
    const failed = await recordWhen(project.api, id, (r) => r.status !== 'queued');
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 1,
      sentAt: null,
      smtpResponse: null,
      nextAttemptAt: null,
    });
    expect(failed.lastError).toContain('550');
    expect(failed.lastError).toContain('No such user');
    expect(failed.failedAt).toEqual(expect.any(String));

    const events = await eventsFor(project.api, 'email.failed', id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ name: 'email.failed', contactId: failed.contactId, data: { emailId: id } });
    expect(String(events[0]!.data.reason)).toContain('550');
    expect(await eventsFor(project.api, 'email.sent', id)).toEqual([]);

    // Well past several retry delays: still one attempt, nothing delivered.
    mail.sink.respond(() => ACCEPT);
    await sleep(1_000);
    expect(await emailRecord(project.api, id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(seen()).toBe(1);
    expect(sinkMessagesTo(mail.sink, to)).toEqual([]);
  });

  it('gives up after DELIVERY_MAX_ATTEMPTS temporary failures', async () => {
    const limited = await startTestServer({
      SMTP_URL: mail.sink.url,
      DNS_SERVERS: mail.dns.address,
      DELIVERY_RETRY_BASE_SECONDS: '0.2',
      DELIVERY_MAX_ATTEMPTS: '3',
    });
    try {
      const p = await limited.project('give-up');
      await verifiedDomain(p.api, mail.dns, 'giveup.faults.test');
      const to = rcpt('giveup');
      const refusals = refuse(to, 421, 'Service not available');
      const id = await sendOne(p.api, to, 'ops@giveup.faults.test');
      const failed = await recordWhen(p.api, id, (r) => r.status !== 'queued');
      expect(failed).toMatchObject({ status: 'failed', attempts: 3, sentAt: null });
      expect(failed.lastError).toContain('421');
      expect(failed.lastError).toContain('gave up after 3 attempts');
      expect(refusals()).toBe(3);
      expect(await eventsFor(p.api, 'email.failed', id)).toHaveLength(1);
    } finally {
      await limited.stop();
    }
  });
});

describe('a sender domain that stops verifying', () => {
  it('stops sending: new sends are refused with 403, and queued mail is held back', async () => {
    const fading = 'fading.faults.test';
    const view: Domain = await verifiedDomain(project.api, mail.dns, fading);
    const dkim = view.records.find((r) => r.purpose === 'dkim')!;

    // Keep one message queued: the relay answers 451 to it.
    const to = rcpt('held');
    const relayed = refuse(to, 451, 'Try again later');
    const id = await sendOne(project.api, to, `news@${fading}`);
    await recordWhen(project.api, id, (r) => r.attempts >= 1 && r.lastError !== null);

    mail.dns.set(dkim.name, 'TXT', []);
    expect(await checkAllDomains(mail.server.service.ctx)).toBeGreaterThanOrEqual(2);
    const domains = await project.api.get(`/domains/project/${project.id}`);
    expect(domains.status).toBe(200);
    const after = (domains.body as Domain[]).find((d) => d.domain === fading)!;
    expect(after.verified).toBe(false);
    expect(after.records.find((r) => r.purpose === 'dkim')!.status).toBe('pending');
    // The other domain of the project is untouched.
    expect((domains.body as Domain[]).find((d) => d.domain === DOMAIN)!.verified).toBe(true);

    const refused = await project.api.request('POST', '/v1/send', {
      body: { to: rcpt('refused'), from: `news@${fading}`, subject: 's', body: '<p>b</p>' },
    });
    expectErrorEnvelope(refused, 403, 'INTERNAL_SERVER_ERROR');
    expect(refused.body.error.details).toMatchObject({ domain: fading, registered: true, verified: false });

    // The check notifies the delivery engine, which drops its cached key: the next attempt is held back.
    const held: EmailRecord = await recordWhen(project.api, id, (r) => /not verified/.test(r.lastError ?? ''), 30_000);
    expect(held.status).toBe('queued');
    expect(held.attempts).toBeGreaterThan(relayed());
    mail.sink.respond(() => ACCEPT);
    await sleep(1_000);
    expect(await emailRecord(project.api, id)).toMatchObject({ status: 'queued', sentAt: null });
    expect(sinkMessagesTo(mail.sink, to)).toEqual([]);
  });
});

describe('a crash between accepting and delivering', () => {
  let db: TestDatabase;
  let crashSink: SmtpSink;
  let child: ChildServer | undefined;
  afterAll(async () => {
    await child?.kill();
    await crashSink?.stop();
    await db?.drop();
  });

  it('delivers every accepted message exactly once after a SIGKILL and a restart on the same database', async () => {
    db = await createTestDatabase();
    crashSink = await startSmtpSink();
    // The test polls 20 records at a time; the default 1000 requests a minute would run out.
    const env = {
      ...db.env,
      SMTP_URL: crashSink.url,
      DNS_SERVERS: mail.dns.address,
      DELIVERY_RETRY_BASE_SECONDS: '0.2',
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    child = await spawnService(env);
    const secret = /secret key: (sk_\S+)/.exec(child.output())?.[1];
    expect(secret, child.output()).toBeDefined();
    let api = client(child.url, secret!);
    await verifiedDomain(api, mail.dns, 'crash.faults.test');

    await crashSink.stop();
    const recipients = Array.from({ length: 20 }, (_, i) => rcpt(`crash${i}`));
    const ids = await Promise.all(recipients.map((to) => sendOne(api, to, 'ops@crash.faults.test')));
    expect(new Set(ids).size).toBe(20);

    // Kill only when every message has failed at least once (its outcome written, its lease
    // released) and none falls due before the kill: a message is claimed only once due, so
    // none can be leased at the moment of the kill.
    await eventually(
      async () => {
        const records = await Promise.all(ids.map((id) => emailRecord(api, id)));
        const now = Date.now();
        const quiet = records.every(
          (r) =>
            r.status === 'queued' &&
            r.attempts >= 1 &&
            r.lastError &&
            r.nextAttemptAt &&
            Date.parse(r.nextAttemptAt) > now + 300,
        );
        return quiet ? records : undefined;
      },
      30_000,
      50,
    );
    await child.kill('SIGKILL');
    expect(child.process.signalCode).toBe('SIGKILL');
    expect(crashSink.messages).toHaveLength(0);

    await crashSink.start();
    child = await spawnService(env);
    expect(child.output()).not.toContain('secret key:');
    api = client(child.url, secret!);

    await crashSink.waitFor(20, 30_000);
    const records = await eventually(
      async () => {
        const all = await Promise.all(ids.map((id) => emailRecord(api, id)));
        return all.every((r) => r.status === 'sent') ? all : undefined;
      },
      15_000,
      100,
    );
    expect(records.map((r) => r.status)).toEqual(Array(20).fill('sent'));
    await sleep(500);
    const received = crashSink.messages.map((m) => messageIdOf(m.raw));
    expect(received).toHaveLength(20);
    expect(new Set(received)).toEqual(new Set(ids.map((id) => `<${id}@crash.faults.test>`)));
    expect(crashSink.messages.map((m) => m.to[0]).sort()).toEqual([...recipients].sort());
  });
});
