import { sql } from 'drizzle-orm';
import type { WarmupSchedule } from '../../domain/pacing.js';
import { type Executor, run } from '../../platform/db/client.js';
import type { RecipientDomainLimit } from './schemas.js';

/** Every query on `delivery_settings`, `pacing_cursors` and `warmup_volumes` lives here. */

export interface SettingsRow {
  default_concurrency: number | null;
  recipient_domains: RecipientDomainLimit[];
  warmups: (WarmupSchedule & { domain: string })[];
}

export async function findSettings(ex: Executor, projectId: string): Promise<SettingsRow | null> {
  const r = await run<SettingsRow>(
    ex,
    sql`select default_concurrency, recipient_domains, warmups from delivery_settings where project_id = ${projectId}`,
  );
  return r.rows[0] ?? null;
}

export async function saveSettings(ex: Executor, projectId: string, v: SettingsRow, now: Date): Promise<void> {
  await run(
    ex,
    sql`
    insert into delivery_settings (project_id, default_concurrency, recipient_domains, warmups, updated_at)
    values (${projectId}, ${v.default_concurrency}, ${JSON.stringify(v.recipient_domains)}::jsonb,
      ${JSON.stringify(v.warmups)}::jsonb, ${now})
    on conflict (project_id) do update set default_concurrency = excluded.default_concurrency,
      recipient_domains = excluded.recipient_domains, warmups = excluded.warmups, updated_at = excluded.updated_at`,
  );
}

/**
 * The next free slot of a recipient domain (now for a domain never paced), locked until the
 * transaction ends: workers taking slots for the same domain take turns.
 */
export async function lockCursor(ex: Executor, projectId: string, domain: string, now: Date): Promise<Date> {
  // The no-op update locks the row and returns its latest value, however many workers race for it.
  const r = await run<{ next_slot_at: Date }>(
    ex,
    sql`insert into pacing_cursors as c (project_id, domain, next_slot_at) values (${projectId}, ${domain}, ${now})
      on conflict (project_id, domain) do update set next_slot_at = c.next_slot_at
      returning next_slot_at`,
  );
  return new Date(r.rows[0]!.next_slot_at);
}

export async function saveCursor(ex: Executor, projectId: string, domain: string, next: Date): Promise<void> {
  await run(
    ex,
    sql`update pacing_cursors set next_slot_at = ${next} where project_id = ${projectId} and domain = ${domain}`,
  );
}

/**
 * Counts up to `wanted` more messages against a sender domain's allowance for `day`, never past
 * `cap`; returns how many were granted. The day's row stays locked until the transaction ends.
 */
export async function takeVolume(
  ex: Executor,
  key: { projectId: string; domain: string; day: string },
  wanted: number,
  cap: number,
): Promise<number> {
  // The no-op update locks the row and returns its latest count, however many workers race for it.
  const r = await run<{ sent: number }>(
    ex,
    sql`insert into warmup_volumes as w (project_id, domain, day, sent) values (${key.projectId}, ${key.domain}, ${key.day}, 0)
      on conflict (project_id, domain, day) do update set sent = w.sent
      returning sent`,
  );
  const granted = Math.max(0, Math.min(wanted, cap - r.rows[0]!.sent));
  if (granted > 0) {
    await run(
      ex,
      sql`update warmup_volumes set sent = sent + ${granted}
        where project_id = ${key.projectId} and domain = ${key.domain} and day = ${key.day}`,
    );
  }
  return granted;
}

/** What each of a project's warming sender domains has sent on `day`. */
export async function volumesOn(ex: Executor, projectId: string, day: string): Promise<Map<string, number>> {
  const r = await run<{ domain: string; sent: number }>(
    ex,
    sql`select domain, sent from warmup_volumes where project_id = ${projectId} and day = ${day}`,
  );
  return new Map(r.rows.map((row) => [row.domain, row.sent]));
}
