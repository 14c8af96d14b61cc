/**
 * The activity feed's state in the URL: `?type=email.opened&contactId=…&campaignId=…&cursor=…`.
 * Contact and campaign filters arrive by links (from a contact's page, say); the type is chosen on
 * the page. Defaults are left out so the whole feed has a clean URL.
 */
import type { ActivityType } from '../../../../src/api.js';
import { TYPE_LABELS } from './activity-words.js';

export interface ActivityFilters {
  type: ActivityType | null;
  contactId: string | null;
  campaignId: string | null;
  cursor: string | null;
}

export const ALL_ACTIVITY: ActivityFilters = { type: null, contactId: null, campaignId: null, cursor: null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOrNull = (v: string | null) => (v && UUID.test(v.trim()) ? v.trim().toLowerCase() : null);

export const isActivityType = (v: string | null): v is ActivityType => v !== null && Object.hasOwn(TYPE_LABELS, v);

export function parseActivityFilters(queryString: string): ActivityFilters {
  const params = new URLSearchParams(queryString);
  const type = params.get('type');
  return {
    type: isActivityType(type) ? type : null,
    // The API refuses an id that is not a UUID; such a link shows the whole feed instead of an error.
    contactId: uuidOrNull(params.get('contactId')),
    campaignId: uuidOrNull(params.get('campaignId')),
    cursor: params.get('cursor') || null,
  };
}

export function activityFiltersToQuery(f: ActivityFilters): string {
  const params = new URLSearchParams();
  if (f.type) params.set('type', f.type);
  if (f.contactId) params.set('contactId', f.contactId);
  if (f.campaignId) params.set('campaignId', f.campaignId);
  if (f.cursor) params.set('cursor', f.cursor);
  return params.toString();
}

/** What `GET /activity` is asked for. */
export function activityApiQuery(f: ActivityFilters, limit: number): Record<string, string | number> {
  return {
    limit,
    ...(f.type ? { type: f.type } : {}),
    ...(f.contactId ? { contactId: f.contactId } : {}),
    ...(f.campaignId ? { campaignId: f.campaignId } : {}),
    ...(f.cursor ? { cursor: f.cursor } : {}),
  };
}

export const isNarrowed = (f: ActivityFilters) => f.type !== null || f.contactId !== null || f.campaignId !== null;

/** A new filter starts again from page one. */
export function withCriteria(f: ActivityFilters, change: Partial<Omit<ActivityFilters, 'cursor'>>) {
  return { filters: { ...f, ...change, cursor: null }, trail: [] };
}
