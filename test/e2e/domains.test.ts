import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsRecord, Domain } from '../../src/api.js';
import { checkAllDomains, signingKeyFor } from '../../src/modules/domains/service.js';
import { run } from '../../src/platform/db/client.js';
import { startDnsServer } from '../support/dns-server.js';
import { publishRecords, verifiedDomain } from '../support/domains.js';
import { useServerWithDns } from '../support/mail-server.js';
import { UNKNOWN_ID, UUID } from '../support/sending.js';
import {
  type ApiResponse,
  type Client,
  expectBody,
  expectErrorEnvelope,
  startTestServer,
  type TestProject,
  type TestServer,
} from '../support/server.js';

let main: TestProject;
let other: TestProject;

// A relay is configured (nothing is sent to it here), so the sender rules for mail that leaves apply.
const stack = useServerWithDns({ SMTP_URL: 'smtp://127.0.0.1:9' });

beforeAll(async () => {
  main = await stack.server.project('domains-main');
  other = await stack.server.project('domains-other');
});

let seq = 0;
/** A fresh name per test, so tests in this file never see each other's domains or DNS records. */
const uniqueDomain = (tag: string) => `${tag}-${++seq}.domains.test`;

const DOMAIN_KEYS = [
  'checkedAt',
  'createdAt',
  'domain',
  'id',
  'projectId',
  'records',
  'updatedAt',
  'verified',
  'verifiedAt',
];

async function addDomain(api: Client, domain: string): Promise<Domain> {
  return expectBody(api.post('/domains', { domain }), 201);
}

/** A domain of the main project whose records are all in DNS, as its owner was told to publish them. */
async function publishedDomain(tag: string): Promise<Domain> {
  const view = await addDomain(main.api, uniqueDomain(tag));
  publishRecords(stack.dns, view);
  return view;
}

async function verify(api: Client, id: string): Promise<Domain> {
  return expectBody(api.get(`/domains/${id}/verify`));
}

const record = (view: Domain, purpose: DnsRecord['purpose']) => view.records.find((r) => r.purpose === purpose)!;
const statuses = (view: Domain) => Object.fromEntries(view.records.map((r) => [r.purpose, r.status]));
const publicKeyOf = (view: Domain) => /p=([A-Za-z0-9+/=]+)$/.exec(record(view, 'dkim').value)![1]!;

/** 422 VALIDATION_ERROR whose first error names the path parameter `field`. */
function expectInvalidParameter(res: ApiResponse, field: string): void {
  expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
  expect(res.body.error.errors[0].field).toBe(field);
}

