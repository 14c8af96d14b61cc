/**
 * The production build (`npm run build`, `npm run start:prod`) as an operator runs it: the server
 * bundle built into a folder of its own, then `node <build>/main.js` in its roles against a fresh
 * database, driven over HTTP with mail delivered to a real SMTP sink. What the bundle must find
 * beside itself is used: the migrations (the CLI migrates), the dashboard (/app/) and the
 * untrusted-content threads' bundle (a sender domain's key, a template preview, a send's render).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCleanups } from '../support/database.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { verifiedDomain } from '../support/domains.js';
import { deliveredMessage, recordWhen, sendOk, verifyDkim } from '../support/sending.js';
import { type ChildServer, client, eventually, printedKeys, spawnService } from '../support/server.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Inside the repository (git ignores .tmp), where the packages left out of the bundle are found. */
const BUILD = path.join(ROOT, '.tmp', `production-build-${randomBytes(4).toString('hex')}`);
const run = promisify(execFile);

const { cleanups, database } = useCleanups();
let sink: SmtpSink;
let dns: DnsServer;

beforeAll(async () => {
  await run(process.execPath, ['--import', 'tsx', 'scripts/build.ts', BUILD], { cwd: ROOT });
  sink = await startSmtpSink();
  dns = await startDnsServer();
}, 120_000);

afterAll(async () => {
  await sink?.stop();
  await dns?.stop();
  fs.rmSync(BUILD, { recursive: true, force: true });
});

/** `node <build>/main.js <role>` on `env`, stopped after the test. (Two processes starting on a busy machine take a while: the tests allow two minutes.) */
async function startBuilt(env: Record<string, string>, role: 'all' | 'serve' | 'worker'): Promise<ChildServer> {
  const child = await spawnService({ LOG_LEVEL: 'info', ...env }, [role], 0, [path.join(BUILD, 'main.js')]);
  cleanups.push(() => child.kill('SIGTERM'));
  await eventually(async () => (child.output().includes('service ready') ? true : undefined), 30_000);
  return child;
}

describe('the build', () => {
  it('holds the server, the threads’ bundle, the migrations and the dashboard, and no TypeScript loader', () => {
    const files = fs.readdirSync(BUILD);
    expect(files).toEqual(expect.arrayContaining(['main.js', 'untrusted-worker.js', 'migrations', 'web']));
    const sqlFiles = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.sql'));
    expect(sqlFiles(path.join(BUILD, 'migrations'))).toEqual(sqlFiles(path.join(ROOT, 'src/platform/db/migrations')));
    const main = fs.readFileSync(path.join(BUILD, 'main.js'), 'utf8');
    expect(main).not.toMatch(/["']tsx(\/[a-z/]+)?["']/);
  });

  it('runs all roles in one process: health, the dashboard, contacts, /v1/track and a preview in the threads', async () => {
    const db = await database();
    const service = await startBuilt({ ...db.env, REDIS_URL: '' }, 'all');
    const keys = printedKeys(service.output());
    const api = client(service.url, keys.secretKey);

    const health = await api.get('/health', null);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', dependencies: { database: 'ok' } });

    const page = await fetch(`${service.url}/app/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script[^>]+src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await fetch(`${service.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);

    const created = await api.post('/contacts', { email: 'ada@build.test', data: { plan: 'pro' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ email: 'ada@build.test', subscribed: true, data: { plan: 'pro' } });

    const tracked = await client(service.url, keys.publicKey).post('/v1/track', {
      email: 'ada@build.test',
      event: 'signed_up',
      data: { seats: 3 },
    });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    expect(tracked.body.data.contact).toBe(created.body.id);
    const events = await api.get('/events?name=signed_up');
    expect(events.status).toBe(200);
    expect(events.body.data.map((e: { id: string }) => e.id)).toEqual([tracked.body.data.event]);

    // A source the process has not seen is rendered in an untrusted-content thread.
    const preview = await api.post('/templates/preview', {
      subject: 'Hi {{ name ?? "friend" }}',
      body: '<p>{{ plan | upcase }} plan for {{ name ?? "friend" }}</p>',
      data: { plan: 'team' },
    });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.subject).toBe('Hi friend');
    expect(preview.body.html).toContain('<p>TEAM plan for friend</p>');
    const broken = await api.post('/templates/preview', { subject: 'x', body: '{% if %}' });
    expect(broken.status, JSON.stringify(broken.body)).toBe(422);
  }, 120_000);

  it('runs serve and worker apart: /v1/send renders, signs and delivers to the relay', async () => {
    const db = await database();
    const env = { ...db.env, REDIS_URL: '', SMTP_URL: sink.url, DNS_SERVERS: dns.address };
    const { stdout } = await run(process.execPath, [path.join(BUILD, 'main.js'), 'project:create', '--name', 'Build'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
    });
    const project = JSON.parse(stdout.trim());
    const serve = await startBuilt(env, 'serve');
    await startBuilt(env, 'worker');
    const api = client(serve.url, project.secretKey);

    // The domain's DKIM key is generated in an untrusted-content thread.
    await verifiedDomain(api, dns, 'mail.build.test');
    const sent = await sendOk(api, {
      to: 'grace@rcpt.build.test',
      from: 'hello@mail.build.test',
      subject: 'Welcome, {{ firstName ?? "friend" }}',
      body: '<p>Hello {{ firstName ?? "friend" }}, your plan is {{ plan }}.</p>',
      data: { firstName: 'Grace', plan: 'pro' },
    });
    const id = sent.emails[0]!.email;
    const message = await deliveredMessage(sink, id, 30_000);
    expect(message.to).toEqual(['grace@rcpt.build.test']);
    const parsed = await simpleParser(message.raw);
    expect(parsed.subject).toBe('Welcome, Grace');
    expect(parsed.html).toContain('<p>Hello Grace, your plan is pro.</p>');
    expect(parsed.text).toContain('Hello Grace, your plan is pro.');
    const dkim = await verifyDkim(message.raw, dns);
    expect(dkim.results.map((r) => [r.signingDomain, r.status.result])).toEqual([['mail.build.test', 'pass']]);
    const record = await recordWhen(api, id, (r) => r.status === 'sent', 30_000);
    expect(record.to).toBe('grace@rcpt.build.test');
  }, 120_000);
});
