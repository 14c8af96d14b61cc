import type { z } from 'zod';
import type { campaigns } from '../../src/api.js';

/** A campaign's counters and rates when nothing was sent: all zero. */
export const NO_CAMPAIGN_FIGURES: z.infer<typeof campaigns.campaignFiguresSchema> = {
  totalRecipients: 0,
  sent: 0,
  delivered: 0,
  opened: 0,
  clicked: 0,
  bounced: 0,
  complained: 0,
  openRate: 0,
  clickRate: 0,
  bounceRate: 0,
};
