import { dayOf, type WarmupSchedule, warmupDay } from '../../domain/pacing.js';
import type { AppContext } from '../../platform/context.js';
import * as audit from '../audit/service.js';
import { capturingMail } from '../domains/service.js';
import * as repo from './repo.js';
import type { DeliverySettings, DeliverySettingsPatch } from './schemas.js';

export { lockCursor, saveCursor, takeVolume } from './repo.js';

/**
 * A project's delivery pacing (docs/decisions.md, "Pacing"): limits per recipient domain (a rate
 * shared by every worker, and messages in flight in each) and warm-up schedules per sender domain.
 * Nothing is limited until the project sets it: the relay, and the delivery window
 * (`DELIVERY_CONCURRENCY`), bound every domain already.
 */

/** Changes of a project's settings empty every worker's copy (the key is the project). */
export const PACING_CHANNEL = 'delivery_settings';

/** The limits delivery applies to one project's mail. */
export interface Pacing {
  /** Messages per minute to a recipient domain; null: unpaced. */
  perMinute(recipientDomain: string): number | null;
  /** Messages in flight at once to a recipient domain in one worker; null: no limit. */
  concurrency(recipientDomain: string): number | null;
  /** The warm-up schedule of a sender domain, or null. */
  warmup(senderDomain: string): WarmupSchedule | null;
  /** Whether any rate or warm-up applies at all: if not, delivery skips pacing altogether. */
  paces: boolean;
}

function pacingOf(row: repo.SettingsRow | null): Pacing {
  const limits = new Map((row?.recipient_domains ?? []).map((l) => [l.domain, l]));
  const warmups = new Map((row?.warmups ?? []).map((w) => [w.domain, w]));
  return {
    perMinute: (domain) => limits.get(domain)?.perMinute ?? null,
    concurrency: (domain) => limits.get(domain)?.concurrency ?? row?.default_concurrency ?? null,
    warmup: (domain) => warmups.get(domain) ?? null,
    paces: warmups.size > 0 || [...limits.values()].some((l) => l.perMinute !== null),
  };
}

/** The project's pacing, read once per change (NOTIFY on `PACING_CHANNEL`). */
export function pacingFor(ctx: AppContext, projectId: string): Promise<Pacing> {
  return ctx.caches
    .of<Pacing>(PACING_CHANNEL)
    .get(projectId, async () => pacingOf(await repo.findSettings(ctx.db, projectId)));
}

async function toSettings(ctx: AppContext, projectId: string, row: repo.SettingsRow | null): Promise<DeliverySettings> {
  const now = ctx.clock.now();
  const warmups = row?.warmups ?? [];
  const sent = warmups.length > 0 ? await repo.volumesOn(ctx.db, projectId, dayOf(now)) : new Map<string, number>();
  return {
    mode: capturingMail(ctx) ? 'capture' : 'relay',
    defaultConcurrency: row?.default_concurrency ?? null,
    recipientDomains: row?.recipient_domains ?? [],
    warmups: warmups.map((w) => ({ ...w, today: { ...warmupDay(w, now), sent: sent.get(w.domain) ?? 0 } })),
  };
}

/** GET /delivery-settings: the limits in force, and where each warm-up stands today. */
export async function getDeliverySettings(ctx: AppContext, projectId: string): Promise<DeliverySettings> {
  return toSettings(ctx, projectId, await repo.findSettings(ctx.db, projectId));
}

/**
 * PATCH /delivery-settings: a list given replaces the project's list, absent fields stay. Every
 * worker applies the change from its next claim.
 */
export async function updateDeliverySettings(
  ctx: AppContext,
  projectId: string,
  patch: DeliverySettingsPatch,
): Promise<DeliverySettings> {
  const next = await ctx.db.transaction(async (tx) => {
    const current = await repo.findSettings(tx, projectId);
    const today = dayOf(ctx.clock.now());
    const row: repo.SettingsRow = {
      default_concurrency:
        patch.defaultConcurrency === undefined ? (current?.default_concurrency ?? null) : patch.defaultConcurrency,
      recipient_domains: patch.recipientDomains ?? current?.recipient_domains ?? [],
      warmups: patch.warmups?.map((w) => ({ ...w, startedOn: w.startedOn ?? today })) ?? current?.warmups ?? [],
    };
    await repo.saveSettings(tx, projectId, row, ctx.clock.now());
    await audit.record(tx, {
      projectId,
      action: 'delivery_settings.updated',
      target: { type: 'delivery_settings', id: null },
      changes: audit.settingsDiff(current ?? {}, row),
    });
    await ctx.caches.changed(tx, PACING_CHANNEL, projectId);
    return row;
  });
  return toSettings(ctx, projectId, next);
}
