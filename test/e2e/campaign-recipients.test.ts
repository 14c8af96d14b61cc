import { beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '../../src/api.js';
import {
  allRecipients,
  batchCampaign,
  batchContacts,
  type CampaignRecipient,
  campaignHooks,
  campaignWhen,
  expectCountersAgree,
  sendNow,
  statsOf,
} from '../support/campaigns.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { sinkMessagesTo, UNKNOWN_ID, UUID, uniqueAddresses } from '../support/sending.js';
import { eventually, expectBody, expectErrorEnvelope, type TestProject } from '../support/server.js';
import type { Verdict } from '../support/smtp-sink.js';
import { useReceiver } from '../support/webhook-receiver.js';

// Reconciliation of a campaign: each recipient's outcome and reason (GET /campaigns/{id}/recipients,
// filtered and paged by cursor), the counters agreeing with that list, and a resend that reaches
// only the recipients whose mail failed, once, however often it is asked for.

const DOMAIN = 'news.recipients.test';
const FROM = `news@${DOMAIN}`;
const ACCEPT: Verdict = { accept: true };
const REFUSE: Verdict = { accept: false, code: 550, message: '5.1.1 <nobody>: Recipient address rejected' };
const SUPPRESSED = 'Not sent: the address is on the suppression list';

const hooks = useReceiver();
const mail = useMailServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DELIVERY_RETRY_BASE_SECONDS: '0.2' });
const HOOK_PATH = '/completed';

let project: TestProject;
let other: TestProject;
let campaign: Campaign;
const batch = 'reconcile';
const rcpt = uniqueAddresses('rcpt.recipients.test');
let good: { id: string; email: string }[];
let bad: { id: string; email: string }[];
let listed: { id: string; email: string };

/** A marketing campaign to 6 addresses that take mail, 3 the relay refuses and 1 on the suppression list. */
beforeAll(async () => {
  project = await projectWithDomain(mail, 'recipients', DOMAIN);
  other = await mail.server.project('recipients-other');
  await expectBody(project.api.post('/webhooks', { url: hooks.url + HOOK_PATH, events: ['campaign.completed'] }), 201);
  good = await batchContacts(
    project.api,
    batch,
    Array.from({ length: 6 }, () => rcpt('good')),
  );
  bad = await batchContacts(
    project.api,
    batch,
    Array.from({ length: 3 }, () => rcpt('bad')),
  );
  [listed] = (await batchContacts(project.api, batch, [rcpt('listed')])) as [{ id: string; email: string }];
  await expectBody(project.api.post('/suppressions', { email: listed.email }), 201);
  mail.sink.respond((m) => (m.to.some((to) => to.startsWith('bad-')) ? REFUSE : ACCEPT));
  campaign = await batchCampaign(project.api, FROM, batch);
  await sendNow(project.api, campaign.id);
  await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT');
  mail.sink.respond(() => ACCEPT);
});

const page = (query: string, api = project.api) => api.get(`/campaigns/${campaign.id}/recipients${query}`);
const ids = (rs: CampaignRecipient[]) => rs.map((r) => r.contactId);
/** The audience: 6 + 3 + 1. */
const AUDIENCE = 10;

