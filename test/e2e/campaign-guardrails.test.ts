import { beforeAll, describe, expect, it } from 'vitest';
import type { CampaignSettings } from '../../src/api.js';
import { excludeStateChanges } from '../../src/modules/campaigns/fan-out-repo.js';
import {
  allRecipients,
  batchCampaign,
  batchContacts,
  campaignHooks,
  campaignWhen,
  expectCountersAgree,
  getCampaign,
  sendNow,
  statsOf,
} from '../support/campaigns.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { emailRecord, headerBlock, sinkMessagesTo, uniqueAddresses } from '../support/sending.js';
import { eventually, expectBody, expectErrorEnvelope, pollUntil, type TestProject } from '../support/server.js';
import type { Verdict } from '../support/smtp-sink.js';
import { useReceiver } from '../support/webhook-receiver.js';

// Guardrails (a campaign pauses itself when too much of its mail is refused), pausing by hand,
// resuming, the per-contact marketing cap and the bulk headers, through the API, a real SMTP sink
// and a real webhook receiver. The relay takes one campaign message at a time here
// (SMTP_MAX_CONNECTIONS=1), so outcomes, and the guardrails' checks after them, come one by one.

const DOMAIN = 'news.guardrails.test';
const FROM = `news@${DOMAIN}`;
const ACCEPT: Verdict = { accept: true };
const REFUSE: Verdict = { accept: false, code: 550, message: '5.1.1 User unknown' };

const hooks = useReceiver();
const mail = useMailServer({
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  DELIVERY_RETRY_BASE_SECONDS: '0.2',
  DELIVERY_CONCURRENCY: '4',
  SMTP_MAX_CONNECTIONS: '1',
});

let project: TestProject;
const HOOK_PATH = '/campaign-events';

beforeAll(async () => {
  project = await projectWithDomain(mail, 'guardrails', DOMAIN);
  await expectBody(project.api.post('/webhooks', { url: hooks.url + HOOK_PATH, events: ['campaign.*'] }), 201);
});

let seq = 0;
const tag = (name: string) => `${name}-${++seq}`;
const rcpt = uniqueAddresses('rcpt.guardrails.test');

const settings = (body: unknown) => project.api.patch('/campaign-settings', body);

/**
 * Waits until nothing of the campaign is in a worker's hands: every queued recipient's email is held
 * (parked: no next attempt) or not made yet. Returns the queued recipients.
 */
async function heldRecipients(campaignId: string) {
  return pollUntil(
    async () => {
      const queued = await allRecipients(project.api, campaignId, 'outcome=queued');
      const records = await Promise.all(
        queued.flatMap((r) => (r.emailId ? [emailRecord(project.api, r.emailId)] : [])),
      );
      return { queued, records };
    },
    ({ records }) => records.every((r) => r.status === 'queued' && r.nextAttemptAt === null),
  ).then(({ queued }) => queued);
}

/** Waits for the campaign's `type` webhook and returns its body. */
const hookOf = (campaignId: string, type: string, count = 1) =>
  eventually(async () => {
    const found = campaignHooks(hooks, HOOK_PATH, campaignId, type);
    return found.length >= count ? found : undefined;
  }, 20_000);

describe('campaign settings', () => {
  it('shows the instance defaults, takes a project’s own values, and goes back to the defaults with null', async () => {
    const p = await mail.server.project('guardrail-settings');
    const defaults: CampaignSettings = {
      guardrails: { maxComplaintRate: 0.003, maxBounceRate: 0.05, minSample: 200 },
      marketingCap: null,
    };
    expect(await expectBody(p.api.get('/campaign-settings'))).toEqual(defaults);

    const changed = await expectBody(
      p.api.patch('/campaign-settings', { guardrails: { maxBounceRate: 0.02 }, marketingCap: { count: 3, days: 7 } }),
    );
    expect(changed).toEqual({
      guardrails: { ...defaults.guardrails, maxBounceRate: 0.02 },
      marketingCap: { count: 3, days: 7 },
    });
    // A PATCH changes only what it names.
    expect(await expectBody(p.api.patch('/campaign-settings', { guardrails: { minSample: 50 } }))).toEqual({
      guardrails: { ...defaults.guardrails, maxBounceRate: 0.02, minSample: 50 },
      marketingCap: { count: 3, days: 7 },
    });
    expect(
      await expectBody(
        p.api.patch('/campaign-settings', { guardrails: { maxBounceRate: null, minSample: null }, marketingCap: null }),
      ),
    ).toEqual(defaults);
    expect(await expectBody(p.api.get('/campaign-settings'))).toEqual(defaults);

    for (const bad of [
      { guardrails: { maxBounceRate: 2 } },
      { marketingCap: { count: 0, days: 7 } },
      { marketingCap: { count: 1 } },
      { other: true },
    ]) {
      expectErrorEnvelope(await p.api.patch('/campaign-settings', bad), 422, 'VALIDATION_ERROR');
    }
    // Campaign events are the service's own: clients cannot track them.
    const tracked = await p.api.post('/v1/track', { email: rcpt('tracker'), event: 'campaign.paused' }, p.publicKey);
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(422);
  });
});

