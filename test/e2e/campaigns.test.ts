import { randomUUID } from 'node:crypto';
import { type ParsedMail, simpleParser } from 'mailparser';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Campaign, CampaignStats, Contact, campaigns, FilterCondition, TrackedEvent } from '../../src/api.js';
import { verifiedDomain } from '../support/domains.js';
import { NO_CAMPAIGN_FIGURES } from '../support/figures.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import {
  deliveredMessage,
  emailRecord,
  headerBlock,
  messageIdOf,
  recordWhen,
  sinkMessagesTo,
  trackingLinks,
  UUID,
  uniqueAddresses,
} from '../support/sending.js';
import {
  type ApiResponse,
  type Client,
  eventually,
  expectBody,
  pollUntil,
  type TestProject,
} from '../support/server.js';
import type { ReceivedMessage, Verdict } from '../support/smtp-sink.js';

// ---------------------------------------------------------------------------------------------
// Types of the API resources the suite reads.

type CampaignPage = z.infer<typeof campaigns.campaignPageSchema>;

/** The error envelope; the API exports no type of it. */
interface ErrorBody {
  code: string;
  message: string;
  statusCode: number;
  requestId: string;
  errors?: { field: string; message: string; code: string; received?: unknown }[];
  details: Record<string, unknown>;
  suggestion: string;
}

// ---------------------------------------------------------------------------------------------
// One server for the file: a real SMTP sink and a real DNS server on loopback.

const DOMAIN = 'news.campaigns.test';
const FROM = `news@${DOMAIN}`;
const OTHER_DOMAIN = 'other.campaigns.test';
const ACCEPT: Verdict = { accept: true };
const COUNTERS = [
  'totalRecipients',
  'sentCount',
  'deliveredCount',
  'openedCount',
  'clickedCount',
  'bouncedCount',
] as const;

/** The counters of a campaign nothing was sent for. */
const NO_COUNTS = {
  totalRecipients: 0,
  sentCount: 0,
  deliveredCount: 0,
  openedCount: 0,
  clickedCount: 0,
  bouncedCount: 0,
  complainedCount: 0,
};

let main: TestProject;
let other: TestProject;
let sinkDown = false;

const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });

beforeAll(async () => {
  main = await projectWithDomain(mail, 'campaigns-main', DOMAIN);
  other = await projectWithDomain(mail, 'campaigns-other', OTHER_DOMAIN);
});
afterEach(async () => {
  // Whatever a test did to the sink, the next one starts with a listening sink that accepts.
  mail.sink.respond(() => ACCEPT);
  if (sinkDown) await startSink();
});

async function stopSink(): Promise<void> {
  await mail.sink.stop();
  sinkDown = true;
}
async function startSink(): Promise<void> {
  await mail.sink.start();
  sinkDown = false;
}

// ---------------------------------------------------------------------------------------------
// Helpers.

let seq = 0;
/** A tag no other test uses: names recipient batches, events and segments. */
const tag = (name: string) => `${name}${++seq}`;
/** A recipient address no other test uses. */
const rcpt = uniqueAddresses('rcpt.campaigns.test');

/** The audience of the contacts whose `data.batch` is `batch`. */
const batchIs = (batch: string): FilterCondition => ({
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.batch', operator: 'equals', value: batch }] }],
});

const SUBJECT = 'News for {{ first ?? "you" }}';
const BODY = '<p>Hello {{ first ?? "there" }}</p>';

/** A valid create body (audience ALL), with `overrides`. */
function campaignInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: `Campaign ${++seq}`, subject: SUBJECT, body: BODY, from: FROM, audienceType: 'ALL', ...overrides };
}

