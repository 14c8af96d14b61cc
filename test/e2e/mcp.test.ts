import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Domain } from '../../src/api.js';
import { projectAndDomain, useMailServer } from '../support/mail-server.js';
import { callTool, httpMcpClient } from '../support/mcp.js';
import { deliveredMessage, sinkMessagesTo, UUID } from '../support/sending.js';
import { eventually, type TestProject } from '../support/server.js';

const DOMAIN = 'mail.mcp.test';
const FROM = `hello@${DOMAIN}`;

const READ_TOOLS = [
  'activity_list',
  'campaigns_report',
  'contacts_count',
  'contacts_find',
  'contacts_get',
  'domains_status',
  'overview_figures',
  'segments_list',
  'templates_get',
  'templates_list',
  'templates_preview',
  'workflows_executions',
  'workflows_list',
];
const WRITE_TOOLS = ['campaigns_create', 'contacts_upsert', 'events_track', 'segments_create', 'templates_create'];
const SEND_TOOLS = ['campaigns_send', 'emails_send'];

const mail = useMailServer();
let project: TestProject;
let domain: Domain;
let mcp: Client;

beforeAll(async () => {
  [project, domain] = await projectAndDomain(mail, 'mcp', DOMAIN);
  mcp = await httpMcpClient(mail.server.url, project.secretKey);
});
afterAll(() => mcp?.close());

const proTree = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