describe('guardrails', () => {
  it('pause a campaign whose bounce rate passes the threshold, hold its mail, and resume it to the end', async () => {
    expect((await settings({ guardrails: { maxBounceRate: 0.1, minSample: 10 } })).status).toBe(200);
    const batch = tag('bouncy');
    const contacts = await batchContacts(
      project.api,
      batch,
      Array.from({ length: 40 }, (_, i) => rcpt(i % 2 === 0 ? `bad-${batch}` : `good-${batch}`)),
    );
    // Half the list does not exist: the relay refuses it for good.
    mail.sink.respond((m) => (m.to.some((to) => to.startsWith('bad-')) ? REFUSE : ACCEPT));
    const c = await batchCampaign(project.api, FROM, batch);
    await sendNow(project.api, c.id);

    const paused = await campaignWhen(project.api, c.id, (x) => x.status !== 'SENDING');
    expect(paused).toMatchObject({ status: 'PAUSED', pausedReason: 'bounce_rate', pausedAt: expect.any(String) });
    const [event] = await hookOf(c.id, 'campaign.paused');
    expect(event!.data).toEqual({
      campaignId: c.id,
      name: c.name,
      reason: 'bounce_rate',
      rate: expect.any(Number),
      threshold: 0.1,
      sample: expect.any(Number),
      pausedAt: paused.pausedAt,
      eventId: expect.any(String),
    });
    expect(event!.data.rate as number).toBeGreaterThan(0.1);
    expect(event!.data.sample as number).toBeGreaterThanOrEqual(10);
    const listed = await expectBody(project.api.get('/campaigns?status=PAUSED'));
    expect(listed.data.map((x: { id: string }) => x.id)).toContain(c.id);

    // Messages already in the worker's hands finish; every other queued email is held (parked).
    const held = await heldRecipients(c.id);
    expect(held.length).toBeGreaterThan(0);
    const atSink = mail.sink.messages.length;
    await new Promise((r) => setTimeout(r, 1000));
    expect(mail.sink.messages.length).toBe(atSink);
    expect(await allRecipients(project.api, c.id, 'outcome=queued')).toEqual(held);
    for (const r of held) expect(sinkMessagesTo(mail.sink, r.email!)).toEqual([]);
    expect((await statsOf(project.api, c.id)).pending).toBe(held.length);
    await expectCountersAgree(project.api, c.id);

    // A paused campaign is neither deleted nor paused again; it cannot be resent while it has work.
    expectErrorEnvelope(await project.api.delete(`/campaigns/${c.id}`), 409, 'CAMPAIGN_SENDING');
    expectErrorEnvelope(await project.api.post(`/campaigns/${c.id}/pause`), 400, 'CAMPAIGN_NOT_PAUSABLE');
    expectErrorEnvelope(await project.api.post(`/campaigns/${c.id}/resend`), 409, 'CAMPAIGN_SENDING');

    // The list is cleaned up: the rest is accepted. Resuming releases the held mail, and the
    // guardrails judge only what is sent from now on, so the refusals before do not pause it again.
    mail.sink.respond(() => ACCEPT);
    const resumed = await expectBody(project.api.post(`/campaigns/${c.id}/resume`));
    expect(resumed).toEqual({
      success: true,
      data: expect.objectContaining({ id: c.id, status: 'SENDING', pausedReason: null, pausedAt: null }),
      message: expect.any(String),
    });
    const sent = await campaignWhen(project.api, c.id, (x) => x.status === 'SENT');
    await hookOf(c.id, 'campaign.resumed');
    const [completed] = await hookOf(c.id, 'campaign.completed');
    const stats = await statsOf(project.api, c.id);
    expect(stats).toMatchObject({ status: 'SENT', totalRecipients: 40, pending: 0, skipped: 0 });
    expect(completed!.data).toEqual({
      campaignId: c.id,
      name: c.name,
      status: 'SENT',
      completedAt: expect.any(String),
      totalRecipients: 40,
      sent: sent.sentCount,
      delivered: stats.delivered,
      bounced: stats.bounced,
      complained: 0,
      skipped: 0,
      opened: 0,
      clicked: 0,
      eventId: expect.any(String),
    });

    // Each recipient got one message, except those refused; the held ones went out after the resume.
    const failed = new Set((await allRecipients(project.api, c.id, 'outcome=failed')).map((r) => r.contactId));
    expect(failed.size).toBe(stats.bounced);
    for (const contact of contacts) {
      expect(sinkMessagesTo(mail.sink, contact.email)).toHaveLength(failed.has(contact.id) ? 0 : 1);
    }
    for (const r of held) expect(sinkMessagesTo(mail.sink, r.email!)).toHaveLength(1);
    await expectCountersAgree(project.api, c.id);
    expect(campaignHooks(hooks, HOOK_PATH, c.id, 'campaign.paused')).toHaveLength(1);
    await settings({ guardrails: { maxBounceRate: null, minSample: null } });
  });

  it('pause by hand holds the mail; a paused campaign can be cancelled, and nothing held goes out', async () => {
    const batch = tag('manual');
    await batchContacts(
      project.api,
      batch,
      Array.from({ length: 12 }, () => rcpt(batch)),
    );
    // The relay keeps the first message until the campaign is paused.
    let release!: () => void;
    const gate = new Promise<Verdict>((resolve) => {
      release = () => resolve(ACCEPT);
    });
    mail.sink.respond(() => gate);
    const c = await batchCampaign(project.api, FROM, batch);
    expectErrorEnvelope(await project.api.post(`/campaigns/${c.id}/pause`), 400, 'CAMPAIGN_NOT_PAUSABLE');
    await sendNow(project.api, c.id);
    // Every email is made (and the first is at the relay) before the pause.
    await pollUntil(
      () => allRecipients(project.api, c.id),
      (rs) => rs.length === 12 && rs.every((r) => r.emailId !== null),
    );

    const paused = await expectBody(project.api.post(`/campaigns/${c.id}/pause`));
    expect(paused.data).toMatchObject({ status: 'PAUSED', pausedReason: 'manual' });
    const [event] = await hookOf(c.id, 'campaign.paused');
    expect(event!.data).toMatchObject({ campaignId: c.id, reason: 'manual' });
    release();
    mail.sink.respond(() => ACCEPT);

    // What the worker held goes out; the rest waits.
    const held = await heldRecipients(c.id);
    expect(held.length).toBeGreaterThan(0);
    const delivered = 12 - held.length;

    const cancelled = await expectBody(project.api.post(`/campaigns/${c.id}/cancel`));
    expect(cancelled.data).toMatchObject({ status: 'CANCELLED', pausedReason: null });
    expectErrorEnvelope(await project.api.post(`/campaigns/${c.id}/resume`), 400, 'CAMPAIGN_NOT_PAUSED');
    const skipped = await allRecipients(project.api, c.id, 'outcome=skipped');
    expect(skipped.map((r) => r.reason)).toEqual(held.map(() => 'cancelled'));
    expect(await statsOf(project.api, c.id)).toMatchObject({ status: 'CANCELLED', delivered, pending: 0 });
    await new Promise((r) => setTimeout(r, 500));
    for (const r of held) expect(sinkMessagesTo(mail.sink, r.email!)).toEqual([]);
    await expectCountersAgree(project.api, c.id);
    expect((await getCampaign(project.api, c.id)).status).toBe('CANCELLED');
  });
});

