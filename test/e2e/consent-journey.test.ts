import { describe, expect, it } from 'vitest';
import type { Contact, Topic } from '../../src/api.js';
import { campaignWhen, sendNow } from '../support/campaigns.js';
import { confirmationLink, publishMailDomain, solve } from '../support/forms.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { sinkMessagesTo } from '../support/sending.js';
import { eventually, expectBody, pollUntil, type TestProject } from '../support/server.js';

/**
 * A reader's whole way through, over HTTP against the real service and a real SMTP sink: signs up
 * on a website's form choosing a topic, confirms with one click, changes topics in the preference
 * center; a campaign to the topic they chose reaches them and one to the topic they left does not;
 * every step is in their consent history, which their export carries and their erasure removes.
 */

const DOMAIN = 'news.journey.test';
const FROM = `news@${DOMAIN}`;
const READER = 'ann@quiet-reader.dev';
const CONSENT = 'Yes, send me the news I choose.';
const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });

async function campaignAbout(p: TestProject, topic: Topic) {
  const created = await expectBody(
    p.api.post('/campaigns', {
      name: `About ${topic.name}`,
      subject: topic.name,
      body: `<p>${topic.name}</p>`,
      from: FROM,
      audienceType: 'ALL',
      topicId: topic.id,
    }),
    201,
  );
  await sendNow(p.api, created.data.id);
  return campaignWhen(p.api, created.data.id, (c) => c.status === 'SENT');
}

describe('a reader from signup to erasure', () => {
  it('signs up, confirms, chooses topics, gets only what they chose, and every step is on record', async () => {
    const server = mail.server;
    const p = await projectWithDomain(mail, 'journey', DOMAIN);
    publishMailDomain(mail.dns, 'quiet-reader.dev');
    const launches = await expectBody<Topic>(p.api.post('/topics', { name: 'Launches' }), 201);
    const events = await expectBody<Topic>(p.api.post('/topics', { name: 'Events' }), 201);
    const form = await expectBody(
      p.api.post('/forms', { name: 'Newsletter', senderEmail: FROM, consentText: { en: CONSENT } }),
      201,
    );
    await expectBody(p.api.patch(`/forms/${form.id}`, { topics: [launches.id, events.id] }));

    // The website's form: the proof of work solved in the background, Launches ticked.
    const challenge = await (await fetch(`${server.url}/v1/forms/${form.id}/challenge`)).json();
    const altcha = solve((challenge as { data: Parameters<typeof solve>[0] }).data);
    await new Promise((r) => setTimeout(r, 2_100)); // a person takes longer than the form's minimum
    const submitted = await fetch(`${server.url}/v1/forms/${form.id}/submissions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'ReaderBrowser/1.0' },
      body: JSON.stringify({ email: READER, altcha, topics: [launches.id] }),
    });
    expect(submitted.status, await submitted.clone().text()).toBe(200);
    expect(((await submitted.json()) as { data: { status: string } }).data.status).toBe('pending');

    // One click on the link of the confirmation email.
    const [confirmation] = await eventually(async () => {
      const found = sinkMessagesTo(mail.sink, READER);
      return found.length > 0 ? found : undefined;
    });
    const link = await confirmationLink(confirmation!, server.service.ctx.config.publicUrl, server.url);
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    const [found] = (await expectBody(p.api.post('/contacts/lookup', { emails: [READER] }))).data;
    const reader = await expectBody<Contact>(p.api.get(`/contacts/${found.contactId}`));
    expect(reader.subscribed).toBe(true);
    expect(reader.topics).toEqual({ [launches.id]: true, [events.id]: false });

    // The preference center, one submit: Events on, Launches off.
    const token = server.service.ctx.links.subscriberToken({ projectId: p.id, contactId: reader.id });
    const saved = await fetch(`${server.url}/manage/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ action: 'save', days: '', [`topic.${events.id}`]: 'on' }).toString(),
    });
    expect(saved.status).toBe(200);
    const after = await expectBody<Contact>(p.api.get(`/contacts/${reader.id}`));
    expect(after.topics).toEqual({ [launches.id]: false, [events.id]: true });

    // A campaign about Events reaches them; one about Launches does not.
    const aboutEvents = await campaignAbout(p, events);
    expect(aboutEvents.totalRecipients).toBe(1);
    await eventually(async () => (sinkMessagesTo(mail.sink, READER).length === 2 ? true : undefined));
    const aboutLaunches = await campaignAbout(p, launches);
    expect(aboutLaunches.totalRecipients).toBe(0);
    // Still two: the confirmation and the Events campaign.
    expect(sinkMessagesTo(mail.sink, READER)).toHaveLength(2);

    // Every step in the consent history: the signup, the confirmation with its topic, the preferences.
    const history = await expectBody(p.api.get(`/contacts/${reader.id}/consent`));
    const topicName = (id: string | null) => (id === launches.id ? 'Launches' : id === events.id ? 'Events' : null);
    const steps = history.data
      .map((r: { change: string; topicId: string | null; source: string }) =>
        [r.change, topicName(r.topicId), r.source].join(' '),
      )
      .sort();
    expect(steps).toEqual([
      'confirmed  form',
      'pending  form',
      'subscribed Events manage_page',
      'subscribed Launches form',
      'unsubscribed Launches manage_page',
    ]);
    const pending = history.data.find((r: { change: string }) => r.change === 'pending');
    expect(pending).toMatchObject({ sourceId: form.id, consentText: CONSENT, userAgent: 'ReaderBrowser/1.0' });

    // Their export carries it all; their erasure removes it.
    const exported = await fetch(`${server.url}/contacts/${reader.id}/export`, {
      headers: { authorization: `Bearer ${p.secretKey}` },
    });
    const doc = (await exported.json()) as {
      consentHistory: unknown[];
      topics: { name: string; subscribed: boolean }[];
    };
    expect(doc.consentHistory).toHaveLength(5);
    expect(doc.topics.map((t) => [t.name, t.subscribed])).toEqual([
      ['Launches', false],
      ['Events', true],
    ]);
    const erase = await p.api.post(`/contacts/${reader.id}/erase`);
    expect(erase.status, JSON.stringify(erase.body)).toBe(202);
    await pollUntil(
      () => expectBody(p.api.get(`/contacts/erase/${erase.body.data.jobId}`)),
      (j: { status: string }) => j.status === 'completed',
      30_000,
    );
    expect((await p.api.get(`/contacts/${reader.id}/consent`)).status).toBe(404);
    expect((await expectBody(p.api.post('/contacts/lookup', { emails: [READER] }))).data[0].exists).toBe(false);
  });
});
