/** The privacy card's rules apart from React: days as typed, and what a save asks the API. */
import type { PrivacySettings, PrivacySettingsPatch } from '../../../../src/api.js';

export interface PrivacyDraft {
  eventRetentionDays: string;
  emailBodyRetentionDays: string;
  inboundRetentionDays: string;
  keepErasedAddresses: boolean;
}

export const DAY_FIELDS = ['eventRetentionDays', 'emailBodyRetentionDays', 'inboundRetentionDays'] as const;
export type DayField = (typeof DAY_FIELDS)[number];

export function privacyDraft(s: PrivacySettings): PrivacyDraft {
  const text = (n: number | null) => (n === null ? '' : String(n));
  return {
    eventRetentionDays: text(s.eventRetentionDays),
    emailBodyRetentionDays: text(s.emailBodyRetentionDays),
    inboundRetentionDays: text(s.inboundRetentionDays),
    keepErasedAddresses: s.keepErasedAddresses,
  };
}

/** Empty: kept for ever (null); otherwise a whole number of days from 1 to 36,500, or the problem. */
export function parseDays(text: string): { days: number | null } | { problem: string } {
  const t = text.trim();
  if (t === '') return { days: null };
  if (!/^\d+$/.test(t)) return { problem: 'A whole number of days, or empty to keep for ever.' };
  const days = Number(t);
  if (days < 1 || days > 36_500) return { problem: 'From 1 to 36,500 days.' };
  return { days };
}

/** The PATCH body of what changed, the problems of the fields that cannot be saved, or null for nothing. */
export function privacyPatch(
  saved: PrivacySettings,
  draft: PrivacyDraft,
): { patch: PrivacySettingsPatch | null; problems: Partial<Record<DayField, string>> } {
  const patch: PrivacySettingsPatch = {};
  const problems: Partial<Record<DayField, string>> = {};
  for (const field of DAY_FIELDS) {
    const parsed = parseDays(draft[field]);
    if ('problem' in parsed) problems[field] = parsed.problem;
    else if (parsed.days !== saved[field]) patch[field] = parsed.days;
  }
  if (draft.keepErasedAddresses !== saved.keepErasedAddresses) patch.keepErasedAddresses = draft.keepErasedAddresses;
  return { patch: Object.keys(patch).length > 0 && Object.keys(problems).length === 0 ? patch : null, problems };
}