describe('POST /domains', () => {
  it('registers a domain and returns the records to publish, all pending', async () => {
    const res = await main.api.post('/domains', { domain: '  Mail.Example-Co.TEST ' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const view = res.body as Domain;
    expect(Object.keys(view).sort()).toEqual(DOMAIN_KEYS);
    expect(view).toMatchObject({
      domain: 'mail.example-co.test',
      verified: false,
      verifiedAt: null,
      checkedAt: null,
      projectId: main.id,
    });
    expect(view.id).toMatch(UUID);
    expect(Date.parse(view.createdAt)).not.toBeNaN();
    expect(view.updatedAt).toBe(view.createdAt);

    // Without INBOUND_SMTP_PORT there is no return-path record.
    expect(view.records.map((r) => [r.type, r.purpose, r.required, r.status])).toEqual([
      ['TXT', 'dkim', true, 'pending'],
      ['TXT', 'verification', true, 'pending'],
      ['TXT', 'spf', false, 'pending'],
      ['TXT', 'dmarc', false, 'pending'],
    ]);
    for (const r of view.records)
      expect(Object.keys(r).sort()).toEqual([
        'advice',
        'description',
        'dmarc',
        'name',
        'purpose',
        'required',
        'status',
        'step',
        'type',
        'value',
      ]);
    // Ownership first, DMARC last; each record says what it is for and what to do.
    expect(Object.fromEntries(view.records.map((r) => [r.purpose, r.step]))).toEqual({
      verification: 1,
      dkim: 2,
      spf: 3,
      dmarc: 4,
    });
    for (const r of view.records) {
      expect(r.description).toMatch(/^[A-Z].{20,}\.$/);
      expect(r.advice).toMatch(/^Publish this record|^No DMARC record is published/);
    }

    const dkim = record(view, 'dkim');
    expect(dkim.name).toMatch(/^pbx[0-9a-f]{8}\._domainkey\.mail\.example-co\.test$/);
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
    const key = createPublicKey({ key: Buffer.from(publicKeyOf(view), 'base64'), format: 'der', type: 'spki' });
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);

    expect(record(view, 'verification')).toMatchObject({ name: '_postbox.mail.example-co.test' });
    expect(record(view, 'verification').value).toMatch(/^postbox-verification=[0-9a-f]{32}$/);
    expect(record(view, 'spf')).toMatchObject({ name: 'mail.example-co.test', value: 'v=spf1 a mx ~all' });
    // Without the inbound listener, reports would have nowhere to go: the record only monitors.
    expect(record(view, 'dmarc')).toMatchObject({
      name: '_dmarc.mail.example-co.test',
      value: 'v=DMARC1; p=none',
      dmarc: null,
    });
  });

  it('gives every domain its own selector, key and token', async () => {
    const a = await addDomain(main.api, uniqueDomain('own-a'));
    const b = await addDomain(main.api, uniqueDomain('own-b'));
    const selector = (v: Domain) => record(v, 'dkim').name.split('.')[0];
    expect(selector(a)).not.toBe(selector(b));
    expect(publicKeyOf(a)).not.toBe(publicKeyOf(b));
    expect(record(a, 'verification').value).not.toBe(record(b, 'verification').value);
  });

  it('refuses a domain the project already has (409 DOMAIN_EXISTS), whatever its case', async () => {
    const name = uniqueDomain('dup');
    await addDomain(main.api, name);
    const again = await main.api.post('/domains', { domain: name.toUpperCase() });
    expectErrorEnvelope(again, 409, 'DOMAIN_EXISTS');
    expect(again.body.error.details).toEqual({ domain: name });
    // Another project may register the same name: it proves ownership with its own records.
    const elsewhere = await addDomain(other.api, name);
    expect(elsewhere.projectId).toBe(other.id);
  });

  it('normalises a trailing dot and internationalised names', async () => {
    const dotted = uniqueDomain('dot');
    expect((await addDomain(main.api, `${dotted}.`)).domain).toBe(dotted);
    expect((await addDomain(main.api, 'Bücher.domains.test')).domain).toBe('xn--bcher-kva.domains.test');
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['a single label', 'localhost'],
    ['a space', 'exa mple.test'],
    ['a leading hyphen', '-bad.test'],
    ['a trailing hyphen', 'bad-.test'],
    ['an empty label', 'a..test'],
    ['a 64-character label', `${'a'.repeat(64)}.test`],
    ['more than 253 characters', `${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.test`],
    ['an IP address', '192.168.1.10'],
    ['an underscore', 'ex_ample.test'],
    ['a URL', 'https://example.test'],
    ['an email address', 'ada@example.test'],
  ])('refuses %s with 422', async (_what, domain) => {
    const res = await main.api.post('/domains', { domain });
    expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
    expect(res.body.error.errors.map((e: any) => e.field)).toEqual(['domain']);
  });

  it('refuses a missing or non-string domain with 422', async () => {
    for (const body of [{}, { domain: 42 }, { domain: null }]) {
      const res = await main.api.post('/domains', body);
      expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field: 'domain', code: 'invalid_type' });
    }
  });
});