async function createCampaign(api: Client, overrides: Record<string, unknown> = {}): Promise<Campaign> {
  const res = await api.post('/campaigns', campaignInput(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** A campaign to the contacts of `batch`. */
const batchCampaign = (api: Client, batch: string, overrides: Record<string, unknown> = {}) =>
  createCampaign(api, { audienceType: 'FILTERED', audienceCondition: batchIs(batch), ...overrides });

async function getCampaign(api: Client, id: string): Promise<Campaign> {
  return expectBody(api.get(`/campaigns/${id}`));
}

async function statsOf(api: Client, id: string): Promise<CampaignStats> {
  return expectBody(api.get(`/campaigns/${id}/stats`));
}

/** Polls the campaign until `done` holds. */
function campaignWhen(api: Client, id: string, done: (c: Campaign) => boolean, timeoutMs = 30_000): Promise<Campaign> {
  return pollUntil(() => getCampaign(api, id), done, timeoutMs);
}

const sentCampaign = (api: Client, id: string, timeoutMs?: number) =>
  campaignWhen(api, id, (c) => c.status === 'SENT', timeoutMs);

/** POST /campaigns/{id}/send with `body` (no body when undefined). */
function send(api: Client, id: string, body?: unknown): Promise<ApiResponse> {
  return api.request('POST', `/campaigns/${id}/send`, body === undefined ? {} : { body });
}

/**
 * A send that must be accepted: `{ success, data, message }`, the campaign SENDING when sent now
 * and SCHEDULED for the time given otherwise; returns `data`.
 */
async function sendOk(api: Client, id: string, body?: { scheduledFor: unknown }): Promise<Campaign> {
  const res = await send(api, id, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toEqual({ success: true, data: expect.objectContaining({ id }), message: expect.any(String) });
  const now = body === undefined || body.scheduledFor === null;
  expect(res.body.data).toMatchObject(
    now ? { status: 'SENDING', scheduledFor: null, sentAt: expect.any(String) } : { status: 'SCHEDULED', sentAt: null },
  );
  return res.body.data;
}

async function cancelOk(api: Client, id: string): Promise<Campaign> {
  const res = await api.post(`/campaigns/${id}/cancel`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toEqual({
    success: true,
    data: expect.objectContaining({ id, status: 'CANCELLED' }),
    message: expect.any(String),
  });
  return res.body.data;
}

async function createContact(
  api: Client,
  email: string,
  data: Record<string, unknown> = {},
  subscribed = true,
): Promise<Contact> {
  return expectBody(api.post('/contacts', { email, data, subscribed }), 201);
}

/** `n` subscribed contacts with `data: { batch, first: <a unique name> }` and `data`. */
async function batchContacts(
  api: Client,
  batch: string,
  n: number,
  data: Record<string, unknown> = {},
): Promise<Contact[]> {
  const contacts: Contact[] = [];
  for (let i = 1; i <= n; i++)
    contacts.push(await createContact(api, rcpt(batch), { batch, first: `Name${seq}`, ...data }));
  return contacts;
}

async function contactsMatching(api: Client, email: string): Promise<number> {
  const res = await api.get(`/contacts?search=${encodeURIComponent(email)}`);
  expect(res.status).toBe(200);
  return res.body.total;
}

async function eventsOf(api: Client, contactId: string, name: string): Promise<TrackedEvent[]> {
  const res = await api.get(`/events/contact/${contactId}?limit=100&name=${encodeURIComponent(name)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** The contact's `name` events that belong to the campaign. */
async function campaignEvents(
  api: Client,
  contactId: string,
  campaignId: string,
  name = 'email.sent',
): Promise<TrackedEvent[]> {
  return (await eventsOf(api, contactId, name)).filter((e) => e.data.campaignId === campaignId);
}

/** The id of the campaign's one email to a contact, from its event (`email.sent` unless told). */
async function campaignEmailId(
  api: Client,
  contactId: string,
  campaignId: string,
  name = 'email.sent',
): Promise<string> {
  const events = await campaignEvents(api, contactId, campaignId, name);
  expect(events, JSON.stringify(events)).toHaveLength(1);
  expect(events[0]!.data).toEqual(expect.objectContaining({ campaignId, emailId: expect.stringMatching(UUID) }));
  return events[0]!.data.emailId as string;
}

/** Messages the sink accepted for email record `emailId`, to `address`. */
const messagesOf = (address: string, emailId: string) =>
  sinkMessagesTo(mail.sink, address).filter((m) => messageIdOf(m.raw)?.startsWith(`<${emailId}@`));

/** A header exactly as written in the raw message (unfolded), or undefined. */
function rawHeader(raw: Buffer, name: string): string | undefined {
  return new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(headerBlock(raw))?.[1];
}

const parse = (message: ReceivedMessage): Promise<ParsedMail> => simpleParser(message.raw);

interface Rendered {
  subject: string;
  html: string;
}
/** What the default SUBJECT and BODY render to for a contact. */
const greeting = (c: Contact): Rendered => ({
  subject: `News for ${String(c.data.first)}`,
  html: `Hello ${String(c.data.first)}`,
});

/**
 * A SENT campaign reached each recipient with exactly one email (one `email.sent` event carrying
 * the campaign id, a record showing it) and one message at the sink, rendered for that contact,
 * with the unsubscribe headers and footer when it is MARKETING. Returns the parsed messages.
 */
async function expectDelivered(
  api: Client,
  campaign: Campaign,
  recipients: Contact[],
  expected: (c: Contact) => Rendered = greeting,
): Promise<Map<string, { emailId: string; parsed: ParsedMail }>> {
  const out = new Map<string, { emailId: string; parsed: ParsedMail }>();
  for (const contact of recipients) {
    const emailId = await campaignEmailId(api, contact.id, campaign.id);
    expect(await emailRecord(api, emailId)).toMatchObject({
      id: emailId,
      campaignId: campaign.id,
      contactId: contact.id,
      to: contact.email,
      from: campaign.from,
      type: campaign.type,
      status: 'sent',
      subject: expected(contact).subject,
    });
    const messages = messagesOf(contact.email, emailId);
    expect(messages, `messages of ${contact.email}`).toHaveLength(1);
    const raw = messages[0]!.raw;
    const parsed = await parse(messages[0]!);
    expect(parsed.subject).toBe(expected(contact).subject);
    expect(parsed.from?.value[0]?.address).toBe(campaign.from);
    expect(parsed.html || '').toContain(expected(contact).html);
    const listUnsubscribe = rawHeader(raw, 'List-Unsubscribe');
    if (campaign.type === 'MARKETING') {
      expect(listUnsubscribe).toMatch(/^<https?:\/\/[^>]+\/unsubscribe\/[^>]+>$/);
      expect(rawHeader(raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      expect(parsed.html || '').toContain(listUnsubscribe!.slice(1, -1));
    } else {
      expect(listUnsubscribe).toBeUndefined();
      expect(parsed.html || '').not.toContain('/unsubscribe/');
    }
    out.set(contact.id, { emailId, parsed });
  }
  return out;
}

/** The campaign made no email for these contacts, and their addresses received nothing. */
async function expectNotReached(api: Client, campaign: Campaign, contacts: Contact[]): Promise<void> {
  for (const contact of contacts) {
    expect(await campaignEvents(api, contact.id, campaign.id, 'email.sent'), contact.email).toEqual([]);
    expect(await campaignEvents(api, contact.id, campaign.id, 'email.failed'), contact.email).toEqual([]);
    expect(sinkMessagesTo(mail.sink, contact.email), contact.email).toHaveLength(0);
  }
}

/**
 * The campaign's counters and its stats agree with the expected figures (delivered = sent: no bounce reports here),
 * and it has the expected status when one is given.
 */
async function expectCounters(
  api: Client,
  id: string,
  want: {
    status?: Campaign['status'];
    total: number;
    sent: number;
    bounced?: number;
    opened?: number;
    clicked?: number;
    skipped?: number;
  },
): Promise<CampaignStats> {
  const c = await getCampaign(api, id);
  if (want.status) expect(c.status).toBe(want.status);
  const { bounced = 0, opened = 0, clicked = 0, skipped = 0 } = want;
  expect({
    totalRecipients: c.totalRecipients,
    sentCount: c.sentCount,
    deliveredCount: c.deliveredCount,
    bouncedCount: c.bouncedCount,
    openedCount: c.openedCount,
    clickedCount: c.clickedCount,
  }).toEqual({
    totalRecipients: want.total,
    sentCount: want.sent,
    deliveredCount: want.sent,
    bouncedCount: bounced,
    openedCount: opened,
    clickedCount: clicked,
  });
  const stats = await statsOf(api, id);
  const rate = (n: number, of: number) => (of === 0 ? 0 : n / of);
  expect(stats).toEqual({
    campaignId: id,
    status: c.status,
    totalRecipients: want.total,
    sent: want.sent,
    delivered: want.sent,
    opened,
    clicked,
    bounced,
    complained: 0,
    skipped,
    unsubscribed: 0,
    pending: want.total - want.sent - bounced - skipped,
    openRate: expect.closeTo(rate(opened, want.sent), 4),
    clickRate: expect.closeTo(rate(clicked, want.sent), 4),
    bounceRate: expect.closeTo(rate(bounced, want.sent + bounced), 4),
  });
  return stats;
}

/** A refusal in the standard envelope (never the legacy `{ error: string }`). */
function expectError(res: ApiResponse, status: number, code: string): ErrorBody {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({
    success: false,
    error: { code, statusCode: status, message: expect.any(String), requestId: expect.any(String) },
    timestamp: expect.any(String),
  });
  return res.body.error;
}

/** A refusal whose field errors include `field` (with `fieldCode` when given). */
function expectFieldError(
  res: ApiResponse,
  status: number,
  code: string,
  field: string,
  fieldCode?: string,
): ErrorBody {
  const error = expectError(res, status, code);
  expect(error.errors, JSON.stringify(error.errors)).toContainEqual(
    expect.objectContaining(fieldCode ? { field, code: fieldCode } : { field }),
  );
  return error;
}

async function open(pixel: string): Promise<void> {
  const res = await fetch(pixel);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/gif');
  await res.arrayBuffer();
}

async function click(link: string, target: string): Promise<void> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe(target);
}

/** A campaign to a fresh batch of `n` contacts, sent and finished. */
/** A campaign scheduled for a day from now (the object is the draft as created). */
async function scheduledCampaign(api: Client): Promise<Campaign> {
  const c = await createCampaign(api);
  await sendOk(api, c.id, { scheduledFor: new Date(Date.now() + 86_400_000).toISOString() });
  return c;
}

/** A campaign scheduled for a day from now, then cancelled (the object is the draft as created). */
async function cancelledCampaign(api: Client): Promise<Campaign> {
  const c = await scheduledCampaign(api);
  await cancelOk(api, c.id);
  return c;
}

async function sentBatchCampaign(api: Client, n: number, overrides: Record<string, unknown> = {}) {
  const batch = tag('sent');
  const contacts = await batchContacts(api, batch, n);
  const created = await batchCampaign(api, batch, overrides);
  await sendOk(api, created.id);
  const campaign = await sentCampaign(api, created.id);
  return { campaign, contacts, batch };
}

// ---------------------------------------------------------------------------------------------

describe('POST /campaigns', () => {
  it('answers 201 { success, data: Campaign } with every field, in DRAFT with zero counters', async () => {
    const before = Date.now();
    const res = await main.api.post('/campaigns', {
      name: 'Spring sale',
      subject: SUBJECT,
      body: BODY,
      from: FROM,
      audienceType: 'ALL',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(UUID),
        name: 'Spring sale',
        description: null,
        subject: SUBJECT,
        body: BODY,
        bodySource: null,
        from: FROM,
        fromName: null,
        replyTo: null,
        type: 'MARKETING',
        trackOpens: null,
        trackClicks: null,
        status: 'DRAFT',
        audienceType: 'ALL',
        audienceCondition: null,
        segmentId: null,
        topicId: null,
        scheduledFor: null,
        localTime: null,
        spread: null,
        abTest: null,
        ...NO_COUNTS,
        pausedReason: null,
        pausedAt: null,
        projectId: main.id,
        sentAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const data: Campaign = res.body.data;
    for (const counter of COUNTERS) expect(Number.isInteger(data[counter])).toBe(true);
    expect(new Date(data.createdAt).toISOString()).toBe(data.createdAt);
    expect(Date.parse(data.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(data.updatedAt).toBe(data.createdAt);
    // GET answers the campaign itself, unwrapped.
    expect(await getCampaign(main.api, data.id)).toEqual(data);
  });

  it('stores the optional fields and a FILTERED audience as given', async () => {
    const condition: FilterCondition = {
      logic: 'OR',
      groups: [
        { filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] },
        {
          filters: [{ field: 'email', operator: 'contains', value: '@acme.' }],
          conditions: {
            logic: 'AND',
            groups: [{ filters: [{ field: 'data.age', operator: 'greaterThan', value: 30 }] }],
          },
        },
      ],
    };
    const fields = {
      name: 'Full',
      description: 'Internal note',
      fromName: 'The News Team',
      replyTo: `replies@${DOMAIN}`,
      type: 'TRANSACTIONAL',
      audienceType: 'FILTERED',
      audienceCondition: condition,
    };
    const created = await createCampaign(main.api, fields);
    expect(created).toMatchObject({ ...fields, segmentId: null, status: 'DRAFT' });
    expect(await getCampaign(main.api, created.id)).toEqual(created);
  });

  it('keeps only the audience field of the audience type', async () => {
    const segment = await main.api.post('/segments', { name: tag('Kept'), type: 'STATIC' });
    expect(segment.status).toBe(201);
    const condition = batchIs('nobody');

    const all = await createCampaign(main.api, {
      audienceType: 'ALL',
      segmentId: segment.body.id,
      audienceCondition: condition,
    });
    expect(all).toMatchObject({ audienceType: 'ALL', segmentId: null, audienceCondition: null });
    const bySegment = await createCampaign(main.api, {
      audienceType: 'SEGMENT',
      segmentId: segment.body.id,
      audienceCondition: condition,
    });
    expect(bySegment).toMatchObject({ audienceType: 'SEGMENT', segmentId: segment.body.id, audienceCondition: null });
    const filtered = await createCampaign(main.api, {
      audienceType: 'FILTERED',
      segmentId: segment.body.id,
      audienceCondition: condition,
    });
    expect(filtered).toMatchObject({ audienceType: 'FILTERED', segmentId: null, audienceCondition: condition });
    for (const c of [all, bySegment, filtered]) expect(await getCampaign(main.api, c.id)).toEqual(c);
  });

  it('answers 400 in the standard envelope for SEGMENT without segmentId and FILTERED without audienceCondition', async () => {
    const before = (await main.api.get('/campaigns?pageSize=1')).body.total;
    expectFieldError(
      await main.api.post('/campaigns', campaignInput({ audienceType: 'SEGMENT' })),
      400,
      'VALIDATION_ERROR',
      'segmentId',
    );
    expectFieldError(
      await main.api.post('/campaigns', campaignInput({ audienceType: 'SEGMENT', segmentId: null })),
      400,
      'VALIDATION_ERROR',
      'segmentId',
    );
    expectFieldError(
      await main.api.post('/campaigns', campaignInput({ audienceType: 'FILTERED' })),
      400,
      'VALIDATION_ERROR',
      'audienceCondition',
    );
    expectFieldError(
      await main.api.post(
        '/campaigns',
        campaignInput({ audienceType: 'FILTERED', audienceCondition: null, segmentId: randomUUID() }),
      ),
      400,
      'VALIDATION_ERROR',
      'audienceCondition',
    );
    expect((await main.api.get('/campaigns?pageSize=1')).body.total).toBe(before);
  });

  it('answers 422 with the field for each missing required field', async () => {
    for (const field of ['name', 'subject', 'body', 'from', 'audienceType']) {
      const body = campaignInput();
      delete body[field];
      expectFieldError(await main.api.post('/campaigns', body), 422, 'VALIDATION_ERROR', field, 'invalid_type');
    }
  });

  it('answers 422 for bad values', async () => {
    const cases: [Record<string, unknown>, string, string?][] = [
      [{ name: '' }, 'name', 'too_small'],
      [{ name: '   ' }, 'name', 'too_small'],
      [{ name: 42 }, 'name', 'invalid_type'],
      [{ subject: '' }, 'subject', 'too_small'],
      [{ subject: 'Line\nbreak' }, 'subject', 'invalid_string'],
      [{ body: '' }, 'body', 'too_small'],
      [{ from: 'not-an-email' }, 'from'],
      [{ replyTo: 'nope' }, 'replyTo'],
      [{ type: 'SPAM' }, 'type', 'invalid_enum_value'],
      [{ audienceType: 'EVERYONE' }, 'audienceType', 'invalid_enum_value'],
      [{ audienceType: 'SEGMENT', segmentId: 'not-a-uuid' }, 'segmentId', 'invalid_string'],
      [{ audienceType: 'FILTERED', audienceCondition: 'data.plan = pro' }, 'audienceCondition', 'invalid_type'],
    ];
    for (const [override, field, code] of cases) {
      expectFieldError(
        await main.api.post('/campaigns', campaignInput(override)),
        422,
        'VALIDATION_ERROR',
        field,
        code,
      );
    }
  });

  it('answers 422 naming the path of an invalid audienceCondition tree', async () => {
    const filtered = (audienceCondition: unknown) => campaignInput({ audienceType: 'FILTERED', audienceCondition });
    const one = (filter: Record<string, unknown>) => ({ logic: 'AND', groups: [{ filters: [filter] }] });
    const cases: [unknown, string][] = [
      [{ logic: 'XOR', groups: [{ filters: [] }] }, 'audienceCondition.logic'],
      [{ logic: 'AND', groups: [] }, 'audienceCondition.groups'],
      [{ logic: 'AND' }, 'audienceCondition.groups'],
      [one({ field: 'plan', operator: 'equals', value: 'pro' }), 'audienceCondition.groups.0.filters.0.field'],
      [one({ field: 'data.plan', operator: 'like', value: 'pro' }), 'audienceCondition.groups.0.filters.0.operator'],
      [one({ field: 'data.plan', operator: 'equals' }), 'audienceCondition.groups.0.filters.0.value'],
      [one({ field: 'data.seen', operator: 'within', value: 7 }), 'audienceCondition.groups.0.filters.0.unit'],
      [
        one({ field: 'segment', operator: 'memberOfSegment', value: 'not-a-uuid' }),
        'audienceCondition.groups.0.filters.0.value',
      ],
      [
        {
          logic: 'AND',
          groups: [
            { filters: [] },
            {
              filters: [],
              conditions: {
                logic: 'OR',
                groups: [{ filters: [{ field: 'data.x', operator: 'contains', value: '' }] }],
              },
            },
          ],
        },
        'audienceCondition.groups.1.conditions.groups.0.filters.0.value',
      ],
    ];
    for (const [condition, field] of cases) {
      expectFieldError(await main.api.post('/campaigns', filtered(condition)), 422, 'VALIDATION_ERROR', field);
    }
  });

  it('answers 422 unknown_segment for a segment that is not the project’s', async () => {
    const foreign = await other.api.post('/segments', { name: tag('Foreign'), type: 'STATIC' });
    expect(foreign.status).toBe(201);
    for (const segmentId of [randomUUID(), foreign.body.id]) {
      expectFieldError(
        await main.api.post('/campaigns', campaignInput({ audienceType: 'SEGMENT', segmentId })),
        422,
        'VALIDATION_ERROR',
        'segmentId',
        'unknown_segment',
      );
      const condition = {
        logic: 'AND',
        groups: [{ filters: [{ field: 'segment', operator: 'memberOfSegment', value: segmentId }] }],
      };
      expectFieldError(
        await main.api.post('/campaigns', campaignInput({ audienceType: 'FILTERED', audienceCondition: condition })),
        422,
        'VALIDATION_ERROR',
        'audienceCondition',
        'unknown_segment',
      );
    }
  });

  it('answers 422 invalid_template for Liquid syntax errors in the subject or the body', async () => {
    expectFieldError(
      await main.api.post('/campaigns', campaignInput({ subject: 'Hi {{ first' })),
      422,
      'VALIDATION_ERROR',
      'subject',
      'invalid_template',
    );
    expectFieldError(
      await main.api.post('/campaigns', campaignInput({ body: '<p>{% if vip %}VIP</p>' })),
      422,
      'VALIDATION_ERROR',
      'body',
      'invalid_template',
    );
    expectFieldError(
      await main.api.post('/campaigns', campaignInput({ body: '<p>{% include "x" %}</p>' })),
      422,
      'VALIDATION_ERROR',
      'body',
      'invalid_template',
    );
  });

  it('answers 403 for a sender domain that is unregistered, another project’s, or not verified', async () => {
    const unregistered = expectError(
      await main.api.post('/campaigns', campaignInput({ from: 'a@nowhere.campaigns.test' })),
      403,
      'INTERNAL_SERVER_ERROR',
    );
    expect(unregistered.details).toMatchObject({
      domain: 'nowhere.campaigns.test',
      registered: false,
      verified: false,
    });
    const foreign = expectError(
      await main.api.post('/campaigns', campaignInput({ from: `a@${OTHER_DOMAIN}` })),
      403,
      'INTERNAL_SERVER_ERROR',
    );
    expect(foreign.details).toMatchObject({ domain: OTHER_DOMAIN, registered: false });

    const pending = 'pending.campaigns.test';
    expect((await main.api.post('/domains', { domain: pending })).status).toBe(201);
    const unverified = expectError(
      await main.api.post('/campaigns', campaignInput({ from: `a@${pending}` })),
      403,
      'INTERNAL_SERVER_ERROR',
    );
    expect(unverified.details).toMatchObject({ domain: pending, registered: true, verified: false });
    // A subdomain of a verified domain is not covered.
    expectError(
      await main.api.post('/campaigns', campaignInput({ from: `a@sub.${DOMAIN}` })),
      403,
      'INTERNAL_SERVER_ERROR',
    );
  });

  it('answers 401 without a key or with the public key', async () => {
    expectError(
      await main.api.request('POST', '/campaigns', { body: campaignInput(), key: null }),
      401,
      'INVALID_API_KEY',
    );
    expectError(
      await main.api.request('POST', '/campaigns', { body: campaignInput(), key: main.publicKey }),
      401,
      'INVALID_API_KEY',
    );
    expectError(await main.api.request('GET', '/campaigns', { key: main.publicKey }), 401, 'INVALID_API_KEY');
  });
});

describe('GET /campaigns', () => {
  let lists: TestProject;
  const LISTS_DOMAIN = 'lists.campaigns.test';
  const byName: Record<string, Campaign> = {};
  const NAMES = ['alpha launch', 'Bravo news', 'charlie offers', 'Delta digest', 'echo update'];

  beforeAll(async () => {
    lists = await mail.server.project('campaigns-lists');
    await verifiedDomain(lists.api, mail.dns, LISTS_DOMAIN);
    for (const name of NAMES) {
      byName[name] = await createCampaign(lists.api, {
        name,
        subject: name === 'Delta digest' ? 'The Quarterly digest' : `About ${name}`,
        from: name === 'echo update' ? `deals@${LISTS_DOMAIN}` : `news@${LISTS_DOMAIN}`,
      });
    }
    // Bravo scheduled far ahead, charlie scheduled then cancelled; the others stay drafts.
    await sendOk(lists.api, byName['Bravo news']!.id, {
      scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await sendOk(lists.api, byName['charlie offers']!.id, {
      scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await cancelOk(lists.api, byName['charlie offers']!.id);
  });

  async function list(query = ''): Promise<CampaignPage> {
    return expectBody(lists.api.get(`/campaigns${query}`));
  }
  const names = (page: CampaignPage) => page.data.map((c) => c.name);

  it('answers { data, page, pageSize, total, totalPages } with defaults page 1 and pageSize 20', async () => {
    const page = await list();
    expect(page).toEqual({ data: expect.any(Array), page: 1, pageSize: 20, total: 5, totalPages: 1 });
    expect(page.data).toHaveLength(5);
    for (const c of page.data) expect(c).toEqual(await getCampaign(lists.api, c.id));
  });

  it('pages with page and pageSize; pages join to the whole list without repeats', async () => {
    const all = await list();
    const pages = [await list('?pageSize=2'), await list('?pageSize=2&page=2'), await list('?pageSize=2&page=3')];
    expect(pages.map((p) => [p.page, p.pageSize, p.total, p.totalPages, p.data.length])).toEqual([
      [1, 2, 5, 3, 2],
      [2, 2, 5, 3, 2],
      [3, 2, 5, 3, 1],
    ]);
    expect(pages.flatMap((p) => p.data.map((c) => c.id))).toEqual(all.data.map((c) => c.id));
    expect(await list('?pageSize=2&page=4')).toEqual({ data: [], page: 4, pageSize: 2, total: 5, totalPages: 3 });
    expect((await list('?pageSize=500')).pageSize).toBe(100);
    for (const bad of ['page=0', 'page=abc', 'pageSize=0', 'pageSize=-1']) {
      expectError(await lists.api.get(`/campaigns?${bad}`), 422, 'VALIDATION_ERROR');
    }
  });

  it('filters by status; an unknown status is a 400 in the standard envelope', async () => {
    const drafts = await list('?status=DRAFT');
    expect(drafts.total).toBe(3);
    expect(drafts.totalPages).toBe(1);
    expect(names(drafts).sort()).toEqual(['Delta digest', 'alpha launch', 'echo update']);
    expect(names(await list('?status=SCHEDULED'))).toEqual(['Bravo news']);
    expect(names(await list('?status=CANCELLED'))).toEqual(['charlie offers']);
    expect(await list('?status=SENT')).toMatchObject({ data: [], total: 0, totalPages: 0 });
    expect((await list('?status=DRAFT&pageSize=2')).totalPages).toBe(2);
    for (const bad of ['BOGUS', 'draft', '']) {
      expectFieldError(await lists.api.get(`/campaigns?status=${bad}`), 400, 'INVALID_STATUS', 'status');
    }
  });

  it('searches name, subject and sender address case-insensitively', async () => {
    expect(names(await list('?search=ALPHA'))).toEqual(['alpha launch']);
    expect(names(await list('?search=quarterly'))).toEqual(['Delta digest']);
    expect(names(await list('?search=deals%40'))).toEqual(['echo update']);
    expect((await list(`?search=${encodeURIComponent(`@${LISTS_DOMAIN}`)}`)).total).toBe(5);
    expect((await list('?search=a&status=DRAFT')).total).toBe(3);
    // LIKE wildcards are searched for literally.
    expect((await list('?search=%25')).total).toBe(0);
    expect((await list('?search=_')).total).toBe(0);
    expect((await list('?search=nothing-like-this')).total).toBe(0);
  });

  it('sorts by name, createdAt and updatedAt in either direction; unknown sort and dir fall back', async () => {
    const ordered = [...NAMES];
    expect(names(await list('?sort=name&dir=asc'))).toEqual(ordered);
    expect(names(await list('?sort=name&dir=desc'))).toEqual([...ordered].reverse());
    expect(names(await list('?sort=name'))).toEqual([...ordered].reverse());

    const byCreated = await list('?sort=createdAt&dir=asc');
    const key = (c: Campaign) => [Date.parse(c.createdAt), c.id] as const;
    const sorted = [...byCreated.data].sort((a, b) => key(a)[0] - key(b)[0] || (key(a)[1] < key(b)[1] ? -1 : 1));
    expect(byCreated.data.map((c) => c.id)).toEqual(sorted.map((c) => c.id));
    const desc = (await list('?sort=createdAt&dir=desc')).data.map((c) => c.id);
    expect(desc).toEqual(sorted.map((c) => c.id).reverse());
    expect((await list()).data.map((c) => c.id)).toEqual(desc);
    expect((await list('?sort=bogus')).data.map((c) => c.id)).toEqual(desc);
    expect((await list('?sort=createdAt&dir=sideways')).data.map((c) => c.id)).toEqual(desc);

    const alpha = byName['alpha launch']!;
    const put = await lists.api.request('PUT', `/campaigns/${alpha.id}`, {
      body: campaignInput({ name: alpha.name, subject: alpha.subject, from: alpha.from }),
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(names(await list('?sort=updatedAt&dir=desc'))[0]).toBe('alpha launch');
    expect(names(await list('?sort=updatedAt&dir=asc')).at(-1)).toBe('alpha launch');
  });

  it('answers the campaigns of a list of ids, of its own project only; a malformed list is a 422', async () => {
    const [alpha, delta] = [byName['alpha launch']!.id, byName['Delta digest']!.id];
    const page = await list(`?ids=${alpha},${delta},${randomUUID()}&sort=name&dir=asc`);
    expect(names(page)).toEqual(['alpha launch', 'Delta digest']);
    expect(page.total).toBe(2);
    expect((await expectBody<CampaignPage>(main.api.get(`/campaigns?ids=${alpha}`))).data).toEqual([]);
    for (const bad of ['ids=x', 'ids=', `ids=${Array.from({ length: 101 }, () => alpha).join(',')}`]) {
      expectError(await lists.api.get(`/campaigns?${bad}`), 422, 'VALIDATION_ERROR');
    }
  });

  it('lists only the project’s own campaigns', async () => {
    const ours = await list('?pageSize=100');
    expect(ours.data.every((c) => c.projectId === lists.id)).toBe(true);
    const theirs = await main.api.get('/campaigns?pageSize=100');
    expect(theirs.status).toBe(200);
    const ids = new Set(ours.data.map((c) => c.id));
    expect((theirs.body as CampaignPage).data.some((c) => ids.has(c.id))).toBe(false);
  });
});

describe('campaign ids: other projects and malformed ids', () => {
  it('answers 404 on every /campaigns/{id} route for another project’s campaign, and changes nothing', async () => {
    const theirs = await createCampaign(other.api, { from: `news@${OTHER_DOMAIN}` });
    const id = theirs.id;
    const routes: [string, string, unknown?][] = [
      ['GET', `/campaigns/${id}`],
      ['PUT', `/campaigns/${id}`, campaignInput()],
      ['DELETE', `/campaigns/${id}`],
      ['POST', `/campaigns/${id}/duplicate`],
      ['POST', `/campaigns/${id}/send`, {}],
      ['POST', `/campaigns/${id}/cancel`],
      ['POST', `/campaigns/${id}/test`, { email: rcpt('foreign-test') }],
      ['GET', `/campaigns/${id}/stats`],
    ];
    for (const [method, path, body] of routes) {
      const res = await main.api.request(method, path, body === undefined ? {} : { body });
      expectError(res, 404, 'NOT_FOUND');
    }
    expect(await getCampaign(other.api, id)).toEqual(theirs);
    expect((await other.api.get('/campaigns?pageSize=100')).body.total).toBe(1);
    // The same routes for an id that exists nowhere.
    for (const [method, path, body] of routes) {
      const res = await main.api.request(method, path.replace(id, randomUUID()), body === undefined ? {} : { body });
      expectError(res, 404, 'NOT_FOUND');
    }
  });

  it('answers 422 for an id that is not a uuid, on every route', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/campaigns/nope'],
      ['PUT', '/campaigns/nope', campaignInput()],
      ['DELETE', '/campaigns/nope'],
      ['POST', '/campaigns/nope/duplicate'],
      ['POST', '/campaigns/nope/send', {}],
      ['POST', '/campaigns/nope/cancel'],
      ['POST', '/campaigns/nope/test', { email: rcpt('nope') }],
      ['GET', '/campaigns/nope/stats'],
    ];
    for (const [method, path, body] of routes) {
      expectFieldError(
        await main.api.request(method, path, body === undefined ? {} : { body }),
        422,
        'VALIDATION_ERROR',
        'id',
      );
    }
  });
});

describe('PUT /campaigns/{id}', () => {
  it('replaces every field of a DRAFT: omitted optional fields become null, type defaults again', async () => {
    const original = await createCampaign(main.api, {
      description: 'Old note',
      fromName: 'Old name',
      replyTo: `old@${DOMAIN}`,
      type: 'TRANSACTIONAL',
      audienceType: 'FILTERED',
      audienceCondition: batchIs('old'),
    });
    const res = await main.api.request('PUT', `/campaigns/${original.id}`, {
      body: {
        name: 'Renamed',
        subject: 'New subject',
        body: '<p>New</p>',
        from: `other@${DOMAIN}`,
        audienceType: 'ALL',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const replaced: Campaign = res.body;
    expect(replaced).toEqual({
      ...original,
      name: 'Renamed',
      subject: 'New subject',
      body: '<p>New</p>',
      from: `other@${DOMAIN}`,
      description: null,
      fromName: null,
      replyTo: null,
      type: 'MARKETING',
      audienceType: 'ALL',
      audienceCondition: null,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(replaced.updatedAt)).toBeGreaterThanOrEqual(Date.parse(original.updatedAt));
    expect(await getCampaign(main.api, original.id)).toEqual(replaced);
  });

  it('checks a replacement like a create: 400, 422 and 403', async () => {
    const c = await createCampaign(main.api);
    const put = (body: Record<string, unknown>) => main.api.request('PUT', `/campaigns/${c.id}`, { body });
    expectFieldError(await put(campaignInput({ audienceType: 'SEGMENT' })), 400, 'VALIDATION_ERROR', 'segmentId');
    expectFieldError(
      await put(campaignInput({ audienceType: 'FILTERED' })),
      400,
      'VALIDATION_ERROR',
      'audienceCondition',
    );
    const noName = campaignInput();
    delete noName.name;
    expectFieldError(await put(noName), 422, 'VALIDATION_ERROR', 'name');
    expectFieldError(await put(campaignInput({ body: '{{ x' })), 422, 'VALIDATION_ERROR', 'body', 'invalid_template');
    expectFieldError(
      await put(campaignInput({ audienceType: 'SEGMENT', segmentId: randomUUID() })),
      422,
      'VALIDATION_ERROR',
      'segmentId',
      'unknown_segment',
    );
    expectError(await put(campaignInput({ from: 'x@nowhere.campaigns.test' })), 403, 'INTERNAL_SERVER_ERROR');
    expect(await getCampaign(main.api, c.id)).toEqual(c);
  });

  it('replaces a SCHEDULED campaign and keeps its schedule', async () => {
    const c = await createCampaign(main.api);
    const at = new Date(Date.now() + 86_400_000).toISOString();
    await sendOk(main.api, c.id, { scheduledFor: at });
    const res = await main.api.request('PUT', `/campaigns/${c.id}`, {
      body: campaignInput({ name: 'Scheduled, renamed' }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'Scheduled, renamed', status: 'SCHEDULED', scheduledFor: at });
    await cancelOk(main.api, c.id);
  });

  it('answers 409 CAMPAIGN_NOT_EDITABLE once SENT or CANCELLED, and changes nothing', async () => {
    const { campaign } = await sentBatchCampaign(main.api, 1);
    expectError(
      await main.api.request('PUT', `/campaigns/${campaign.id}`, { body: campaignInput({ name: 'Too late' }) }),
      409,
      'CAMPAIGN_NOT_EDITABLE',
    );
    expect(await getCampaign(main.api, campaign.id)).toEqual(campaign);

    const cancelled = await cancelledCampaign(main.api);
    expectError(
      await main.api.request('PUT', `/campaigns/${cancelled.id}`, { body: campaignInput() }),
      409,
      'CAMPAIGN_NOT_EDITABLE',
    );
  });
});

describe('DELETE /campaigns/{id}', () => {
  it('answers 204 for DRAFT, SCHEDULED and SENT campaigns; the campaign is gone', async () => {
    const draft = await createCampaign(main.api);
    const scheduled = await scheduledCampaign(main.api);
    const { campaign: sent } = await sentBatchCampaign(main.api, 1);
    for (const c of [draft, scheduled, sent]) {
      const res = await main.api.delete(`/campaigns/${c.id}`);
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      expect(res.body).toBeNull();
      expectError(await main.api.get(`/campaigns/${c.id}`), 404, 'NOT_FOUND');
      expectError(await main.api.delete(`/campaigns/${c.id}`), 404, 'NOT_FOUND');
    }
  });

  it('answers 409 CAMPAIGN_SENDING while the campaign is sending, and 204 once it is sent', async () => {
    const batch = tag('deleting');
    const contacts = await batchContacts(main.api, batch, 2);
    const c = await batchCampaign(main.api, batch);
    await stopSink();
    await sendOk(main.api, c.id);
    const sending = await campaignWhen(main.api, c.id, (x) => x.totalRecipients === 2);
    expect(sending.status).toBe('SENDING');
    expectError(await main.api.delete(`/campaigns/${c.id}`), 409, 'CAMPAIGN_SENDING');
    // Neither sendable nor editable while sending.
    expectError(await send(main.api, c.id), 400, 'CAMPAIGN_NOT_SENDABLE');
    expectError(
      await main.api.request('PUT', `/campaigns/${c.id}`, { body: campaignInput() }),
      409,
      'CAMPAIGN_NOT_EDITABLE',
    );
    expect((await getCampaign(main.api, c.id)).status).toBe('SENDING');

    await startSink();
    const sent = await sentCampaign(main.api, c.id);
    await expectDelivered(main.api, sent, contacts);
    expect((await main.api.delete(`/campaigns/${c.id}`)).status).toBe(204);
    expectError(await main.api.get(`/campaigns/${c.id}`), 404, 'NOT_FOUND');
  });
});

describe('POST /campaigns/{id}/duplicate', () => {
  it('answers 201 { success, data } with a DRAFT copy named "<name> (copy)" and zero counters', async () => {
    const { campaign } = await sentBatchCampaign(main.api, 2, {
      description: 'Dup',
      fromName: 'Dup Team',
      replyTo: `dup@${DOMAIN}`,
      type: 'TRANSACTIONAL',
    });
    expect(campaign.sentCount).toBe(2);
    const res = await main.api.post(`/campaigns/${campaign.id}/duplicate`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ success: true, data: expect.any(Object) });
    const copy: Campaign = res.body.data;
    expect(copy).toEqual({
      ...campaign,
      id: expect.stringMatching(UUID),
      name: `${campaign.name} (copy)`,
      status: 'DRAFT',
      scheduledFor: null,
      sentAt: null,
      ...NO_COUNTS,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(copy.id).not.toBe(campaign.id);
    expect(await getCampaign(main.api, copy.id)).toEqual(copy);
    expect(await getCampaign(main.api, campaign.id)).toEqual(campaign);
    const stats = await statsOf(main.api, copy.id);
    expect(stats).toMatchObject({ status: 'DRAFT', totalRecipients: 0, sent: 0, skipped: 0, pending: 0 });
  });

  it('copies a SCHEDULED campaign as an unscheduled DRAFT, and a copy of a copy gets a second suffix', async () => {
    const c = await createCampaign(main.api, { name: 'Weekly' });
    await sendOk(main.api, c.id, { scheduledFor: new Date(Date.now() + 86_400_000).toISOString() });
    const copy = (await main.api.post(`/campaigns/${c.id}/duplicate`)).body.data as Campaign;
    expect(copy).toMatchObject({ name: 'Weekly (copy)', status: 'DRAFT', scheduledFor: null });
    const copy2 = (await main.api.post(`/campaigns/${copy.id}/duplicate`)).body.data as Campaign;
    expect(copy2.name).toBe('Weekly (copy) (copy)');
    expect((await getCampaign(main.api, c.id)).status).toBe('SCHEDULED');
    await cancelOk(main.api, c.id);
  });

  it('shortens a name at the length limit so that the copy’s name fits', async () => {
    const c = await createCampaign(main.api, { name: 'n'.repeat(255) });
    const res = await main.api.post(`/campaigns/${c.id}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe(`${'n'.repeat(248)} (copy)`);
  });
});

describe('sending to an audience', () => {
  describe('audience ALL, in a project of its own', () => {
    let p: TestProject;
    const ALL_FROM = 'hello@all.campaigns.test';
    let ada: Contact, bob: Contact, unsubscribed: Contact, snoozed: Contact;

    beforeAll(async () => {
      p = await mail.server.project('campaigns-all');
      await verifiedDomain(p.api, mail.dns, 'all.campaigns.test');
      ada = await createContact(p.api, rcpt('ada'), { first: 'Ada' });
      bob = await createContact(p.api, rcpt('bob'), { first: 'Bob' });
      unsubscribed = await createContact(p.api, rcpt('unsub'), { first: 'Una' }, false);
      snoozed = await createContact(p.api, rcpt('snoozed'), { first: 'Sam' });
      const snooze = await p.api.patch(`/contacts/${snoozed.id}`, {
        snoozedUntil: new Date(Date.now() + 86_400_000).toISOString(),
      });
      expect(snooze.status, JSON.stringify(snooze.body)).toBe(200);
      expect(snooze.body).toMatchObject({ subscribed: false, snoozedUntil: expect.any(String) });
    });

    it('MARKETING reaches every subscribed contact once and leaves out unsubscribed and snoozed ones', async () => {
      const created = await createCampaign(p.api, { from: ALL_FROM, fromName: 'All Hands' });
      const accepted = await sendOk(p.api, created.id);
      expect(accepted).toMatchObject({ status: 'SENDING', scheduledFor: null, sentAt: expect.any(String) });
      expect((await send(p.api, created.id)).status).toBe(400);

      const sent = await sentCampaign(p.api, created.id);
      const delivered = await expectDelivered(p.api, sent, [ada, bob]);
      expect(delivered.get(ada.id)!.parsed.from?.value[0]?.name).toBe('All Hands');
      await expectNotReached(p.api, sent, [unsubscribed, snoozed]);
      await expectCounters(p.api, sent.id, { status: 'SENT', total: 2, sent: 2 });

      // The project's email.sent events are exactly the campaign's two, each with the campaign id.
      const events = await p.api.get('/events?name=email.sent&limit=100');
      expect(events.status).toBe(200);
      const ofCampaign = (events.body.data as TrackedEvent[]).filter((e) => e.data.campaignId === sent.id);
      expect(ofCampaign.map((e) => e.contactId).sort()).toEqual([ada.id, bob.id].sort());
      expect(events.body.data).toHaveLength(2);
    });

    it('TRANSACTIONAL reaches unsubscribed and snoozed contacts too, without unsubscribe headers', async () => {
      const created = await createCampaign(p.api, {
        from: ALL_FROM,
        type: 'TRANSACTIONAL',
        subject: 'Receipt for {{ first }}',
        body: '<p>Dear {{ first }}</p>',
      });
      await sendOk(p.api, created.id);
      const sent = await sentCampaign(p.api, created.id);
      expect(sent).toMatchObject({ totalRecipients: 4, sentCount: 4, deliveredCount: 4 });
      await expectDelivered(p.api, sent, [ada, bob, unsubscribed, snoozed], (c) => ({
        subject: `Receipt for ${String(c.data.first)}`,
        html: `Dear ${String(c.data.first)}`,
      }));
      await expectCounters(p.api, sent.id, { total: 4, sent: 4 });
      // Subscriptions are left as they were.
      expect((await p.api.get(`/contacts/${unsubscribed.id}`)).body.subscribed).toBe(false);
      expect((await p.api.get(`/contacts/${snoozed.id}`)).body.snoozedUntil).toEqual(expect.any(String));
    });
  });

  it('SEGMENT with a static segment reaches its members only', async () => {
    const batch = tag('static');
    const [a, b, outsider] = await batchContacts(main.api, batch, 3);
    const segment = await main.api.post('/segments', { name: tag('Static'), type: 'STATIC' });
    expect(segment.status).toBe(201);
    const added = await main.api.post(`/segments/${segment.body.id}/members`, { emails: [a!.email, b!.email] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.added).toBe(2);

    const c = await createCampaign(main.api, { audienceType: 'SEGMENT', segmentId: segment.body.id });
    await sendOk(main.api, c.id);
    const sent = await sentCampaign(main.api, c.id);
    expect(sent).toMatchObject({ totalRecipients: 2, sentCount: 2, deliveredCount: 2, segmentId: segment.body.id });
    await expectDelivered(main.api, sent, [a!, b!]);
    await expectNotReached(main.api, sent, [outsider!]);
  });

  it('SEGMENT with a dynamic segment reaches the contacts matching its condition', async () => {
    const batch = tag('dynamic');
    const pros = await batchContacts(main.api, batch, 2, { tier: 'pro' });
    const free = await batchContacts(main.api, batch, 1, { tier: 'free' });
    const segment = await main.api.post('/segments', {
      name: tag('Pros'),
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.batch', operator: 'equals', value: batch },
              { field: 'data.tier', operator: 'equals', value: 'pro' },
            ],
          },
        ],
      },
    });
    expect(segment.status, JSON.stringify(segment.body)).toBe(201);
    const c = await createCampaign(main.api, { audienceType: 'SEGMENT', segmentId: segment.body.id });
    await sendOk(main.api, c.id);
    const sent = await sentCampaign(main.api, c.id);
    expect(sent).toMatchObject({ totalRecipients: 2, sentCount: 2, deliveredCount: 2 });
    await expectDelivered(main.api, sent, pros);
    await expectNotReached(main.api, sent, free);
  });

  it('FILTERED on data fields reaches the matching contacts, each with its own data', async () => {
    const batch = tag('filtered');
    const high = await batchContacts(main.api, batch, 2, { points: 80 });
    const low = await batchContacts(main.api, batch, 1, { points: 10 });
    const elsewhere = await batchContacts(main.api, tag('elsewhere'), 1, { points: 99 });
    const c = await createCampaign(main.api, {
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.batch', operator: 'equals', value: batch },
              { field: 'data.points', operator: 'greaterThan', value: 50 },
            ],
          },
        ],
      },
      subject: '{{ first }}, you have {{ points }} points',
      body: '<p>Hi {{ first }}: {{ points }} points</p>',
    });
    await sendOk(main.api, c.id);
    const sent = await sentCampaign(main.api, c.id);
    expect(sent).toMatchObject({ totalRecipients: 2, sentCount: 2, deliveredCount: 2 });
    await expectDelivered(main.api, sent, high, (x) => ({
      subject: `${String(x.data.first)}, you have 80 points`,
      html: `Hi ${String(x.data.first)}: 80 points`,
    }));
    await expectNotReached(main.api, sent, [...low, ...elsewhere]);
  });

  it('FILTERED on an event tracked with the public key reaches the contacts that triggered it', async () => {
    const event = tag('webinar-joined');
    const attendees: Contact[] = [];
    for (const first of ['Eve', 'Finn']) {
      const email = rcpt('attendee');
      const tracked = await main.api.request('POST', '/v1/track', {
        body: { email, event, data: { first } },
        key: main.publicKey,
      });
      expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
      attendees.push((await main.api.get(`/contacts/${tracked.body.data.contact}`)).body);
    }
    const absent = await createContact(main.api, rcpt('absent'), { first: 'Gus' });
    const otherEvent = await main.api.request('POST', '/v1/track', {
      body: { email: absent.email, event: `${event}-other` },
      key: main.publicKey,
    });
    expect(otherEvent.status).toBe(200);

    const c = await createCampaign(main.api, {
      audienceType: 'FILTERED',
      audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: event, operator: 'triggered' }] }] },
    });
    await sendOk(main.api, c.id);
    const sent = await sentCampaign(main.api, c.id);
    expect(sent).toMatchObject({ totalRecipients: 2, sentCount: 2, deliveredCount: 2 });
    await expectDelivered(main.api, sent, attendees);
    await expectNotReached(main.api, sent, [absent]);
  });

  it('an audience that matches nobody goes straight to SENT with zero counters', async () => {
    const c = await batchCampaign(main.api, tag('empty'));
    await sendOk(main.api, c.id);
    const sent = await sentCampaign(main.api, c.id);
    await expectCounters(main.api, sent.id, { total: 0, sent: 0 });
  });

  it('MARKETING to a filtered audience leaves out unsubscribed and snoozed contacts; TRANSACTIONAL does not', async () => {
    const batch = tag('subs');
    const [subscribed] = await batchContacts(main.api, batch, 1);
    const unsubscribed = await createContact(main.api, rcpt('unsub'), { batch, first: 'Una' }, false);
    const snoozed = await createContact(main.api, rcpt('snooze'), { batch, first: 'Sam' });
    expect(
      (
        await main.api.patch(`/contacts/${snoozed.id}`, {
          snoozedUntil: new Date(Date.now() + 3_600_000).toISOString(),
        })
      ).status,
    ).toBe(200);

    const marketing = await batchCampaign(main.api, batch);
    await sendOk(main.api, marketing.id);
    const sentMarketing = await sentCampaign(main.api, marketing.id);
    await expectCounters(main.api, marketing.id, { total: 1, sent: 1 });
    await expectDelivered(main.api, sentMarketing, [subscribed!]);
    await expectNotReached(main.api, sentMarketing, [unsubscribed, snoozed]);

    const transactional = await batchCampaign(main.api, batch, { type: 'TRANSACTIONAL' });
    await sendOk(main.api, transactional.id);
    const sentTransactional = await sentCampaign(main.api, transactional.id);
    await expectCounters(main.api, transactional.id, { total: 3, sent: 3 });
    await expectDelivered(main.api, sentTransactional, [subscribed!, unsubscribed, snoozed]);
    expect(sinkMessagesTo(mail.sink, unsubscribed.email)).toHaveLength(1);
  });
});