describe('MCP over Streamable HTTP', () => {
  it('lists every tool with an input schema from the API’s, and the two resources', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS, ...SEND_TOOLS].sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    const upsert = byName.get('contacts_upsert')!;
    expect(upsert.inputSchema.type).toBe('object');
    expect(upsert.inputSchema.required).toEqual(['email']);
    expect(Object.keys(upsert.inputSchema.properties!).sort()).toEqual(['data', 'email', 'subscribed', 'topics']);
    const send = byName.get('emails_send')!.inputSchema.properties!;
    expect(Object.keys(send)).toEqual(
      expect.arrayContaining(['to', 'subject', 'body', 'template', 'confirmationToken']),
    );
    expect(byName.get('contacts_find')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('emails_send')!.annotations).toMatchObject({ readOnlyHint: false });
    // The filter tree of a count is the API's recursive schema, not an empty object.
    expect(JSON.stringify(byName.get('contacts_count')!.inputSchema)).toContain('groups');

    const { resources } = await mcp.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      'postbox://contacts/fields',
      'postbox://reference/openapi.json',
    ]);
    const reference = await mcp.readResource({ uri: 'postbox://reference/openapi.json' });
    const openapi = JSON.parse((reference.contents[0] as { text: string }).text);
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/v1/send', '/contacts', '/segments/count']));
  });

  it('finds, gets and upserts contacts and tracks events, as the API shows them', async () => {
    const created = await callTool(mcp, 'contacts_upsert', {
      email: 'ada@mcp.test',
      data: { firstName: 'Ada', plan: 'pro' },
    });
    expect(created.isError).toBe(false);
    expect(created.body).toMatchObject({ email: 'ada@mcp.test', data: { firstName: 'Ada', plan: 'pro' } });
    expect(created.body._meta).toEqual({ isNew: true, isUpdate: false });
    const updated = await callTool(mcp, 'contacts_upsert', { email: 'ada@mcp.test', data: { city: 'London' } });
    expect(updated.body._meta).toEqual({ isNew: false, isUpdate: true });
    const viaApi = await project.api.get(`/contacts/${created.body.id}`);
    expect(viaApi.body.data).toEqual({ firstName: 'Ada', plan: 'pro', city: 'London' });
    await callTool(mcp, 'contacts_upsert', { email: 'bob@mcp.test', data: { plan: 'free' } });

    const found = await callTool(mcp, 'contacts_find', { search: 'ada@' });
    expect(found.body.data.map((c: { email: string }) => c.email)).toEqual(['ada@mcp.test']);
    expect(found.body.total).toBe(1);
    const byEmail = await callTool(mcp, 'contacts_get', { email: 'bob@mcp.test' });
    expect(byEmail.body).toMatchObject({ email: 'bob@mcp.test', data: { plan: 'free' } });
    const byId = await callTool(mcp, 'contacts_get', { id: created.body.id });
    expect(byId.body.email).toBe('ada@mcp.test');
    const missing = await callTool(mcp, 'contacts_get', { email: 'nobody@mcp.test' });
    expect(missing).toMatchObject({ isError: true, body: { error: { code: 'NOT_FOUND' } } });

    const tracked = await callTool(mcp, 'events_track', { email: 'ada@mcp.test', event: 'trial_started' });
    expect(tracked.body).toMatchObject({ contact: created.body.id, event: expect.stringMatching(UUID) });
    const timeline = await project.api.get(`/events/contact/${created.body.id}`);
    expect(timeline.body.data.map((e: { name: string }) => e.name)).toContain('trial_started');

    const fields = await mcp.readResource({ uri: 'postbox://contacts/fields' });
    const listed = JSON.parse((fields.contents[0] as { text: string }).text).fields.map(
      (f: { field: string }) => f.field,
    );
    expect(listed).toEqual(expect.arrayContaining(['email', 'data.plan', 'data.city']));
  });

  it('refuses bad arguments with the API’s field errors and changes nothing', async () => {
    const bad = await callTool(mcp, 'contacts_upsert', { email: 'not an address' });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.body)).toContain('email');
    const noCondition = await callTool(mcp, 'segments_create', { name: 'No condition' });
    expect(noCondition).toMatchObject({ isError: true, body: { error: { code: 'VALIDATION_ERROR' } } });
    expect((await project.api.get('/contacts?search=not')).body.total).toBe(0);
    expect((await project.api.get('/segments')).body).toEqual([]);
  });

  it('creates, lists, gets and previews templates, counts a tree and saves segments', async () => {
    const template = await callTool(mcp, 'templates_create', {
      name: 'Welcome',
      subject: 'Welcome, {{ firstName ?? "friend" }}',
      body: '<p>Hello {{ firstName ?? "friend" }}, you are on {{ plan }}.</p>',
      from: FROM,
      type: 'TRANSACTIONAL',
    });
    expect(template.isError, JSON.stringify(template.body)).toBe(false);
    expect(template.body).toMatchObject({ name: 'Welcome', type: 'TRANSACTIONAL', id: expect.stringMatching(UUID) });
    expect((await callTool(mcp, 'templates_get', { id: template.body.id })).body.subject).toBe(
      'Welcome, {{ firstName ?? "friend" }}',
    );
    const list = await callTool(mcp, 'templates_list', { search: 'Welc' });
    expect(list.body).toMatchObject({ total: 1, data: [{ id: template.body.id }] });
    const preview = await callTool(mcp, 'templates_preview', {
      templateId: template.body.id,
      data: { firstName: 'Grace', plan: 'team' },
    });
    expect(preview.body.subject).toBe('Welcome, Grace');
    expect(preview.body.html).toContain('Hello Grace, you are on team.');
    expect(preview.body.text).toContain('Hello Grace');
    const inline = await callTool(mcp, 'templates_preview', {
      subject: 'Hi {{ x }}',
      body: '<b>{{ x }}</b>',
      data: { x: 1 },
    });
    expect(inline.body.subject).toBe('Hi 1');

    const count = await callTool(mcp, 'contacts_count', { condition: proTree, preview: 5 });
    expect(count.body).toMatchObject({ total: 1, subscribed: 1 });
    expect(count.body.contacts.map((c: { email: string }) => c.email)).toEqual(['ada@mcp.test']);

    const segment = await callTool(mcp, 'segments_create', { name: 'Pro plan', condition: proTree });
    expect(segment.body).toMatchObject({ name: 'Pro plan', type: 'DYNAMIC', slug: 'pro-plan' });
    const segments = await callTool(mcp, 'segments_list');
    expect(segments.body.data.map((s: { id: string }) => s.id)).toEqual([segment.body.id]);
  });

  it('reads workflows and their executions, the overview, the activity and the domains', async () => {
    const workflow = await project.api.post('/workflows', { name: 'Onboarding', triggerConfig: { event: 'joined' } });
    await project.api.post(`/workflows/${workflow.body.id}/steps`, {
      name: 'wait',
      type: 'DELAY',
      config: { amount: 1, unit: 'days' },
    });
    const ada = await callTool(mcp, 'contacts_get', { email: 'ada@mcp.test' });
    const started = await project.api.post(`/workflows/${workflow.body.id}/executions`, { contactId: ada.body.id });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const workflows = await callTool(mcp, 'workflows_list');
    expect(workflows.body.data.map((w: { name: string }) => w.name)).toEqual(['Onboarding']);
    const executions = await callTool(mcp, 'workflows_executions', { id: workflow.body.id });
    expect(executions.body.data).toHaveLength(1);
    expect(executions.body.data[0].contactId).toBe(ada.body.id);

    const overview = await callTool(mcp, 'overview_figures');
    expect(overview.isError, JSON.stringify(overview.body)).toBe(false);
    expect(overview.body).toEqual(expect.objectContaining({ sent: expect.any(Number) }));
    const activity = await callTool(mcp, 'activity_list', { limit: 50 });
    expect(activity.isError, JSON.stringify(activity.body)).toBe(false);
    expect(Array.isArray(activity.body.data)).toBe(true);

    const domains = await callTool(mcp, 'domains_status');
    expect(domains.body.data).toEqual([expect.objectContaining({ id: domain.id, domain: DOMAIN, verified: true })]);
  });
});

