import type { GuardrailPolicy, MarketingCap } from '../../domain/campaign-guardrails.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import * as audit from '../audit/service.js';
import type { SettingsRow } from './guardrail-repo.js';
import * as repo from './guardrail-repo.js';
import type { CampaignSettings, CampaignSettingsPatch } from './schemas.js';

/**
 * A project's campaign settings: its own guardrail thresholds, each falling back to the instance's
 * (`CAMPAIGN_MAX_COMPLAINT_RATE`, `CAMPAIGN_MAX_BOUNCE_RATE`, `CAMPAIGN_MIN_SAMPLE`), and its
 * marketing cap, off unless the project sets one. The operator picks the defaults for everyone;
 * a project that knows its list better tightens or loosens them.
 */

const NONE: SettingsRow = {
  max_complaint_rate: null,
  max_bounce_rate: null,
  min_sample: null,
  marketing_cap_count: null,
  marketing_cap_days: null,
};

/** The thresholds in force: the project's own where it set them, the instance's otherwise. */
export function policyOf(
  row: Pick<SettingsRow, 'max_complaint_rate' | 'max_bounce_rate' | 'min_sample'> | null,
  defaults: GuardrailPolicy,
): GuardrailPolicy {
  return {
    maxComplaintRate: row?.max_complaint_rate ?? defaults.maxComplaintRate,
    maxBounceRate: row?.max_bounce_rate ?? defaults.maxBounceRate,
    minSample: row?.min_sample ?? defaults.minSample,
  };
}

const capOf = (row: SettingsRow | null): MarketingCap | null =>
  row?.marketing_cap_count && row.marketing_cap_days
    ? { count: row.marketing_cap_count, days: row.marketing_cap_days }
    : null;

/** The project's marketing cap, or null when it has none. */
export async function marketingCapOf(ex: Executor, projectId: string): Promise<MarketingCap | null> {
  return capOf(await repo.findSettings(ex, projectId));
}

function toSettings(row: SettingsRow | null, defaults: GuardrailPolicy): CampaignSettings {
  return { guardrails: policyOf(row, defaults), marketingCap: capOf(row) };
}

/** GET /campaign-settings: the settings in force. */
export async function getCampaignSettings(ctx: AppContext, projectId: string): Promise<CampaignSettings> {
  return toSettings(await repo.findSettings(ctx.db, projectId), ctx.config.campaignGuardrails);
}

/**
 * PATCH /campaign-settings: fields left out stay; a guardrail set to null follows the instance's
 * default again; `marketingCap: null` removes the cap. Campaigns already sending use the new
 * thresholds from their next check, and the new cap from their next page of emails.
 */
export async function updateCampaignSettings(
  ctx: AppContext,
  projectId: string,
  patch: CampaignSettingsPatch,
): Promise<CampaignSettings> {
  return ctx.db.transaction(async (tx) => {
    const current = (await repo.findSettings(tx, projectId)) ?? NONE;
    const g = patch.guardrails ?? {};
    const next: SettingsRow = {
      max_complaint_rate: g.maxComplaintRate === undefined ? current.max_complaint_rate : g.maxComplaintRate,
      max_bounce_rate: g.maxBounceRate === undefined ? current.max_bounce_rate : g.maxBounceRate,
      min_sample: g.minSample === undefined ? current.min_sample : g.minSample,
      marketing_cap_count:
        patch.marketingCap === undefined ? current.marketing_cap_count : (patch.marketingCap?.count ?? null),
      marketing_cap_days:
        patch.marketingCap === undefined ? current.marketing_cap_days : (patch.marketingCap?.days ?? null),
    };
    await repo.saveSettings(tx, projectId, next, ctx.clock.now());
    await audit.record(tx, {
      projectId,
      action: 'campaign_settings.updated',
      target: { type: 'campaign_settings', id: null },
      changes: audit.settingsDiff(current, next),
    });
    return toSettings(next, ctx.config.campaignGuardrails);
  });
}
