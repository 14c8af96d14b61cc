import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// The project's open and click tracking per email type (GET and PATCH /tracking-settings).

const tracking = z.object({
  /** A 1×1 image at the end of the HTML part counts the first open (`email.opened`). */
  opens: z.boolean(),
  /** Links in the HTML part go through the service, which counts each click (`email.clicked`). */
  clicks: z.boolean(),
});

export const trackingSettingsSchema = z.object({
  TRANSACTIONAL: tracking,
  MARKETING: tracking,
  HEADLESS: tracking,
});
export type TrackingSettings = z.infer<typeof trackingSettingsSchema>;

const trackingPatch = z.object({ opens: z.boolean().optional(), clicks: z.boolean().optional() }).strict().optional();

/** A change: types and flags left out stay as they are. */
export const trackingSettingsPatch = z
  .object({ TRANSACTIONAL: trackingPatch, MARKETING: trackingPatch, HEADLESS: trackingPatch })
  .strict();
export type TrackingSettingsPatch = z.infer<typeof trackingSettingsPatch>;
