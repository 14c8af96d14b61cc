import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliverySettings } from '../../src/api.js';
import { queuedBacklog } from '../../src/modules/campaigns/fan-out-repo.js';
import { run } from '../../src/platform/db/client.js';
import { type RunningService, startService } from '../../src/start.js';
import {
  allRecipients,
  batchCampaign,
  batchContacts,
  campaignWhen,
  outcomeCounts,
  sendNow,
} from '../support/campaigns.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { uniqueAddresses } from '../support/sending.js';
import { eventually, expectBody, expectErrorEnvelope, type TestProject } from '../support/server.js';
import type { ReceivedMessage, Verdict } from '../support/smtp-sink.js';

// Pacing through the API, a real SMTP sink playing several recipient domains, and a second worker
// process on the same database: rates per recipient domain (slots shared by the workers), messages in
// flight per domain, a domain answering 421 for a while, and a sender domain's warm-up allowance.

const DOMAIN = 'news.pacing.test';
const FROM = `news@${DOMAIN}`;
const ACCEPT: Verdict = { accept: true };

const mail = useMailServer({ DELIVERY_RETRY_BASE_SECONDS: '0.2' });
let project: TestProject;

beforeAll(async () => {
  project = await projectWithDomain(mail, 'pacing', DOMAIN);
});
afterEach(() => mail.sink.respond(() => ACCEPT));

const settings = (body: unknown) => project.api.patch('/delivery-settings', body);
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1);

let seq = 0;
const tag = (name: string) => `${name}-${++seq}`;

/** Contacts at each domain (`count` each), in a batch of their own, and a campaign to them, sent. */
async function campaignTo(p: TestProject, from: string, perDomain: Record<string, number>) {
  const batch = tag('batch');
  const addresses = Object.entries(perDomain).flatMap(([domain, count]) => {
    const at = uniqueAddresses(domain);
    return Array.from({ length: count }, () => at(batch));
  });
  await batchContacts(p.api, batch, addresses);
  const campaign = await batchCampaign(p.api, from, batch);
  await sendNow(p.api, campaign.id);
  return { campaign, addresses };
}

/** When each message to these addresses reached the sink, in order. */
function arrivals(addresses: string[]) {
  const wanted = new Set(addresses);
  const seen: { to: string; at: number }[] = [];
  mail.sink.respond((m: ReceivedMessage) => {
    if (wanted.has(m.to[0]!)) seen.push({ to: m.to[0]!, at: Date.now() });
    return ACCEPT;
  });
  return seen;
}

/** The pacing slot each email of the campaign held, by recipient, from the database. */
async function slotsOf(campaignId: string): Promise<Map<string, number>> {
  const r = await run<{ to_email: string; paced_at: Date | null }>(
    mail.server.service.ctx.db,
    sql`select to_email, paced_at from emails where campaign_id = ${campaignId}`,
  );
  return new Map(r.rows.flatMap((row) => (row.paced_at ? [[row.to_email, new Date(row.paced_at).getTime()]] : [])));
}

