import { sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.js';
import { type Executor, run } from '../../platform/db/client.js';
import * as audit from '../audit/service.js';
import type { PrivacySettings, PrivacySettingsPatch } from './schemas.js';

interface SettingsRow {
  event_retention_days: number | null;
  email_body_retention_days: number | null;
  inbound_retention_days: number | null;
  erase_keeps_hash: boolean;
  erased: number;
}

async function findSettings(ex: Executor, projectId: string, lock = false): Promise<SettingsRow> {
  const r = await run<SettingsRow>(
    ex,
    sql`select event_retention_days, email_body_retention_days, inbound_retention_days, erase_keeps_hash,
        (select count(*)::int from erased_addresses where project_id = p.id) as erased
      from projects p where id = ${projectId} ${lock ? sql`for update` : sql``}`,
  );
  return r.rows[0]!;
}

function toSettings(ctx: AppContext, row: SettingsRow): PrivacySettings {
  return {
    eventRetentionDays: row.event_retention_days,
    instanceEventRetentionDays: ctx.config.eventRetentionDays ?? null,
    emailBodyRetentionDays: row.email_body_retention_days,
    inboundRetentionDays: row.inbound_retention_days,
    keepErasedAddresses: row.erase_keeps_hash,
    erasedAddresses: row.erased,
  };
}

/** GET /privacy-settings: the project's retention and what an erase keeps. */
export async function getPrivacySettings(ctx: AppContext, projectId: string): Promise<PrivacySettings> {
  return toSettings(ctx, await findSettings(ctx.db, projectId));
}

/**
 * PATCH /privacy-settings: what is left out stays. Turning `keepErasedAddresses` off also deletes
 * the hashes kept so far: every erased address may then be added again.
 */
export async function updatePrivacySettings(
  ctx: AppContext,
  projectId: string,
  patch: PrivacySettingsPatch,
): Promise<PrivacySettings> {
  return ctx.db.transaction(async (tx) => {
    const before = toSettings(ctx, await findSettings(tx, projectId, true));
    const next = { ...before, ...patch };
    await run(
      tx,
      sql`update projects set event_retention_days = ${next.eventRetentionDays},
        email_body_retention_days = ${next.emailBodyRetentionDays},
        inbound_retention_days = ${next.inboundRetentionDays},
        erase_keeps_hash = ${next.keepErasedAddresses}, updated_at = ${ctx.clock.now()}
      where id = ${projectId}`,
    );
    let forgotten = 0;
    if (!next.keepErasedAddresses) {
      const r = await run(tx, sql`delete from erased_addresses where project_id = ${projectId} returning 1`);
      forgotten = r.rows.length;
    }
    const { erasedAddresses: _a, instanceEventRetentionDays: _b, ...comparable } = before;
    const { erasedAddresses: _c, instanceEventRetentionDays: _d, ...changed } = next;
    await audit.record(tx, {
      projectId,
      action: 'privacy_settings.updated',
      target: { type: 'privacy_settings', id: null },
      changes: {
        ...audit.settingsDiff(comparable, changed),
        ...(forgotten > 0 ? { erasedAddressesForgotten: forgotten } : {}),
      },
    });
    return toSettings(ctx, await findSettings(tx, projectId));
  });
}