describe('the frozen audience', () => {
  it('contacts who join the audience after sending started are not sent to; one email per recipient', async () => {
    const batch = tag('frozen');
    const initial = await batchContacts(main.api, batch, 2);
    const filtered = await batchCampaign(main.api, batch);
    const segment = await main.api.post('/segments', { name: tag('Frozen'), condition: batchIs(batch) });
    expect(segment.status).toBe(201);
    const bySegment = await createCampaign(main.api, { audienceType: 'SEGMENT', segmentId: segment.body.id });

    // With the relay down the campaigns stay SENDING after their audiences are frozen.
    await stopSink();
    await sendOk(main.api, filtered.id);
    await sendOk(main.api, bySegment.id);
    for (const c of [filtered, bySegment]) {
      const frozen = await campaignWhen(main.api, c.id, (x) => x.totalRecipients === 2);
      expect(frozen.status).toBe('SENDING');
    }
    const late = await createContact(main.api, rcpt('late'), { batch, first: 'Late' });
    // The dynamic segment now holds three contacts.
    expect((await main.api.get(`/segments/${segment.body.id}/contacts`)).body.total).toBe(3);
    await startSink();

    for (const c of [filtered, bySegment]) {
      const sent = await sentCampaign(main.api, c.id);
      expect(sent).toMatchObject({ totalRecipients: 2, sentCount: 2, deliveredCount: 2 });
      await expectDelivered(main.api, sent, initial);
      expect(await campaignEvents(main.api, late.id, c.id)).toEqual([]);
      await expectCounters(main.api, c.id, { total: 2, sent: 2 });
    }
    expect(sinkMessagesTo(mail.sink, late.email)).toHaveLength(0);
    for (const contact of initial) expect(sinkMessagesTo(mail.sink, contact.email)).toHaveLength(2);
  });
});