describe('confirmation before anything leaves', () => {
  it('renders an email first, sends it only with the token, and only once per token', async () => {
    const args = {
      to: 'grace@mcp.test',
      from: FROM,
      subject: 'Your code, {{ name }}',
      body: '<p>Code {{ code }} for {{ name }}</p>',
      data: { name: 'Grace', code: '4821' },
    };
    const first = await callTool(mcp, 'emails_send', args);
    expect(first.isError, JSON.stringify(first.body)).toBe(false);
    expect(first.body).toMatchObject({
      confirmationRequired: true,
      message: { from: FROM, to: ['grace@mcp.test'], subject: 'Your code, Grace' },
    });
    expect(first.body.message.html).toContain('Code 4821 for Grace');
    expect(first.body.confirmationToken).toEqual(expect.any(String));
    // Nothing left and nothing was recorded.
    expect((await project.api.get('/emails')).body.data).toEqual([]);

    const changed = await callTool(mcp, 'emails_send', {
      ...args,
      to: 'someone-else@mcp.test',
      confirmationToken: first.body.confirmationToken,
    });
    expect(changed).toMatchObject({ isError: true, body: { error: { code: 'CONFIRMATION_INVALID' } } });
    const forged = await callTool(mcp, 'emails_send', {
      ...args,
      confirmationToken: `${Date.now() + 60_000}.${'A'.repeat(43)}`,
    });
    expect(forged.body.error.code).toBe('CONFIRMATION_INVALID');
    expect((await project.api.get('/emails')).body.data).toEqual([]);

    const sent = await callTool(mcp, 'emails_send', { ...args, confirmationToken: first.body.confirmationToken });
    expect(sent.isError, JSON.stringify(sent.body)).toBe(false);
    expect(sent.body.emails, JSON.stringify(sent.body)).toHaveLength(1);
    const emailId = sent.body.emails[0].email;
    expect(emailId).toMatch(UUID);
    const message = await deliveredMessage(mail.sink, emailId);
    expect(message.to).toEqual(['grace@mcp.test']);
    expect(message.raw.toString()).toContain('Your code, Grace');

    const again = await callTool(mcp, 'emails_send', { ...args, confirmationToken: first.body.confirmationToken });
    expect(again).toMatchObject({ isError: true, body: { error: { code: 'CONFIRMATION_USED' } } });
    expect((await project.api.get('/emails')).body.data).toHaveLength(1);
    expect(sinkMessagesTo(mail.sink, 'grace@mcp.test')).toHaveLength(1);
  });

  it('drafts a campaign, shows its recipient count, sends only when confirmed, and reports it', async () => {
    const draft = await callTool(mcp, 'campaigns_create', {
      name: 'Pro news',
      subject: 'News for {{ firstName ?? "you" }}',
      body: '<p>Hello</p>',
      from: FROM,
      audienceType: 'FILTERED',
      audienceCondition: proTree,
    });
    expect(draft.isError, JSON.stringify(draft.body)).toBe(false);
    expect(draft.body).toMatchObject({ status: 'DRAFT', audienceType: 'FILTERED' });
    await callTool(mcp, 'contacts_upsert', { email: 'carol@mcp.test', data: { plan: 'pro' } });
    await callTool(mcp, 'contacts_upsert', { email: 'dan@mcp.test', subscribed: false, data: { plan: 'pro' } });

    const first = await callTool(mcp, 'campaigns_send', { id: draft.body.id });
    // Ada and Carol: Dan matches but is unsubscribed, and a MARKETING campaign leaves him out.
    expect(first.body).toMatchObject({ confirmationRequired: true, recipients: 2, campaign: { status: 'DRAFT' } });
    expect((await callTool(mcp, 'campaigns_report', { id: draft.body.id })).body.campaign.status).toBe('DRAFT');

    // An edit after the preview voids its token.
    await project.api.request('PUT', `/campaigns/${draft.body.id}`, {
      body: { ...draft.body, subject: 'Edited news', audienceCondition: proTree },
    });
    const stale = await callTool(mcp, 'campaigns_send', {
      id: draft.body.id,
      confirmationToken: first.body.confirmationToken,
    });
    expect(stale.body.error?.code, JSON.stringify(stale.body)).toBe('CONFIRMATION_INVALID');

    const second = await callTool(mcp, 'campaigns_send', { id: draft.body.id });
    const sent = await callTool(mcp, 'campaigns_send', {
      id: draft.body.id,
      confirmationToken: second.body.confirmationToken,
    });
    expect(sent.isError, JSON.stringify(sent.body)).toBe(false);
    expect(sent.body.campaign.status).toBe('SENDING');
    await eventually(async () => (sinkMessagesTo(mail.sink, 'carol@mcp.test').length === 1 ? true : undefined));
    const report = await eventually(async () => {
      const r = await callTool(mcp, 'campaigns_report', { id: draft.body.id });
      return r.body.stats.sent === 2 ? r.body : undefined;
    });
    expect(report.progress).toMatchObject({ totalRecipients: 2 });
    expect(sinkMessagesTo(mail.sink, 'dan@mcp.test')).toHaveLength(0);
  });
});

