import { sql } from 'drizzle-orm';
import type { PauseReason } from '../../domain/campaign-guardrails.js';
import { type Executor, run } from '../../platform/db/client.js';
import type { CampaignRow } from './repo.js';

/** The queries of the guardrails on `campaigns` and `campaign_settings`: pausing, resuming, thresholds and the cap. */

// ---------------------------------------------------------------------------------------------
// Pausing and resuming (guardrails.ts, service.ts).

/** A condition on the campaign `c`: it has emails waiting, or recipients not yet given one. */
const LEFT_TO_SEND = sql`(c.fanned_out_at is null
  or exists (select 1 from emails e where e.campaign_id = c.id and e.status = 'queued'))`;

/**
 * SENDING → PAUSED for `reason`. A guardrail (`onlyWithWorkLeft`) leaves alone a campaign with
 * nothing left to send, which completes instead. Null when the campaign was not sending.
 */
export async function markPaused(
  ex: Executor,
  id: string,
  reason: PauseReason,
  now: Date,
  onlyWithWorkLeft: boolean,
): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns c set status = 'PAUSED', paused_at = ${now}, paused_reason = ${reason}, updated_at = ${now}
    where c.id = ${id} and c.status = 'SENDING' ${onlyWithWorkLeft ? sql`and ${LEFT_TO_SEND}` : sql``}
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** The guardrails' counts of a campaign now, as stored for a new baseline. */
export const COUNTS_NOW = sql`jsonb_build_object('sent', sent_count, 'rejected', rejected_count,
  'hardBounced', hard_bounced_count, 'complained', complained_count)`;

/** PAUSED → SENDING, with the counts of this moment as the guardrails' new baseline. */
export async function markResumed(ex: Executor, projectId: string, id: string, now: Date): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns set status = 'SENDING', paused_at = null, paused_reason = null, updated_at = ${now},
      guard_baseline = ${COUNTS_NOW}
    where project_id = ${projectId} and id = ${id} and status = 'PAUSED'
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** A sending campaign with what its guardrails judge, and its project's own thresholds (null: the defaults). */
export interface GuardrailRow
  extends Pick<
    CampaignRow,
    | 'id'
    | 'project_id'
    | 'name'
    | 'sent_count'
    | 'rejected_count'
    | 'hard_bounced_count'
    | 'complained_count'
    | 'guard_baseline'
  > {
  max_complaint_rate: number | null;
  max_bounce_rate: number | null;
  min_sample: number | null;
}

/** Of these campaigns, those sending, with their guardrails' counts and thresholds. */
export async function sendingWithGuardrails(ex: Executor, ids: string[]): Promise<GuardrailRow[]> {
  if (ids.length === 0) return [];
  const r = await run<GuardrailRow>(
    ex,
    sql`
    select c.id, c.project_id, c.name, c.sent_count, c.rejected_count, c.hard_bounced_count, c.complained_count,
      c.guard_baseline, s.max_complaint_rate, s.max_bounce_rate, s.min_sample
    from campaigns c left join campaign_settings s on s.project_id = c.project_id
    where c.id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
      and c.status = 'SENDING'`,
    { prepared: true },
  );
  return r.rows;
}

// ---------------------------------------------------------------------------------------------
// Settings: a project's guardrail thresholds and marketing cap (settings.ts).

export interface SettingsRow {
  max_complaint_rate: number | null;
  max_bounce_rate: number | null;
  min_sample: number | null;
  marketing_cap_count: number | null;
  marketing_cap_days: number | null;
}

export async function findSettings(ex: Executor, projectId: string): Promise<SettingsRow | null> {
  const r = await run<SettingsRow>(
    ex,
    sql`
    select max_complaint_rate, max_bounce_rate, min_sample, marketing_cap_count, marketing_cap_days
    from campaign_settings where project_id = ${projectId}`,
  );
  return r.rows[0] ?? null;
}

export async function saveSettings(ex: Executor, projectId: string, v: SettingsRow, now: Date): Promise<void> {
  await run(
    ex,
    sql`
    insert into campaign_settings (project_id, max_complaint_rate, max_bounce_rate, min_sample, marketing_cap_count,
      marketing_cap_days, updated_at)
    values (${projectId}, ${v.max_complaint_rate}, ${v.max_bounce_rate}, ${v.min_sample}, ${v.marketing_cap_count},
      ${v.marketing_cap_days}, ${now})
    on conflict (project_id) do update set max_complaint_rate = excluded.max_complaint_rate,
      max_bounce_rate = excluded.max_bounce_rate, min_sample = excluded.min_sample,
      marketing_cap_count = excluded.marketing_cap_count, marketing_cap_days = excluded.marketing_cap_days,
      updated_at = excluded.updated_at`,
  );
}