describe('POST /campaigns/{id}/send: scheduling', () => {
  it('schedules for a time ahead: 200 SCHEDULED, then SENDING and SENT by itself', async () => {
    const batch = tag('scheduled');
    const contacts = await batchContacts(main.api, batch, 2);
    const c = await batchCampaign(main.api, batch);
    // The relay refuses (temporarily) until the test has seen the campaign SENDING.
    let seenSending = false;
    const addresses = new Set(contacts.map((x) => x.email));
    mail.sink.respond((m) =>
      seenSending || !m.to.some((a) => addresses.has(a)) ? ACCEPT : { accept: false, code: 451, message: 'Not yet' },
    );

    const at = new Date(Date.now() + 2_000);
    const res = await send(main.api, c.id, { scheduledFor: at.toISOString() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { ...c, status: 'SCHEDULED', scheduledFor: at.toISOString(), updatedAt: expect.any(String) },
      message: expect.any(String),
    });
    expect((await getCampaign(main.api, c.id)).status).toBe('SCHEDULED');
    expect(await statsOf(main.api, c.id)).toMatchObject({ status: 'SCHEDULED', totalRecipients: 0, pending: 0 });

    const sending = await campaignWhen(main.api, c.id, (x) => x.status !== 'SCHEDULED');
    expect(sending.status).toBe('SENDING');
    expect(Date.parse(sending.sentAt!)).toBeGreaterThanOrEqual(at.getTime());
    seenSending = true;

    const sent = await sentCampaign(main.api, c.id);
    expect(sent).toMatchObject({
      scheduledFor: at.toISOString(),
      sentAt: sending.sentAt,
      totalRecipients: 2,
      sentCount: 2,
    });
    await expectDelivered(main.api, sent, contacts);
  });

  it('re-sending a SCHEDULED campaign with a later time moves the schedule: nothing goes out at the old time', async () => {
    const batch = tag('moved');
    const contacts = await batchContacts(main.api, batch, 2);
    const c = await batchCampaign(main.api, batch);
    const first = new Date(Date.now() + 2_000);
    const later = new Date(first.getTime() + 2_000);
    expect((await sendOk(main.api, c.id, { scheduledFor: first.toISOString() })).scheduledFor).toBe(
      first.toISOString(),
    );
    const moved = await sendOk(main.api, c.id, { scheduledFor: later.toISOString() });
    expect(moved).toMatchObject({ status: 'SCHEDULED', scheduledFor: later.toISOString() });

    const sent = await sentCampaign(main.api, c.id);
    // Had the old time started it, it would have started before the new one.
    expect(Date.parse(sent.sentAt!)).toBeGreaterThanOrEqual(later.getTime());
    expect(sent).toMatchObject({ scheduledFor: later.toISOString(), totalRecipients: 2, sentCount: 2 });
    await expectDelivered(main.api, sent, contacts);
  });

  it('sending a SCHEDULED campaign without scheduledFor sends it now', async () => {
    const batch = tag('now');
    const contacts = await batchContacts(main.api, batch, 1);
    const c = await batchCampaign(main.api, batch);
    await sendOk(main.api, c.id, { scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });
    const now = await sendOk(main.api, c.id, { scheduledFor: null });
    expect(now).toMatchObject({ status: 'SENDING', scheduledFor: null, sentAt: expect.any(String) });
    const sent = await sentCampaign(main.api, c.id);
    expect(sent.scheduledFor).toBeNull();
    await expectDelivered(main.api, sent, contacts);
  });

  it('a scheduledFor in the past starts at once', async () => {
    const batch = tag('past');
    const contacts = await batchContacts(main.api, batch, 2);
    const c = await batchCampaign(main.api, batch);
    const past = new Date(Date.now() - 60_000).toISOString();
    expect(await sendOk(main.api, c.id, { scheduledFor: past })).toMatchObject({
      status: 'SCHEDULED',
      scheduledFor: past,
    });
    const sent = await sentCampaign(main.api, c.id);
    expect(sent.totalRecipients).toBe(2);
    await expectDelivered(main.api, sent, contacts);
  });

  it('accepts what Date parses: epoch milliseconds and RFC 2822', async () => {
    const c = await createCampaign(main.api);
    const ms = Date.parse('2031-03-04T05:06:07.089Z');
    expect(await sendOk(main.api, c.id, { scheduledFor: ms })).toMatchObject({
      status: 'SCHEDULED',
      scheduledFor: '2031-03-04T05:06:07.089Z',
    });
    expect(await sendOk(main.api, c.id, { scheduledFor: 'Tue, 01 Jul 2031 09:30:00 GMT' })).toMatchObject({
      status: 'SCHEDULED',
      scheduledFor: '2031-07-01T09:30:00.000Z',
    });
    expect(await sendOk(main.api, c.id, { scheduledFor: '9999-12-31T23:59:59.999Z' })).toMatchObject({
      scheduledFor: '9999-12-31T23:59:59.999Z',
    });
    await cancelOk(main.api, c.id);
  });

  it('answers 400 INVALID_SCHEDULED_FOR for what Date cannot parse, and leaves the campaign alone', async () => {
    const c = await createCampaign(main.api);
    const unstorable = [
      -8.64e15,
      8.64e15,
      '0000-12-31T23:59:59.999Z',
      '+010000-01-01T00:00:00.000Z',
      '-000001-01-01T00:00:00Z',
    ];
    for (const scheduledFor of ['nope', true, false, '', ' ', {}, [], '2030-13-45T99:00:00Z', ...unstorable]) {
      expectFieldError(await send(main.api, c.id, { scheduledFor }), 400, 'INVALID_SCHEDULED_FOR', 'scheduledFor');
    }
    expect(await getCampaign(main.api, c.id)).toEqual(c);
  });

  it('answers 400 CAMPAIGN_NOT_SENDABLE for SENT and CANCELLED campaigns', async () => {
    const { campaign } = await sentBatchCampaign(main.api, 1);
    expectError(await send(main.api, campaign.id), 400, 'CAMPAIGN_NOT_SENDABLE');
    expectError(
      await send(main.api, campaign.id, { scheduledFor: new Date(Date.now() + 60_000).toISOString() }),
      400,
      'CAMPAIGN_NOT_SENDABLE',
    );
    expect(await getCampaign(main.api, campaign.id)).toEqual(campaign);

    const cancelled = await cancelledCampaign(main.api);
    expectError(await send(main.api, cancelled.id), 400, 'CAMPAIGN_NOT_SENDABLE');
    expect((await getCampaign(main.api, cancelled.id)).status).toBe('CANCELLED');
  });

  it('answers 400 CAMPAIGN_NOT_SENDABLE for a SEGMENT campaign whose segment was deleted', async () => {
    const segment = await main.api.post('/segments', { name: tag('Doomed'), type: 'STATIC' });
    expect(segment.status).toBe(201);
    const c = await createCampaign(main.api, { audienceType: 'SEGMENT', segmentId: segment.body.id });
    // In use by a scheduled campaign, the segment cannot be deleted.
    await sendOk(main.api, c.id, { scheduledFor: new Date(Date.now() + 86_400_000).toISOString() });
    expectError(await main.api.delete(`/segments/${segment.body.id}`), 409, 'SEGMENT_IN_USE');
    const draft = (await main.api.post(`/campaigns/${c.id}/duplicate`)).body.data as Campaign;
    await cancelOk(main.api, c.id);

    expect((await main.api.delete(`/segments/${segment.body.id}`)).status).toBe(204);
    expect(await getCampaign(main.api, draft.id)).toMatchObject({
      status: 'DRAFT',
      audienceType: 'SEGMENT',
      segmentId: null,
    });
    expectError(await send(main.api, draft.id), 400, 'CAMPAIGN_NOT_SENDABLE');
    expectError(
      await send(main.api, draft.id, { scheduledFor: new Date(Date.now() + 60_000).toISOString() }),
      400,
      'CAMPAIGN_NOT_SENDABLE',
    );
    expect((await getCampaign(main.api, draft.id)).status).toBe('DRAFT');
  });

  it('answers 400 CAMPAIGN_NOT_SENDABLE for a FILTERED campaign whose condition names a deleted segment', async () => {
    const segment = await main.api.post('/segments', { name: tag('Named'), type: 'STATIC' });
    const c = await createCampaign(main.api, {
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'segment', operator: 'memberOfSegment', value: segment.body.id }] }],
      },
    });
    expect((await main.api.delete(`/segments/${segment.body.id}`)).status).toBe(204);
    expectError(await send(main.api, c.id), 400, 'CAMPAIGN_NOT_SENDABLE');
    expect((await getCampaign(main.api, c.id)).status).toBe('DRAFT');
  });
});

