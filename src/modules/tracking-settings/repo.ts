import { sql } from 'drizzle-orm';
import type { EmailType } from '../../domain/email.js';
import { type Executor, run } from '../../platform/db/client.js';

/** Every query on `tracking_settings` lives here: a row per type the project chose for. */

export interface SettingsRow {
  type: EmailType;
  opens: boolean;
  clicks: boolean;
}

/** `lock`: the project's row is held until the transaction ends, so changes to one project take turns. */
export async function findSettings(ex: Executor, projectId: string, lock = false): Promise<SettingsRow[]> {
  if (lock) await run(ex, sql`select 1 from projects where id = ${projectId} for no key update`);
  const r = await run<SettingsRow>(
    ex,
    sql`select type, opens, clicks from tracking_settings where project_id = ${projectId}`,
  );
  return r.rows;
}

export async function saveSettings(ex: Executor, projectId: string, rows: SettingsRow[], now: Date): Promise<void> {
  for (const row of rows) {
    await run(
      ex,
      sql`
      insert into tracking_settings (project_id, type, opens, clicks, updated_at)
      values (${projectId}, ${row.type}, ${row.opens}, ${row.clicks}, ${now})
      on conflict (project_id, type) do update set opens = excluded.opens, clicks = excluded.clicks,
        updated_at = excluded.updated_at`,
    );
  }
}
