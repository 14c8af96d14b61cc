import { sql } from 'drizzle-orm';
import { dayOf, domainOf, intervalOf, nextDay, planSlots, warmupDay } from '../../domain/pacing.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { lockCursor, type Pacing, pacingFor, saveCursor, takeVolume } from '../pacing/service.js';
import type { ClaimedEmail, OutcomeEffects, PacedEmail } from './delivery-repo.js';
import * as repo from './delivery-repo.js';
import { laneOf } from './lanes.js';

/**
 * Pacing of claimed campaign mail (docs/decisions.md, "Pacing"): a sender domain on a warm-up
 * schedule sends at most its day's allowance, the rest waiting for the next day; a recipient
 * domain limited to some messages per minute gives each message its own slot, shared by every
 * worker, and a message whose slot is ahead goes back to the queue until then. A message deferred
 * this way leaves the delivery window at once, so a limited domain never holds up the others.
 * Mail without a campaign is never held back.
 */
export async function admitPaced(
  ctx: AppContext,
  claimed: ClaimedEmail[],
  owner: bigint,
  effects: Pick<OutcomeEffects, 'skipRetryWhen' | 'parkWhen'>,
): Promise<Admitted> {
  const all = { send: claimed, giveBack: [] };
  const candidates = claimed.filter((e) => laneOf(e) === 'campaign' && !e.holds_slot);
  if (candidates.length === 0) return all;
  const pacings = new Map<string, Pacing>();
  for (const projectId of new Set(candidates.map((e) => e.project_id))) {
    const pacing = await pacingFor(ctx, projectId);
    if (pacing.paces) pacings.set(projectId, pacing);
  }
  const paced = candidates.filter((e) => pacings.has(e.project_id));
  if (paced.length === 0) return all;

  const now = ctx.clock.now();
  const decided = await ctx.db.transaction(async (tx) => {
    const decisions = new Map<string, PacedEmail>();
    const warming = groupBy(paced, (e) => [e.project_id, domainOf(e.from_email)]);
    for (const [[projectId, domain], emails] of warming) {
      const schedule = pacings.get(projectId)!.warmup(domain);
      const cap = schedule ? warmupDay(schedule, now).cap : null;
      if (cap === null) continue;
      const granted = await takeVolume(tx, { projectId, domain, day: dayOf(now) }, emails.length, cap);
      for (const e of emails.slice(granted))
        decisions.set(e.id, { ...repo.keyOf(e), slot: null, at: nextDay(now), release: true });
    }
    const limited = groupBy(
      paced.filter((e) => !decisions.has(e.id)),
      (e) => [e.project_id, domainOf(e.to_email)],
    );
    for (const [[projectId, domain], emails] of limited) {
      const perMinute = pacings.get(projectId)!.perMinute(domain);
      if (perMinute === null) continue;
      for (const d of await takeSlots(tx, { projectId, domain, perMinute }, emails, now)) decisions.set(d.id, d);
    }
    const keep = sql`(${effects.skipRetryWhen} or ${effects.parkWhen})`;
    const released = new Set(await repo.holdSlots(tx, [...decisions.values()], owner, keep));
    return { decisions, released };
  });
  return {
    send: claimed.filter((e) => !decided.decisions.get(e.id)?.release),
    giveBack: claimed.filter((e) => decided.decisions.get(e.id)?.release && !decided.released.has(e.id)),
  };
}

export interface Admitted {
  /** To send now. */
  send: ClaimedEmail[];
  /** To give back through the outcomes: a cancelled or paused campaign's, which pacing would have deferred. */
  giveBack: ClaimedEmail[];
}

/** Gives each email the next slot of its recipient domain; those whose slot is ahead wait for it. */
async function takeSlots(
  tx: Executor,
  limit: { projectId: string; domain: string; perMinute: number },
  emails: ClaimedEmail[],
  now: Date,
): Promise<PacedEmail[]> {
  const cursor = await lockCursor(tx, limit.projectId, limit.domain, now);
  const held = await repo.latestHeldSlot(tx, limit.projectId, limit.domain);
  const plan = planSlots({ cursor, held, now, count: emails.length, intervalMs: intervalOf(limit.perMinute) });
  await saveCursor(tx, limit.projectId, limit.domain, plan.next);
  return emails.map((e, i) => {
    const slot = plan.slots[i]!;
    return { ...repo.keyOf(e), slot, at: slot, release: slot > now };
  });
}

/**
 * Groups by a two-part key, in the key's order: every worker locks the rows of a batch's domains in
 * the same order, so two of them never wait for each other.
 */
function groupBy<T>(items: T[], keyOf: (item: T) => [string, string]): [[string, string], T[]][] {
  const groups = new Map<string, { key: [string, string]; items: T[] }>();
  for (const item of items) {
    const key = keyOf(item);
    const id = key.join('\u0000');
    const group = groups.get(id) ?? groups.set(id, { key, items: [] }).get(id)!;
    group.items.push(item);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => [g.key, g.items]);
}