describe('POST /campaigns/{id}/cancel', () => {
  it('cancels a SCHEDULED campaign: nothing goes out when its time passes; a deleted one sends nothing either', async () => {
    const batchCancelled = tag('cancelled');
    const batchDeleted = tag('deleted');
    const batchControl = tag('control');
    const cancelledContacts = await batchContacts(main.api, batchCancelled, 2);
    const deletedContacts = await batchContacts(main.api, batchDeleted, 1);
    const controlContacts = await batchContacts(main.api, batchControl, 1);
    const cancelled = await batchCampaign(main.api, batchCancelled);
    const deleted = await batchCampaign(main.api, batchDeleted);
    const control = await batchCampaign(main.api, batchControl);

    const at = new Date(Date.now() + 2_000);
    await sendOk(main.api, cancelled.id, { scheduledFor: at.toISOString() });
    await sendOk(main.api, deleted.id, { scheduledFor: at.toISOString() });
    // The control starts after the others' time: once it is SENT, their start jobs have fired.
    await sendOk(main.api, control.id, { scheduledFor: new Date(at.getTime() + 500).toISOString() });

    const res = await main.api.post(`/campaigns/${cancelled.id}/cancel`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { ...cancelled, status: 'CANCELLED', scheduledFor: at.toISOString(), updatedAt: expect.any(String) },
      message: expect.any(String),
    });
    expect((await main.api.delete(`/campaigns/${deleted.id}`)).status).toBe(204);

    const sentControl = await sentCampaign(main.api, control.id);
    await expectDelivered(main.api, sentControl, controlContacts);
    expect(await getCampaign(main.api, cancelled.id)).toMatchObject({
      status: 'CANCELLED',
      totalRecipients: 0,
      sentCount: 0,
      sentAt: null,
    });
    await expectCounters(main.api, cancelled.id, { total: 0, sent: 0 });
    await expectNotReached(main.api, cancelled, cancelledContacts);
    await expectNotReached(main.api, deleted, deletedContacts);
    expectError(await main.api.post(`/campaigns/${cancelled.id}/cancel`), 400, 'CAMPAIGN_NOT_CANCELLABLE');
  });

  it('cancels a SENDING campaign: its queued emails become skipped and never reach the relay', async () => {
    const batch = tag('halted');
    const contacts = await batchContacts(main.api, batch, 3);
    const addresses = new Set(contacts.map((x) => x.email));
    // The relay refuses these recipients for now (4xx, retried), which shows the ids of the emails it was offered.
    const attempts = new Map<string, number>();
    mail.sink.respond((m) => {
      if (!m.to.some((a) => addresses.has(a))) return ACCEPT;
      const id = /^<([^@>]+)@/.exec(messageIdOf(m.raw) ?? '')?.[1] ?? 'unknown';
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      return { accept: false, code: 451, message: 'Try again later' };
    });
    const c = await batchCampaign(main.api, batch);
    await sendOk(main.api, c.id);
    const ids = await eventually(async () => (attempts.size === 3 ? [...attempts.keys()] : undefined));
    // Cancel while no email is in a worker's hands: each has its refusal recorded and waits at least a second for its retry.
    await eventually(
      async () => {
        const all = await Promise.all(ids.map((id) => emailRecord(main.api, id)));
        const idle = all.every(
          (r) => r.status === 'queued' && r.lastError !== null && Date.parse(r.nextAttemptAt!) > Date.now() + 1_000,
        );
        return idle ? all : undefined;
      },
      30_000,
      50,
    );
    expect((await getCampaign(main.api, c.id)).status).toBe('SENDING');

    const cancelled = await cancelOk(main.api, c.id);
    expect(cancelled).toMatchObject({ totalRecipients: 3, sentCount: 0 });
    // The queued emails are skipped by the cancel itself.
    for (const id of ids) {
      const record = await emailRecord(main.api, id);
      expect(record).toMatchObject({
        campaignId: c.id,
        status: 'skipped',
        lastError: expect.stringContaining('cancelled'),
        sentAt: null,
      });
      expect(contacts.map((x) => x.email)).toContain(record.to);
    }
    expect(await statsOf(main.api, c.id)).toMatchObject({ status: 'CANCELLED', skipped: 3, pending: 0 });

    // The relay accepts again; a later message goes through, the cancelled ones do not.
    mail.sink.respond(() => ACCEPT);
    const sentinel = await main.api.post('/v1/send', {
      to: rcpt('sentinel'),
      from: FROM,
      subject: 'After',
      body: '<p>After</p>',
    });
    expect(sentinel.status).toBe(200);
    await deliveredMessage(mail.sink, sentinel.body.data.emails[0].email);
    for (const contact of contacts) expect(sinkMessagesTo(mail.sink, contact.email)).toHaveLength(0);
    await expectCounters(main.api, c.id, { status: 'CANCELLED', total: 3, sent: 0, skipped: 3 });
    expectError(await send(main.api, c.id), 400, 'CAMPAIGN_NOT_SENDABLE');
  });

  it('cancels a SENDING campaign while a message is at the relay: its retry is skipped, not sent later', async () => {
    const batch = tag('in-flight');
    const [contact] = await batchContacts(main.api, batch, 1);
    let offered!: (emailId: string) => void;
    const atRelay = new Promise<string>((resolve) => (offered = resolve));
    let refuse!: () => void;
    const refused = new Promise<Verdict>(
      (resolve) => (refuse = () => resolve({ accept: false, code: 451, message: 'Try again later' })),
    );
    mail.sink.respond((m) => {
      if (!m.to.includes(contact!.email)) return ACCEPT;
      offered(/^<([^@>]+)@/.exec(messageIdOf(m.raw) ?? '')?.[1] ?? 'unknown');
      return refused;
    });
    const c = await batchCampaign(main.api, batch);
    await sendOk(main.api, c.id);
    const emailId = await atRelay;
    // The worker holds the email, so the cancel leaves it queued; its outcome is a retry.
    await cancelOk(main.api, c.id);
    mail.sink.respond(() => ACCEPT);
    refuse();

    const record = await eventually(async () => {
      const r = await emailRecord(main.api, emailId);
      return r.status === 'queued' ? undefined : r;
    });
    expect(record).toMatchObject({
      campaignId: c.id,
      status: 'skipped',
      lastError: expect.stringContaining('cancelled'),
      sentAt: null,
    });
    expect(await statsOf(main.api, c.id)).toMatchObject({
      status: 'CANCELLED',
      totalRecipients: 1,
      sent: 0,
      skipped: 1,
      pending: 0,
    });
    const sentinel = await main.api.post('/v1/send', {
      to: rcpt('after-in-flight'),
      from: FROM,
      subject: 'After',
      body: '<p>After</p>',
    });
    await deliveredMessage(mail.sink, sentinel.body.data.emails[0].email);
    expect(sinkMessagesTo(mail.sink, contact!.email)).toHaveLength(0);
  });

  it('answers 400 CAMPAIGN_NOT_CANCELLABLE for DRAFT and SENT campaigns', async () => {
    const draft = await createCampaign(main.api);
    const error = expectError(await main.api.post(`/campaigns/${draft.id}/cancel`), 400, 'CAMPAIGN_NOT_CANCELLABLE');
    expect(error.details).toEqual({ status: 'DRAFT' });
    expect(await getCampaign(main.api, draft.id)).toEqual(draft);
    const { campaign } = await sentBatchCampaign(main.api, 1);
    expectError(await main.api.post(`/campaigns/${campaign.id}/cancel`), 400, 'CAMPAIGN_NOT_CANCELLABLE');
    expect((await getCampaign(main.api, campaign.id)).status).toBe('SENT');
  });
});