describe('GET /campaigns/{id}/recipients', () => {
  it('lists every recipient with its outcome, its reason and its email, in contact id order', async () => {
    const all = await allRecipients(project.api, campaign.id);
    expect(all).toHaveLength(AUDIENCE);
    expect(ids(all)).toEqual([...ids(all)].sort());
    const of = (id: string) => all.find((r) => r.contactId === id)!;
    for (const c of good) {
      expect(of(c.id)).toEqual({
        contactId: c.id,
        email: c.email,
        outcome: 'delivered',
        reason: null,
        emailId: expect.stringMatching(UUID),
        detail: null,
        sendAt: null,
        sentAt: expect.any(String),
      });
    }
    for (const c of bad) {
      expect(of(c.id)).toMatchObject({ email: c.email, outcome: 'failed', reason: 'rejected', sentAt: null });
      expect(of(c.id).detail).toMatch(/550/);
    }
    expect(of(listed.id)).toMatchObject({
      outcome: 'skipped',
      reason: 'suppressed',
      detail: SUPPRESSED,
      emailId: expect.stringMatching(UUID),
    });
    await expectCountersAgree(project.api, campaign.id);
    expect(await statsOf(project.api, campaign.id)).toMatchObject({
      totalRecipients: 10,
      delivered: 6,
      bounced: 3,
      skipped: 1,
      pending: 0,
    });
  });

  it('pages with a cursor: `total` on the first page, then the rest in order until hasMore is false', async () => {
    const all = await allRecipients(project.api, campaign.id);
    const first = await expectBody(page('?limit=4'));
    expect(first).toEqual({ data: all.slice(0, 4), cursor: expect.any(String), hasMore: true, total: 10 });
    const second = await expectBody(page(`?limit=4&cursor=${first.cursor}`));
    expect(second).toEqual({ data: all.slice(4, 8), cursor: expect.any(String), hasMore: true, total: 0 });
    const last = await expectBody(page(`?limit=4&cursor=${second.cursor}`));
    expect(last).toEqual({ data: all.slice(8), cursor: null, hasMore: false, total: 0 });
    // A limit above 100 is lowered to 100.
    expect((await expectBody(page('?limit=1000'))).data).toHaveLength(10);
  });

  it('filters by outcome and reason, paging within the filter', async () => {
    const failed = await expectBody(page('?outcome=failed&limit=2'));
    expect(failed).toMatchObject({ total: 3, hasMore: true });
    const rest = await expectBody(page(`?outcome=failed&limit=2&cursor=${failed.cursor}`));
    expect(rest).toMatchObject({ total: 0, hasMore: false });
    expect(ids([...failed.data, ...rest.data])).toEqual(bad.map((c) => c.id).sort());

    const suppressed = await expectBody(page('?outcome=skipped&reason=suppressed'));
    expect(suppressed).toMatchObject({ total: 1, data: [expect.objectContaining({ contactId: listed.id })] });
    expect(await expectBody(page('?outcome=skipped&reason=capped'))).toEqual({
      data: [],
      cursor: null,
      hasMore: false,
      total: 0,
    });
    expect((await expectBody(page('?reason=rejected'))).total).toBe(3);
    expect((await expectBody(page('?outcome=delivered'))).total).toBe(6);
  });

  it('answers 422 for an unknown outcome or a bad cursor, and 404 for a campaign of no project of the key', async () => {
    expectErrorEnvelope(await page('?outcome=sent_maybe'), 422, 'VALIDATION_ERROR');
    expectErrorEnvelope(await page('?reason=whatever'), 422, 'VALIDATION_ERROR');
    expectErrorEnvelope(await page('?cursor=not-a-cursor'), 422, 'VALIDATION_ERROR');
    const foreign = Buffer.from(JSON.stringify(['2030-01-01T00:00:00.000Z', UNKNOWN_ID])).toString('base64url');
    expectErrorEnvelope(await page(`?cursor=${foreign}`), 422, 'VALIDATION_ERROR');
    expectErrorEnvelope(await project.api.get(`/campaigns/${UNKNOWN_ID}/recipients`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await page('', other.api), 404, 'NOT_FOUND');
    expectErrorEnvelope(await project.api.get('/campaigns/nope/recipients'), 422, 'VALIDATION_ERROR');
  });
});

describe('POST /campaigns/{id}/resend', () => {
  it('refuses campaigns that are not SENT', async () => {
    const draft = await batchCampaign(project.api, FROM, 'nobody-here');
    expectErrorEnvelope(await project.api.post(`/campaigns/${draft.id}/resend`), 400, 'CAMPAIGN_NOT_RESENDABLE');
    expectErrorEnvelope(await project.api.post(`/campaigns/${UNKNOWN_ID}/resend`), 404, 'NOT_FOUND');
    expectErrorEnvelope(await other.api.post(`/campaigns/${campaign.id}/resend`), 404, 'NOT_FOUND');
  });

  it('sends again only to the failed recipients, once, however many calls race; then there is nobody left', async () => {
    const [firstCompletion] = await eventually(async () => {
      const found = campaignHooks(hooks, HOOK_PATH, campaign.id, 'campaign.completed');
      return found.length > 0 ? found : undefined;
    });
    expect(firstCompletion!.data).toMatchObject({ totalRecipients: 10, delivered: 6, bounced: 3, skipped: 1 });

    // Two calls at once: one reopens the campaign, the other finds it sending (the relay holds the
    // resent messages meanwhile, so the first cannot have finished before the second is answered).
    let release!: () => void;
    const gate = new Promise<Verdict>((resolve) => {
      release = () => resolve(ACCEPT);
    });
    mail.sink.respond(() => gate);
    const answers = await Promise.all([1, 2].map(() => project.api.post(`/campaigns/${campaign.id}/resend`)));
    release();
    mail.sink.respond(() => ACCEPT);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, JSON.stringify(answers.map((a) => a.body))).toEqual([200, 409]);
    const accepted = answers.find((a) => a.status === 200)!.body;
    expect(accepted).toEqual({
      success: true,
      data: expect.objectContaining({ id: campaign.id, status: 'SENDING' }),
      message: expect.any(String),
      resent: 3,
    });
    expectErrorEnvelope(answers.find((a) => a.status === 409)!, 409, 'CAMPAIGN_SENDING');

    const done = await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT');
    expect(done).toMatchObject({ totalRecipients: 10, sentCount: 9, deliveredCount: 9, bouncedCount: 0 });
    for (const c of [...good, ...bad]) expect(sinkMessagesTo(mail.sink, c.email)).toHaveLength(1);
    expect(sinkMessagesTo(mail.sink, listed.email)).toEqual([]);
    const all = await allRecipients(project.api, campaign.id);
    for (const c of bad) expect(all.find((r) => r.contactId === c.id)).toMatchObject({ outcome: 'delivered' });
    expect(all.find((r) => r.contactId === listed.id)).toMatchObject({ outcome: 'skipped', reason: 'suppressed' });
    await expectCountersAgree(project.api, campaign.id);
    // The old, failed emails stay on record with the campaign.
    const failedEmails = await expectBody(project.api.get(`/emails?campaignId=${campaign.id}&status=failed`));
    expect(failedEmails.data).toHaveLength(3);

    const [, second] = await eventually(async () => {
      const found = campaignHooks(hooks, HOOK_PATH, campaign.id, 'campaign.completed');
      return found.length > 1 ? found : undefined;
    });
    expect(second!.data).toMatchObject({ totalRecipients: 10, sent: 9, delivered: 9, bounced: 0, skipped: 1 });

    const again = await expectBody(project.api.post(`/campaigns/${campaign.id}/resend`));
    expect(again).toMatchObject({ success: true, resent: 0, data: { status: 'SENT' } });
    for (const c of bad) expect(sinkMessagesTo(mail.sink, c.email)).toHaveLength(1);
  });
});
