import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Domain } from '../../src/api.js';
import { publishRecords, verifiedDomain } from '../support/domains.js';
import { useServerWithDns } from '../support/mail-server.js';
import { selectorOf, sendOk, sentRecord, verifyDkim } from '../support/sending.js';
import { type Client, startTestServer } from '../support/server.js';

/** Without SMTP_URL mail is captured to the outbox: no DNS needed, nothing leaves the machine. */

let api: Client;
let other: Client;

const stack = useServerWithDns();

const READER = 'reader@example.com';
/** A plain message from `from`: these tests are about who may send it and what is kept, not its content. */
const message = (from: string) => ({ to: READER, from, subject: 'x', body: '<p>x</p>' });

beforeAll(async () => {
  api = (await stack.server.project('capture')).api;
  other = (await stack.server.project('other')).api;
});

describe('mail captured to the outbox', () => {
  it('sends from a domain nobody registered or verified, unsigned, and serves the message through the API', async () => {
    const { id } = await sentRecord(api, {
      to: READER,
      from: { name: 'Dev', email: 'dev@nowhere-verified.test' },
      subject: 'First five minutes',
      body: '<p>Hello {{ who ?? "you" }}</p>',
    });

    const raw = await api.request('GET', `/emails/${id}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toContain('message/rfc822');
    const parsed = await simpleParser(String(raw.body));
    expect(parsed.messageId).toBe(`<${id}@nowhere-verified.test>`);
    expect(parsed.subject).toBe('First five minutes');
    expect(parsed.from?.value).toEqual([{ address: 'dev@nowhere-verified.test', name: 'Dev' }]);
    expect(parsed.html).toContain('<p>Hello you</p>');
    expect(parsed.headers.has('dkim-signature')).toBe(false);
  });

  it('signs with the key of a registered domain that is not verified yet', async () => {
    const created = await api.post('/domains', { domain: 'pending.capture.test' });
    expect(created.status).toBe(201);
    const view = created.body as Domain;
    expect(view.verified).toBe(false);
    const { id } = await sentRecord(api, message('news@pending.capture.test'));
    const raw = await api.request('GET', `/emails/${id}/raw`);
    // Checked against the records the domain would publish: the signature is the one a receiver would see.
    publishRecords(stack.dns, view);
    const dkim = await verifyDkim(Buffer.from(String(raw.body)), stack.dns);
    expect(dkim.results[0]).toMatchObject({
      signingDomain: 'pending.capture.test',
      selector: selectorOf(view),
      status: { result: 'pass' },
    });
  });

  it('still refuses a domain another project registered (403), and hides other projects’ messages (404)', async () => {
    await verifiedDomain(other, stack.dns, 'taken.capture.test');
    const refused = await api.post('/v1/send', message('me@taken.capture.test'));
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ domain: 'taken.capture.test', registered: false });

    const theirs = (await sentRecord(other, message('them@taken.capture.test'))).id;
    expect((await api.get(`/emails/${theirs}/raw`)).status).toBe(404);
    expect((await other.get(`/emails/${theirs}/raw`)).status).toBe(200);
  });
});

describe('with a relay configured', () => {
  it('answers 404 for the raw message: nothing is captured', async () => {
    const relayed = await startTestServer({ DNS_SERVERS: stack.dns.address, SMTP_URL: 'smtp://127.0.0.1:9' });
    try {
      const project = await relayed.project('relayed');
      const refused = await project.api.post('/v1/send', message('dev@nowhere-verified.test'));
      expect(refused.status).toBe(403);
      const view = await verifiedDomain(project.api, stack.dns, 'relayed.capture.test');
      expect(view.verified).toBe(true);
      const id = (await sendOk(project.api, message('dev@relayed.capture.test'))).emails[0]!.email;
      const raw = await project.api.get(`/emails/${id}/raw`);
      expect(raw.status).toBe(404);
      expect(raw.body.error.message).toContain('SMTP relay');
    } finally {
      await relayed.stop();
    }
  });
});