describe('delivery settings', () => {
  it('starts with nothing paced, refuses a bad change whole, and keeps a good one', async () => {
    const p = await projectWithDomain(mail, 'pacing-settings', 'settings.pacing.test');
    const empty: DeliverySettings = { mode: 'relay', defaultConcurrency: null, recipientDomains: [], warmups: [] };
    expect(await expectBody(p.api.get('/delivery-settings'))).toEqual(empty);

    for (const bad of [
      { recipientDomains: [{ domain: 'gmail.com', perMinute: 0, concurrency: null }] },
      { recipientDomains: [{ domain: 'not a domain', perMinute: 10, concurrency: null }] },
      {
        recipientDomains: [
          { domain: 'gmail.com', perMinute: 10, concurrency: null },
          { domain: 'GMail.com', perMinute: 20, concurrency: null },
        ],
      },
      { warmups: [{ domain: 'settings.pacing.test', startVolume: 50, dailyGrowth: 0.5, fullVolume: 1000 }] },
      {
        warmups: [
          { domain: 'settings.pacing.test', startVolume: 50, dailyGrowth: 2, fullVolume: 1000, startedOn: 'soon' },
        ],
      },
      { defaultConcurrency: 0 },
      { recipientDomains: [], extra: true },
    ]) {
      const res = await p.api.patch('/delivery-settings', bad);
      expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
    }
    expect(await expectBody(p.api.get('/delivery-settings'))).toEqual(empty);

    const today = new Date().toISOString().slice(0, 10);
    const saved = await expectBody(
      p.api.patch('/delivery-settings', {
        defaultConcurrency: 8,
        recipientDomains: [{ domain: 'GMail.com', perMinute: 600, concurrency: 4 }],
        warmups: [{ domain: 'settings.pacing.test', startVolume: 50, dailyGrowth: 1.5, fullVolume: 10_000 }],
      }),
    );
    expect(saved).toEqual({
      mode: 'relay',
      defaultConcurrency: 8,
      recipientDomains: [{ domain: 'gmail.com', perMinute: 600, concurrency: 4 }],
      warmups: [
        {
          domain: 'settings.pacing.test',
          startVolume: 50,
          dailyGrowth: 1.5,
          fullVolume: 10_000,
          startedOn: today,
          today: { day: 1, cap: 50, sent: 0 },
        },
      ],
    });
    expect(await expectBody(p.api.get('/delivery-settings'))).toEqual(saved);

    // A field left out stays; a list given replaces the list.
    const changed = await expectBody(p.api.patch('/delivery-settings', { recipientDomains: [] }));
    expect(changed).toEqual({ ...saved, recipientDomains: [] });
  });
});

