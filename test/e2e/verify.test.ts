import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestProject, type TestServer } from '../support/server.js';
import { NO_RECORDS, verdict } from '../support/verdicts.js';

let dns: DnsServer;
let server: TestServer;
let p: TestProject;

/** A domain that receives mail and serves a website, as most real ones do. */
function publishDomain(name: string, options: { ns?: boolean; mx?: boolean; a?: boolean; aaaa?: boolean } = {}) {
  const { ns = true, mx = true, a = true, aaaa = false } = options;
  if (ns) dns.set(name, 'NS', [`ns1.${name}`]);
  if (mx) dns.set(name, 'MX', [{ exchange: `mx1.${name}`, priority: 10 }]);
  if (a) dns.set(name, 'A', ['192.0.2.10']);
  if (aaaa) dns.set(name, 'AAAA', ['2001:db8::10']);
}

beforeAll(async () => {
  dns = await startDnsServer();
  publishDomain('acme-widgets.dev');
  publishDomain('ipv6-widgets.dev', { a: false, aaaa: true });
  publishDomain('no-mx-widgets.dev', { mx: false });
  // A mail host under a registered domain: MX on the subdomain, NS only on the parent.
  dns.set('mail.sub-widgets.dev', 'MX', [{ exchange: 'mx1.sub-widgets.dev', priority: 5 }]);
  dns.set('sub-widgets.dev', 'NS', ['ns1.sub-widgets.dev']);
  publishDomain('mailinator.com');
  publishDomain('duck.com');
  publishDomain('gmail.com');
  server = await startTestServer({ DNS_SERVERS: dns.address });
  p = await server.project();
});
afterAll(async () => {
  await server?.stop();
  await dns?.stop().catch(() => {});
});

async function verify(email: unknown, key?: string | null) {
  return p.api.request('POST', '/v1/verify', { body: { email }, key });
}

async function verified(email: string) {
  const res = await verify(email);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body.data;
}

