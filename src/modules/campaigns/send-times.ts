import { sql } from 'drizzle-orm';
import { type SendTimes, sendTimes } from '../../domain/campaign-timing.js';
import { iso } from '../../domain/formats.js';
import { contactZone } from '../../domain/local-time.js';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/http/errors.js';
import { projectTimeZone } from '../projects/service.js';
import { zoneGroups } from './fan-out-repo.js';
import type { CampaignRow } from './repo.js';
import * as repo from './repo.js';
import type { CampaignSendTimes } from './schemas.js';
import { audienceSql, timingOf } from './sending.js';

/**
 * GET /campaigns/{id}/local-time: how many of the audience live in each zone and when their
 * emails go. The database groups the audience by the fields a zone comes from, so only the
 * distinct groups (not a million contacts) reach JavaScript to be given their zone.
 */

/** The moment send times are reckoned from: when sending started, else its schedule, else now. */
function sendMoment(c: CampaignRow, now: Date): Date {
  const at = c.sent_at ?? c.scheduled_for;
  return at ? new Date(at) : now;
}

export async function campaignSendTimes(ctx: AppContext, projectId: string, id: string): Promise<CampaignSendTimes> {
  const c = await repo.findCampaign(ctx.db, projectId, id);
  if (!c) throw notFound('Campaign');
  const now = ctx.clock.now();
  const start = sendMoment(c, now);
  const audience = c.frozen_at ? sql`true` : await audienceSql(ctx.db, c, now);
  const projectZone = await projectTimeZone(ctx.db, c.project_id);
  const times: SendTimes = sendTimes(await zoneGroups(ctx.db, c, audience), timingOf(c), start, (data) =>
    contactZone(data, projectZone),
  );
  return {
    campaignId: c.id,
    from: start.toISOString(),
    total: times.total,
    zones: times.zones.map((z) => ({ zone: z.zone, contacts: z.contacts, sendAt: iso(z.sendAt) })),
    firstSendAt: iso(times.firstSendAt),
    lastSendAt: iso(times.lastSendAt),
  };
}