/** Holds a fan-out page's place in the campaign, as storing one does; resolves to its commit. */
async function holdPage(campaignId: string): Promise<() => Promise<void>> {
  let commit!: () => void;
  const done = new Promise<void>((resolve) => (commit = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const page = mail.server.service.ctx.db.transaction(async (tx) => {
    await excludeStateChanges(tx, campaignId, 'page');
    held();
    await done;
  });
  await holding;
  return async () => {
    commit();
    await page;
  };
}

describe('fan-out pages and state changes', () => {
  it('a pause and a cancel wait for a fan-out page being stored, while delivery outcomes go on', async () => {
    const batch = tag('page');
    await batchContacts(
      project.api,
      batch,
      Array.from({ length: 6 }, () => rcpt(batch)),
    );
    // The relay answers as many messages as it is allowed to, and keeps the others waiting.
    let allowed = 0;
    let accepted = 0;
    mail.sink.respond(async () => {
      while (accepted >= allowed) await new Promise((r) => setTimeout(r, 20));
      accepted++;
      return ACCEPT;
    });
    const c = await batchCampaign(project.api, FROM, batch);
    await sendNow(project.api, c.id);
    await pollUntil(
      () => allRecipients(project.api, c.id),
      (rs) => rs.length === 6 && rs.every((r) => r.emailId !== null),
    );

    // A page of another fan-out run holds its place, as storing one does.
    const commitPage = await holdPage(c.id);

    // The relay's answers are recorded meanwhile: the page does not hold the campaign's counters.
    allowed = 2;
    await campaignWhen(project.api, c.id, (x) => x.sentCount === 2);

    const answersAtOnce = (res: Promise<unknown>) =>
      Promise.race([res.then(() => true), new Promise((r) => setTimeout(() => r(false), 700))]);
    const pause = project.api.post(`/campaigns/${c.id}/pause`);
    expect(await answersAtOnce(pause)).toBe(false);
    await commitPage();
    const paused = await expectBody(pause);
    expect(paused.data.status).toBe('PAUSED');
    allowed = Number.POSITIVE_INFINITY;

    // The same for a cancel.
    const commitSecond = await holdPage(c.id);
    const cancel = project.api.post(`/campaigns/${c.id}/cancel`);
    expect(await answersAtOnce(cancel)).toBe(false);
    await commitSecond();
    expect((await expectBody(cancel)).data.status).toBe('CANCELLED');
    mail.sink.respond(() => ACCEPT);
    await expectCountersAgree(project.api, c.id);
  });
});

describe('the marketing cap and bulk headers', () => {
  it('skips a contact who had the capped number of marketing emails, with the reason; transactional mail is not capped', async () => {
    const p = await projectWithDomain(mail, 'capped', 'capped.guardrails.test');
    const from = 'news@capped.guardrails.test';
    const first = tag('cap-first');
    const [busy] = await batchContacts(p.api, first, [rcpt('busy')]);
    const c1 = await batchCampaign(p.api, from, first);
    await sendNow(p.api, c1.id);
    await campaignWhen(p.api, c1.id, (x) => x.status === 'SENT');

    expect((await p.api.patch('/campaign-settings', { marketingCap: { count: 1, days: 30 } })).status).toBe(200);
    const both = tag('cap-both');
    const [fresh] = await batchContacts(p.api, both, [rcpt('fresh')]);
    expect((await p.api.patch(`/contacts/${busy!.id}`, { data: { batch: both } })).status).toBe(200);
    const c2 = await batchCampaign(p.api, from, both);
    await sendNow(p.api, c2.id);
    await campaignWhen(p.api, c2.id, (x) => x.status === 'SENT');

    const recipients = await allRecipients(p.api, c2.id);
    expect(recipients.find((r) => r.contactId === busy!.id)).toMatchObject({
      outcome: 'skipped',
      reason: 'capped',
      detail: "Not sent: the contact has had 1 marketing email in the last 30 days, the project's cap is 1",
    });
    expect(recipients.find((r) => r.contactId === fresh!.id)).toMatchObject({ outcome: 'delivered', reason: null });
    expect(await statsOf(p.api, c2.id)).toMatchObject({ totalRecipients: 2, delivered: 1, skipped: 1, pending: 0 });
    expect(sinkMessagesTo(mail.sink, busy!.email)).toHaveLength(1);
    await expectCountersAgree(p.api, c2.id);

    // Marketing mail says it is bulk, so auto-responders keep quiet; transactional mail does not.
    const bulk = headerBlock(sinkMessagesTo(mail.sink, fresh!.email)[0]!.raw);
    expect(bulk).toMatch(/^Precedence: bulk$/m);
    expect(bulk).toMatch(/^Auto-Submitted: auto-generated$/m);
    expect(bulk).toMatch(/^List-Unsubscribe: /m);
    const c3 = await batchCampaign(p.api, from, both, { type: 'TRANSACTIONAL' });
    await sendNow(p.api, c3.id);
    await campaignWhen(p.api, c3.id, (x) => x.status === 'SENT');
    expect(await statsOf(p.api, c3.id)).toMatchObject({ delivered: 2, skipped: 0 });
    const plain = headerBlock(sinkMessagesTo(mail.sink, fresh!.email)[1]!.raw);
    expect(plain).not.toMatch(/^Precedence:/m);
    expect(plain).not.toMatch(/^Auto-Submitted:/m);

    // With room under a higher cap, a resend reaches the capped contact, checked again.
    expect((await p.api.patch('/campaign-settings', { marketingCap: { count: 5, days: 30 } })).status).toBe(200);
    const resend = await expectBody(p.api.post(`/campaigns/${c2.id}/resend`));
    expect(resend).toMatchObject({ success: true, resent: 1, data: { id: c2.id, status: 'SENDING' } });
    await campaignWhen(p.api, c2.id, (x) => x.status === 'SENT');
    expect((await allRecipients(p.api, c2.id, 'outcome=delivered')).map((r) => r.contactId).sort()).toEqual(
      [busy!.id, fresh!.id].sort(),
    );
    expect(sinkMessagesTo(mail.sink, busy!.email)).toHaveLength(3);
    await expectCountersAgree(p.api, c2.id);
  });
});
