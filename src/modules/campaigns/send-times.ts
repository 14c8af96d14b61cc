import { type SQL, sql } from 'drizzle-orm';
import { type SendTimes, sendTimes, type ZoneFields } from '../../domain/campaign-timing.js';
import { iso } from '../../domain/formats.js';
import { contactZone } from '../../domain/local-time.js';
import type { AppContext } from '../../platform/context.js';
import { type Executor, run } from '../../platform/db/client.js';
import { notFound } from '../../platform/http/errors.js';
import { projectTimeZone } from '../projects/service.js';
import { MARKETING_RECIPIENT } from '../segments/audience.js';
import type { CampaignRow } from './repo.js';
import * as repo from './repo.js';
import type { CampaignSendTimes } from './schemas.js';
import { audienceSql, timingOf } from './sending.js';

/**
 * GET /campaigns/{id}/local-time: how many of the audience live in each zone and when their
 * emails go. The database groups the audience by the fields a zone comes from, so only the
 * distinct groups (not a million contacts) reach JavaScript to be given their zone.
 */

/** A contact field as a string, as `contactZone` reads it (any other JSON type names nothing). */
const field = (name: 'timezone' | 'country' | 'locale') =>
  sql.raw(`case when jsonb_typeof(c.data->'${name}') = 'string' then c.data->>'${name}' end`);

async function zoneGroups(ex: Executor, c: CampaignRow, audience: SQL): Promise<ZoneFields[]> {
  // Once frozen, the recipients are the audience; before, whoever matches now.
  const from = c.frozen_at
    ? sql`campaign_recipients r join contacts c on c.id = r.contact_id where r.campaign_id = ${c.id}`
    : sql`contacts c where c.project_id = ${c.project_id} and (${audience})${
        c.type === 'MARKETING' ? sql` and ${MARKETING_RECIPIENT}` : sql``
      }`;
  const r = await run<ZoneFields>(
    ex,
    sql`
    select ${field('timezone')} as timezone, ${field('country')} as country, ${field('locale')} as locale,
      count(*)::int as contacts
    from ${from}
    group by 1, 2, 3`,
  );
  return r.rows;
}

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