describe('read-only mode and keys', () => {
  it('offers no write tool and refuses a write by name, changing nothing', async () => {
    const reader = await httpMcpClient(mail.server.url, project.secretKey, '?readOnly=true');
    try {
      const { tools } = await reader.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(READ_TOOLS);
      for (const name of [...WRITE_TOOLS, ...SEND_TOOLS]) {
        const refused = await callTool(reader, name, { email: 'eve@mcp.test', event: 'x' });
        expect(refused.isError, name).toBe(true);
        expect(String(refused.body), name).toContain('not found');
      }
      expect((await callTool(reader, 'contacts_find', { search: 'eve@' })).body.total).toBe(0);
    } finally {
      await reader.close();
    }
  });

  it('needs the project’s secret key, and sees only its own project', async () => {
    const noKey = await fetch(`${mail.server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noKey.status).toBe(401);
    expect((await noKey.json()).error.code).toBe('INVALID_API_KEY');
    await expect(httpMcpClient(mail.server.url, project.publicKey)).rejects.toThrow();

    const other = await mail.server.project('mcp-other');
    const theirs = await httpMcpClient(mail.server.url, other.secretKey);
    try {
      expect((await callTool(theirs, 'contacts_find')).body.total).toBe(0);
      const ada = await callTool(mcp, 'contacts_get', { email: 'ada@mcp.test' });
      expect((await callTool(theirs, 'contacts_get', { id: ada.body.id })).body.error.code).toBe('NOT_FOUND');
    } finally {
      await theirs.close();
    }
  });
});
