import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import type { Contact, Topic } from '../../src/api.js';
import { batchCampaign, batchContacts, campaignWhen, sendNow } from '../support/campaigns.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { headerBlock, sinkMessagesTo, uniqueAddresses } from '../support/sending.js';
import { expectBody, expectErrorEnvelope } from '../support/server.js';

/**
 * Sending about a topic, end to end at a real SMTP sink: a campaign to topic X reaches exactly the
 * subscribed contacts that receive X (by choice or by default), and the RFC 8058 one-click POST to
 * the List-Unsubscribe URL of the delivered message leaves X only.
 */

const DOMAIN = 'news.topics-sending.test';
const FROM = `news@${DOMAIN}`;
const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });
const address = uniqueAddresses('readers.topics-sending.test');

/** A header of a raw message, unfolded. */
function rawHeader(raw: Buffer, name: string): string | undefined {
  const block = headerBlock(raw).replace(/\r?\n[ \t]+/g, ' ');
  return new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(block)?.[1];
}

describe('a campaign about a topic', () => {
  it("reaches exactly the topic's members; one-click unsubscribe leaves only that topic", async () => {
    const p = await projectWithDomain(mail, 'topics-sending', DOMAIN);
    const x = await expectBody<Topic>(p.api.post('/topics', { name: 'Launches' }), 201);
    const y = await expectBody<Topic>(p.api.post('/topics', { name: 'Digest', defaultOn: true }), 201);
    const [optedIn, alsoIn, notChosen, optedOut, unsubscribed] = await batchContacts(p.api, 'topics', [
      address('in'),
      address('also-in'),
      address('not-chosen'),
      address('out'),
      address('unsubscribed'),
    ]);
    const choose = (c: { id: string }, body: Record<string, unknown>) =>
      expectBody<Contact>(p.api.patch(`/contacts/${c!.id}`, body));
    await choose(optedIn!, { topics: { [x.id]: true } });
    await choose(alsoIn!, { topics: { [x.id]: true, [y.id]: false } });
    await choose(optedOut!, { topics: { [x.id]: false } });
    // Opted in to X but unsubscribed from everything: nothing marketing reaches it.
    await choose(unsubscribed!, { topics: { [x.id]: true }, subscribed: false });

    // A topic of no project, and a topic on transactional mail, are refused.
    const unknown = await p.api.post('/campaigns', {
      name: 'x',
      subject: 's',
      body: '<p>b</p>',
      from: FROM,
      audienceType: 'ALL',
      topicId: '00000000-0000-4000-8000-000000000000',
    });
    expectErrorEnvelope(unknown, 422, 'VALIDATION_ERROR');
    expect(unknown.body.error.errors[0]).toMatchObject({ field: 'topicId', code: 'unknown_topic' });
    const transactional = await p.api.post('/campaigns', {
      name: 'x',
      subject: 's',
      body: '<p>b</p>',
      from: FROM,
      audienceType: 'ALL',
      type: 'TRANSACTIONAL',
      topicId: x.id,
    });
    expectErrorEnvelope(transactional, 422, 'VALIDATION_ERROR');

    const campaign = await batchCampaign(p.api, FROM, 'topics', { topicId: x.id, subject: 'New launch' });
    expect(campaign.topicId).toBe(x.id);
    await sendNow(p.api, campaign.id);
    const done = await campaignWhen(p.api, campaign.id, (c) => c.status === 'SENT' && c.deliveredCount === 2);
    expect(done.totalRecipients).toBe(2);
    for (const c of [optedIn!, alsoIn!]) expect(sinkMessagesTo(mail.sink, c.email), c.email).toHaveLength(1);
    for (const c of [notChosen!, optedOut!, unsubscribed!]) {
      expect(sinkMessagesTo(mail.sink, c.email), c.email).toHaveLength(0);
    }

    // The delivered message's one-click header, POSTed as a mail provider does (RFC 8058).
    const [message] = sinkMessagesTo(mail.sink, optedIn!.email);
    const header = rawHeader(message!.raw, 'List-Unsubscribe');
    expect(rawHeader(message!.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const url = /^<(https?:\/\/[^>]+)>$/.exec(header ?? '')?.[1];
    expect(url, header).toBeDefined();
    const parsed = await simpleParser(message!.raw);
    expect(parsed.html || '').toContain(url);

    // The link carries the topic under its signature: moved to another topic, it is refused.
    const parts = new URL(url!).pathname.split('/').pop()!.split('.');
    expect(parts).toHaveLength(5);
    expect(parts[3]).toBe(x.id);
    const forged = url!.replace(x.id, y.id);
    const refused = await fetch(forged, { method: 'POST', body: 'List-Unsubscribe=One-Click' });
    expect(refused.status).toBe(404);

    const oneClick = await fetch(url!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain('Launches');

    const after = await expectBody<Contact>(p.api.get(`/contacts/${optedIn!.id}`));
    expect(after.subscribed).toBe(true);
    expect(after.topics).toEqual({ [x.id]: false, [y.id]: true });
    // The other member keeps X; the campaign counts the unsubscribe.
    expect((await expectBody<Contact>(p.api.get(`/contacts/${alsoIn!.id}`))).topics![x.id]).toBe(true);
    expect((await expectBody(p.api.get(`/campaigns/${campaign.id}/stats`))).unsubscribed).toBe(1);

    // A second campaign to X now reaches only the other member.
    const again = await batchCampaign(p.api, FROM, 'topics', { topicId: x.id, subject: 'Another launch' });
    await sendNow(p.api, again.id);
    const second = await campaignWhen(p.api, again.id, (c) => c.status === 'SENT' && c.deliveredCount === 1);
    expect(second.totalRecipients).toBe(1);
    expect(sinkMessagesTo(mail.sink, alsoIn!.email)).toHaveLength(2);
    expect(sinkMessagesTo(mail.sink, optedIn!.email)).toHaveLength(1);
  });
});

describe('a workflow and topics', () => {
  it('UPDATE_CONTACT sets topics; SEND_EMAIL about a topic reaches only its members', async () => {
    const p = await projectWithDomain(mail, 'topics-workflow', 'wf.topics-sending.test');
    const from = 'hello@wf.topics-sending.test';
    const joined = await expectBody<Topic>(p.api.post('/topics', { name: 'Joined by workflow' }), 201);
    const never = await expectBody<Topic>(p.api.post('/topics', { name: 'Never chosen' }), 201);
    const template = async (subject: string) =>
      (await expectBody(p.api.post('/templates', { name: subject, subject, body: '<p>Hi</p>', from }), 201)).id;
    const steps = {
      join: { type: 'UPDATE_CONTACT', config: { topics: { [joined.id]: true } } },
      skipped: { type: 'SEND_EMAIL', config: { templateId: await template('About never'), topicId: never.id } },
      sent: { type: 'SEND_EMAIL', config: { templateId: await template('About joined'), topicId: joined.id } },
    };
    // A topic of no project is refused where the step is saved.
    const wf = await expectBody(
      p.api.post('/workflows', { name: 'Topics', triggerConfig: { event: 'signed.up' } }),
      201,
    );
    const bad = await p.api.post(`/workflows/${wf.id}/steps`, {
      name: 'bad',
      type: 'UPDATE_CONTACT',
      config: { topics: { '00000000-0000-4000-8000-000000000000': true } },
    });
    expectErrorEnvelope(bad, 422, 'VALIDATION_ERROR');
    const ids: Record<string, string> = {};
    for (const [name, spec] of Object.entries(steps)) {
      ids[name] = (await expectBody(p.api.post(`/workflows/${wf.id}/steps`, { name, ...spec }), 201)).id;
    }
    for (const [a, b] of [
      ['join', 'skipped'],
      ['skipped', 'sent'],
    ]) {
      await expectBody(p.api.post(`/workflows/${wf.id}/transitions`, { fromStepId: ids[a], toStepId: ids[b] }), 201);
    }
    await expectBody(p.api.patch(`/workflows/${wf.id}`, { enabled: true }));

    const to = address('workflow');
    const tracked = await p.api.post('/v1/track', { email: to, event: 'signed.up' }, p.publicKey);
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    await expect.poll(() => sinkMessagesTo(mail.sink, to).length, { timeout: 20_000 }).toBe(1);
    const parsed = await simpleParser(sinkMessagesTo(mail.sink, to)[0]!.raw);
    expect(parsed.subject).toBe('About joined');
    const contact = await expectBody<Contact>(p.api.get(`/contacts/${tracked.body.data.contact}`));
    expect(contact.topics).toEqual({ [joined.id]: true, [never.id]: false });
    const emails = await expectBody(p.api.get(`/emails?limit=10`));
    const skipped = emails.data.find((e: { subject: string }) => e.subject === 'About never');
    expect(skipped).toMatchObject({ status: 'skipped' });
  });
});

describe('a template about a topic', () => {
  it('sends through /v1/send only to the topic’s members, and only a MARKETING template takes a topic', async () => {
    const p = await projectWithDomain(mail, 'topics-template', 'tpl.topics-sending.test');
    const from = 'hello@tpl.topics-sending.test';
    const topic = await expectBody<Topic>(p.api.post('/topics', { name: 'Tips' }), 201);
    const transactional = await p.api.post('/templates', {
      name: 'Receipt',
      subject: 'Receipt',
      body: '<p>Thanks</p>',
      from,
      type: 'TRANSACTIONAL',
      topicId: topic.id,
    });
    expectErrorEnvelope(transactional, 422, 'VALIDATION_ERROR');
    expect(transactional.body.error.errors[0]).toMatchObject({ field: 'topicId', code: 'topic_needs_marketing' });
    const plain = await expectBody(
      p.api.post('/templates', { name: 'Tip', subject: 'A tip', body: '<p>Tip</p>', from }),
      201,
    );
    expect(plain.topicId).toBeNull();
    const template = await expectBody(p.api.patch(`/templates/${plain.id}`, { topicId: topic.id }));
    expect(template.topicId).toBe(topic.id);
    expect(template.version).toBe(plain.version);

    const member = address('tpl-member');
    const other = address('tpl-other');
    await expectBody(p.api.post('/contacts', { email: member, topics: { [topic.id]: true } }), 201);
    await expectBody(p.api.post('/contacts', { email: other }), 201);
    const sent = await p.api.post('/v1/send', { to: [member, other], template: template.id });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await expect.poll(() => sinkMessagesTo(mail.sink, member).length, { timeout: 20_000 }).toBe(1);
    const header = rawHeader(sinkMessagesTo(mail.sink, member)[0]!.raw, 'List-Unsubscribe');
    expect(header).toContain(topic.id);
    const emails = await expectBody(p.api.get('/emails?limit=10'));
    expect(emails.data.find((e: { to: string }) => e.to === other)).toMatchObject({ status: 'skipped' });
    expect(sinkMessagesTo(mail.sink, other)).toHaveLength(0);
  });
});

describe('a campaign about a topic deleted since', () => {
  it('cannot be sent, rather than widening to everyone', async () => {
    const p = await projectWithDomain(mail, 'topics-deleted', 'gone.topics-sending.test');
    const topic = await expectBody<Topic>(p.api.post('/topics', { name: 'Soon gone' }), 201);
    await batchContacts(p.api, 'gone', [address('gone-1')]);
    const campaign = await batchCampaign(p.api, 'news@gone.topics-sending.test', 'gone', { topicId: topic.id });
    expect((await p.api.delete(`/topics/${topic.id}`)).status).toBe(204);
    const res = await p.api.post(`/campaigns/${campaign.id}/send`);
    expectErrorEnvelope(res, 400, 'CAMPAIGN_NOT_SENDABLE');
    expect(res.body.error.message).toContain('No topic of this project has this id');
  });
});
