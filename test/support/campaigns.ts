import { expect } from 'vitest';
import type { Campaign, CampaignRecipient, CampaignStats } from '../../src/api.js';
import { type Client, expectBody, pollUntil } from './server.js';
import type { HookRequest, Receiver } from './webhook-receiver.js';

/** Campaign helpers shared by the campaign test files: audiences by batch, states, recipients, campaign webhooks. */

export type { CampaignRecipient };

/** `n` subscribed contacts with `data.batch` and the addresses `address(i)`. */
export async function batchContacts(
  api: Client,
  batch: string,
  addresses: string[],
): Promise<{ id: string; email: string }[]> {
  const made: { id: string; email: string }[] = [];
  for (const email of addresses) {
    const contact = await expectBody(api.post('/contacts', { email, data: { batch }, subscribed: true }), 201);
    made.push({ id: contact.id, email });
  }
  return made;
}

/** A campaign (MARKETING unless told) to the contacts of `batch`. */
export async function batchCampaign(
  api: Client,
  from: string,
  batch: string,
  overrides: Record<string, unknown> = {},
): Promise<Campaign> {
  const res = await api.post('/campaigns', {
    name: `Campaign ${batch}`,
    subject: 'News',
    body: '<p>News for you</p>',
    from,
    audienceType: 'FILTERED',
    audienceCondition: {
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.batch', operator: 'equals', value: batch }] }],
    },
    ...overrides,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

export async function sendNow(api: Client, id: string): Promise<Campaign> {
  return (await expectBody(api.post(`/campaigns/${id}/send`))).data;
}

export const getCampaign = (api: Client, id: string): Promise<Campaign> => expectBody(api.get(`/campaigns/${id}`));
export const statsOf = (api: Client, id: string): Promise<CampaignStats> =>
  expectBody(api.get(`/campaigns/${id}/stats`));

export function campaignWhen(
  api: Client,
  id: string,
  done: (c: Campaign) => boolean,
  timeoutMs = 30_000,
): Promise<Campaign> {
  return pollUntil(() => getCampaign(api, id), done, timeoutMs);
}

/** Every recipient of the campaign (of `query`, such as `outcome=failed`), walked page by page with the cursor. */
export async function allRecipients(api: Client, id: string, query = '', limit = 100): Promise<CampaignRecipient[]> {
  const all: CampaignRecipient[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: CampaignRecipient[]; cursor: string | null; hasMore: boolean } = await expectBody(
      api.get(
        `/campaigns/${id}/recipients?limit=${limit}${query ? `&${query}` : ''}${cursor ? `&cursor=${cursor}` : ''}`,
      ),
    );
    all.push(...page.data);
    cursor = page.hasMore ? page.cursor : null;
  } while (cursor);
  return all;
}

/** How many recipients have each outcome. */
export function outcomeCounts(recipients: CampaignRecipient[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of recipients) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return counts;
}

/**
 * The counters and the recipient list agree: delivered and complained recipients are the delivered
 * count, bounced and failed ones the bounced count, skipped ones the skipped count, queued ones
 * `pending`, and together the frozen audience.
 */
export async function expectCountersAgree(api: Client, id: string): Promise<void> {
  const [stats, recipients] = await Promise.all([statsOf(api, id), allRecipients(api, id)]);
  const n = outcomeCounts(recipients);
  const of = (...outcomes: string[]) => outcomes.reduce((sum, o) => sum + (n[o] ?? 0), 0);
  expect(recipients.length).toBe(stats.totalRecipients);
  expect({
    delivered: of('delivered', 'complained'),
    bounced: of('bounced', 'failed'),
    skipped: of('skipped'),
    pending: of('queued'),
    total: of('queued', 'delivered', 'complained', 'bounced', 'failed', 'skipped'),
  }).toEqual({
    delivered: stats.delivered,
    bounced: stats.bounced,
    skipped: stats.skipped,
    pending: stats.pending,
    total: stats.totalRecipients,
  });
}

/** A webhook's body, as the receiver got it. */
export interface HookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown> & { campaignId?: string };
}

/** The campaign events of `campaignId` a receiver got at `path`, in order. */
export function campaignHooks(hooks: Receiver, path: string, campaignId: string, type?: string): HookBody[] {
  return hooks
    .to(path)
    .map((r: HookRequest) => JSON.parse(r.body) as HookBody)
    .filter((b) => b.data.campaignId === campaignId && (type === undefined || b.type === type));
}