describe('counters and GET /campaigns/{id}/stats', () => {
  it('counts unique opens and clicks, and a 5xx refusal as a bounce', async () => {
    const batch = tag('counted');
    const [reader, clicker, bouncer] = await batchContacts(main.api, batch, 3);
    mail.sink.respond((m) =>
      m.to.includes(bouncer!.email) ? { accept: false, code: 550, message: 'No such user here' } : ACCEPT,
    );
    const target = 'https://shop.example/sale?item=1&ref=news';
    const c = await batchCampaign(main.api, batch, {
      body: `${BODY}<p><a href="${target.replace('&', '&amp;')}">Sale</a></p>`,
    });
    await sendOk(main.api, c.id);
    const sent = await sentCampaign(main.api, c.id);
    await expectCounters(main.api, c.id, { total: 3, sent: 2, bounced: 1 });

    const delivered = await expectDelivered(main.api, sent, [reader!, clicker!]);
    const failedId = await campaignEmailId(main.api, bouncer!.id, c.id, 'email.failed');
    expect(await emailRecord(main.api, failedId)).toMatchObject({
      status: 'failed',
      campaignId: c.id,
      lastError: expect.stringContaining('550'),
    });
    expect(await campaignEvents(main.api, bouncer!.id, c.id, 'email.sent')).toEqual([]);
    expect(sinkMessagesTo(mail.sink, bouncer!.email)).toHaveLength(0);

    // The reader opens twice, then clicks twice: one open, one click.
    const readerLinks = trackingLinks(mail.server, delivered.get(reader!.id)!.parsed.html || '');
    expect(readerLinks.clicks).toHaveLength(1);
    await open(readerLinks.pixel);
    await expectCounters(main.api, c.id, { total: 3, sent: 2, bounced: 1, opened: 1 });
    await open(readerLinks.pixel);
    await expectCounters(main.api, c.id, { total: 3, sent: 2, bounced: 1, opened: 1 });
    await click(readerLinks.clicks[0]!, target);
    await expectCounters(main.api, c.id, { total: 3, sent: 2, bounced: 1, opened: 1, clicked: 1 });
    await click(readerLinks.clicks[0]!, target);
    await open(readerLinks.pixel);
    await expectCounters(main.api, c.id, { total: 3, sent: 2, bounced: 1, opened: 1, clicked: 1 });
    const readerRecord = await emailRecord(main.api, delivered.get(reader!.id)!.emailId);
    expect(readerRecord).toMatchObject({ openCount: 3, clickCount: 2 });

    // A click without a recorded open counts as the open too.
    const clickerLinks = trackingLinks(mail.server, delivered.get(clicker!.id)!.parsed.html || '');
    await click(clickerLinks.clicks[0]!, target);
    await click(clickerLinks.clicks[0]!, target);
    const stats = await expectCounters(main.api, c.id, { total: 3, sent: 2, bounced: 1, opened: 2, clicked: 2 });
    expect(stats).toMatchObject({ status: 'SENT', openRate: 1, clickRate: 1, pending: 0, skipped: 0 });
    expect(stats.bounceRate).toBeCloseTo(1 / 3, 4);

    // The engagement events carry the campaign id.
    expect(await campaignEvents(main.api, reader!.id, c.id, 'email.opened')).toHaveLength(1);
    expect(await campaignEvents(main.api, reader!.id, c.id, 'email.clicked')).toHaveLength(2);
  });

  it('shows the figures of a draft as zeros and of a sending campaign as pending', async () => {
    const draft = await createCampaign(main.api);
    expect(await statsOf(main.api, draft.id)).toEqual({
      campaignId: draft.id,
      status: 'DRAFT',
      ...NO_CAMPAIGN_FIGURES,
      skipped: 0,
      unsubscribed: 0,
      pending: 0,
    });

    const batch = tag('pending');
    const contacts = await batchContacts(main.api, batch, 2);
    const c = await batchCampaign(main.api, batch);
    await stopSink();
    await sendOk(main.api, c.id);
    await campaignWhen(main.api, c.id, (x) => x.totalRecipients === 2);
    expect(await statsOf(main.api, c.id)).toMatchObject({ status: 'SENDING', totalRecipients: 2, sent: 0, pending: 2 });
    await startSink();
    await sentCampaign(main.api, c.id);
    await expectCounters(main.api, c.id, { total: 2, sent: 2 });
    await expectDelivered(main.api, await getCampaign(main.api, c.id), contacts);
  });
});

