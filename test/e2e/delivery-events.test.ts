import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/platform/db/client.js';
import type { RecordedEvent } from '../../src/platform/event-bus.js';
import { verifiedDomain } from '../support/domains.js';
import { useMailServer } from '../support/mail-server.js';
import { deliveredMessage, sendOk } from '../support/sending.js';
import { type Client, eventually, expectBody, type TestProject } from '../support/server.js';
import { useReceiver } from '../support/webhook-receiver.js';

/**
 * The `email.sent` events of delivery outcomes go through the event outbox only where a subscriber
 * has work for them (a webhook, a workflow trigger, an execution waiting for one); the others are
 * stored and counted at once, and every subscriber still gets its events.
 */

const hooks = useReceiver();
const mail = useMailServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });

let seq = 0;

/** Every event the dispatcher hands out, seen by a subscriber that asks for none itself. */
const dispatched: RecordedEvent[] = [];
beforeAll(() => {
  mail.server.service.ctx.bus.subscribe(
    async (_tx, events) => {
      dispatched.push(...events);
    },
    { wants: sql`false` },
  );
});
const dispatchedSent = (emailId: string) =>
  dispatched.filter((e) => e.name === 'email.sent' && e.data.emailId === emailId);

async function sent(p: TestProject, from: string): Promise<{ emailId: string; contactId: string }> {
  const to = `events-${++seq}@rcpt.delivery-events.test`;
  const result = await sendOk(p.api, { to, from, subject: 'Hi', body: '<p>Hi</p>' });
  const { email: emailId, contact } = result.emails[0]!;
  await deliveredMessage(mail.sink, emailId);
  return { emailId, contactId: contact.id };
}

/** The project's `email.sent` events stored for `emailId`, with whether each has an outbox entry. */
async function sentEvents(projectId: string, emailId: string): Promise<{ id: string; queued: boolean }[]> {
  const r = await run<{ id: string; queued: boolean }>(
    mail.server.service.ctx.db,
    sql`select e.id, exists (select 1 from event_outbox o where o.event_id = e.id) as queued
      from events e where e.project_id = ${projectId} and e.name = 'email.sent' and e.data ->> 'emailId' = ${emailId}`,
  );
  return r.rows;
}

async function dailySent(projectId: string): Promise<number> {
  const r = await run<{ n: number }>(
    mail.server.service.ctx.db,
    sql`select coalesce(sum(count), 0)::int as n from event_daily_counts
      where project_id = ${projectId} and name = 'email.sent'`,
  );
  return r.rows[0]!.n;
}

async function enabledWorkflow(api: Client, event: string, data: Record<string, unknown>): Promise<string> {
  const workflow = await expectBody(api.post('/workflows', { name: `On ${event}`, triggerConfig: { event } }), 201);
  await expectBody(api.post(`/workflows/${workflow.id}/steps`, { type: 'UPDATE_CONTACT', config: { data } }), 201);
  await expectBody(api.patch(`/workflows/${workflow.id}`, { enabled: true }));
  return workflow.id;
}

describe('delivery events and their subscribers', () => {
  it('stores and counts an email.sent event nobody subscribes to without an outbox entry', async () => {
    const p = await mail.server.project('events-none');
    await verifiedDomain(p.api, mail.dns, 'none.delivery-events.test');
    const first = await sent(p, 'hello@none.delivery-events.test');
    const second = await sent(p, 'hello@none.delivery-events.test');

    for (const { emailId } of [first, second]) {
      const events = await eventually(async () => {
        const found = await sentEvents(p.id, emailId);
        return found.length > 0 ? found : undefined;
      });
      expect(events).toEqual([{ id: expect.any(String), queued: false }]);
    }
    expect(await dailySent(p.id)).toBe(2);
    // Never dispatched: a tracked event after them is, and they are not.
    const later = await p.api.post('/v1/track', { email: `later-${++seq}@example.com`, event: 'later' }, p.publicKey);
    expect(later.status).toBe(200);
    await eventually(async () => (dispatched.some((e) => e.id === later.body.data.event) ? true : undefined));
    expect([...dispatchedSent(first.emailId), ...dispatchedSent(second.emailId)]).toEqual([]);
    // The feed shows them, as it does every email event.
    const feed = await expectBody(p.api.get('/activity?type=email.sent'));
    expect(feed.data.map((i: { emailId: string }) => i.emailId).sort()).toEqual([first.emailId, second.emailId].sort());
  });

  it('gives a webhook for email.sent by name, and a workflow it triggers, their events', async () => {
    const p = await mail.server.project('events-subscribed');
    await verifiedDomain(p.api, mail.dns, 'subscribed.delivery-events.test');
    const path = `/exact-${++seq}`;
    await expectBody(p.api.post('/webhooks', { url: hooks.url + path, events: ['email.sent'] }), 201);
    await enabledWorkflow(p.api, 'email.sent', { welcomed: true });

    const { emailId, contactId } = await sent(p, 'hello@subscribed.delivery-events.test');
    const [request] = await eventually(async () => (hooks.to(path).length > 0 ? hooks.to(path) : undefined), 20_000);
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'email.sent', data: { emailId, contactId } });
    const contact = await eventually(async () => {
      const c = await expectBody(p.api.get(`/contacts/${contactId}`));
      return c.data?.welcomed === true ? c : undefined;
    }, 20_000);
    expect(contact.data).toMatchObject({ welcomed: true });
    // Counted once, when dispatched.
    await eventually(async () => ((await dailySent(p.id)) === 1 ? true : undefined));
    const events = await sentEvents(p.id, emailId);
    expect(events).toHaveLength(1);
    expect(dispatchedSent(emailId).map((e) => e.id)).toEqual([events[0]!.id]);
  });

  it("leaves a project's events out of the outbox when only another project's webhook takes every event", async () => {
    const quiet = await mail.server.project('events-quiet');
    const busy = await mail.server.project('events-busy');
    await verifiedDomain(quiet.api, mail.dns, 'quiet.delivery-events.test');
    await verifiedDomain(busy.api, mail.dns, 'busy.delivery-events.test');
    // A webhook of any event in one project says nothing about the other.
    await expectBody(busy.api.post('/webhooks', { url: `${hooks.url}/all-${++seq}`, events: ['*'] }), 201);

    const inQuiet = await sent(quiet, 'hello@quiet.delivery-events.test');
    const inBusy = await sent(busy, 'hello@busy.delivery-events.test');
    const quietEvents = await eventually(async () => {
      const found = await sentEvents(quiet.id, inQuiet.emailId);
      return found.length > 0 ? found : undefined;
    });
    expect(quietEvents[0]!.queued).toBe(false);
    await eventually(async () => ((await dailySent(busy.id)) === 1 ? true : undefined));
    expect(await sentEvents(busy.id, inBusy.emailId)).toHaveLength(1);
    expect(await dailySent(quiet.id)).toBe(1);
    expect(dispatchedSent(inBusy.emailId)).toHaveLength(1);
    expect(dispatchedSent(inQuiet.emailId)).toEqual([]);
  });
});
