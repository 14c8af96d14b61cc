import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/platform/db/client.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import {
  deliveredMessage,
  emailRecord,
  recordWhen,
  sendInbound,
  sendOk,
  uniqueAddresses,
  verifyDkim,
} from '../support/sending.js';
import type { ApiResponse, TestProject } from '../support/server.js';

// Each hostile input goes to the real service (HTTP and SMTP, in this process) while /health is
// asked over and over: every answer must come within a second, which it could not if the event
// loop were blocked, and the input must end in a clear, permanent failure.

const DOMAIN = 'mail.hostile.test';
const FROM = `hello@${DOMAIN}`;
/** Far above a healthy answer (milliseconds), far below what a blocked loop would show (seconds to minutes). */
const HEALTH_BOUND_MS = 1_000;

let main: TestProject;

const mail = useMailServer({ INBOUND_SMTP_PORT: '0', DELIVERY_RETRY_BASE_SECONDS: '0.2' });

beforeAll(async () => {
  main = await projectWithDomain(mail, 'hostile-main', DOMAIN);
});

const rcpt = uniqueAddresses('rcpt.hostile.test');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `work` while GET /health is asked in turn (20 ms apart); returns the work's result and how
 * long each health answer took. The server runs in this process, so a blocked event loop would
 * hold these answers back.
 */