describe('POST /campaigns/{id}/test', () => {
  async function testSend(id: string, email: string): Promise<{ emailId: string; to: string }> {
    const res = await main.api.post(`/campaigns/${id}/test`, { email });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { emailId: expect.stringMatching(UUID), to: email.toLowerCase() },
      message: expect.any(String),
    });
    return res.body.data;
  }

  it('sends one email with "[Test] " before the subject to an unknown address, creating no contact', async () => {
    const c = await createCampaign(main.api);
    const to = rcpt('tester');
    // A contact of another project with this address lends it nothing.
    await createContact(other.api, to, { first: 'Mallory' });
    const { emailId } = await testSend(c.id, to);
    const message = await deliveredMessage(mail.sink, emailId);
    expect(message.to).toEqual([to]);
    const parsed = await parse(message);
    expect(parsed.subject).toBe('[Test] News for you');
    expect(parsed.html || '').toContain('Hello there');
    expect(await recordWhen(main.api, emailId, (r) => r.status === 'sent')).toMatchObject({
      to,
      contactId: null,
      campaignId: null,
      subject: '[Test] News for you',
      type: 'MARKETING',
    });
    expect(await contactsMatching(main.api, to)).toBe(0);
    expect(await contactsMatching(other.api, to)).toBe(1);
    expect(await getCampaign(main.api, c.id)).toEqual(c);
    expect(sinkMessagesTo(mail.sink, to)).toHaveLength(1);
  });

  it('renders with the data of the contact that has the address, whatever its subscription', async () => {
    const c = await createCampaign(main.api);
    const contact = await createContact(main.api, rcpt('known'), { first: 'Zoe' }, false);
    const { emailId } = await testSend(c.id, contact.email.toUpperCase());
    const parsed = await parse(await deliveredMessage(mail.sink, emailId));
    expect(parsed.subject).toBe('[Test] News for Zoe');
    expect(parsed.html || '').toContain('Hello Zoe');
    expect(await recordWhen(main.api, emailId, (r) => r.status === 'sent')).toMatchObject({
      contactId: contact.id,
      campaignId: null,
    });
    expect((await main.api.get(`/contacts/${contact.id}`)).body).toMatchObject({
      subscribed: false,
      data: { first: 'Zoe' },
    });
    expect(await contactsMatching(main.api, contact.email)).toBe(1);
    expect(await getCampaign(main.api, c.id)).toEqual(c);
  });

  it('works for a SENT campaign and counts in none of its figures', async () => {
    const { campaign, contacts } = await sentBatchCampaign(main.api, 1);
    const before = await statsOf(main.api, campaign.id);
    const { emailId } = await testSend(campaign.id, contacts[0]!.email);
    const parsed = await parse(await deliveredMessage(mail.sink, emailId));
    expect(parsed.subject).toBe(`[Test] ${greeting(contacts[0]!).subject}`);
    await recordWhen(main.api, emailId, (r) => r.status === 'sent');
    // Opening and clicking the test email counts for the email, not for the campaign.
    const links = trackingLinks(mail.server, parsed.html || '');
    await open(links.pixel);
    expect(await emailRecord(main.api, emailId)).toMatchObject({ openCount: 1 });
    expect(await getCampaign(main.api, campaign.id)).toEqual(campaign);
    expect(await statsOf(main.api, campaign.id)).toEqual(before);
    // The contact's campaign email is still the only one of the campaign.
    expect(await campaignEvents(main.api, contacts[0]!.id, campaign.id)).toHaveLength(1);
    expect(sinkMessagesTo(mail.sink, contacts[0]!.email)).toHaveLength(2);
  });

  it('answers 422 for an invalid or missing email', async () => {
    const c = await createCampaign(main.api);
    expectFieldError(
      await main.api.post(`/campaigns/${c.id}/test`, { email: 'not-an-email' }),
      422,
      'VALIDATION_ERROR',
      'email',
    );
    expectFieldError(await main.api.post(`/campaigns/${c.id}/test`, {}), 422, 'VALIDATION_ERROR', 'email');
  });
});

