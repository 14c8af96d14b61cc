import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectAndDomain, useMailServer } from '../support/mail-server.js';
import { callTool, mcpClient } from '../support/mcp.js';
import { deliveredMessage, UUID } from '../support/sending.js';
import { eventually, type TestProject } from '../support/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/postbox.mjs');
const DOMAIN = 'mail.cli.test';
const FROM = `hello@${DOMAIN}`;

const mail = useMailServer();
let project: TestProject;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  [project] = await projectAndDomain(mail, 'cli', DOMAIN);
  env = { PATH: process.env.PATH!, POSTBOX_URL: mail.server.url, POSTBOX_KEY: project.secretKey };
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbox-cli-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `postbox ARGS` as a user runs it: its own process, its exit code and its output. */
function postbox(args: string[], extraEnv: Record<string, string> = {}, onStart?: (child: ChildProcess) => void) {
  return new Promise<Run>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    onStart?.(child);
  });
}

const jsonOf = (run: Run) => {
  expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
  return JSON.parse(run.stdout);
};

describe('postbox CLI', () => {
  it('helps with every command and tells failures apart by exit code', async () => {
    const help = await postbox(['--help']);
    expect(help.code).toBe(0);
    for (const name of [
      'send',
      'track',
      'contacts import',
      'contacts export',
      'campaigns send',
      'templates push',
      'mcp',
      'serve',
    ]) {
      expect(help.stdout).toContain(name);
    }
    const sendHelp = await postbox(['send', '--help']);
    expect(sendHelp.stdout).toContain('usage: postbox send --to ADDRESS');

    expect((await postbox(['frobnicate'])).code).toBe(2);
    expect((await postbox(['campaigns'])).stderr).toContain('needs one of: list, send, report');
    expect((await postbox(['send', '--bogus'])).code).toBe(2);
    const noKey = await postbox(['campaigns', 'list'], { POSTBOX_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('POSTBOX_KEY');
    const badKey = await postbox(['campaigns', 'list', '--key', 'sk_wrong', '--json']);
    expect(badKey.code).toBe(3);
    expect(JSON.parse(badKey.stdout).error.code).toBe('INVALID_API_KEY');
    expect((await postbox(['campaigns', 'report', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
    const invalid = await postbox(['send', '--to', 'not-an-address', '--from', FROM, '--subject', 's', '--body', 'b']);
    expect(invalid.code).toBe(5);
    expect(invalid.stderr).toContain('to');
    expect((await postbox(['campaigns', 'list'], { POSTBOX_URL: 'http://127.0.0.1:9' })).code).toBe(6);
  });

  it('sends an email that reaches the relay, and tracks an event', async () => {
    const sent = jsonOf(
      await postbox([
        'send',
        '--to',
        'ada@cli.test',
        '--from',
        FROM,
        '--subject',
        'Hello {{ name }}',
        '--body',
        '<p>Hi {{ name }}</p>',
        '--data',
        '{"name":"Ada"}',
        '--json',
      ]),
    );
    expect(sent.emails[0].email).toMatch(UUID);
    const message = await deliveredMessage(mail.sink, sent.emails[0].email);
    expect(message.to).toEqual(['ada@cli.test']);
    expect(message.raw.toString()).toContain('Hello Ada');

    const tracked = await postbox(['track', 'ada@cli.test', 'cli_used', '--data', '{"plan":"pro"}']);
    expect(tracked.code, tracked.stderr).toBe(0);
    expect(tracked.stdout).toMatch(/^Tracked cli_used for ada@cli.test: event [0-9a-f-]{36}\n$/);
    const contact = (await project.api.get('/contacts?search=ada@cli.test')).body.data[0];
    expect(contact.data.plan).toBe('pro');
    const timeline = await project.api.get(`/events/contact/${contact.id}`);
    expect(timeline.body.data.map((e: { name: string }) => e.name)).toContain('cli_used');
  });

  it('imports 100,000 rows with progress, resumes a stopped import, and exports them back', async () => {
    const file = path.join(dir, 'contacts.csv');
    const lines = ['email,subscribed,plan,note'];
    for (let i = 0; i < 100_000; i++) {
      lines.push(
        `user${i}@import.cli.test,${i % 10 === 0 ? 'false' : 'true'},${i % 2 ? 'pro' : 'free'},"line ${i}, quoted"`,
      );
    }
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const state = `${file}.postbox-import.json`;

    // Stopped once its first part is in: the state file says where it stands.
    const stopped = await postbox(['contacts', 'import', file, '--chunk-mb', '0.5'], {}, (child) => {
      void eventually(async () => (fs.existsSync(state) ? true : undefined), 120_000, 20).then(() =>
        child.kill('SIGKILL'),
      );
    });
    expect(stopped.code).not.toBe(0);
    const kept = JSON.parse(fs.readFileSync(state, 'utf8'));
    expect(kept.rows).toBeGreaterThan(0);
    expect(kept.rows).toBeLessThan(100_000);

    const resumed = await postbox(['contacts', 'import', file, '--chunk-mb', '0.5', '--json']);
    const summary = jsonOf(resumed);
    expect(resumed.stderr).toContain(`Resuming ${file} after row ${kept.rows.toLocaleString('en-US')}`);
    expect(resumed.stderr).toMatch(/import \[#+\] 100 % {2}100,000 rows/);
    // The totals of both runs. The finished part is not sent again; only a part that was in flight
    // at the kill may be (its rows then count as updated), and every row is one contact.
    expect(summary).toMatchObject({ rows: 100_000, failed: 0 });
    expect(summary.created + summary.updated).toBe(100_000);
    expect(summary.updated).toBeLessThanOrEqual(kept.rows);
    expect(fs.existsSync(state)).toBe(false);
    const page = await project.api.get('/contacts?search=import.cli.test&limit=1');
    expect(page.body.total).toBe(100_000);
    const one = await project.api.get('/contacts?search=user10@import.cli.test');
    expect(one.body.data[0]).toMatchObject({ subscribed: false, data: { plan: 'free', note: 'line 10, quoted' } });

    const out = path.join(dir, 'export.csv');
    const exported = jsonOf(await postbox(['contacts', 'export', '--out', out, '--subscribed', 'false', '--json']));
    // The imported unsubscribed tenth, and any contact of the earlier tests a send created unsubscribed.
    const emails = (parse(fs.readFileSync(out, 'utf8'), { columns: true }) as { email: string }[]).map((r) => r.email);
    expect(new Set(emails).size).toBe(emails.length);
    expect(exported.rows).toBe(emails.length);
    const imported = emails.filter((e) => e.endsWith('@import.cli.test'));
    expect(imported).toHaveLength(10_000);
    expect(imported.every((e) => /^user\d*0@import\.cli\.test$/.test(e))).toBe(true);
    const records = parse(fs.readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(records.find((r) => r.email === 'user10@import.cli.test')).toMatchObject({
      email: 'user10@import.cli.test',
      subscribed: 'false',
      plan: 'free',
      note: 'line 10, quoted',
    });
  }, 300_000);

  it('imports another product’s export with --preset, and refuses a preset it does not know', async () => {
    const file = path.join(dir, 'listmonk-subscribers.csv');
    fs.writeFileSync(
      file,
      [
        'uuid,email,name,attributes,status,created_at,updated_at',
        'u1,kim@preset.cli.test,Kim,"{""city"":""Lima""}",enabled,2024-01-02 03:04:05+00,2024-01-02 03:04:05+00',
        'u2,blocked@preset.cli.test,Blocked,{},blocklisted,2024-01-02 03:04:05+00,2024-01-02 03:04:05+00',
      ].join('\n'),
    );
    const unknown = await postbox(['contacts', 'import', file, '--preset', 'sendgrid']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--preset is one of mailchimp, listmonk, plunk/);

    const summary = jsonOf(await postbox(['contacts', 'import', file, '--preset', 'listmonk', '--json']));
    expect(summary).toMatchObject({ rows: 2, created: 2, failed: 0 });
    const kim = await project.api.get('/contacts?search=kim@preset.cli.test');
    expect(kim.body.data[0]).toMatchObject({ subscribed: true, data: { name: 'Kim', city: 'Lima' } });
    const blocked = await project.api.get('/suppressions/blocked@preset.cli.test');
    expect(blocked.body).toMatchObject({ reason: 'manual' });
  });

  it('lists, sends only with --yes when not at a terminal, and reports campaigns', async () => {
    const created = await project.api.post('/campaigns', {
      name: 'CLI campaign',
      subject: 'News',
      body: '<p>News</p>',
      from: FROM,
      type: 'TRANSACTIONAL',
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'email', operator: 'equals', value: 'ada@cli.test' }] }],
      },
    });
    const id = created.body.data.id;
    const list = jsonOf(await postbox(['campaigns', 'list', '--json']));
    expect(list.data.map((c: { id: string }) => c.id)).toContain(id);
    const text = await postbox(['campaigns', 'list']);
    expect(text.stdout).toMatch(new RegExp(`${id}\\s+DRAFT\\s+CLI campaign`));

    const unasked = await postbox(['campaigns', 'send', id]);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain('--yes');
    expect((await project.api.get(`/campaigns/${id}`)).body.status).toBe('DRAFT');

    const sent = jsonOf(await postbox(['campaigns', 'send', id, '--yes', '--json']));
    expect(sent.status).toBe('SENDING');
    const report = await eventually(async () => {
      const r = jsonOf(await postbox(['campaigns', 'report', id, '--json']));
      return r.stats.sent === 1 ? r : undefined;
    });
    expect(report.progress.totalRecipients).toBe(1);
    const human = await postbox(['campaigns', 'report', id]);
    expect(human.stdout).toMatch(/recipients\s+1/);
  });

  it('pushes templates from a folder of HTML files, updates them on the next push, and pulls them', async () => {
    const folder = path.join(dir, 'templates');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'welcome.html'), '<html><title>Welcome!</title><p>Hi {{ name }}</p></html>');
    fs.writeFileSync(path.join(folder, 'receipt.html'), '<p>Receipt</p>');
    expect((await postbox(['templates', 'push', folder])).code).toBe(2);

    const first = jsonOf(await postbox(['templates', 'push', folder, '--from', FROM, '--json']));
    expect(first.templates.map((t: { action: string }) => t.action)).toEqual(['created', 'created']);
    const meta = JSON.parse(fs.readFileSync(path.join(folder, 'welcome.json'), 'utf8'));
    expect(meta).toMatchObject({ name: 'welcome', subject: 'Welcome!', from: FROM, id: expect.stringMatching(UUID) });
    const saved = await project.api.get(`/templates/${meta.id}`);
    expect(saved.body.body).toContain('Hi {{ name }}');

    fs.writeFileSync(path.join(folder, 'welcome.html'), '<html><title>Welcome!</title><p>Hello {{ name }}</p></html>');
    const second = jsonOf(await postbox(['templates', 'push', folder, '--json']));
    expect(second.templates.map((t: { action: string }) => t.action)).toEqual(['updated', 'updated']);
    expect((await project.api.get(`/templates/${meta.id}`)).body.body).toContain('Hello {{ name }}');
    expect((await project.api.get('/templates')).body.total).toBe(2);

    const pulled = path.join(dir, 'pulled');
    const pull = jsonOf(await postbox(['templates', 'pull', pulled, '--json']));
    expect(pull.templates).toHaveLength(2);
    expect(fs.readFileSync(path.join(pulled, 'welcome.html'), 'utf8')).toContain('Hello {{ name }}');
    expect(JSON.parse(fs.readFileSync(path.join(pulled, 'welcome.json'), 'utf8'))).toEqual(meta);
  });
});

describe('postbox mcp (stdio)', () => {
  const stdio = (args: string[]) =>
    mcpClient(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', ...args],
        env,
        cwd: dir,
        stderr: 'pipe',
      }),
    );

  it('serves the instance’s tools to the SDK’s client over stdio', async () => {
    const client = await stdio([]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['contacts_find', 'emails_send', 'campaigns_send']),
      );
      const found = await callTool(client, 'contacts_find', { search: 'ada@cli.test' });
      expect(found.body.data.map((c: { email: string }) => c.email)).toEqual(['ada@cli.test']);

      const args = { to: 'grace@cli.test', from: FROM, subject: 'Over stdio', body: '<p>stdio</p>' };
      const preview = await callTool(client, 'emails_send', args);
      expect(preview.body).toMatchObject({ confirmationRequired: true, message: { subject: 'Over stdio' } });
      const sent = await callTool(client, 'emails_send', {
        ...args,
        confirmationToken: preview.body.confirmationToken,
      });
      expect(sent.isError, JSON.stringify(sent.body)).toBe(false);
      await deliveredMessage(mail.sink, sent.body.emails[0].email);
    } finally {
      await client.close();
    }
  });

  it('offers only the reading tools with --read-only', async () => {
    const client = await stdio(['--read-only']);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('contacts_find');
      expect(names).not.toContain('contacts_upsert');
      expect(names).not.toContain('emails_send');
      expect((await callTool(client, 'contacts_upsert', { email: 'x@cli.test' })).isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
