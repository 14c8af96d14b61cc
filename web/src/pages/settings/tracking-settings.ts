/** The tracking card's rules: the rows it shows, and what a change asks the API. */
import type { EmailType, TrackingSettings, TrackingSettingsPatch } from '../../../../src/api.js';

export const TRACKING_ROWS: { type: EmailType; label: string; hint: string }[] = [
  { type: 'TRANSACTIONAL', label: 'Transactional', hint: 'Receipts, sign-in links, notices' },
  { type: 'MARKETING', label: 'Marketing', hint: 'Campaigns and newsletters' },
  { type: 'HEADLESS', label: 'Headless', hint: 'Sent exactly as written' },
];

export const TRACKING_FLAGS = [
  { flag: 'opens', label: 'Opens' },
  { flag: 'clicks', label: 'Clicks' },
] as const;

/** The PATCH body with only the flags that differ from the saved settings, or null when none does. */
export function trackingPatch(saved: TrackingSettings, draft: TrackingSettings): TrackingSettingsPatch | null {
  const patch: TrackingSettingsPatch = {};
  for (const { type } of TRACKING_ROWS) {
    for (const { flag } of TRACKING_FLAGS) {
      if (saved[type][flag] !== draft[type][flag]) patch[type] = { ...patch[type], [flag]: draft[type][flag] };
    }
  }
  return Object.keys(patch).length ? patch : null;
}