describe('GET /domains/{id}/verify', () => {
  it('reports every record pending before anything is published', async () => {
    const view = await addDomain(main.api, uniqueDomain('unpublished'));
    const checked = await verify(main.api, view.id);
    expect(checked.verified).toBe(false);
    expect(checked.verifiedAt).toBeNull();
    expect(Date.parse(checked.checkedAt!)).not.toBeNaN();
    expect(statuses(checked)).toEqual({ dkim: 'pending', verification: 'pending', spf: 'pending', dmarc: 'pending' });
  });

  it('verifies a domain once its records are published, and keeps verifiedAt on later checks', async () => {
    const view = await publishedDomain('published');
    const checked = await verify(main.api, view.id);
    expect(checked.verified).toBe(true);
    expect(statuses(checked)).toEqual({
      dkim: 'verified',
      verification: 'verified',
      spf: 'verified',
      dmarc: 'verified',
    });
    expect(checked.verifiedAt).toBe(checked.checkedAt);
    expect(checked.records.map((r) => r.value)).toEqual(view.records.map((r) => r.value));

    const again = await verify(main.api, view.id);
    expect(again.verified).toBe(true);
    expect(again.verifiedAt).toBe(checked.verifiedAt);
    expect(Date.parse(again.checkedAt!)).toBeGreaterThanOrEqual(Date.parse(checked.checkedAt!));

    const listed = (await main.api.get(`/domains/project/${main.id}`)).body as Domain[];
    expect(listed.find((d) => d.id === view.id)).toEqual(again);
  });

  it('needs only the required records: SPF is guidance', async () => {
    const view = await addDomain(main.api, uniqueDomain('no-spf'));
    for (const r of view.records.filter((r) => r.required)) stack.dns.set(r.name, 'TXT', [r.value]);
    const checked = await verify(main.api, view.id);
    expect(checked.verified).toBe(true);
    expect(statuses(checked)).toEqual({ dkim: 'verified', verification: 'verified', spf: 'pending', dmarc: 'pending' });
  });

  it('accepts any published SPF policy, and a DKIM record written with other spacing and quotes', async () => {
    const view = await publishedDomain('spacing');
    const key = publicKeyOf(view);
    const spaced = key.match(/.{1,64}/g)!.join(' ');
    stack.dns.set(record(view, 'dkim').name, 'TXT', [`v=DKIM1;k=rsa;  t=s; p="${spaced}"`]);
    stack.dns.set(view.domain, 'TXT', ['google-site-verification=abc', 'v=spf1 include:_spf.example.test -all']);
    const checked = await verify(main.api, view.id);
    expect(statuses(checked)).toEqual({
      dkim: 'verified',
      verification: 'verified',
      spf: 'verified',
      dmarc: 'verified',
    });
    expect(checked.verified).toBe(true);
  });

  it('fails a DKIM record that carries another key', async () => {
    const view = await publishedDomain('wrong-key');
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const wrong = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    stack.dns.set(record(view, 'dkim').name, 'TXT', [`v=DKIM1; k=rsa; p=${wrong}`]);
    const checked = await verify(main.api, view.id);
    expect(checked.verified).toBe(false);
    expect(statuses(checked)).toEqual({ dkim: 'failed', verification: 'verified', spf: 'verified', dmarc: 'verified' });
  });

  it('leaves an ownership record with another token pending', async () => {
    const view = await publishedDomain('wrong-token');
    stack.dns.set(record(view, 'verification').name, 'TXT', [`postbox-verification=${'0'.repeat(32)}`]);
    const checked = await verify(main.api, view.id);
    expect(checked.verified).toBe(false);
    expect(record(checked, 'verification').status).toBe('pending');
  });

  it('unverifies a domain whose record is removed', async () => {
    const view = await verifiedDomain(main.api, stack.dns, uniqueDomain('lapsed'));
    stack.dns.remove(record(view, 'verification').name);
    const checked = await verify(main.api, view.id);
    expect(checked.verified).toBe(false);
    expect(checked.verifiedAt).toBeNull();
    expect(statuses(checked)).toEqual({
      dkim: 'verified',
      verification: 'pending',
      spf: 'verified',
      dmarc: 'verified',
    });

    publishRecords(stack.dns, view);
    const back = await verify(main.api, view.id);
    expect(back.verified).toBe(true);
    expect(back.verifiedAt).toBe(back.checkedAt);
  });

  it('answers 404 for another project, an unknown id, and 422 for a non-uuid', async () => {
    const view = await addDomain(main.api, uniqueDomain('tenancy'));
    expectErrorEnvelope(await other.api.get(`/domains/${view.id}/verify`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.get(`/domains/${UNKNOWN_ID}/verify`), 404, 'NOT_FOUND');
    expectInvalidParameter(await main.api.get('/domains/not-a-uuid/verify'), 'id');
  });
});

describe('the recurring check', () => {
  it('verifies and unverifies domains without the endpoint', async () => {
    const view = await publishedDomain('background');
    await checkAllDomains(stack.server.service.ctx);
    const find = async () =>
      ((await main.api.get(`/domains/project/${main.id}`)).body as Domain[]).find((d) => d.id === view.id)!;
    const verified = await find();
    expect(verified.verified).toBe(true);
    expect(statuses(verified)).toEqual({
      dkim: 'verified',
      verification: 'verified',
      spf: 'verified',
      dmarc: 'verified',
    });

    stack.dns.remove(record(view, 'dkim').name);
    await checkAllDomains(stack.server.service.ctx);
    const lapsed = await find();
    expect(lapsed.verified).toBe(false);
    expect(record(lapsed, 'dkim').status).toBe('pending');
  });

  it('walks every domain, past the first page of 100', async () => {
    const p = await stack.server.project('domains-many');
    const { db } = stack.server.service.ctx;
    await run(
      db,
      sql`
      insert into domains (project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verification_token)
      select ${p.id}, 'bulk-' || i || '.domains.test', 'pbx00000000', 'none', 'none', 'token' from generate_series(1, 150) i`,
    );
    const total = (await run(db, sql`select count(*)::int as n from domains`)).rows[0].n as number;
    expect(await checkAllDomains(stack.server.service.ctx)).toBe(total);
    const unchecked = await run(db, sql`select count(*)::int as n from domains where checked_at is null`);
    expect(unchecked.rows[0].n).toBe(0);
    const listed = (await p.api.get(`/domains/project/${p.id}`)).body as Domain[];
    expect(listed).toHaveLength(150);
    expect(listed.every((d) => d.checkedAt !== null && !d.verified)).toBe(true);
  });
});

describe('GET /domains/project/{projectId}', () => {
  it("lists the key's project's domains as a bare array, newest first", async () => {
    const p = await stack.server.project('domains-list');
    const names = ['first', 'second', 'third'].map(uniqueDomain);
    const created: Domain[] = [];
    for (const name of names) created.push(await addDomain(p.api, name));
    const res = await p.api.get(`/domains/project/${p.id}`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toEqual([...created].reverse());
  });

  it('answers an empty array for a project without domains', async () => {
    const p = await stack.server.project('domains-empty');
    const res = await p.api.get(`/domains/project/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it("answers 404 for another project's id or an unknown one, 422 for a non-uuid", async () => {
    expectErrorEnvelope(await main.api.get(`/domains/project/${other.id}`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.get(`/domains/project/${UNKNOWN_ID}`), 404, 'NOT_FOUND');
    expectInvalidParameter(await main.api.get('/domains/project/nope'), 'projectId');
  });
});

describe('DELETE /domains/{id}', () => {
  it('removes a domain: 204, then 404', async () => {
    const view = await addDomain(main.api, uniqueDomain('delete'));
    expectErrorEnvelope(await other.api.delete(`/domains/${view.id}`), 404, 'NOT_FOUND');
    const res = await main.api.delete(`/domains/${view.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectErrorEnvelope(await main.api.delete(`/domains/${view.id}`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await main.api.get(`/domains/${view.id}/verify`), 404, 'NOT_FOUND');
    const listed = (await main.api.get(`/domains/project/${main.id}`)).body as Domain[];
    expect(listed.some((d) => d.id === view.id)).toBe(false);
    // The name can be registered again, with new records.
    const again = await addDomain(main.api, view.domain);
    expect(publicKeyOf(again)).not.toBe(publicKeyOf(view));
  });

  it('answers 422 for a non-uuid', async () => {
    expectErrorEnvelope(await main.api.delete('/domains/123'), 422, 'VALIDATION_ERROR');
  });
});

describe('authentication', () => {
  it('refuses every endpoint without a key or with the public key (401)', async () => {
    const view = await addDomain(main.api, uniqueDomain('auth'));
    const calls: [string, string, unknown?][] = [
      ['POST', '/domains', { domain: uniqueDomain('auth-new') }],
      ['GET', `/domains/project/${main.id}`],
      ['GET', `/domains/${view.id}/verify`],
      ['DELETE', `/domains/${view.id}`],
    ];
    for (const [method, path, body] of calls) {
      for (const key of [null, main.publicKey]) {
        expectErrorEnvelope(await main.api.request(method, path, { body, key }), 401, 'INVALID_API_KEY');
      }
    }
    expect((await main.api.get(`/domains/${view.id}/verify`)).status).toBe(200);
  });
});

describe('sender rules', () => {
  it('signingKeyFor returns the PEM key of a verified domain only, matched exactly', async () => {
    const name = uniqueDomain('signing');
    const view = await verifiedDomain(main.api, stack.dns, name);
    const key = await signingKeyFor(stack.server.service.ctx, main.id, `Sender@${name.toUpperCase()}`);
    expect(key).toEqual({
      domain: name,
      selector: record(view, 'dkim').name.split('.')[0],
      privateKey: expect.any(String),
      returnPathVerified: false,
    });
    expect(key!.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const derived = createPublicKey(createPrivateKey(key!.privateKey))
      .export({ type: 'spki', format: 'der' })
      .toString('base64');
    expect(derived).toBe(publicKeyOf(view));

    expect(await signingKeyFor(stack.server.service.ctx, main.id, `a@sub.${name}`)).toBeNull();
    expect(await signingKeyFor(stack.server.service.ctx, other.id, `a@${name}`)).toBeNull();
    const pending = await addDomain(main.api, uniqueDomain('signing-pending'));
    expect(await signingKeyFor(stack.server.service.ctx, main.id, `a@${pending.domain}`)).toBeNull();

    stack.dns.remove(record(view, 'dkim').name);
    await verify(main.api, view.id);
    expect(await signingKeyFor(stack.server.service.ctx, main.id, `a@${name}`)).toBeNull();
  });
});

describe('with INBOUND_SMTP_PORT set', () => {
  let inbound: TestServer;
  let p: TestProject;
  beforeAll(async () => {
    inbound = await startTestServer({
      DNS_SERVERS: stack.dns.address,
      INBOUND_SMTP_PORT: '2525',
      PUBLIC_URL: 'https://mail.postbox.test',
    });
    p = await inbound.project('domains-inbound');
  });
  afterAll(() => inbound?.stop());

  it('adds a return-path MX record pointing at the public host; it is not required', async () => {
    const view = await addDomain(p.api, uniqueDomain('bounce'));
    expect(view.records.map((r) => r.purpose)).toEqual(['dkim', 'verification', 'spf', 'return-path', 'dmarc']);
    expect(record(view, 'return-path')).toMatchObject({
      type: 'MX',
      name: `bounces.${view.domain}`,
      value: '10 mail.postbox.test',
      purpose: 'return-path',
      required: false,
      status: 'pending',
      step: 4,
      dmarc: null,
    });
    expect(record(view, 'dmarc').step).toBe(5);

    publishRecords(stack.dns, view);
    const checked = await verify(p.api, view.id);
    expect(statuses(checked)).toEqual({
      dkim: 'verified',
      verification: 'verified',
      spf: 'verified',
      'return-path': 'verified',
      dmarc: 'verified',
    });

    stack.dns.set(`bounces.${view.domain}`, 'MX', [{ exchange: 'mx.elsewhere.test', priority: 10 }]);
    const elsewhere = await verify(p.api, view.id);
    expect(record(elsewhere, 'return-path').status).toBe('pending');
    expect(elsewhere.verified).toBe(true);
  });

  it('recommends a DMARC record whose reports come to the bounces subdomain, and checks it', async () => {
    const view = await addDomain(p.api, uniqueDomain('dmarc'));
    const address = `dmarc@bounces.${view.domain}`;
    expect(record(view, 'dmarc')).toMatchObject({
      type: 'TXT',
      name: `_dmarc.${view.domain}`,
      value: `v=DMARC1; p=none; rua=mailto:${address}`,
      required: false,
      status: 'pending',
      dmarc: null,
    });

    // Missing: publish ours.
    publishRecords(stack.dns, { ...view, records: view.records.filter((r) => r.purpose !== 'dmarc') });
    const missing = await verify(p.api, view.id);
    expect(record(missing, 'dmarc')).toMatchObject({ status: 'pending', dmarc: null });
    expect(record(missing, 'dmarc').advice).toMatch(/^No DMARC record is published/);
    expect(missing.verified).toBe(true);

    // Ours, with a size limit and other spacing and case.
    stack.dns.set(`_dmarc.${view.domain}`, 'TXT', [`v=DMARC1;p=none;rua=mailto:${address.toUpperCase()}!10m`]);
    const ours = await verify(p.api, view.id);
    expect(record(ours, 'dmarc')).toMatchObject({
      status: 'verified',
      advice: null,
      dmarc: { policy: 'none', subdomainPolicy: null, percent: 100, reportAddresses: [address], reportsHere: true },
    });

    // Another policy and another report address: keep it, add ours as a second address.
    const theirs = 'v=DMARC1; p=quarantine; pct=50; rua=mailto:reports@dmarc.elsewhere.test';
    stack.dns.set(`_dmarc.${view.domain}`, 'TXT', ['some-other=text', theirs]);
    const other = await verify(p.api, view.id);
    const dmarc = record(other, 'dmarc');
    expect(dmarc).toMatchObject({
      status: 'pending',
      value: `v=DMARC1; p=quarantine; pct=50; rua=mailto:reports@dmarc.elsewhere.test,mailto:${address}`,
      dmarc: {
        policy: 'quarantine',
        percent: 50,
        reportAddresses: ['reports@dmarc.elsewhere.test'],
        reportsHere: false,
      },
    });
    expect(dmarc.advice).toContain(`p=quarantine is published`);
    expect(dmarc.advice).toContain(`add mailto:${address}`);

    // Published as advised: ours, the policy in force kept.
    stack.dns.set(`_dmarc.${view.domain}`, 'TXT', [dmarc.value]);
    const advised = record(await verify(p.api, view.id), 'dmarc');
    expect(advised).toMatchObject({ status: 'verified', dmarc: { policy: 'quarantine', reportsHere: true } });

    // Two DMARC records: receivers apply none.
    stack.dns.set(`_dmarc.${view.domain}`, 'TXT', [theirs, dmarc.value]);
    const twice = record(await verify(p.api, view.id), 'dmarc');
    expect(twice).toMatchObject({ status: 'failed', dmarc: null });
    expect(twice.advice).toMatch(/More than one DMARC record/);
  });

  it('checks DMARC in the recurring check too', async () => {
    const view = await verifiedDomain(p.api, stack.dns, uniqueDomain('dmarc-background'));
    stack.dns.remove(`_dmarc.${view.domain}`);
    await checkAllDomains(inbound.service.ctx);
    const listed = ((await p.api.get(`/domains/project/${p.id}`)).body as Domain[]).find((d) => d.id === view.id)!;
    expect(record(listed, 'dmarc').status).toBe('pending');
    expect(listed.verified).toBe(true);
  });

  it('verifies through the shared helper', async () => {
    const view = await verifiedDomain(p.api, stack.dns, uniqueDomain('bounce-helper'));
    expect(record(view, 'return-path').status).toBe('verified');
  });
});

describe('when the DNS server does not answer', () => {
  let down: TestServer;
  let p: TestProject;
  beforeAll(async () => {
    const gone = await startDnsServer();
    await gone.stop();
    down = await startTestServer({ DNS_SERVERS: gone.address });
    p = await down.project('domains-dns-down');
  });
  afterAll(() => down?.stop());

  it('marks every record failed and answers 200, not 500', async () => {
    const view = await addDomain(p.api, uniqueDomain('dns-down'));
    const checked = await verify(p.api, view.id);
    expect(checked.verified).toBe(false);
    expect(statuses(checked)).toEqual({ dkim: 'failed', verification: 'failed', spf: 'failed', dmarc: 'failed' });
    expect(checked.checkedAt).not.toBeNull();
  });

  it('keeps a verified domain verified while its DNS lookups fail', async () => {
    const flaky = await startDnsServer();
    const other = await startTestServer({ DNS_SERVERS: flaky.address });
    try {
      const q = await other.project('domains-dns-flaky');
      const view = await verifiedDomain(q.api, flaky, uniqueDomain('dns-flaky'));
      await flaky.stop();
      const checked = await verify(q.api, view.id);
      expect(statuses(checked)).toEqual({ dkim: 'failed', verification: 'failed', spf: 'failed', dmarc: 'failed' });
      expect(checked.verified).toBe(true);
      expect(checked.verifiedAt).toBe(view.verifiedAt);
    } finally {
      await other.stop();
    }
  });
});
