import { sql } from 'drizzle-orm';
import type { AbTest, AbWinner, VariantFigures } from '../../domain/ab-test.js';
import { type Executor, run } from '../../platform/db/client.js';
import type { CampaignRow } from './repo.js';

/** The queries of a campaign's A/B test: who gets which variant, what each variant's recipients did, the winner. */

/**
 * Draws the test phase from the frozen audience, in the transaction that froze it: the recipients
 * in a random order (a hash of campaign and contact, so the draw is the same if repeated), the first
 * `testPercent` of them dealt to the variants in turn, so each variant gets an equal slice (±1).
 * With no `testPercent` the whole audience is dealt.
 */
export async function drawTestPhase(ex: Executor, campaignId: string, test: AbTest): Promise<void> {
  const variants = test.variants.length;
  const size =
    test.testPercent === null
      ? sql`d.total`
      : sql`least(d.total, greatest(${variants}, round(d.total * ${test.testPercent} / 100.0)))`;
  await run(
    ex,
    sql`
    with drawn as (
      select contact_id, row_number() over (order by md5(contact_id::text || ${campaignId}::text)) - 1 as n,
        count(*) over () as total
      from campaign_recipients where campaign_id = ${campaignId})
    update campaign_recipients r set variant = (d.n % ${variants})::smallint
    from drawn d
    where r.campaign_id = ${campaignId} and r.contact_id = d.contact_id and d.n < ${size}`,
  );
}

interface FiguresRow extends VariantFigures {
  variant: number | null;
  machine: number;
}

/**
 * What each variant's recipients did (index = variant), and the rest's (those sent the winner), with
 * the test phase's opens that were a proxy's prefetch. An open counts as a reader's unless it was a
 * prefetch and no click followed.
 */
export async function variantFigures(
  ex: Executor,
  campaignId: string,
  variants: number,
): Promise<{ variants: VariantFigures[]; rest: VariantFigures; machineOpens: number }> {
  const r = await run<FiguresRow>(
    ex,
    sql`
    select r.variant,
      count(*)::int as recipients,
      count(*) filter (where r.outcome in ('delivered', 'complained'))::int as delivered,
      count(e.opened_at)::int as opened,
      count(*) filter (where e.opened_at is not null
        and (e.machine_open is not true or e.clicked_at is not null))::int as "humanOpened",
      count(e.clicked_at)::int as clicked,
      count(*) filter (where e.machine_open and e.clicked_at is null)::int as machine
    from campaign_recipients r left join emails e on e.id = r.email_id
    where r.campaign_id = ${campaignId}
    group by r.variant`,
  );
  const empty = (): VariantFigures => ({ recipients: 0, delivered: 0, opened: 0, humanOpened: 0, clicked: 0 });
  const figures = Array.from({ length: variants }, empty);
  let rest = empty();
  let machineOpens = 0;
  for (const { variant, machine, ...f } of r.rows) {
    if (variant === null) rest = f;
    else if (variant < variants) {
      figures[variant] = f;
      machineOpens += machine;
    }
  }
  return { variants: figures, rest, machineOpens };
}

/** Records the winner once: null when one was already recorded (by the wait or by hand). */
export async function recordWinner(ex: Executor, campaignId: string, winner: AbWinner): Promise<CampaignRow | null> {
  const r = await run<CampaignRow>(
    ex,
    sql`
    update campaigns set ab_winner = ${JSON.stringify(winner)}::jsonb, updated_at = ${winner.decidedAt}
    where id = ${campaignId} and ab_test is not null and ab_winner is null
      and (ab_test->>'testPercent') is not null and status in ('SENDING', 'PAUSED')
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** The test phase has all its emails: from now the fan-out waits for the winner. */
export async function markTested(ex: Executor, campaignId: string, now: Date): Promise<void> {
  await run(ex, sql`update campaigns set ab_tested_at = ${now} where id = ${campaignId} and ab_tested_at is null`);
}