describe('POST /v1/verify', () => {
  it('accepts a deliverable address on a domain with NS, MX and A records', async () => {
    expect(await verified('ann@acme-widgets.dev')).toEqual(verdict('ann@acme-widgets.dev'));
  });

  it('counts an AAAA record alone as a website', async () => {
    const data = await verified('ann@ipv6-widgets.dev');
    expect(data.hasWebsite).toBe(true);
    expect(data.valid).toBe(true);
    expect(data.reasons).toEqual([]);
  });

  it('rejects a domain without MX records even when it has an A record', async () => {
    expect(await verified('ann@no-mx-widgets.dev')).toEqual(
      verdict('ann@no-mx-widgets.dev', { valid: false, hasMxRecords: false, reasons: ['Domain has no MX records'] }),
    );
  });

  it('reports a domain that does not exist', async () => {
    expect(await verified('ann@nowhere-widgets.dev')).toEqual(verdict('ann@nowhere-widgets.dev', NO_RECORDS));
  });

  it('finds a mail subdomain through the NS records of its registrable domain', async () => {
    const data = await verified('ann@mail.sub-widgets.dev');
    expect(data).toMatchObject({ valid: true, domainExists: true, hasMxRecords: true, hasWebsite: false });
    expect(data.reasons).toEqual(['Domain has no website (no A or AAAA records)']);
    // Another subdomain of the same parent has no MX: the parent's NS says the domain exists.
    const other = await verified('ann@www.sub-widgets.dev');
    expect(other).toMatchObject({ valid: false, domainExists: true, hasMxRecords: false });
  });

  it('marks a disposable domain invalid although it has MX records', async () => {
    expect(await verified('ann@mailinator.com')).toEqual(
      verdict('ann@mailinator.com', { valid: false, isDisposable: true, reasons: ['Disposable email domain'] }),
    );
  });

  it('flags an alias service and keeps the address valid', async () => {
    expect(await verified('quiet.fox.42@duck.com')).toEqual(
      verdict('quiet.fox.42@duck.com', {
        isAlias: true,
        isPersonalEmail: true,
        reasons: ['Alias or forwarding email service'],
      }),
    );
  });

  it('marks a free provider as personal', async () => {
    expect(await verified('ann.lee@gmail.com')).toEqual(verdict('ann.lee@gmail.com', { isPersonalEmail: true }));
  });

  it('detects plus-addressing on the normalised address', async () => {
    expect(await verified('  Ann+Newsletter@Acme-Widgets.DEV ')).toEqual(
      verdict('ann+newsletter@acme-widgets.dev', { isPlusAddressed: true }),
    );
  });

  it('suggests the intended address for a typo', async () => {
    expect(await verified('ann@gmial.com')).toEqual(
      verdict('ann@gmial.com', {
        valid: false,
        isTypo: true,
        // gmial.com is itself on the free-provider list (typo domains are registered too).
        isPersonalEmail: true,
        domainExists: false,
        hasWebsite: false,
        hasMxRecords: false,
        suggestedEmail: 'ann@gmail.com',
        reasons: [
          'Possible typo: did you mean ann@gmail.com?',
          'Domain does not exist (no NS records)',
          'Domain has no MX records',
          'Domain has no website (no A or AAAA records)',
        ],
      }),
    );
  });

  it('answers a name the resolver refuses with failed checks, not a 500', async () => {
    const data = await verified(`ann@${'a'.repeat(70)}.dev`);
    expect(data.valid).toBe(false);
    expect(data.hasMxRecords).toBe(false);
    expect(data.domainExists).toBe(false);
    // A label longer than 63 characters passes the address syntax but is no DNS name.
    expect(data.reasons).toEqual([
      'DNS lookup of NS records failed (EBADNAME)',
      'DNS lookup of MX records failed (EBADNAME)',
      'DNS lookup of A/AAAA records failed (EBADNAME)',
    ]);
  });

  it('requires the secret key', async () => {
    for (const key of [p.publicKey, null, 'sk_not_a_real_key']) {
      const res = await verify('ann@acme-widgets.dev', key);
      expect(res.status).toBe(401);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    }
  });

  it('answers a malformed address with a 422 naming the field', async () => {
    for (const email of ['not-an-email', 'ann@', '@acme-widgets.dev', 'ann@acme-widgets']) {
      const res = await verify(email);
      expect(res.status, email).toBe(422);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.statusCode).toBe(422);
      expect(res.body.error.errors[0].field).toBe('email');
      expect(res.body.error.errors[0].code).toBe('invalid_string');
    }
  });

  it('answers a missing or non-string email with a 422', async () => {
    const missing = await p.api.post('/v1/verify', {});
    expect(missing.status).toBe(422);
    expect(missing.body.success).toBe(false);
    expect(missing.body.error.code).toBe('VALIDATION_ERROR');
    expect(missing.body.error.errors).toEqual([
      { field: 'email', message: 'Required', code: 'invalid_type', received: 'undefined' },
    ]);

    const number = await verify(42);
    expect(number.status).toBe(422);
    expect(number.body.error.errors[0]).toMatchObject({ field: 'email', code: 'invalid_type' });
  });

  it('answers with timeout reasons when the DNS server never answers', async () => {
    // A UDP socket that reads queries and never replies.
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', () => resolve()));
    const other = await startTestServer({ DNS_SERVERS: `127.0.0.1:${silent.address().port}` });
    try {
      const q = await other.project();
      const res = await q.api.post('/v1/verify', { email: 'ann@acme-widgets.dev' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        valid: false,
        domainExists: false,
        hasMxRecords: false,
        hasWebsite: false,
      });
      expect(res.body.data.reasons).toEqual([
        'DNS lookup of NS records failed (ETIMEOUT)',
        'DNS lookup of MX records failed (ETIMEOUT)',
        'DNS lookup of A/AAAA records failed (ETIMEOUT)',
      ]);
    } finally {
      await other.stop();
      silent.close();
    }
  });

  it('is described in the OpenAPI document', async () => {
    const res = await p.api.get('/openapi.json', null);
    expect(res.status).toBe(200);
    const op = res.body.paths['/v1/verify'].post;
    expect(op.tags).toEqual(['Verify']);
    const data = op.responses['200'].content['application/json'].schema.properties.data;
    expect(data.required).toEqual([
      'email',
      'valid',
      'isDisposable',
      'isAlias',
      'isTypo',
      'isPlusAddressed',
      'isPersonalEmail',
      'domainExists',
      'hasWebsite',
      'hasMxRecords',
      'reasons',
    ]);
    expect(Object.keys(data.properties)).toContain('suggestedEmail');
  });

  // Last: stops the DNS server the other tests use.
  it('reports a stopped DNS server in reasons with a 200', async () => {
    await dns.stop();
    const res = await verify('ann@acme-widgets.dev');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(
      verdict('ann@acme-widgets.dev', {
        valid: false,
        domainExists: false,
        hasWebsite: false,
        hasMxRecords: false,
        reasons: [
          'DNS lookup of NS records failed (ECONNREFUSED)',
          'DNS lookup of MX records failed (ECONNREFUSED)',
          'DNS lookup of A/AAAA records failed (ECONNREFUSED)',
        ],
      }),
    );
  });
});