describe('pacing campaign mail', () => {
  it('gives a limited domain one slot per interval, shared with a second worker, and lets the other domains go at once', async () => {
    const second: RunningService = await startService(mail.server.service.ctx.config, 'worker');
    try {
      // 20 a minute: a slot every 3 s.
      await expectBody(
        settings({ recipientDomains: [{ domain: 'slow.pacing.test', perMinute: 20, concurrency: null }] }),
      );
      const batch = tag('rate');
      const slow = Array.from({ length: 4 }, (_, i) => `s${i}-${batch}@slow.pacing.test`);
      const fast = Array.from({ length: 12 }, (_, i) => `f${i}-${batch}@${i % 2 ? 'a' : 'b'}.fast.pacing.test`);
      const seen = arrivals([...slow, ...fast]);
      await batchContacts(project.api, batch, [...slow, ...fast]);
      const campaign = await batchCampaign(project.api, FROM, batch);
      await sendNow(project.api, campaign.id);
      await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT', 60_000);

      expect(seen.map((s) => s.to).sort()).toEqual([...slow, ...fast].sort());
      // Each slow message held its own slot, 3 s after the one before, and none left before its slot.
      const slots = await slotsOf(campaign.id);
      const slowSlots = slow.map((a) => slots.get(a)!).sort((a, b) => a - b);
      expect(slowSlots.every((s) => s !== undefined)).toBe(true);
      for (let i = 1; i < slowSlots.length; i++) expect(slowSlots[i]! - slowSlots[i - 1]!).toBe(3000);
      for (const s of seen.filter((s) => domainOf(s.to) === 'slow.pacing.test')) {
        expect(s.at).toBeGreaterThanOrEqual(slots.get(s.to)! - 50);
      }
      // The other domains were never paced, and none of them waited for the slow one's slots.
      for (const a of fast) expect(slots.has(a)).toBe(false);
      const lastFast = Math.max(...seen.filter((s) => fast.includes(s.to)).map((s) => s.at));
      expect(lastFast).toBeLessThan(slowSlots.at(-1)!);
    } finally {
      await second.stop();
    }
  });

  it('gives back the slots of a cancelled campaign: the next campaign to the domain does not wait for them', async () => {
    // 6 a minute: a slot every 10 s; five messages would hold the domain for 40 s.
    await expectBody(
      settings({ recipientDomains: [{ domain: 'gated.pacing.test', perMinute: 6, concurrency: null }] }),
    );
    const first = await campaignTo(project, FROM, { 'gated.pacing.test': 5 });
    const held = await eventually(async () => {
      const slots = await slotsOf(first.campaign.id);
      return slots.size === 5 ? slots : undefined;
    });
    expect(Math.max(...held.values()) - Math.min(...held.values())).toBe(40_000);
    await expectBody(project.api.post(`/campaigns/${first.campaign.id}/cancel`));
    const cancelledAt = Date.now();

    const next = await campaignTo(project, FROM, { 'gated.pacing.test': 1 });
    const [slot] = (await eventually(async () => {
      const slots = await slotsOf(next.campaign.id);
      return slots.size === 1 ? [...slots.values()] : undefined;
    })) as [number];
    // At most one interval after the message sent last, not after the cancelled campaign's slots.
    expect(slot).toBeLessThanOrEqual(cancelledAt + 10_000 + 1000);
    await campaignWhen(project.api, next.campaign.id, (c) => c.status === 'SENT', 30_000);
    const recipients = await allRecipients(project.api, first.campaign.id);
    expect(outcomeCounts(recipients).delivered ?? 0).toBeLessThanOrEqual(1);
  });

  it('keeps to a domain’s messages in flight while the other domains flow', async () => {
    await expectBody(
      settings({ recipientDomains: [{ domain: 'narrow.pacing.test', perMinute: null, concurrency: 1 }] }),
    );
    const batch = tag('narrow');
    const narrow = Array.from({ length: 5 }, (_, i) => `n${i}-${batch}@narrow.pacing.test`);
    const wide = Array.from({ length: 10 }, (_, i) => `w${i}-${batch}@wide.pacing.test`);
    let inFlight = 0;
    let most = 0;
    const done: { to: string; at: number }[] = [];
    mail.sink.respond(async (m) => {
      const to = m.to[0]!;
      if (domainOf(to) !== 'narrow.pacing.test') {
        done.push({ to, at: Date.now() });
        return ACCEPT;
      }
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 300));
      inFlight--;
      done.push({ to, at: Date.now() });
      return ACCEPT;
    });
    await batchContacts(project.api, batch, [...narrow, ...wide]);
    const campaign = await batchCampaign(project.api, FROM, batch);
    await sendNow(project.api, campaign.id);
    await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT', 60_000);

    expect(done.map((d) => d.to).sort()).toEqual([...narrow, ...wide].sort());
    expect(most).toBe(1);
    const lastWide = Math.max(...done.filter((d) => wide.includes(d.to)).map((d) => d.at));
    const lastNarrow = Math.max(...done.filter((d) => narrow.includes(d.to)).map((d) => d.at));
    expect(lastWide).toBeLessThan(lastNarrow);
  });

  it('keeps other domains flowing while one answers 421, and delivers its mail once it recovers', async () => {
    const batch = tag('down');
    const down = Array.from({ length: 4 }, (_, i) => `d${i}-${batch}@down.pacing.test`);
    const up = Array.from({ length: 10 }, (_, i) => `u${i}-${batch}@up.pacing.test`);
    let refusing = true;
    let refusals = 0;
    const delivered: string[] = [];
    mail.sink.respond((m) => {
      const to = m.to[0]!;
      if (refusing && domainOf(to) === 'down.pacing.test') {
        refusals++;
        return { accept: false, code: 421, message: '4.7.0 Try again later' };
      }
      delivered.push(to);
      return ACCEPT;
    });
    await batchContacts(project.api, batch, [...down, ...up]);
    const campaign = await batchCampaign(project.api, FROM, batch);
    await sendNow(project.api, campaign.id);

    await eventually(async () => (up.every((a) => delivered.includes(a)) ? true : undefined), 30_000);
    expect(delivered.filter((a) => down.includes(a))).toEqual([]);
    await eventually(async () => (refusals >= down.length ? true : undefined));
    refusing = false;
    await campaignWhen(project.api, campaign.id, (c) => c.status === 'SENT', 60_000);
    expect(delivered.filter((a) => down.includes(a)).sort()).toEqual([...down].sort());
    // Each message went out once.
    expect(new Set(delivered).size).toBe(delivered.length);
  });
});