async function whileProbingHealth<T>(work: () => Promise<T>): Promise<{ result: T; latencies: number[] }> {
  let done = false;
  const latencies: number[] = [];
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${mail.server.url}/health`);
      await res.text();
      latencies.push(performance.now() - started);
      expect(res.status).toBe(200);
      await sleep(20);
    }
  })();
  try {
    return { result: await work(), latencies };
  } finally {
    done = true;
    await probe;
  }
}

function expectResponsive(latencies: number[]): void {
  expect(latencies.length).toBeGreaterThanOrEqual(3);
  expect(Math.max(...latencies), `health latencies (ms): ${latencies.map(Math.round).join(' ')}`).toBeLessThan(
    HEALTH_BOUND_MS,
  );
}

/** The 422 of a template that cannot be rendered, in the standard envelope. */
function expectTemplateError(res: ApiResponse, field: 'subject' | 'body', message: RegExp): void {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(422);
  expect(res.body).toMatchObject({
    success: false,
    error: { code: 'VALIDATION_ERROR', statusCode: 422, requestId: expect.any(String) },
  });
  expect(res.body.error.errors).toEqual([{ field, code: 'invalid_template', message: expect.stringMatching(message) }]);
}

// Stopped by the thread's deadline, or by liquidjs between two nodes when one node alone took long
// (the range of 100,000 on a busy machine).
const RENDER_BOUND = /^Rendering took longer than (?:2|0\.2) s \(the limit\) and was stopped$/;

/** Delivers a raw message to the inbound SMTP listener; resolves with the answer, accepted or not. */
async function deliverInbound(to: string, raw: string): Promise<{ code: number; response: string }> {
  try {
    const info = await sendInbound(mail.server, { from: 'someone@sender.example', to: [to] }, raw);
    return { code: Number(info.response.slice(0, 3)), response: info.response };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string };
    if (e.responseCode === undefined) throw err;
    return { code: e.responseCode, response: e.response ?? '' };
  }
}

const inboundCount = async () => (await main.api.get('/inbound?limit=100')).body.total as number;

describe('inbound mail', () => {
  it('refuses 9.9 MB of deeply nested HTML for good (5xx) once sanitizing it passes its deadline', async () => {
    const head = [
      'From: Deep <deep@sender.example>',
      `To: support@${DOMAIN}`,
      'Subject: deep',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      '',
    ].join('\r\n');
    const raw = head + '<div>'.repeat(Math.floor((9_900_000 - head.length) / 5));
    const before = await inboundCount();
    const { result, latencies } = await whileProbingHealth(() => deliverInbound(`support@${DOMAIN}`, raw));
    expect(result.code, result.response).toBe(554);
    expect(result.response).toMatch(
      /5\.6\.0 Message refused: reading it took longer than 10 s \(the limit\) and was stopped/,
    );
    expectResponsive(latencies);
    expect(await inboundCount()).toBe(before);

    // The listener is still there and takes ordinary mail.
    const fine = await deliverInbound(
      `support@${DOMAIN}`,
      ['From: a@sender.example', `To: support@${DOMAIN}`, 'Subject: fine', '', 'Hello'].join('\r\n'),
    );
    expect(fine.code, fine.response).toBe(250);
    expect(await inboundCount()).toBe(before + 1);
  }, 40_000);

  it('refuses a header over 1 MB with a permanent 552, not a 451 that invites a retry', async () => {
    const folded = Array.from({ length: 16_000 }, () => ` ${'x'.repeat(70)}`).join('\r\n');
    const raw = [
      'From: big@sender.example',
      `To: support@${DOMAIN}`,
      'Subject: big header',
      `X-Padding:${folded}`,
      '',
      'Hello',
    ].join('\r\n');
    const { result, latencies } = await whileProbingHealth(() => deliverInbound(`support@${DOMAIN}`, raw));
    expect(result.code, result.response).toBe(552);
    expect(result.response).toMatch(/5\.3\.4 Message refused: Max header size for a MIME node exceeded/);
    expectResponsive(latencies);
  });
});

describe('Liquid', () => {
  // Each filter loops over an array within one template node, where liquidjs' 200 ms render limit
  // is never checked: measured in-process, each runs from 8 s to far beyond a minute.
  const hostile: Record<string, string> = {
    where: `{% assign a = (1..3000) %}{{ a | where_exp: "x", "a | where: 'size', x | size" | size }}`,
    where_exp: `{% assign a = (1..3000) %}{{ a | where_exp: "x", "a | where_exp: 'y', 'y == x' | size" | size }}`,
    find: `{% assign a = (1..100000) %}{{ a | find_exp: "x", "a | find: 'size', 7" | size }}`,
    find_exp: `{% assign a = (1..100000) %}{{ a | find_exp: "x", "a | find_exp: 'y', 'y == 0'" }}`,
    has_exp: `{% assign a = (1..100000) %}{{ a | has_exp: "x", "a | has_exp: 'y', 'y == 0'" }}`,
    sum: `{% assign a = (1..100000) %}{{ a | where_exp: "x", "a | sum" | size }}`,
  };

  it('stops where, where_exp, find, find_exp, has_exp and sum at the deadline: 422 from /v1/send', async () => {
    const { result, latencies } = await whileProbingHealth(() =>
      Promise.all(
        Object.values(hostile).map((body) =>
          main.api.post('/v1/send', { to: rcpt('liquid'), from: FROM, subject: 'Hi', body }),
        ),
      ),
    );
    for (const res of result) expectTemplateError(res, 'body', RENDER_BOUND);
    expectResponsive(latencies);
  }, 40_000);

  it('refuses a 9 MB body that would take minutes to parse: 422 at the deadline', async () => {
    const body = '{{a}}'.repeat(1_800_000);
    const { result, latencies } = await whileProbingHealth(() =>
      main.api.post('/v1/send', { to: rcpt('big'), from: FROM, subject: 'Hi', body }),
    );
    expectTemplateError(result, 'body', RENDER_BOUND);
    expectResponsive(latencies);
  });

  it('a saved template, a campaign and a subject fail the same way, and small templates still render', async () => {
    const template = await main.api.post('/templates', {
      name: 'hostile',
      subject: 'Hi',
      body: hostile.find_exp,
      from: FROM,
      type: 'TRANSACTIONAL',
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const campaign = await main.api.post('/campaigns', {
      name: 'hostile',
      subject: hostile.has_exp,
      body: '<p>Hi</p>',
      from: FROM,
      audienceType: 'ALL',
    });
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);

    const { result, latencies } = await whileProbingHealth(() =>
      Promise.all([
        main.api.post('/v1/send', { to: rcpt('template'), template: template.body.id }),
        main.api.post(`/campaigns/${campaign.body.data.id}/test`, { email: rcpt('campaign') }),
        sendOk(main.api, {
          to: rcpt('small'),
          from: FROM,
          subject: 'Hello {{ name ?? "you" }}',
          body: '<p>{{ items | size }} items</p>',
          data: { name: 'Ann', items: [1, 2] },
        }),
      ]),
    );
    const [fromTemplate, fromCampaign, small] = result;
    expectTemplateError(fromTemplate, 'body', RENDER_BOUND);
    expectTemplateError(fromCampaign, 'subject', RENDER_BOUND);
    const sent = await deliveredMessage(mail.sink, small.emails[0]!.email);
    const parsed = await simpleParser(sent.raw);
    expect(parsed.subject).toBe('Hello Ann');
    expect(parsed.html).toContain('<p>2 items</p>');
    expectResponsive(latencies);
  }, 40_000);
});

describe('outgoing HTML', () => {
  it('fails an email whose HTML is nested too deeply for its text part, at once and for good', async () => {
    const body = `<p>Deep</p>${'<div>'.repeat(30_000)}`;
    const { result, latencies } = await whileProbingHealth(async () => {
      const data = await sendOk(main.api, { to: rcpt('deep'), from: FROM, subject: 'Deep', body });
      return recordWhen(main.api, data.emails[0]!.email, (r) => r.status !== 'queued');
    });
    expect(result).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'Not sent: the plain-text part could not be made from the HTML: its elements are nested too deeply',
    });
    expect(mail.sink.messages.filter((m) => m.to.includes(result.to))).toEqual([]);
    expectResponsive(latencies);
  });
});

describe('attachments', () => {
  it('stores a large attachment once for 50 recipients, and delivers it intact and signed', async () => {
    const content = randomBytes(9_500_000);
    const recipients = Array.from({ length: 50 }, () => rcpt('attached'));
    // 49 of them are suppressed, so that one message (not 50 of 13 MB) crosses the loopback.
    for (const email of recipients.slice(1)) expect((await main.api.post('/suppressions', { email })).status).toBe(201);
    const attachment = {
      filename: 'big.bin',
      contentType: 'application/octet-stream',
      content: content.toString('base64'),
    };

    const { result, latencies } = await whileProbingHealth(() =>
      main.api.post('/v1/send', {
        to: recipients,
        from: FROM,
        subject: 'Your file',
        body: '<p>Attached.</p>',
        attachments: [attachment],
      }),
    );
    expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(200);
    const ids: string[] = result.body.data.emails.map((e: { email: string }) => e.email);
    expect(ids).toHaveLength(50);
    expectResponsive(latencies);

    // Meanwhile its delivery (base64 and DKIM over 13 MB, in steps) keeps the event loop free as well.
    const delivered = await whileProbingHealth(async () => {
      // One stored copy that all 50 emails refer to; none of them holds its own.
      const stored = await run<{ set_id: string | null; own: boolean }>(
        mail.server.service.ctx.db,
        sql`select attachment_set_id as set_id, attachments is not null as own from emails where id = any(${`{${ids.join(',')}}`}::uuid[])`,
      );
      expect(stored.rows).toHaveLength(50);
      const sets = new Set(stored.rows.map((r) => r.set_id));
      expect(sets.size).toBe(1);
      expect(stored.rows.every((r) => !r.own && r.set_id)).toBe(true);
      const size = await run<{ bytes: number }>(
        mail.server.service.ctx.db,
        sql`select octet_length(attachments::text)::int as bytes from attachment_sets where id = ${[...sets][0]}`,
      );
      expect(size.rows[0]!.bytes).toBeGreaterThan(12_000_000);
      expect((await emailRecord(main.api, ids[1]!)).status).toBe('skipped');
      return deliveredMessage(mail.sink, ids[0]!, 30_000);
    });
    expectResponsive(delivered.latencies);
    const dkim = await verifyDkim(delivered.result.raw, mail.dns);
    expect(dkim.results.map((r) => r.status.result)).toEqual(['pass']);
    const parsed = await simpleParser(delivered.result.raw);
    expect(parsed.attachments).toHaveLength(1);
    expect(createHash('sha256').update(parsed.attachments[0]!.content).digest('hex')).toBe(
      createHash('sha256').update(content).digest('hex'),
    );
  }, 60_000);
});

describe('domain keys', () => {
  it('generates RSA keys one at a time behind a bounded queue: a burst gets 503 with Retry-After, sign-in stays quick', async () => {
    const { result, latencies } = await whileProbingHealth(async () => {
      const burst = Array.from({ length: 40 }, async () => {
        const res = await main.api.post('/domains', { domain: `k${randomUUID().slice(0, 8)}.burst.hostile.test` });
        return { res, at: performance.now() };
      });
      await sleep(50);
      // Sign-in hashes the password with scrypt on the same libuv thread pool as key generation.
      const login = await main.api.post(
        '/auth/login',
        { email: 'nobody@hostile.test', password: 'not the password' },
        null,
      );
      const loginAt = performance.now();
      return { burst: await Promise.all(burst), login, loginAt };
    });
    const answers = result.burst.map((b) => b.res);
    const created = answers.filter((r) => r.status === 201);
    const refused = answers.filter((r) => r.status === 503);
    expect(created.length + refused.length, JSON.stringify(answers.map((r) => r.status))).toBe(40);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const res of refused) {
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.body).toMatchObject({
        success: false,
        error: {
          code: 'SERVICE_UNAVAILABLE',
          statusCode: 503,
          message: expect.stringMatching(/domain keys/),
          requestId: expect.any(String),
          details: { retryAfterSeconds: 2 },
        },
      });
    }
    expect(result.login.status).toBe(401);
    // Sign-in does not wait behind the queue: it is answered while the queued keys are still made.
    const lastKeyAt = Math.max(...result.burst.filter((b) => b.res.status === 201).map((b) => b.at));
    expect(result.loginAt).toBeLessThan(lastKeyAt);
    expectResponsive(latencies);
  });
});
