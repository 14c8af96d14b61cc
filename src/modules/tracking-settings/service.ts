import { DEFAULT_TRACKING, type ProjectTracking } from '../../domain/tracking.js';
import type { AppContext } from '../../platform/context.js';
import * as audit from '../audit/service.js';
import * as repo from './repo.js';
import type { TrackingSettings, TrackingSettingsPatch } from './schemas.js';

/**
 * A project's open and click tracking per email type (docs/decisions.md, "Tracking settings"):
 * the built-in default (`DEFAULT_TRACKING`) where the project has not chosen. Sends, templates
 * and campaigns may choose for themselves; `resolveTracking` weighs the choices.
 */

/** Changes of a project's settings empty every process's copy (the key is the project). */
export const TRACKING_CHANNEL = 'tracking_settings';

const TYPES = Object.keys(DEFAULT_TRACKING) as (keyof ProjectTracking)[];

function settingsOf(rows: repo.SettingsRow[]): ProjectTracking {
  const chosen = new Map(rows.map((r) => [r.type, { opens: r.opens, clicks: r.clicks }]));
  return Object.fromEntries(TYPES.map((t) => [t, chosen.get(t) ?? { ...DEFAULT_TRACKING[t] }])) as ProjectTracking;
}

/** The project's tracking for sending, read once per change (NOTIFY on `TRACKING_CHANNEL`). */
export function trackingFor(ctx: AppContext, projectId: string): Promise<ProjectTracking> {
  return ctx.caches
    .of<ProjectTracking>(TRACKING_CHANNEL)
    .get(projectId, async () => settingsOf(await repo.findSettings(ctx.db, projectId)));
}

/** GET /tracking-settings: the tracking in force for each type. */
export async function getTrackingSettings(ctx: AppContext, projectId: string): Promise<TrackingSettings> {
  return settingsOf(await repo.findSettings(ctx.db, projectId));
}

/** PATCH /tracking-settings: flags left out stay. Emails made from then on follow it; stored ones keep their links. */
/** `{ marketing: { opens: true } }` as `{ 'marketing.opens': true }`, so a change shows its old and new value. */
const flat = (settings: ProjectTracking) =>
  Object.fromEntries(
    Object.entries(settings).flatMap(([type, values]) => Object.entries(values).map(([k, v]) => [`${type}.${k}`, v])),
  );

export async function updateTrackingSettings(
  ctx: AppContext,
  projectId: string,
  patch: TrackingSettingsPatch,
): Promise<TrackingSettings> {
  return ctx.db.transaction(async (tx) => {
    const current = settingsOf(await repo.findSettings(tx, projectId, true));
    const next = Object.fromEntries(TYPES.map((t) => [t, { ...current[t], ...patch[t] }])) as ProjectTracking;
    await repo.saveSettings(
      tx,
      projectId,
      TYPES.map((type) => ({ type, ...next[type] })),
      ctx.clock.now(),
    );
    await audit.record(tx, {
      projectId,
      action: 'tracking_settings.updated',
      target: { type: 'tracking_settings', id: null },
      changes: audit.settingsDiff(flat(current), flat(next)),
    });
    await ctx.caches.changed(tx, TRACKING_CHANNEL, projectId);
    return next;
  });
}