describe('the fan-out', () => {
  it('counts in its backlog only the emails due now, not those waiting for a slot, so a limited domain holds nobody up', async () => {
    const { db } = mail.server.service.ctx;
    const campaign = await batchCampaign(project.api, FROM, tag('backlog'));
    const insert = (n: number, secondsFromNow: number) =>
      run(
        db,
        sql`insert into emails (id, project_id, campaign_id, type, status, from_email, to_email, subject, html,
            message_id, next_attempt_at, paced_at)
          select gen_random_uuid(), ${project.id}, ${campaign.id}, 'MARKETING', 'queued', ${FROM},
            'b' || g || '@slow.pacing.test', 's', '<p>x</p>', '<b' || g || '-' || gen_random_uuid() || '@pacing.test>',
            now() + make_interval(secs => ${secondsFromNow}), now() + make_interval(secs => ${secondsFromNow})
          from generate_series(1, ${n}) g`,
      );
    await insert(30, 3600);
    await insert(4, -1);
    expect(await queuedBacklog(db, campaign.id, 100, new Date())).toBe(4);
    expect(await queuedBacklog(db, campaign.id, 100, new Date(Date.now() + 7200_000))).toBe(34);
    await run(db, sql`delete from emails where campaign_id = ${campaign.id}`);
  });
});

describe('warm-up', () => {
  const WARM = 'warm.pacing.test';
  let warm: TestProject;
  beforeAll(async () => {
    warm = await projectWithDomain(mail, 'pacing-warmup', WARM);
  });
  afterAll(async () => {
    // What waits for tomorrow's allowance is not sent by a later test.
    await run(mail.server.service.ctx.db, sql`update campaigns set status = 'CANCELLED' where project_id = ${warm.id}`);
  });

  it("sends the day's allowance of campaign mail from a warming domain and keeps the rest for the next day", async () => {
    await expectBody(
      warm.api.patch('/delivery-settings', {
        warmups: [{ domain: WARM, startVolume: 3, dailyGrowth: 2, fullVolume: 1000 }],
      }),
    );
    const { campaign, addresses } = await campaignTo(warm, `news@${WARM}`, { 'r.pacing.test': 7 });
    const recipients = await eventually(async () => {
      const list = await allRecipients(warm.api, campaign.id);
      const counts = outcomeCounts(list);
      return counts.delivered === 3 && counts.queued === 4 ? list : undefined;
    }, 30_000);
    expect(recipients).toHaveLength(7);
    expect(addresses.filter((a) => mail.sink.messages.some((m) => m.to.includes(a)))).toHaveLength(3);

    // The rest wait for the start of the next UTC day, with no attempt counted.
    const tomorrow = new Date(Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000).toISOString();
    const waiting = await run<{ next_attempt_at: Date; attempts: number }>(
      mail.server.service.ctx.db,
      sql`select next_attempt_at, attempts from emails where campaign_id = ${campaign.id} and status = 'queued'`,
    );
    expect(waiting.rows.map((r) => [new Date(r.next_attempt_at).toISOString(), r.attempts])).toEqual(
      Array(4).fill([tomorrow, 0]),
    );
    const view = await expectBody(warm.api.get('/delivery-settings'));
    expect(view.warmups[0].today).toEqual({ day: 1, cap: 3, sent: 3 });

    // Mail without a campaign is never held back by the allowance.
    const sent = await expectBody(
      warm.api.post('/v1/send', {
        from: `news@${WARM}`,
        to: 'reset@r.pacing.test',
        subject: 'Reset',
        body: '<p>x</p>',
      }),
    );
    expect(sent.success).toBe(true);
    await eventually(async () =>
      mail.sink.messages.some((m) => m.to.includes('reset@r.pacing.test')) ? true : undefined,
    );
  });
});