describe('usage endpoints', () => {
  it('list a FILTERED campaign under the fields and events its condition names', async () => {
    const field = tag('loyalty');
    const event = tag('vip-upgraded');
    const c = await createCampaign(main.api, {
      name: tag('Usage'),
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [
          {
            filters: [{ field: `data.${field}.tier`, operator: 'equals', value: 'gold' }],
            conditions: {
              logic: 'OR',
              groups: [{ filters: [{ field: event, operator: 'triggeredWithin', value: 7, unit: 'days' }] }],
            },
          },
        ],
      },
    });
    const unrelated = await createCampaign(main.api, { audienceType: 'ALL' });
    const entry = { id: c.id, name: c.name };

    for (const path of [`/contacts/fields/data.${field}/usage`, `/contacts/fields/data.${field}.tier/usage`]) {
      const res = await main.api.get(path);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ segments: [], workflows: [] });
      expect(res.body.campaigns).toEqual([entry]);
    }
    const byEvent = await main.api.get(`/events/${event}/usage`);
    expect(byEvent.status).toBe(200);
    expect(byEvent.body).toMatchObject({ event, campaigns: [entry], segments: [], workflows: [] });
    expect(byEvent.body.campaigns).not.toContainEqual(expect.objectContaining({ id: unrelated.id }));
    // Other projects do not see it; a field or event it does not name lists nothing.
    expect((await other.api.get(`/events/${event}/usage`)).body.campaigns).toEqual([]);
    expect((await main.api.get(`/contacts/fields/data.${field}x/usage`)).body.campaigns).toEqual([]);

    // Once the audience no longer names them, the campaign is no longer listed.
    const put = await main.api.request('PUT', `/campaigns/${c.id}`, {
      body: campaignInput({ name: c.name, audienceType: 'ALL' }),
    });
    expect(put.status).toBe(200);
    expect((await main.api.get(`/events/${event}/usage`)).body.campaigns).toEqual([]);
    expect((await main.api.get(`/contacts/fields/data.${field}/usage`)).body.campaigns).toEqual([]);
  });
});
